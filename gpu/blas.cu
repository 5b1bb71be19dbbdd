// blas.cu: the kernels of the fused vector operations (blas.h) and their deterministic reductions.
//
// One thread per site (grid-stride over the sites of both parity blocks, index i = parity * V/2 + cb), one
// functor per operation: it loads the site's 24 reals of each input (SiteIo::Load), combines them in the
// compute type, stores the outputs (SiteIo::Store, which also hands back the values as stored) and adds
// its contribution to the thread's double accumulators. Reductions then go through a fixed shuffle tree
// per block, and the last block to finish sums the per-block partials in a fixed order (blas.h
// explains why this is deterministic) into a ScalarSlot (device_scalar.h). The operations' scalars arrive
// as kernel arguments (constants) or in device memory (deferred values, device_scalar.h), so a kernel can use
// a scalar computed from a reduction that the host has not read.
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpu/blas_launch.h"
#include "gpu/cuda_check.h"
#include "gpu/scalar_program.h"
#include "gpu/spinor_accessor.cuh"

namespace lqcd::gpu::blas {
namespace {

// A site of a field as 24 reals of the compute type. Load and Store use plain (coherent) loads, never
// __ldg: an output may alias an input within one kernel.
template <Precision P>
struct SiteIo {
  using Storage = SpinorStorage<P>;
  using Word = typename Storage::Word;
  using Real = typename Storage::Real;  // double, or float for single and half
  static constexpr int kRealsPerWord = Storage::kRealsPerWord;
  static constexpr int kWords = 24 / kRealsPerWord;

  Word* data[2];
  float* norm[2];
  int stride;

  // p ? [1] : [0] rather than [p]: a run-time index into the kernel's parameter struct would copy the
  // struct to local memory.
  __device__ __forceinline__ Word* Words(int p) const { return p ? data[1] : data[0]; }
  __device__ __forceinline__ float* Norms(int p) const { return p ? norm[1] : norm[0]; }

  // As the Dslash loads (spinor_accessor.cuh): half levels times norm * (1 / 32767). A level becomes a float
  // through LevelToFloat (exact, as a conversion instruction would give), not through the quarter-rate
  // conversion unit, which the float -> double conversions of the reductions already keep busy.
  __device__ __forceinline__ void Load(int p, int cb, Real* r) const {
    const Word* d = Words(p) + cb;
    if constexpr (Storage::kHasNorm) {
      int q[24];
#pragma unroll
      for (int w = 0; w < kWords; ++w) Unpack(d[w * stride], q + w * kRealsPerWord);
      const Real scale = Norms(p)[cb] * (1.0f / kHalfScale);
      // __fmul_rn: the loaded value is the rounded product, never fused into the operation's next
      // add (which would compute with the unrounded q * scale and break e.g. y - y = 0).
#pragma unroll
      for (int i = 0; i < 24; ++i) r[i] = __fmul_rn(LevelToFloat(q[i]), scale);
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) Unpack(d[w * stride], r + w * kRealsPerWord);
    }
  }

  // Stores r rounded to the storage and replaces r by the stored values as Load would return them.
  // Half: the format's one quantisation routine (QuantizeHalfSite, as the Dslash's stores).
  __device__ __forceinline__ void Store(int p, int cb, Real* r) const {
    Word* d = Words(p) + cb;
    if constexpr (Storage::kHasNorm) {
      short q[24];
      const float stored_norm = QuantizeHalfSite(r, q);
      const Real scale = stored_norm * (1.0f / kHalfScale);
#pragma unroll
      for (int w = 0; w < kWords; ++w) d[w * stride] = make_short4(q[4 * w], q[4 * w + 1], q[4 * w + 2], q[4 * w + 3]);
#pragma unroll
      for (int i = 0; i < 24; ++i) r[i] = __fmul_rn(LevelToFloat(q[i]), scale);
      Norms(p)[cb] = stored_norm;
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) d[w * stride] = WordMaker<Word>::Make(r + w * kRealsPerWord);
    }
  }
};

template <Precision P>
using RealOf = typename SiteIo<P>::Real;

// The operation's scalars (a = a, alpha or beta; b = omega) rounded to the compute type.
template <typename Real>
struct Coefficients {
  Real a_re, a_im, b_re, b_im;
};

template <Precision P>
SiteIo<P> IoOf(const FieldRef& f) {
  SiteIo<P> io;
  for (int k = 0; k < 2; ++k) {
    io.data[k] = static_cast<typename SiteIo<P>::Word*>(f.data[k]);
    io.norm[k] = f.norm[k];
  }
  io.stride = f.stride;
  return io;
}

// ---- accumulation: every reduction adds a site with these two, with explicit fused multiply-adds, so a
// value is summed in the same order and with the same roundings by every kernel (AxpyNorm returns bit
// for bit what Norm2 of its output returns, ReDot what Re Dot returns, ...) ----

// acc += sum_i v_i^2, i = 0..23 in order.
template <typename Real>
__device__ __forceinline__ void AddNorm2(double& acc, const Real* v) {
#pragma unroll
  for (int i = 0; i < 24; ++i) acc = fma(static_cast<double>(v[i]), static_cast<double>(v[i]), acc);
}

// re += Re sum_c conj(a_c) b_c, im += Im ... (c = 0..11 in order).
template <typename Real, bool kImaginary>
__device__ __forceinline__ void AddDot(double& re, double& im, const Real* a, const Real* b) {
#pragma unroll
  for (int c = 0; c < 12; ++c) {
    const double ar = a[2 * c], ai = a[2 * c + 1], br = b[2 * c], bi = b[2 * c + 1];
    re = fma(ar, br, re);
    re = fma(ai, bi, re);
    if constexpr (kImaginary) {
      im = fma(ar, bi, im);
      im = fma(-ai, br, im);
    }
  }
}

// ---- the operations: operator()(parity, cb, acc) does one site ----

template <Precision P>
struct Norm2Op {
  static constexpr int kReduce = 1;
  using Real = RealOf<P>;
  SiteIo<P> x;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> v[24];
    x.Load(p, cb, v);
    AddNorm2(acc[0], v);
  }
};

// Sum of 0 * x_i: stays 0 unless some loaded value is NaN or Inf.
template <Precision P>
struct AllFiniteOp {
  static constexpr int kReduce = 1;
  using Real = RealOf<P>;
  SiteIo<P> x;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> v[24];
    x.Load(p, cb, v);
#pragma unroll
    for (int i = 0; i < 24; ++i) acc[0] += 0.0 * static_cast<double>(v[i]);  // no fma needed: 0 * x is exact
  }
};

// (x, y) = sum conj(x) y: acc = {re, im}; with kNorm also |x|^2 in acc[2]; kReal: only Re in acc[0].
template <Precision P, bool kReal, bool kNorm>
struct DotOp {
  static constexpr int kReduce = kReal ? 1 : (kNorm ? 3 : 2);
  using Real = RealOf<P>;
  SiteIo<P> x, y;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> a[24], b[24];
    x.Load(p, cb, a);
    y.Load(p, cb, b);
    if constexpr (kReal) {
      double unused = 0;
      AddDot<RealOf<P>, false>(acc[0], unused, a, b);
    } else {
      AddDot<RealOf<P>, true>(acc[0], acc[1], a, b);
    }
    if constexpr (kNorm) AddNorm2(acc[2], a);
  }
};

// y = y + a x (kNorm: and |y|^2).
template <Precision P, bool kNorm>
struct AxpyOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = kNorm ? 1 : 0;
  using Real = RealOf<P>;
  SiteIo<P> x, y;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = yv[i] + k.a_re * xv[i];
    y.Store(p, cb, yv);
    if constexpr (kNorm) AddNorm2(acc[0], yv);
  }
};

// y = x + a y.
template <Precision P>
struct XpayOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 0;
  using Real = RealOf<P>;
  SiteIo<P> x, y;
  __device__ void operator()(int p, int cb, double*, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = xv[i] + k.a_re * yv[i];
    y.Store(p, cb, yv);
  }
};

// y = y + a x with complex a (kNorm: and |y|^2).
template <Precision P, bool kNorm>
struct CaxpyOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = kNorm ? 1 : 0;
  using Real = RealOf<P>;
  SiteIo<P> x, y;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int c = 0; c < 12; ++c) {
      const RealOf<P> xr = xv[2 * c], xi = xv[2 * c + 1];
      yv[2 * c] = yv[2 * c] + (k.a_re * xr - k.a_im * xi);
      yv[2 * c + 1] = yv[2 * c + 1] + (k.a_re * xi + k.a_im * xr);
    }
    y.Store(p, cb, yv);
    if constexpr (kNorm) AddNorm2(acc[0], yv);
  }
};

// x = x + alpha p; r = r - alpha q; |r|^2.
template <Precision P>
struct CgUpdateOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 1;
  using Real = RealOf<P>;
  SiteIo<P> p_, q, x, r;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> pv[24], qv[24], xv[24], rv[24];
    p_.Load(p, cb, pv);
    q.Load(p, cb, qv);
    x.Load(p, cb, xv);
    r.Load(p, cb, rv);
#pragma unroll
    for (int i = 0; i < 24; ++i) {
      xv[i] = xv[i] + k.a_re * pv[i];
      rv[i] = rv[i] - k.a_re * qv[i];
    }
    x.Store(p, cb, xv);
    r.Store(p, cb, rv);
    AddNorm2(acc[0], rv);
  }
};

// x = x + alpha p; p = r + beta p (the old p in both; as Axpy then Xpay, in one pass).
template <Precision P>
struct CgSolutionDirectionOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 0;
  using Real = RealOf<P>;
  SiteIo<P> r, x, p_;
  __device__ void operator()(int p, int cb, double*, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> rv[24], xv[24], pv[24];
    r.Load(p, cb, rv);
    x.Load(p, cb, xv);
    p_.Load(p, cb, pv);
#pragma unroll
    for (int i = 0; i < 24; ++i) {
      xv[i] = xv[i] + k.a_re * pv[i];
      pv[i] = rv[i] + k.b_re * pv[i];
    }
    x.Store(p, cb, xv);
    p_.Store(p, cb, pv);
  }
};

// p = r + beta (p - omega v).
template <Precision P>
struct BicgstabDirectionOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 0;
  using Real = RealOf<P>;
  SiteIo<P> r, v, p_;
  __device__ void operator()(int p, int cb, double*, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> rv[24], vv[24], pv[24];
    r.Load(p, cb, rv);
    v.Load(p, cb, vv);
    p_.Load(p, cb, pv);
#pragma unroll
    for (int c = 0; c < 12; ++c) {
      const RealOf<P> vr = vv[2 * c], vi = vv[2 * c + 1];
      const RealOf<P> tr = pv[2 * c] - (k.b_re * vr - k.b_im * vi);
      const RealOf<P> ti = pv[2 * c + 1] - (k.b_re * vi + k.b_im * vr);
      pv[2 * c] = rv[2 * c] + (k.a_re * tr - k.a_im * ti);
      pv[2 * c + 1] = rv[2 * c + 1] + (k.a_re * ti + k.a_im * tr);
    }
    p_.Store(p, cb, pv);
  }
};

// BiCGstab's two site updates, written once for the fused BicgstabUpdate and its halves BicgstabResidual and
// BicgstabSolution, so that both round alike (k.a = alpha, k.b = omega):
//   x = x + alpha p + omega s  (x in place)      r = s - omega t  (into `out`, which may be t)
template <typename Real>
__device__ __forceinline__ void BicgstabSolutionSite(const Coefficients<Real>& k, const Real* pv, const Real* sv,
                                                     Real* xv) {
#pragma unroll
  for (int c = 0; c < 12; ++c) {
    const Real pr = pv[2 * c], pi = pv[2 * c + 1], sr = sv[2 * c], si = sv[2 * c + 1];
    xv[2 * c] = (xv[2 * c] + (k.a_re * pr - k.a_im * pi)) + (k.b_re * sr - k.b_im * si);
    xv[2 * c + 1] = (xv[2 * c + 1] + (k.a_re * pi + k.a_im * pr)) + (k.b_re * si + k.b_im * sr);
  }
}
template <typename Real>
__device__ __forceinline__ void BicgstabResidualSite(const Coefficients<Real>& k, const Real* sv, const Real* tv,
                                                     Real* out) {
#pragma unroll
  for (int c = 0; c < 12; ++c) {
    const Real tr = tv[2 * c], ti = tv[2 * c + 1];
    out[2 * c] = sv[2 * c] - (k.b_re * tr - k.b_im * ti);
    out[2 * c + 1] = sv[2 * c + 1] - (k.b_re * ti + k.b_im * tr);
  }
}

// r holds s: x = x + alpha p + omega s; r = s - omega t; |r|^2 and (r0, r).
template <Precision P>
struct BicgstabUpdateOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 3;
  using Real = RealOf<P>;
  SiteIo<P> p_, t, x, r, r0;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> pv[24], tv[24], xv[24], sv[24], r0v[24];
    p_.Load(p, cb, pv);
    t.Load(p, cb, tv);
    x.Load(p, cb, xv);
    r.Load(p, cb, sv);
    r0.Load(p, cb, r0v);
    BicgstabSolutionSite(k, pv, sv, xv);
    BicgstabResidualSite(k, sv, tv, sv);  // element by element: each s component is read before it is replaced
    x.Store(p, cb, xv);
    r.Store(p, cb, sv);  // sv now holds the stored new r
    AddNorm2(acc[0], sv);
    AddDot<RealOf<P>, true>(acc[1], acc[2], r0v, sv);  // (r0, r)
  }
};

// The two halves of BicgstabUpdate, for a solver that checks omega on the host while the residual is
// computed and updates x only afterwards (solvers/bicgstab.h). Same arithmetic as BicgstabUpdate, term by term.
// t = s - omega t (t becomes the new residual); |t|^2 and (r0, t).
template <Precision P>
struct BicgstabResidualOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 3;
  using Real = RealOf<P>;
  SiteIo<P> t, s, r0;
  __device__ void operator()(int p, int cb, double* acc, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> tv[24], sv[24], r0v[24];
    t.Load(p, cb, tv);
    s.Load(p, cb, sv);
    r0.Load(p, cb, r0v);
    BicgstabResidualSite(k, sv, tv, tv);
    t.Store(p, cb, tv);  // tv now holds the stored new residual
    AddNorm2(acc[0], tv);
    AddDot<RealOf<P>, true>(acc[1], acc[2], r0v, tv);
  }
};

// x = x + alpha p + omega s.
template <Precision P>
struct BicgstabSolutionOp {
  static constexpr bool kScalars = true;
  static constexpr int kReduce = 0;
  using Real = RealOf<P>;
  SiteIo<P> p_, s, x;
  __device__ void operator()(int p, int cb, double*, const Coefficients<RealOf<P>>& k) const {
    RealOf<P> pv[24], sv[24], xv[24];
    p_.Load(p, cb, pv);
    s.Load(p, cb, sv);
    x.Load(p, cb, xv);
    BicgstabSolutionSite(k, pv, sv, xv);
    x.Store(p, cb, xv);
  }
};

// The sum of partial sums, 3 doubles per index (Re, Im of a dot product and a norm): a fused Dslash reduction's
// per-warp partials (wilson_dslash.h), added here in the fixed order of every reduction.
struct SumPartialsOp {
  static constexpr int kReduce = 3;
  using Real = double;
  const double* partials;
  __device__ void operator()(int, int i, double* acc, const Coefficients<double>&) const {
#pragma unroll
    for (int k = 0; k < 3; ++k) acc[k] += partials[3 * i + k];
  }
};

// The sum of partial sums of one double each, in the fixed order of every reduction.
struct SumRealPartialsOp {
  static constexpr int kReduce = 1;
  using Real = double;
  const double* partials;
  __device__ void operator()(int, int i, double* acc, const Coefficients<double>&) const { acc[0] += partials[i]; }
};

// The same for up to four runs of `count` partials, one after another: each accumulator sees its run's values in
// the same threads and order as SumRealPartialsOp (the reduction sums every component on its own), so each result
// is that operation's bits. Runs past `ranges` add zeros.
struct SumRealPartialsOfRangesOp {
  static constexpr int kReduce = 4;
  using Real = double;
  const double* partials;
  int count;
  int ranges;
  __device__ void operator()(int, int i, double* acc, const Coefficients<double>&) const {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (k < ranges) acc[k] += partials[static_cast<long>(k) * count + i];
    }
  }
};

// y = x rounded to y's precision (through y's compute type: a double input for a half output is first
// rounded to float, as the CPU backend does).
template <Precision Out, Precision In>
struct ConvertOp {
  static constexpr int kReduce = 0;
  using Real = RealOf<Out>;
  SiteIo<Out> y;
  SiteIo<In> x;
  __device__ void operator()(int p, int cb, double*, const Coefficients<Real>&) const {
    RealOf<In> xv[24];
    x.Load(p, cb, xv);
    RealOf<Out> yv[24];
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = static_cast<RealOf<Out>>(xv[i]);
    y.Store(p, cb, yv);
  }
};

// ---- the kernels ----

// The block's sums in a fixed tree: within each warp by shuffles (lane l adds lane l + 16, then + 8, ... +
// 1), then warp 0 adds the eight warps' sums the same way. One barrier (the warps' sums through shared
// memory) instead of the eight of a shared-memory tree over all 256 threads. Returns the block's sums in
// thread 0 (other threads: partial sums, unused). Every thread of the block must call it (full-warp shuffles).
constexpr int kWarpsPerBlasBlock = kBlasBlock / 32;
static_assert(kBlasBlock % 32 == 0 && kWarpsPerBlasBlock <= 32, "whole warps, at most 32");

template <int N>
__device__ __forceinline__ void WarpSum(double* acc) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
#pragma unroll
    for (int k = 0; k < N; ++k) acc[k] += __shfl_down_sync(0xffffffffu, acc[k], offset);
  }
}

template <int N>
__device__ __forceinline__ void BlockSum(double* acc, double (*warp_sums)[kWarpsPerBlasBlock]) {
  WarpSum<N>(acc);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) warp_sums[k][warp] = acc[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) acc[k] = lane < kWarpsPerBlasBlock ? warp_sums[k][lane] : 0.0;
    WarpSum<N>(acc);
  }
}

// Where a reduction leaves its numbers: one partial per block, an arrival counter (zero between
// reductions), and the result, written into a ScalarSlot: its device copy (for later kernels) and its pinned
// host copy mapped into the device (for the host, without a copy after the kernel).
struct ReductionTarget {
  double* partials;
  unsigned int* arrivals;
  double* result_device;
  double* result_host;
};

// Whether an operation takes scalars (Op::kScalars; false when not declared).
template <class Op, class = void>
struct TakesScalars : std::false_type {};
template <class Op>
struct TakesScalars<Op, std::void_t<decltype(Op::kScalars)>> : std::bool_constant<Op::kScalars> {};

// Each block writes its partial sums; the LAST block to arrive (integer atomic counter) then sums all
// partials, block 0 first, in the same fixed tree, and writes the result. Which block is last depends on
// timing, but not what it sums nor in which order: the result is deterministic.
// The scalars (scalar_program.h's ScalarSource) are rounded here to the compute type (constants: by the launcher,
// `immediate`). The evaluation of programs stays out of the site loop's registers as far as it can: it is not
// inlined, and the programs are read where the launch put them (__grid_constant__, no copy); evaluating them in
// every thread instead raised a half kernel from 48 to 63 registers and cost ~20% of its bandwidth on the H100.
// (The call still raises a few half kernels from 48 to 52-55 registers: a reason more for kValuesInMemory on
// large fields.)
template <class Op, ScalarSource kSource>
__global__ void __launch_bounds__(kBlasBlock) BlasKernel(Op op, int sites, int n, ReductionTarget target,
                                                         Coefficients<typename Op::Real> immediate,
                                                         const __grid_constant__ ScalarSourceArg<kSource> scalars) {
  constexpr int N = Op::kReduce;
  using Real = typename Op::Real;
  Coefficients<Real> k = immediate;
  if constexpr (kSource == ScalarSource::kValuesInMemory) {
    const double* v = scalars.values;
    k = {static_cast<Real>(__ldg(v)), static_cast<Real>(__ldg(v + 1)), static_cast<Real>(__ldg(v + 2)),
         static_cast<Real>(__ldg(v + 3))};
  } else if constexpr (kSource == ScalarSource::kPrograms) {
    __shared__ double values[4];
    if (threadIdx.x == 0) EvaluatePairIntoShared(scalars.pair, values);
    __syncthreads();
    k = {static_cast<Real>(values[0]), static_cast<Real>(values[1]), static_cast<Real>(values[2]),
         static_cast<Real>(values[3])};
  }
  double acc[N > 0 ? N : 1] = {};
  for (int i = blockIdx.x * kBlasBlock + threadIdx.x; i < n; i += gridDim.x * kBlasBlock) {
    const int parity = i >= sites ? 1 : 0;
    op(parity, i - parity * sites, acc, k);
  }
  if constexpr (N > 0) {
    __shared__ double warp_sums[N][kWarpsPerBlasBlock];
    __shared__ bool last;
    BlockSum<N>(acc, warp_sums);
    if (threadIdx.x == 0) {
#pragma unroll
      for (int k = 0; k < N; ++k) target.partials[blockIdx.x * N + k] = acc[k];
      __threadfence();  // the partials are visible device-wide before this block counts as arrived
      last = atomicAdd(target.arrivals, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
      double total[N] = {};
      for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kBlasBlock) {
#pragma unroll
        for (int k = 0; k < N; ++k) total[k] += __ldcg(target.partials + b * N + k);  // L2, not a stale L1
      }
      // warp_sums is free again: warp 0 read it before the barrier above.
      BlockSum<N>(total, warp_sums);
      if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
          target.result_device[k] = total[k];
          target.result_host[k] = total[k];
        }
        *target.arrivals = 0;  // ready for the next reduction (kernels on the stream run one after another)
      }
    }
  }
}

constexpr int kMaxReduce = 4;

// Device memory for the partials and the counter, allocated on first use and kept for the life of the
// process (never freed: freeing at exit would race the CUDA runtime's own teardown). One reduction at a time
// (the default stream serialises them): not thread-safe.
struct ReductionScratch {
  double* partials = nullptr;
  unsigned int* arrivals = nullptr;
};

ReductionScratch& Scratch() {
  static ReductionScratch* scratch = [] {
    auto* s = new ReductionScratch;
    LQCD_CUDA_CHECK(cudaMalloc(&s->partials, sizeof(double) * kMaxReduce * kBlasMaxBlocks));
    LQCD_CUDA_CHECK(cudaMalloc(&s->arrivals, sizeof(unsigned int)));
    LQCD_CUDA_CHECK(cudaMemset(s->arrivals, 0, sizeof(unsigned int)));
    return s;
  }();
  return *scratch;
}

const char* NameOf(Operation op) {
  switch (op) {
    case Operation::kZero: return "Zero";
    case Operation::kCopy: return "Copy";
    case Operation::kConvert: return "Convert";
    case Operation::kNorm2: return "Norm2";
    case Operation::kDot: return "Dot";
    case Operation::kReDot: return "ReDot";
    case Operation::kDotNorm: return "DotNorm";
    case Operation::kAllFinite: return "AllFinite";
    case Operation::kAxpy: return "Axpy";
    case Operation::kAxpyNorm: return "AxpyNorm";
    case Operation::kXpay: return "Xpay";
    case Operation::kCaxpy: return "Caxpy";
    case Operation::kCaxpyNorm: return "CaxpyNorm";
    case Operation::kCgUpdate: return "CgUpdate";
    case Operation::kBicgstabDirection: return "BicgstabDirection";
    case Operation::kBicgstabUpdate: return "BicgstabUpdate";
    case Operation::kBicgstabResidual: return "BicgstabResidual";
    case Operation::kBicgstabSolution: return "BicgstabSolution";
    case Operation::kCgSolutionDirection: return "CgSolutionDirection";
    case Operation::kSumPartials: return "SumPartials";
    case Operation::kSumRealPartials: return "SumRealPartials";
  }
  return "?";
}

// How many blocks of BlasKernel<Op, kPrograms> the device holds at once (all SMs; the device current at the first
// call).
template <class Op>
int ResidentBlocks() {
  static const int resident = [] {
    int per_sm = 0, device = 0, sms = 0;
    LQCD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, BlasKernel<Op, ScalarSource::kPrograms>,
                                                                  kBlasBlock, 0));
    LQCD_CUDA_CHECK(cudaGetDevice(&device));
    LQCD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return per_sm * sms;
  }();
  return resident;
}

template <class Op>
void Run(const Op& op, const BlasLaunch& l) {
  static_assert(Op::kReduce <= kMaxReduce, "scratch holds kMaxReduce doubles per block");
  static_assert(Op::kReduce <= kScalarSlotDoubles, "a slot holds kScalarSlotDoubles doubles");
  if ((Op::kReduce > 0) != (l.result_device != nullptr && l.result_host != nullptr)) {
    throw std::logic_error(std::string("LaunchBlas: result addresses do not match ") + NameOf(l.op));
  }
  const int n = l.sites * l.parities;
  const int blocks = BlocksFor(n);
  const ReductionScratch& s = Scratch();
  const ReductionTarget target{s.partials, s.arrivals, l.result_device, l.result_host};
  using Real = typename Op::Real;
  const Coefficients<Real> immediate{static_cast<Real>(l.a[0]), static_cast<Real>(l.a[1]), static_cast<Real>(l.b[0]),
                                     static_cast<Real>(l.b[1])};
  if constexpr (TakesScalars<Op>::value) {
    if (l.device_scalars) {
      // A grid that fits in one wave of resident blocks evaluates the programs itself (thread 0 of each block,
      // all blocks at once): the kernel is short and its launch, saved here, bounds small solves. A grid of
      // several waves would wait for the evaluation in each wave: there a one-thread kernel evaluates the
      // programs first and the threads load the values (scalar_program.h's ScalarSource).
      if (blocks <= ResidentBlocks<Op>()) {
        BlasKernel<Op, ScalarSource::kPrograms><<<blocks, kBlasBlock>>>(op, l.sites, n, target, immediate,
                                                                         {l.scalar_programs});
      } else {
        std::shared_ptr<void> slot;  // kept until the kernel is queued (its later reuse is stream-ordered)
        const double* values = EvaluatedBeforehand(l.scalar_programs, slot);
        BlasKernel<Op, ScalarSource::kValuesInMemory><<<blocks, kBlasBlock>>>(op, l.sites, n, target, immediate,
                                                                               {values});
      }
    } else {
      BlasKernel<Op, ScalarSource::kArguments><<<blocks, kBlasBlock>>>(op, l.sites, n, target, immediate, {});
    }
  } else {
    if (l.device_scalars) throw std::logic_error(std::string("LaunchBlas: ") + NameOf(l.op) + " takes no scalars");
    BlasKernel<Op, ScalarSource::kArguments><<<blocks, kBlasBlock>>>(op, l.sites, n, target, immediate, {});
  }
  const std::string what = std::string("launch of blas ") + NameOf(l.op) + " (" + ToString(l.precision) + ")";
  CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
}

template <Precision P>
void LaunchFor(const BlasLaunch& l) {
  const FieldRef* f = l.field;
  switch (l.op) {
    case Operation::kNorm2: return Run(Norm2Op<P>{IoOf<P>(f[0])}, l);
    case Operation::kAllFinite: return Run(AllFiniteOp<P>{IoOf<P>(f[0])}, l);
    case Operation::kDot: return Run(DotOp<P, false, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kReDot: return Run(DotOp<P, true, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kDotNorm: return Run(DotOp<P, false, true>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kAxpy: return Run(AxpyOp<P, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kAxpyNorm: return Run(AxpyOp<P, true>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kXpay: return Run(XpayOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kCaxpy: return Run(CaxpyOp<P, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kCaxpyNorm: return Run(CaxpyOp<P, true>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l);
    case Operation::kCgUpdate:
      return Run(CgUpdateOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2]), IoOf<P>(f[3])}, l);
    case Operation::kBicgstabDirection:
      return Run(BicgstabDirectionOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2])}, l);
    case Operation::kBicgstabUpdate:
      return Run(BicgstabUpdateOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2]), IoOf<P>(f[3]), IoOf<P>(f[4])}, l);
    case Operation::kBicgstabResidual:
      return Run(BicgstabResidualOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2])}, l);
    case Operation::kBicgstabSolution:
      return Run(BicgstabSolutionOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2])}, l);
    case Operation::kCgSolutionDirection:
      return Run(CgSolutionDirectionOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2])}, l);
    case Operation::kConvert: {
      const SiteIo<P> y = IoOf<P>(f[0]);
      switch (l.in_precision) {
        case Precision::kDouble: return Run(ConvertOp<P, Precision::kDouble>{y, IoOf<Precision::kDouble>(f[1])}, l);
        case Precision::kSingle: return Run(ConvertOp<P, Precision::kSingle>{y, IoOf<Precision::kSingle>(f[1])}, l);
        case Precision::kHalf: return Run(ConvertOp<P, Precision::kHalf>{y, IoOf<Precision::kHalf>(f[1])}, l);
      }
      return;
    }
    case Operation::kSumPartials:  // LaunchBlas
    case Operation::kSumRealPartials:
    case Operation::kZero:
    case Operation::kCopy: break;  // memset / memcpy on the host side
  }
  throw std::logic_error(std::string("LaunchBlas: no kernel for ") + NameOf(l.op));
}

}  // namespace

void LaunchBlas(const BlasLaunch& launch) {
  if (launch.op == Operation::kSumPartials) return Run(SumPartialsOp{launch.partials}, launch);
  if (launch.op == Operation::kSumRealPartials) {
    if (launch.ranges < 1 || launch.ranges > 4) throw std::logic_error("LaunchBlas: SumRealPartials of 1 to 4 ranges");
    if (launch.ranges == 1) return Run(SumRealPartialsOp{launch.partials}, launch);
    return Run(SumRealPartialsOfRangesOp{launch.partials, launch.sites, launch.ranges}, launch);
  }
  switch (launch.precision) {
    case Precision::kDouble: return LaunchFor<Precision::kDouble>(launch);
    case Precision::kSingle: return LaunchFor<Precision::kSingle>(launch);
    case Precision::kHalf: return LaunchFor<Precision::kHalf>(launch);
  }
}

void CopyParityStorage(const SpinorView& to, const ConstSpinorView& from) {
  const std::size_t word_bytes = from.precision == Precision::kDouble   ? sizeof(double2)
                                 : from.precision == Precision::kSingle ? sizeof(float4)
                                                                        : sizeof(short4);
  const std::size_t words = from.precision == Precision::kDouble ? 12 : 6;
  LQCD_CUDA_CHECK(cudaMemcpy2DAsync(to.data, to.stride * word_bytes, from.data, from.stride * word_bytes,
                                    from.sites * word_bytes, words, cudaMemcpyDeviceToDevice));
  if (from.precision == Precision::kHalf) {
    LQCD_CUDA_CHECK(cudaMemcpyAsync(to.norm, from.norm, from.sites * sizeof(float), cudaMemcpyDeviceToDevice));
  }
}

}  // namespace lqcd::gpu::blas
