#include "gpu/gpu_staggered.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "gpu/blas.h"
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
  RequireFields({&out, &in}, "Apply");
  ApplyBlock({&out}, {&in});
}

// out[k] = M_pp in[k], in chunks of at most 16 right-hand sides.
template <typename P>
void GpuStaggeredSchur<P>::ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
  solvers::block_detail::CheckBlock(out, in, Name() + "::ApplyBlock");
  RequireFields(std::vector<const Field*>(out.begin(), out.end()), "ApplyBlock");
  RequireFields(in, "ApplyBlock");
  GrowScratch(in.size());
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
    ApplyStaggeredDslashBlock(t, *links_, i, params_.boundary);                          // t = D_{p',p} in
    ApplyStaggeredDslashXpayBlock(o, *links_, t_in, i, four_m2, -1.0, params_.boundary);  // 4m^2 in - D_{p,p'} t
  }
}

template <typename P>
void GpuStaggeredSchur<P>::GrowScratch(std::size_t n) const {
  while (t_.size() < std::min<std::size_t>(n, kMaxStaggeredRhs)) {
    t_.push_back(
        std::make_unique<DeviceColourVectorField>(links_->lattice(), Opposite(parity_), StaggeredPrecisionOf<P>()));
  }
}

template <typename P>
void GpuStaggeredSchur<P>::RequireFields(const std::vector<const Field*>& fields, const std::string& where) const {
  for (const Field* f : fields) {
    if (f == nullptr) throw std::invalid_argument(Name() + "::" + where + ": a null field");
    if (f->lattice() != links_->lattice() || f->parity() != parity_) {
      throw std::invalid_argument("GpuStaggeredSchur::" + where + ": needs " +
                                  std::string(ToString(SubsetOf(parity_))) + "-parity fields on " +
                                  links_->lattice().ToString());
    }
  }
}

// The two Dslash calls of M = 4m^2 - D_{p,p'} D_{p',p} on p_k with CG's step fused into them, per chunk of at most
// 16 right-hand sides: t = D_{p',p} p with the sums of |t|^2 + 4m^2 |p|^2 = (p, M p), their sums (device slots),
// then r_k += -(rr_k / (p_k, M p_k)) (4m^2 p_k - D_{p,p'} t_k) with |r_k|^2.
template <typename P>
std::vector<solvers::CurvatureUpdate<DeviceReal>> GpuStaggeredSchur<P>::FusedCurvatureUpdates(
    const std::vector<const Field*>& p, const std::vector<Field*>& r, const std::vector<double>& rr) const {
  const std::string where = "ApplyCurvatureUpdateBlock";
  if (p.empty() || r.size() != p.size() || rr.size() != p.size()) {
    throw std::invalid_argument(Name() + "::" + where + ": " + std::to_string(p.size()) + " directions, " +
                                std::to_string(r.size()) + " residuals and " + std::to_string(rr.size()) +
                                " residual norms: need as many of each, at least one");
  }
  RequireFields(p, where);
  RequireFields(std::vector<const Field*>(r.begin(), r.end()), where);
  for (std::size_t k = 0; k < r.size(); ++k) {
    for (std::size_t j = 0; j < p.size(); ++j) {
      if (r[k] == p[j]) throw std::invalid_argument(Name() + "::" + where + ": a residual is also a direction");
      if (j != k && r[j] == r[k]) throw std::invalid_argument(Name() + "::" + where + ": a residual appears twice");
    }
  }
  GrowScratch(p.size());
  const double four_m2 = 4 * params_.mass * params_.mass;
  const int chunks = StaggeredCurvatureChunks(*links_);
  const std::size_t bytes =
      sizeof(double) * static_cast<std::size_t>(chunks) * std::min<std::size_t>(p.size(), kMaxStaggeredRhs);
  if (!partials_ || partials_->bytes() < bytes) partials_ = std::make_unique<DeviceBuffer>(bytes);
  double* partials = static_cast<double*>(partials_->data());
  std::vector<solvers::CurvatureUpdate<DeviceReal>> steps;
  for (std::size_t first = 0; first < p.size(); first += kMaxStaggeredRhs) {
    const std::size_t n = std::min<std::size_t>(kMaxStaggeredRhs, p.size() - first);
    std::vector<DeviceColourVectorField*> t, r_dev;
    std::vector<const DeviceColourVectorField*> p_dev, t_in;
    std::vector<double> rr_here;
    for (std::size_t k = 0; k < n; ++k) {
      t.push_back(t_[k].get());
      t_in.push_back(t_[k].get());
      p_dev.push_back(&p[first + k]->device());
      r_dev.push_back(&r[first + k]->device());
      rr_here.push_back(rr[first + k]);
    }
    ApplyStaggeredDslashNormBlock(t, *links_, p_dev, four_m2, params_.boundary, partials);
    // Queued before the second Dslash overwrites the partials (one stream); the slots live in the returned values.
    const blas::RealSumsOnDevice curvatures =
        blas::SumRealPartialsOfRangesOnDevice(partials, chunks, static_cast<int>(n));
    ApplyStaggeredDslashXpayAxpyNormBlock(r_dev, *links_, t_in, p_dev, four_m2, -1.0, rr_here,
                                          curvatures.device_addresses, params_.boundary, partials);
    const std::vector<DeviceReal> norms = blas::SumRealPartialsOfRanges(partials, chunks, static_cast<int>(n));
    for (std::size_t k = 0; k < n; ++k) {
      const DeviceReal& pAp = curvatures.values[k];
      steps.push_back({pAp, DeviceReal(rr_here[k]) / pAp, norms[k]});
    }
  }
  return steps;
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

// The checks of every even-odd solve: double device links (of `lattice`, with long links iff `improved`) and
// inner links, if any, in single or half holding the same links.
void RequireSolveLinks(const std::shared_ptr<const DeviceStaggeredLinks>& device_links,
                       const std::shared_ptr<const DeviceStaggeredLinks>& inner_links, const Lattice& lattice,
                       bool improved, const char* where) {
  const auto holds = [&](const DeviceStaggeredLinks& d) { return d.lattice() == lattice && d.improved() == improved; };
  if (device_links == nullptr || !holds(*device_links) || device_links->precision() != Precision::kDouble) {
    throw std::invalid_argument(std::string(where) + ": the device links must be `links` in double");
  }
  if (inner_links != nullptr) {
    if (inner_links->precision() == Precision::kDouble) {
      throw std::invalid_argument(std::string(where) + ": the inner links of a reliable-update solve must be single "
                                  "or half precision (without inner links the solve is CG in double)");
    }
    if (!holds(*inner_links)) {
      throw std::invalid_argument(std::string(where) + ": the inner links must be `links` in " +
                                  ToString(inner_links->precision()) + " precision (same lattice, same long links)");
    }
  }
}

// The even-odd solve of M x_k = b_k for sources already on the device (double, both parities):
//   b'_e = 2m b_e - D_eo b_o;  M_ee x_e = b'_e (SolveSchur, each system's Schur tolerance from |b'_e| and |b|);
//   x_o = (b_o - D_oe x_e) / (2m).
struct DeviceSolutions {
  std::vector<GpuColourVectorField<double>> x_e, x_o;
  solvers::BlockSolveResult result;
};

DeviceSolutions SolveEvenOddOnDevice(const std::shared_ptr<const DeviceStaggeredLinks>& device_links,
                                     const std::shared_ptr<const DeviceStaggeredLinks>& inner_links,
                                     const StaggeredParams& params,
                                     const std::vector<GpuColourVectorField<double>>& b_even,
                                     const std::vector<GpuColourVectorField<double>>& b_odd,
                                     const std::vector<double>& norm_b, const solvers::SolverParams& solver) {
  const Lattice& lattice = device_links->lattice();
  const GpuStaggeredSchur<double> op(device_links, params, Parity::kEven);
  std::vector<GpuColourVectorField<double>> b_e;
  DeviceSolutions out;
  std::vector<double> tolerances;
  for (std::size_t k = 0; k < b_even.size(); ++k) {
    b_e.emplace_back(lattice, Parity::kEven);
    // b'_e = 2m b_e - D_eo b_o
    ApplyStaggeredDslashXpay(b_e.back().device(), *device_links, b_odd[k].device(), b_even[k].device(),
                             2 * params.mass, -1.0, params.boundary);
    tolerances.push_back(solvers::pbp_detail::SchurTolerance(std::sqrt(staggered_blas::Norm2(b_e.back().device())),
                                                             norm_b[k], params.mass, solver));
    out.x_e.emplace_back(lattice, Parity::kEven);
  }
  out.result = SolveSchur(op, inner_links, out.x_e, b_e, solver, tolerances);
  const double inverse_2m = 1 / (2 * params.mass);
  for (std::size_t k = 0; k < b_even.size(); ++k) {
    out.x_o.emplace_back(lattice, Parity::kOdd);
    // x_o = (b_o - D_oe x_e) / (2m)
    ApplyStaggeredDslashXpay(out.x_o.back().device(), *device_links, out.x_e[k].device(), b_odd[k].device(),
                             inverse_2m, -inverse_2m, params.boundary);
  }
  return out;
}

// |b - M x| / |b| in double on the device (0 for b = 0), |b| given (the solve's): r_p = b_p - (2m x_p +
// D_{p,p'} x_p') on both parities.
double DeviceFullResidual(const DeviceStaggeredLinks& links, const StaggeredParams& params,
                          const GpuColourVectorField<double>& x_e, const GpuColourVectorField<double>& x_o,
                          const GpuColourVectorField<double>& b_e, const GpuColourVectorField<double>& b_o,
                          double norm_b) {
  if (!(norm_b > 0)) return 0;
  double norm2_r = 0;
  for (const Parity p : {Parity::kEven, Parity::kOdd}) {
    const bool even = p == Parity::kEven;
    GpuColourVectorField<double> mx(links.lattice(), p);
    ApplyStaggeredDslashXpay(mx.device(), links, (even ? x_o : x_e).device(), (even ? x_e : x_o).device(),
                             2 * params.mass, 1.0, params.boundary);
    norm2_r += staggered_blas::AxpyNorm(-1.0, (even ? b_e : b_o).device(), mx.device());  // M x - b
  }
  return std::sqrt(norm2_r) / norm_b;
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
  RequireSolveLinks(device_links, inner_links, links.lattice(), links.long_links.has_value(),
                    "SolveStaggeredEvenOddBlockOnGpu");
  const Lattice& lattice = links.lattice();
  std::vector<GpuColourVectorField<double>> b_e, b_o;
  std::vector<double> norm_b;
  for (const auto& bk : b) {
    b_e.emplace_back(lattice, Parity::kEven);
    b_o.emplace_back(lattice, Parity::kOdd);
    b_e.back().Upload(Extract(bk, Parity::kEven));
    b_o.back().Upload(Extract(bk, Parity::kOdd));
    norm_b.push_back(std::sqrt(Norm2(bk)));
  }
  const DeviceSolutions solved = SolveEvenOddOnDevice(device_links, inner_links, params, b_e, b_o, norm_b, solver);
  std::vector<solvers::StaggeredSolve> out;
  for (std::size_t k = 0; k < b.size(); ++k) {
    out.push_back(solvers::StaggeredSolve{ColourVectorField<double>(lattice), solved.result.systems[k], 0});
    Insert(out.back().x, solved.x_e[k].Download());
    Insert(out.back().x, solved.x_o[k].Download());
    out.back().full_residual = solvers::pbp_detail::FullResidual(links, params, out.back().x, b[k]);
  }
  return out;
}

solvers::NoiseBlockSolve StaggeredNoiseSolveOnGpu(std::shared_ptr<const DeviceStaggeredLinks> device_links,
                                                  const StaggeredParams& params, const solvers::SolverParams& solver,
                                                  std::shared_ptr<const DeviceStaggeredLinks> inner_links) {
  solvers::RequireStaggeredMass(params.mass, "StaggeredNoiseSolveOnGpu");
  if (device_links == nullptr) throw std::invalid_argument("StaggeredNoiseSolveOnGpu: no links");
  RequireSolveLinks(device_links, inner_links, device_links->lattice(), device_links->improved(),
                    "StaggeredNoiseSolveOnGpu");
  return [device_links, inner_links, params, solver](const std::vector<std::uint64_t>& noise_seeds) {
    const Lattice& lattice = device_links->lattice();
    std::vector<GpuColourVectorField<double>> eta_e, eta_o;
    std::vector<double> norm_eta;
    for (const std::uint64_t seed : noise_seeds) {
      eta_e.emplace_back(lattice, Parity::kEven);
      eta_o.emplace_back(lattice, Parity::kOdd);
      staggered_blas::FillZ2Noise(eta_e.back().device(), seed);
      staggered_blas::FillZ2Noise(eta_o.back().device(), seed);
      norm_eta.push_back(std::sqrt(staggered_blas::Norm2(eta_e.back().device()) +
                                   staggered_blas::Norm2(eta_o.back().device())));
    }
    const DeviceSolutions solved =
        SolveEvenOddOnDevice(device_links, inner_links, params, eta_e, eta_o, norm_eta, solver);
    std::vector<solvers::NoiseSolve> out;
    const double volume = static_cast<double>(lattice.volume());
    for (std::size_t k = 0; k < noise_seeds.size(); ++k) {
      solvers::NoiseSolve n;
      n.sample = (staggered_blas::ReDot(eta_e[k].device(), solved.x_e[k].device()) +
                  staggered_blas::ReDot(eta_o[k].device(), solved.x_o[k].device())) /
                 volume;
      n.full_residual =
          DeviceFullResidual(*device_links, params, solved.x_e[k], solved.x_o[k], eta_e[k], eta_o[k], norm_eta[k]);
      n.schur = solved.result.systems[k];
      out.push_back(std::move(n));
    }
    return out;
  };
}

}  // namespace lqcd::gpu
