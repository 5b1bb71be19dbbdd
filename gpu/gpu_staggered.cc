#include "gpu/gpu_staggered.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/block_reliable_update.h"
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
  ApplyBlock({&out}, {&in});
}

template <typename P>
void GpuStaggeredSchur<P>::ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
  solvers::block_detail::CheckBlock(out, in, Name() + "::ApplyBlock");
  for (std::size_t k = 0; k < in.size(); ++k) {
    for (const Field* f : {static_cast<const Field*>(out[k]), in[k]}) {
      if (f->lattice() != links_->lattice() || f->parity() != parity_) {
        throw std::invalid_argument("GpuStaggeredSchur::ApplyBlock: needs " + std::string(ToString(SubsetOf(parity_))) +
                                    "-parity fields on " + links_->lattice().ToString());
      }
    }
  }
  while (t_.size() < std::min<std::size_t>(in.size(), kMaxStaggeredRhs)) {
    t_.push_back(
        std::make_unique<DeviceColourVectorField>(links_->lattice(), Opposite(parity_), StaggeredPrecisionOf<P>()));
  }
  const double four_m2 = 4 * params_.mass * params_.mass;
  for (std::size_t first = 0; first < in.size(); first += kMaxStaggeredRhs) {
    const std::size_t n = std::min<std::size_t>(kMaxStaggeredRhs, in.size() - first);
    std::vector<DeviceColourVectorField*> t, o;
    std::vector<const DeviceColourVectorField*> i, t_in;
    for (std::size_t k = 0; k < n; ++k) {
      t.push_back(t_[k].get());
      t_in.push_back(t_[k].get());
      o.push_back(&out[first + k]->device());
      i.push_back(&in[first + k]->device());
    }
    ApplyStaggeredDslashBlock(t, *links_, i, params_.boundary);                            // t = D_{p',p} in
    ApplyStaggeredDslashXpayBlock(o, *links_, t_in, i, four_m2, -1.0, params_.boundary);  // 4m^2 in - D_{p,p'} t
  }
}

template <typename P>
double GpuStaggeredSchur<P>::BytesPerApply(int n) const {
  if (n < 1) throw std::invalid_argument("GpuStaggeredSchur::BytesPerApply: n must be >= 1");
  double bytes = 0;
  for (int first = 0; first < n; first += kMaxStaggeredRhs) {
    const int m = std::min(kMaxStaggeredRhs, n - first);
    bytes += 2 * StaggeredDslashKernelCost(*links_, m).bytes;  // the two Dslash calls
  }
  // The xpay reads in once more: 48, 24 or 16 bytes per site (half: the levels and the norm).
  return bytes + n * static_cast<double>(ColourVectorBytes(StaggeredPrecisionOf<P>(), 1)) *
                     links_->lattice().half_volume();
}

template <typename P>
std::string GpuStaggeredSchur<P>::Name() const {
  return std::string("M_") + (parity_ == Parity::kEven ? "ee" : "oo") + "(staggered, device)<" +
         solvers::PrecisionTraits<P>::kName + ">";
}

template class GpuStaggeredSchur<double>;
template class GpuStaggeredSchur<float>;
template class GpuStaggeredSchur<solvers::Half>;

namespace {

// The Schur solve on the even sites (block CG in double, or the block reliable-update CG with its iterations in
// the inner links' precision).
solvers::BlockSolveResult SolveSchur(const GpuStaggeredSchur<double>& op,
                                     const std::shared_ptr<const DeviceStaggeredLinks>& inner_links,
                                     std::vector<GpuColourVectorField<double>>& x_e,
                                     const std::vector<GpuColourVectorField<double>>& b_e,
                                     const solvers::SolverParams& solver, const std::vector<double>& tolerances) {
  if (inner_links == nullptr) return solvers::BlockCg(op, x_e, b_e, solver, tolerances);
  if (inner_links->precision() == Precision::kSingle) {
    const GpuStaggeredSchur<float> inner(inner_links, op.params(), op.parity());
    return solvers::BlockReliableCg(op, inner, x_e, b_e, solver, tolerances);
  }
  const GpuStaggeredSchur<solvers::Half> inner(inner_links, op.params(), op.parity());
  return solvers::BlockReliableCg(op, inner, x_e, b_e, solver, tolerances);
}

}  // namespace

solvers::StaggeredSolve SolveStaggeredEvenOddOnGpu(std::shared_ptr<const DeviceStaggeredLinks> device_links,
                                                   const StaggeredLinks<double>& links, const StaggeredParams& params,
                                                   const ColourVectorField<double>& b,
                                                   const solvers::SolverParams& solver,
                                                   std::shared_ptr<const DeviceStaggeredLinks> inner_links) {
  // A block of one: block CG and block reliable CG run each system through exactly the single solver's
  // operations (solvers/block_cg.h, block_reliable_update.h).
  return SolveStaggeredEvenOddBlockOnGpu(std::move(device_links), links, params, {b}, solver,
                                         std::move(inner_links))[0];
}

std::vector<solvers::StaggeredSolve> SolveStaggeredEvenOddBlockOnGpu(
    std::shared_ptr<const DeviceStaggeredLinks> device_links, const StaggeredLinks<double>& links,
    const StaggeredParams& params, const std::vector<ColourVectorField<double>>& b,
    const solvers::SolverParams& solver, std::shared_ptr<const DeviceStaggeredLinks> inner_links) {
  solvers::RequireStaggeredMass(params.mass, "SolveStaggeredEvenOddBlockOnGpu");
  if (b.empty()) throw std::invalid_argument("SolveStaggeredEvenOddBlockOnGpu: no sources");
  for (const auto& bk : b) solvers::pbp_detail::RequireFullSource(links, bk, "SolveStaggeredEvenOddBlockOnGpu");
  const auto holds = [&](const DeviceStaggeredLinks& d) {
    return d.lattice() == links.lattice() && d.improved() == links.long_links.has_value();
  };
  if (device_links == nullptr || !holds(*device_links) || device_links->precision() != Precision::kDouble) {
    throw std::invalid_argument("SolveStaggeredEvenOddBlockOnGpu: the device links must be `links` in double");
  }
  if (inner_links != nullptr) {
    if (inner_links->precision() == Precision::kDouble) {
      throw std::invalid_argument("SolveStaggeredEvenOddBlockOnGpu: the inner links of a reliable-update solve must "
                                  "be single or half precision (without inner links the solve is CG in double)");
    }
    if (!holds(*inner_links)) {
      throw std::invalid_argument(std::string("SolveStaggeredEvenOddBlockOnGpu: the inner links must be `links` in ") +
                                  ToString(inner_links->precision()) + " precision (same lattice, same long links)");
    }
  }
  const Lattice& lattice = links.lattice();
  const GpuStaggeredSchur<double> op(device_links, params, Parity::kEven);
  std::vector<GpuColourVectorField<double>> b_e, x_e, b_o;
  std::vector<double> tolerances;
  for (const auto& bk : b) {
    GpuColourVectorField<double> even(lattice, Parity::kEven), odd(lattice, Parity::kOdd);
    even.Upload(Extract(bk, Parity::kEven));
    odd.Upload(Extract(bk, Parity::kOdd));
    b_e.emplace_back(lattice, Parity::kEven);
    // b'_e = 2m b_e - D_eo b_o
    ApplyStaggeredDslashXpay(b_e.back().device(), *device_links, odd.device(), even.device(), 2 * params.mass, -1.0,
                             params.boundary);
    tolerances.push_back(solvers::pbp_detail::SchurTolerance(std::sqrt(staggered_blas::Norm2(b_e.back().device())),
                                                             std::sqrt(Norm2(bk)), params.mass, solver));
    b_o.push_back(std::move(odd));
    x_e.emplace_back(lattice, Parity::kEven);
  }
  const solvers::BlockSolveResult result = SolveSchur(op, inner_links, x_e, b_e, solver, tolerances);
  std::vector<solvers::StaggeredSolve> out;
  const double inverse_2m = 1 / (2 * params.mass);
  for (std::size_t k = 0; k < b.size(); ++k) {
    GpuColourVectorField<double> x_o(lattice, Parity::kOdd);
    // x_o = (b_o - D_oe x_e) / (2m)
    ApplyStaggeredDslashXpay(x_o.device(), *device_links, x_e[k].device(), b_o[k].device(), inverse_2m, -inverse_2m,
                             params.boundary);
    out.push_back(solvers::StaggeredSolve{ColourVectorField<double>(lattice), result.systems[k], 0});
    Insert(out.back().x, x_e[k].Download());
    Insert(out.back().x, x_o.Download());
    out.back().full_residual = solvers::pbp_detail::FullResidual(links, params, out.back().x, b[k]);
  }
  return out;
}

}  // namespace lqcd::gpu
