// gpu_dirac_solver.cc: the GPU DiracSolver (dirac_solver.h): host fields in and out, the even-odd solve on
// the device through gpu/spec_solver.h, links uploaded once per layout, the clover term (Wilson-clover
// actions) built once per action and configuration (on the gauge-fixed links for gauge-fixed solves), and the
// CloverCache the partitioned solver shares (dirac_solver_internal.h).
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/dirac_solver_internal.h"
#include "gpu/comm/subdomain.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/clover.h"
#include "solvers/spec_solve.h"

namespace lqcd::experiments::internal {
namespace {

// Identifies a clover term: the action's parameters at full precision (two actions with the same key have
// the same T(n) on the same links).
std::string CloverKey(const FermionAction& action) {
  std::ostringstream key;
  key.precision(17);
  key << action.mass << " " << action.c_sw << " " << action.Describe();
  return key.str();
}

}  // namespace

gpu::GpuCloverTerms& CloverCache::For(const GaugeField<double>& u, const FermionAction& action) {
  const std::string key = CloverKey(action);
  if (!terms_ || key != key_) {
    terms_.reset();  // frees the device memory of the previous action first
    if (communicator_) {
      terms_ = std::make_unique<gpu::GpuCloverTerms>(comm::ScatterClover(
          CloverField<double>(u, action.clover_params()), communicator_->grid(), communicator_->rank()));
    } else {
      terms_ = std::make_unique<gpu::GpuCloverTerms>(u, action.clover_params());
    }
    key_ = key;
  }
  return *terms_;
}

namespace {

class GpuDiracSolver : public DiracSolver {
 public:
  GpuDiracSolver(const GaugeField<double>& u, VerifyOn verify)
      : u_(u), verify_(verify == VerifyOn::kHost ? VerifyOn::kHost : VerifyOn::kDevice), links_(u, false) {}

  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuCapabilities(), action.clover());
    RequireSystemFields(u_, b, x);
    const Lattice& lattice = u_.lattice();
    gpu::GpuSpinorField<double> b_device(lattice, Subset::kFull), x_device(lattice, Subset::kFull);
    SolveOutcome out;
    if (spec.temporal_gauge) FixedLinks();
    gpu::GpuGaugeLinks& links = spec.temporal_gauge ? *fixed_links_ : links_;
    const Stopwatch upload;
    UploadSystemField(b_device, b, spec, action);
    if (!IsZero(x)) UploadSystemField(x_device, x, spec, action);  // a new device field is zero already
    out.transfer_seconds = upload.Seconds();
    out.result = action.clover()
                     ? gpu::SolveWithSpecOnGpu(spec, links, CloverTerms(spec, action), action.schur_form, x_device,
                                               b_device)
                     : gpu::SolveWithSpecOnGpu(spec, links, action.wilson(), x_device, b_device);
    const Stopwatch download;
    DownloadSystemField(x_device, x, spec, action);
    out.transfer_seconds += download.Seconds();
    out.verified_on = verify_;
    // Without gauge fixing the device fields still hold b and the x just downloaded (the solvers never write b).
    const Stopwatch check;
    out.true_residual = TrueResidual(action, b, x, spec.temporal_gauge ? nullptr : &b_device,
                                     spec.temporal_gauge ? nullptr : &x_device);
    out.check_seconds = check.Seconds();
    return out;
  }

  bool SolvesAsBlock(const FermionAction& action, const solvers::SolverSpec& spec) const override {
    static_cast<void>(action);  // Wilson and clover: both Schur operators apply to a block (multi-RHS kernels)
    static_cast<void>(spec);    // every spec has a block form (solvers/spec_solve.h)
    return true;
  }

  std::vector<SolveOutcome> SolveBlock(const FermionAction& action, const solvers::SolverSpec& spec,
                                       const std::vector<const SpinorField<double>*>& b,
                                       const std::vector<SpinorField<double>*>& x) override {
    RequireBlockShapes(b, x);
    if (!SolvesAsBlock(action, spec) || b.size() == 1) return DiracSolver::SolveBlock(action, spec, b, x);
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuCapabilities(), action.clover());
    for (std::size_t k = 0; k < b.size(); ++k) RequireSystemFields(u_, *b[k], *x[k]);
    const Lattice& lattice = u_.lattice();
    if (spec.temporal_gauge) FixedLinks();
    std::vector<gpu::GpuSpinorField<double>> b_device, x_device;
    std::vector<SolveOutcome> out(b.size());
    for (std::size_t k = 0; k < b.size(); ++k) {
      const Stopwatch upload;
      b_device.emplace_back(lattice, Subset::kFull);
      x_device.emplace_back(lattice, Subset::kFull);
      UploadSystemField(b_device.back(), *b[k], spec, action);
      if (!IsZero(*x[k])) UploadSystemField(x_device.back(), *x[k], spec, action);
      out[k].transfer_seconds = upload.Seconds();
    }
    gpu::GpuGaugeLinks& links = spec.temporal_gauge ? *fixed_links_ : links_;
    const std::vector<solvers::SolveResult> results =
        action.clover()
            ? gpu::SolveBlockWithSpecOnGpu(spec, links, CloverTerms(spec, action), action.schur_form, x_device, b_device)
            : gpu::SolveBlockWithSpecOnGpu(spec, links, action.wilson(), x_device, b_device);
    for (std::size_t k = 0; k < b.size(); ++k) {
      const Stopwatch download;
      DownloadSystemField(x_device[k], *x[k], spec, action);
      out[k].transfer_seconds += download.Seconds();
      out[k].result = results[k];
      out[k].verified_on = verify_;
      const Stopwatch check;
      out[k].true_residual = TrueResidual(action, *b[k], *x[k], spec.temporal_gauge ? nullptr : &b_device[k],
                                          spec.temporal_gauge ? nullptr : &x_device[k]);
      out[k].check_seconds = check.Seconds();
    }
    return out;
  }

  BackendKind backend() const override { return BackendKind::kGpu; }

 private:
  // The temporal-gauge-fixed copy of the links and its device links, made on first use.
  void FixedLinks() {
    if (!fixed_) {
      fixed_ = std::make_unique<TemporalGaugeCopy>(u_);
      fixed_links_ = std::make_unique<gpu::GpuGaugeLinks>(fixed_->links(), true);
    }
  }

  // A host field (in the action's basis) into the device field of the system `spec` solves: G psi on the
  // temporal-gauge-fixed links (FixedLinks() first), psi itself otherwise; and the solution back.
  void UploadSystemField(gpu::GpuSpinorField<double>& device, const SpinorField<double>& psi,
                         const solvers::SolverSpec& spec, const FermionAction& action) const {
    if (spec.temporal_gauge) {
      device.Upload(fixed_->ToFixed(psi), action.basis);
    } else {
      device.Upload(psi, action.basis);
    }
  }
  // The solution goes straight into the caller's psi (no new whole-lattice host field) unless it must be
  // transformed back from the gauge-fixed links.
  void DownloadSystemField(const gpu::GpuSpinorField<double>& device, SpinorField<double>& psi,
                           const solvers::SolverSpec& spec, const FermionAction& action) const {
    if (spec.temporal_gauge) {
      psi = fixed_->FromFixed(device.Download(action.basis));
    } else {
      device.Download(psi, action.basis);
    }
  }

  // The clover term of `action` on the links `spec` solves with (the gauge-fixed ones for '/gf').
  gpu::GpuCloverTerms& CloverTerms(const solvers::SolverSpec& spec, const FermionAction& action) {
    return spec.temporal_gauge ? fixed_clover_.For(fixed_->links(), action) : clover_.For(u_, action);
  }

  // |b - M x| / |b| of the returned x, where verify_ says: on the host with the reference operators, or on the
  // device in double with a double/18 operator on the original links (independent of the solve's operators,
  // its gauge fixing and its link layout). b_device and x_device, where given, already hold b and x.
  double TrueResidual(const FermionAction& action, const SpinorField<double>& b, const SpinorField<double>& x,
                      const gpu::GpuSpinorField<double>* b_device, const gpu::GpuSpinorField<double>* x_device) {
    if (verify_ == VerifyOn::kHost) return ReferenceResidual(u_, action, x, b);
    std::unique_ptr<gpu::GpuSpinorField<double>> b_up, x_up;
    if (b_device == nullptr || x_device == nullptr) {
      b_up = std::make_unique<gpu::GpuSpinorField<double>>(u_.lattice(), Subset::kFull);
      x_up = std::make_unique<gpu::GpuSpinorField<double>>(u_.lattice(), Subset::kFull);
      b_up->Upload(b, action.basis);
      x_up->Upload(x, action.basis);
      b_device = b_up.get();
      x_device = x_up.get();
    }
    return action.clover()
               ? DeviceResidual(gpu::GpuClover<double>(links_.Get<double>(18), clover_.For(u_, action).Get<double>()),
                                *b_device, *x_device)
               : DeviceResidual(gpu::GpuWilson<double>(links_.Get<double>(18), action.wilson()), *b_device, *x_device);
  }

  const GaugeField<double>& u_;
  VerifyOn verify_;
  gpu::GpuGaugeLinks links_;
  std::unique_ptr<TemporalGaugeCopy> fixed_;
  std::unique_ptr<gpu::GpuGaugeLinks> fixed_links_;
  CloverCache clover_, fixed_clover_;  // on u_ and on the gauge-fixed links
};

}  // namespace

std::unique_ptr<DiracSolver> MakeGpuDiracSolver(const GaugeField<double>& u, VerifyOn verify) {
  return std::make_unique<GpuDiracSolver>(u, verify);
}

}  // namespace lqcd::experiments::internal
