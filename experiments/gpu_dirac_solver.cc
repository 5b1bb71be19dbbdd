// gpu_dirac_solver.cc: the GPU DiracSolver (dirac_solver.h): host fields in and out, the even-odd solve on
// the device through gpu/spec_solver.h, links uploaded once per layout.
#include <cmath>
#include <memory>
#include <stdexcept>

#include "experiments/dirac_solver.h"
#include "experiments/dirac_solver_internal.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"

namespace lqcd::experiments::internal {
namespace {

bool IsZero(const SpinorField<double>& x) {
  for (int i = 0; i < x.sites(); ++i) {
    if (!x[i].isZero(0)) return false;
  }
  return true;
}

class GpuDiracSolver : public DiracSolver {
 public:
  GpuDiracSolver(const GaugeField<double>& u, VerifyOn verify)
      : u_(u), verify_(verify == VerifyOn::kHost ? VerifyOn::kHost : VerifyOn::kDevice), links_(u, false) {}

  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuCapabilities(), action.clover());
    RequireSystemFields(u_, b, x);
    const WilsonParams params = action.wilson();
    const Lattice& lattice = u_.lattice();
    gpu::GpuSpinorField<double> b_device(lattice, Subset::kFull), x_device(lattice, Subset::kFull);
    SolveOutcome out;
    if (spec.temporal_gauge) {
      if (!fixed_) {
        fixed_ = std::make_unique<TemporalGaugeCopy>(u_);
        fixed_links_ = std::make_unique<gpu::GpuGaugeLinks>(fixed_->links(), true);
      }
      b_device.Upload(fixed_->ToFixed(b), action.basis);
      if (!IsZero(x)) x_device.Upload(fixed_->ToFixed(x), action.basis);
      out.result = gpu::SolveWithSpecOnGpu(spec, *fixed_links_, params, x_device, b_device);
      x = fixed_->FromFixed(x_device.Download(action.basis));
    } else {
      b_device.Upload(b, action.basis);
      if (!IsZero(x)) x_device.Upload(x, action.basis);  // a new device field is zero already
      out.result = gpu::SolveWithSpecOnGpu(spec, links_, params, x_device, b_device);
      x = x_device.Download(action.basis);
    }
    out.verified_on = verify_;
    if (verify_ == VerifyOn::kHost) {
      out.true_residual = ReferenceResidual(u_, action, x, b);
      return out;
    }
    // On the device in double with a double/18 operator on the original links: independent of the solve's
    // operators, its gauge fixing and its link layout. Without gauge fixing the device fields still hold b
    // and the x just downloaded (the solvers never write b); with it, b and the back-transformed x go up.
    if (spec.temporal_gauge) {
      b_device.Upload(b, action.basis);
      x_device.Upload(x, action.basis);
    }
    const gpu::GpuWilson<double> m(links_.Get<double>(18), params);
    gpu::GpuSpinorField<double> r(lattice, Subset::kFull);
    m.Apply(r, x_device);
    gpu::GpuBackend::Axpy(-1.0, b_device, r);  // r = M x - b
    out.true_residual = std::sqrt(gpu::GpuBackend::Norm2(r) / gpu::GpuBackend::Norm2(b_device));
    return out;
  }
  BackendKind backend() const override { return BackendKind::kGpu; }

 private:
  const GaugeField<double>& u_;
  VerifyOn verify_;
  gpu::GpuGaugeLinks links_;
  std::unique_ptr<TemporalGaugeCopy> fixed_;
  std::unique_ptr<gpu::GpuGaugeLinks> fixed_links_;
};

}  // namespace

std::unique_ptr<DiracSolver> MakeGpuDiracSolver(const GaugeField<double>& u, VerifyOn verify) {
  return std::make_unique<GpuDiracSolver>(u, verify);
}

}  // namespace lqcd::experiments::internal
