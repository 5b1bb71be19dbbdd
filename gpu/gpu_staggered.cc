#include "gpu/gpu_staggered.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/cg.h"
#include "solvers/precision.h"

namespace lqcd::gpu {

template <typename P>
GpuStaggeredSchur<P>::GpuStaggeredSchur(std::shared_ptr<const DeviceStaggeredLinks> links,
                                        const StaggeredParams& params, Parity parity)
    : links_(std::move(links)), params_(params), parity_(parity) {
  if (links_ == nullptr) throw std::invalid_argument("GpuStaggeredSchur: no links");
  solvers::RequireStaggeredMass(params_.mass, "GpuStaggeredSchur");
  if (links_->precision() != StaggeredPrecisionOf<P>()) {
    throw std::invalid_argument(std::string("GpuStaggeredSchur: ") + ToString(links_->precision()) + " links for a " +
                                ToString(StaggeredPrecisionOf<P>()) + " operator");
  }
}

template <typename P>
void GpuStaggeredSchur<P>::Apply(Field& out, const Field& in) const {
  if (&out == &in) throw std::invalid_argument("GpuStaggeredSchur: out and in must be different fields");
  for (const Field* f : {static_cast<const Field*>(&out), &in}) {
    if (f->lattice() != links_->lattice() || f->parity() != parity_) {
      throw std::invalid_argument("GpuStaggeredSchur::Apply: needs " + std::string(ToString(SubsetOf(parity_))) +
                                  "-parity fields on " + links_->lattice().ToString());
    }
  }
  if (t_ == nullptr) {
    t_ = std::make_unique<DeviceColourVectorField>(links_->lattice(), Opposite(parity_), StaggeredPrecisionOf<P>());
  }
  ApplyStaggeredDslash(*t_, *links_, in.device(), params_.boundary);                       // t = D_{p',p} in
  const double four_m2 = 4 * params_.mass * params_.mass;
  ApplyStaggeredDslashXpay(out.device(), *links_, *t_, in.device(), four_m2, -1.0, params_.boundary);  // 4m^2 in - D t
}

template <typename P>
std::string GpuStaggeredSchur<P>::Name() const {
  return std::string("M_") + (parity_ == Parity::kEven ? "ee" : "oo") + "(staggered, device)<" +
         solvers::PrecisionTraits<P>::kName + ">";
}

template class GpuStaggeredSchur<double>;
template class GpuStaggeredSchur<float>;

solvers::StaggeredSolve SolveStaggeredEvenOddOnGpu(std::shared_ptr<const DeviceStaggeredLinks> device_links,
                                                   const StaggeredLinks<double>& links, const StaggeredParams& params,
                                                   const ColourVectorField<double>& b,
                                                   const solvers::SolverParams& solver) {
  solvers::RequireStaggeredMass(params.mass, "SolveStaggeredEvenOddOnGpu");
  solvers::pbp_detail::RequireFullSource(links, b, "SolveStaggeredEvenOddOnGpu");
  if (device_links == nullptr || device_links->lattice() != links.lattice() ||
      device_links->precision() != Precision::kDouble || device_links->improved() != links.long_links.has_value()) {
    throw std::invalid_argument("SolveStaggeredEvenOddOnGpu: the device links must be `links` in double");
  }
  const Lattice& lattice = links.lattice();
  const GpuStaggeredSchur<double> op(device_links, params, Parity::kEven);
  GpuColourVectorField<double> b_e(lattice, Parity::kEven), b_o(lattice, Parity::kOdd);
  b_e.Upload(Extract(b, Parity::kEven));
  b_o.Upload(Extract(b, Parity::kOdd));
  GpuColourVectorField<double> source(lattice, Parity::kEven), x_e(lattice, Parity::kEven), x_o(lattice, Parity::kOdd);
  // b'_e = 2m b_e - D_eo b_o
  ApplyStaggeredDslashXpay(source.device(), *device_links, b_o.device(), b_e.device(), 2 * params.mass, -1.0,
                           params.boundary);
  solvers::SolverParams schur_params = solver;
  schur_params.tolerance = solvers::pbp_detail::SchurTolerance(std::sqrt(staggered_blas::Norm2(source.device())),
                                                               std::sqrt(Norm2(b)), params.mass, solver);
  solvers::StaggeredSolve out{ColourVectorField<double>(lattice), solvers::SolveResult{}, 0};
  out.schur = solvers::ConjugateGradient(op, x_e, source, schur_params);
  // x_o = (b_o - D_oe x_e) / (2m)
  const double inverse_2m = 1 / (2 * params.mass);
  ApplyStaggeredDslashXpay(x_o.device(), *device_links, x_e.device(), b_o.device(), inverse_2m, -inverse_2m,
                           params.boundary);
  Insert(out.x, x_e.Download());
  Insert(out.x, x_o.Download());
  out.full_residual = solvers::pbp_detail::FullResidual(links, params, out.x, b);
  return out;
}

}  // namespace lqcd::gpu
