// gpu_staggered.h: the GPU backend of the solver interface (solvers/README.md) on staggered colour-vector fields,
// the staggered even-odd operator on the GPU as a CG operator, and the even-odd staggered solve on the GPU.
//
// The GPU counterpart of solvers/cpu_staggered.h and solvers/staggered_pbp.h's SolveStaggeredEvenOdd, with the
// same semantics, so that the solvers (cg.h) run unchanged:
// Fields:   GpuStaggeredBackend::Field<P> = GpuColourVectorField<P>, one parity on the device, P = double, float
//           or solvers::Half (16-bit levels with a float norm per site). Reals(x) = 6 per site.
// Vector operations: gpu/staggered_blas.h (in P with the scalars rounded to P, half computing in float and
//           re-quantising each site it writes; reductions in double over the values as stored, deterministic).
//           Deferred scalars (solvers/README.md): RealScalar is a DeviceReal, so CG's reductions stay on the device,
//           the device computes alpha and beta from them, and the host reads them only for its tests, after the
//           next kernel is queued (the values are those the host would compute, bit for bit).
// Operator: GpuStaggeredSchur<P> = M_pp = 4m^2 - D_{p,p'} D_{p',p} on parity p (default even): t = D_{p',p} in,
//           then out = 4m^2 in - D_{p,p'} t in the xpay form of the Dslash (staggered_dslash.h), two launches, on
//           links of P's precision (half: fat and long links of 18 reals in the scaled half layout; t is half
//           too); Hermitian positive definite for m != 0, so ApplyDagger = Apply. FlopsPerApply as the CPU
//           operator's.
// Solve:    SolveStaggeredEvenOdd[Block]OnGpu(links on the device, the same links on the host, params, b, solver
//           [, inner links]): b'_e = 2m b_e - D_eo b_o and x_o = (b_o - D_oe x_e) / (2m) by the xpay Dslash;
//           block CG on M_ee in double (one source: a block of one, which runs exactly CG's operations), or with
//           inner links the block reliable-update CG whose iterations run in the inner links' precision (single
//           or half) with double updates; each system's Schur tolerance meets solver.tolerance on the full system
//           (staggered_pbp.h's SchurTolerance); the true residual |b - M x| / |b| is recomputed on the host with
//           the oracle. StaggeredNoiseSolveOnGpu: the same solves for the stochastic estimator with the noise, the
//           samples and the true residuals on the device (below).
// Errors: std::invalid_argument for a zero or non-finite mass, fields of another lattice or parity, a source that
//           is not a full-lattice field on the links' lattice, out aliasing in, inner links in double or not
//           holding `links`, delta not above the inner precision's unit roundoff.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/device_colour_vector_field.h"
#include "gpu/staggered_blas.h"
#include "gpu/staggered_dslash.h"
#include "reference/staggered/staggered_dslash.h"
#include "solvers/operators.h"
#include "solvers/precision.h"
#include "solvers/solve_result.h"
#include "solvers/staggered_pbp.h"

namespace lqcd::gpu {

// The device precision of the solvers' precision tag P (double, float, solvers::Half).
template <typename P>
constexpr Precision StaggeredPrecisionOf() {
  static_assert(std::is_same_v<P, double> || std::is_same_v<P, float> || std::is_same_v<P, solvers::Half>,
                "staggered GPU fields: double, float or solvers::Half");
  return std::is_same_v<P, double> ? Precision::kDouble
         : std::is_same_v<P, float> ? Precision::kSingle
                                    : Precision::kHalf;
}

template <typename P>
class GpuColourVectorField {
 public:
  GpuColourVectorField(const Lattice& lattice, Parity parity) : field_(lattice, parity, StaggeredPrecisionOf<P>()) {}

  const Lattice& lattice() const { return field_.lattice(); }
  Parity parity() const { return field_.parity(); }
  Subset subset() const { return SubsetOf(field_.parity()); }
  DeviceColourVectorField& device() { return field_; }
  const DeviceColourVectorField& device() const { return field_; }
  void Upload(const ColourVectorField<double>& host) { field_.Upload(host); }
  ColourVectorField<double> Download() const { return field_.Download(); }

 private:
  DeviceColourVectorField field_;
};

struct GpuStaggeredBackend {
  template <typename P>
  using Field = GpuColourVectorField<P>;
  // Deferred scalars (solvers/README.md): values on the device that the next kernels read without the host.
  using RealScalar = DeviceReal;
  using ComplexScalar = DeviceComplex;
  static double HostValue(const DeviceReal& x) { return x.Host(); }
  static std::complex<double> HostValue(const DeviceComplex& z) { return z.Host(); }

  static const char* Name() { return "gpu-staggered"; }

  template <typename P, typename F>
  static Field<P> NewLike(const F& shape) {
    return Field<P>(shape.lattice(), shape.parity());
  }
  template <typename A, typename B>
  static bool Compatible(const A& a, const B& b) {
    return a.lattice() == b.lattice() && a.parity() == b.parity();
  }
  template <typename A, typename B>
  static void RequireCompatible(const A& a, const B& b, const char* where) {
    if (!Compatible(a, b)) {
      throw std::invalid_argument(std::string(where) + ": fields differ (" + Describe(a) + " vs " + Describe(b) + ")");
    }
  }
  template <typename P>
  static std::string Describe(const Field<P>& x) {
    return x.lattice().ToString() + " " + ToString(x.subset()) + " colour-vector (" +
           ToString(StaggeredPrecisionOf<P>()) + ", device)";
  }
  template <typename P>
  static double Reals(const Field<P>& x) {
    return 6.0 * x.lattice().half_volume();
  }
  template <typename P>
  static bool AllFinite(const Field<P>& x) {
    return staggered_blas::AllFinite(x.device());
  }

  template <typename P>
  static void Zero(Field<P>& x) {
    staggered_blas::Zero(x.device());
  }
  template <typename P>
  static void Copy(Field<P>& y, const Field<P>& x) {
    staggered_blas::Copy(y.device(), x.device());
  }
  template <typename To, typename From>
  static void Convert(Field<To>& y, const Field<From>& x) {
    staggered_blas::Convert(y.device(), x.device());
  }
  template <typename P>
  static double Norm2(const Field<P>& x) {
    return staggered_blas::Norm2(x.device());
  }
  template <typename P>
  static std::complex<double> Dot(const Field<P>& x, const Field<P>& y) {
    return staggered_blas::Dot(x.device(), y.device());
  }
  template <typename P>
  static double ReDot(const Field<P>& x, const Field<P>& y) {
    return staggered_blas::ReDot(x.device(), y.device());
  }
  template <typename P>
  static void Axpy(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    staggered_blas::Axpy(a, x.device(), y.device());
  }
  template <typename P>
  static void Caxpy(std::complex<double> a, const Field<P>& x, Field<P>& y) {
    staggered_blas::Caxpy(a, x.device(), y.device());
  }
  template <typename P>
  static double AxpyNorm(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    return staggered_blas::AxpyNorm(a, x.device(), y.device());
  }
  template <typename P>
  static void Xpay(const Field<P>& x, const DeviceReal& a, Field<P>& y) {
    staggered_blas::Xpay(x.device(), a, y.device());
  }
  // The deferred forms CG uses (solvers/README.md): queued, read by the host when it asks.
  template <typename P>
  static DeviceReal DeferredNorm2(const Field<P>& x) {
    return staggered_blas::Norm2Deferred(x.device());
  }
  template <typename P>
  static DeviceReal DeferredReDot(const Field<P>& x, const Field<P>& y) {
    return staggered_blas::ReDotDeferred(x.device(), y.device());
  }
  template <typename P>
  static DeviceReal DeferredAxpyNorm(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    return staggered_blas::AxpyNormDeferred(a, x.device(), y.device());
  }
  // x += alpha p; p = r + beta p (the old p in both).
  template <typename P>
  static void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const Field<P>& r, Field<P>& x,
                                  Field<P>& p) {
    staggered_blas::CgSolutionDirection(alpha, beta, r.device(), x.device(), p.device());
  }
};

// M_pp = 4m^2 - D_{p,p'} D_{p',p} on parity p (default even), for CG. P = double, float or solvers::Half (the
// links' precision; instantiated for the three).
template <typename P>
class GpuStaggeredSchur {
 public:
  using Backend = GpuStaggeredBackend;
  using Precision = P;
  using Field = GpuColourVectorField<P>;

  GpuStaggeredSchur(std::shared_ptr<const DeviceStaggeredLinks> links, const StaggeredParams& params,
                    Parity parity = Parity::kEven);

  void Apply(Field& out, const Field& in) const;
  void ApplyDagger(Field& out, const Field& in) const { Apply(out, in); }  // Hermitian
  // The block operator of solvers/block_operators.h (block CG): out[k] = M_pp in[k] for all k, through the
  // block Dslash (each link loaded once per site for up to 16 right-hand sides; larger blocks in chunks of 16).
  // BytesPerApply(n): the kernel byte model of the two block Dslash calls plus the xpay's read of in.
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const;
  double BytesPerApply(int n) const;
  // CG's whole step with q = M p never stored (solvers/README.md, the optional ApplyCurvatureUpdateBlock), double and
  // single: for each k, (p_k, M p_k) = |D_{p',p} p_k|^2 + 4m^2 |p_k|^2 summed in the first Dslash
  // (ApplyStaggeredDslashNormBlock), alpha_k = rr[k] / that on the device, and r_k -= alpha_k M p_k with |r_k|^2 in
  // the second (ApplyStaggeredDslashXpayAxpyNormBlock): r_k read and written there instead of q_k stored and a
  // separate AxpyNorm reading r_k and q_k. r_k is the separate update's r_k bit for bit (the same c = -alpha_k and
  // the same fused multiply-add on the same q_k); the scalars are other roundings of the same sums. Half has no
  // fused sums (measured slower there: docs/staggered.md): the solvers take ApplyBlock, a ReDot and an AxpyNorm.
  template <typename Q = P, typename = std::enable_if_t<!std::is_same_v<Q, solvers::Half>>>
  std::vector<solvers::CurvatureUpdate<DeviceReal>> ApplyCurvatureUpdateBlock(const std::vector<const Field*>& p,
                                                                             const std::vector<Field*>& r,
                                                                             const std::vector<double>& rr) const {
    return FusedCurvatureUpdates(p, r, rr);
  }
  template <typename Q = P, typename = std::enable_if_t<!std::is_same_v<Q, solvers::Half>>>
  solvers::CurvatureUpdate<DeviceReal> ApplyCurvatureUpdate(const Field& p, Field& r, double rr) const {
    return FusedCurvatureUpdates({&p}, {&r}, {rr})[0];
  }

  Field NewField() const { return Field(links_->lattice(), parity_); }
  double FlopsPerApply() const {
    const double per_site = links_->improved() ? kImprovedStaggeredFlopsPerSite : kNaiveStaggeredFlopsPerSite;
    const double half = links_->lattice().half_volume();
    return 2 * per_site * half + 12 * half;
  }
  std::string Name() const;
  const StaggeredParams& params() const { return params_; }
  Parity parity() const { return parity_; }

 private:
  std::shared_ptr<const DeviceStaggeredLinks> links_;
  StaggeredParams params_;
  Parity parity_;
  mutable std::vector<std::unique_ptr<DeviceColourVectorField>> t_;  // D_{p',p} in[k], on parity p' (on first use)
  mutable std::unique_ptr<DeviceBuffer> partials_;                    // the fused sums' chunks
  std::vector<solvers::CurvatureUpdate<DeviceReal>> FusedCurvatureUpdates(const std::vector<const Field*>& p,
                                                                         const std::vector<Field*>& r,
                                                                         const std::vector<double>& rr) const;
  void RequireFields(const std::vector<const Field*>& fields, const std::string& where) const;
  // t_ holds at least min(n, kMaxStaggeredRhs) fields (a chunk of n right-hand sides).
  void GrowScratch(std::size_t n) const;
};

// The even-odd solve of M x = b on the GPU (file comment); `device_links` must hold `links` in double. With
// `inner_links` (the same links in single or half precision) the Schur system is solved by reliable-update CG
// (solvers/reliable_update.h ReliableCg: the iterations in the inner links' precision, on fields of that
// precision; double residual updates when the iterated residual has dropped by solver.delta), otherwise by CG in
// double. Half inner links hold long links in 18 reals (DeviceStaggeredLinks refuses 13 numbers in half); the
// double links may store theirs either way.
solvers::StaggeredSolve SolveStaggeredEvenOddOnGpu(std::shared_ptr<const DeviceStaggeredLinks> device_links,
                                                   const StaggeredLinks<double>& links, const StaggeredParams& params,
                                                   const ColourVectorField<double>& b,
                                                   const solvers::SolverParams& solver,
                                                   std::shared_ptr<const DeviceStaggeredLinks> inner_links = nullptr);
// The same for n sources at once: block CG (solvers/block_cg.h) on GpuStaggeredSchur's block operator, each
// system with its own Schur tolerance and stopping criterion (as solvers::SolveStaggeredEvenOddBlock on the CPU);
// with `inner_links`, the block reliable-update CG (solvers/block_reliable_update.h BlockReliableCg: the
// low-precision iterations of all systems share each block application, the double updates due together
// share one).
std::vector<solvers::StaggeredSolve> SolveStaggeredEvenOddBlockOnGpu(
    std::shared_ptr<const DeviceStaggeredLinks> device_links, const StaggeredLinks<double>& links,
    const StaggeredParams& params, const std::vector<ColourVectorField<double>>& b,
    const solvers::SolverParams& solver, std::shared_ptr<const DeviceStaggeredLinks> inner_links = nullptr);

// The estimator's solves on the GPU (solvers/staggered_pbp.h NoiseBlockSolve), nothing of the lattice's size
// crossing to the host: for each noise seed, eta made on the device on both parities (staggered_blas::FillZ2Noise,
// the host's FillZ2Noise bit for bit), the even-odd solve of SolveStaggeredEvenOddBlockOnGpu on the block, the
// sample (Re <eta_e, x_e> + Re <eta_o, x_o>) / V, and the true residual |eta - M x| / |eta| recomputed in double on
// the device with `device_links`: r_p = eta_p - (2m x_p + D_{p,p'} x_p') on both parities (with long links in 13
// or 9 numbers, M is the operator of the links as reconstructed in double, which differs from the oracle's by
// rounding). Samples agree with the host path's to the solves' accuracy (gpu_staggered_test derives the bound).
// The returned function holds the links; the same checks as the solves, when made.
solvers::NoiseBlockSolve StaggeredNoiseSolveOnGpu(std::shared_ptr<const DeviceStaggeredLinks> device_links,
                                                  const StaggeredParams& params, const solvers::SolverParams& solver,
                                                  std::shared_ptr<const DeviceStaggeredLinks> inner_links = nullptr);

}  // namespace lqcd::gpu
