// blas.cu: the kernels of the fused vector operations (blas.h) and their deterministic reductions.
//
// One thread per site (grid-stride over the sites of both parity blocks, index i = parity * V/2 + cb), one
// functor per operation: it loads the site's 24 reals of each input (SiteIo::Load), combines them in the
// compute type, stores the outputs (SiteIo::Store, which also hands back the values as stored) and adds
// its contribution to the thread's double accumulators. Reductions then go through a fixed shared-memory
// tree per block, and the last block to finish sums the per-block partials in a fixed order (blas.h
// explains why this is deterministic).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/blas_launch.h"
#include "gpu/cuda_check.h"
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

  // As the Dslash loads (spinor_accessor.cuh): half levels times norm * (1 / 32767).
  __device__ __forceinline__ void Load(int p, int cb, Real* r) const {
    const Word* d = Words(p) + cb;
#pragma unroll
    for (int w = 0; w < kWords; ++w) Unpack(d[w * stride], r + w * kRealsPerWord);
    if constexpr (Storage::kHasNorm) {
      const Real scale = Norms(p)[cb] * (1.0f / kHalfScale);
      // __fmul_rn: the loaded value is the rounded product, never fused into the operation's next
      // add (which would compute with the unrounded q * scale and break e.g. y - y = 0).
#pragma unroll
      for (int i = 0; i < 24; ++i) r[i] = __fmul_rn(r[i], scale);
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
      for (int i = 0; i < 24; ++i) r[i] = __fmul_rn(static_cast<Real>(q[i]), scale);
      Norms(p)[cb] = stored_norm;
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) d[w * stride] = WordMaker<Word>::Make(r + w * kRealsPerWord);
    }
  }
};

template <Precision P>
using RealOf = typename SiteIo<P>::Real;

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
  SiteIo<P> x;
  __device__ void operator()(int p, int cb, double* acc) const {
    RealOf<P> v[24];
    x.Load(p, cb, v);
    AddNorm2(acc[0], v);
  }
};

// Sum of 0 * x_i: stays 0 unless some loaded value is NaN or Inf.
template <Precision P>
struct AllFiniteOp {
  static constexpr int kReduce = 1;
  SiteIo<P> x;
  __device__ void operator()(int p, int cb, double* acc) const {
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
  SiteIo<P> x, y;
  __device__ void operator()(int p, int cb, double* acc) const {
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
  static constexpr int kReduce = kNorm ? 1 : 0;
  SiteIo<P> x, y;
  RealOf<P> a;
  __device__ void operator()(int p, int cb, double* acc) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = yv[i] + a * xv[i];
    y.Store(p, cb, yv);
    if constexpr (kNorm) AddNorm2(acc[0], yv);
  }
};

// y = x + a y.
template <Precision P>
struct XpayOp {
  static constexpr int kReduce = 0;
  SiteIo<P> x, y;
  RealOf<P> a;
  __device__ void operator()(int p, int cb, double*) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = xv[i] + a * yv[i];
    y.Store(p, cb, yv);
  }
};

// y = y + a x with complex a (kNorm: and |y|^2).
template <Precision P, bool kNorm>
struct CaxpyOp {
  static constexpr int kReduce = kNorm ? 1 : 0;
  SiteIo<P> x, y;
  RealOf<P> a_re, a_im;
  __device__ void operator()(int p, int cb, double* acc) const {
    RealOf<P> xv[24], yv[24];
    x.Load(p, cb, xv);
    y.Load(p, cb, yv);
#pragma unroll
    for (int c = 0; c < 12; ++c) {
      const RealOf<P> xr = xv[2 * c], xi = xv[2 * c + 1];
      yv[2 * c] = yv[2 * c] + (a_re * xr - a_im * xi);
      yv[2 * c + 1] = yv[2 * c + 1] + (a_re * xi + a_im * xr);
    }
    y.Store(p, cb, yv);
    if constexpr (kNorm) AddNorm2(acc[0], yv);
  }
};

// x = x + alpha p; r = r - alpha q; |r|^2.
template <Precision P>
struct CgUpdateOp {
  static constexpr int kReduce = 1;
  SiteIo<P> p_, q, x, r;
  RealOf<P> alpha;
  __device__ void operator()(int p, int cb, double* acc) const {
    RealOf<P> pv[24], qv[24], xv[24], rv[24];
    p_.Load(p, cb, pv);
    q.Load(p, cb, qv);
    x.Load(p, cb, xv);
    r.Load(p, cb, rv);
#pragma unroll
    for (int i = 0; i < 24; ++i) {
      xv[i] = xv[i] + alpha * pv[i];
      rv[i] = rv[i] - alpha * qv[i];
    }
    x.Store(p, cb, xv);
    r.Store(p, cb, rv);
    AddNorm2(acc[0], rv);
  }
};

// p = r + beta (p - omega v).
template <Precision P>
struct BicgstabDirectionOp {
  static constexpr int kReduce = 0;
  SiteIo<P> r, v, p_;
  RealOf<P> beta_re, beta_im, omega_re, omega_im;
  __device__ void operator()(int p, int cb, double*) const {
    RealOf<P> rv[24], vv[24], pv[24];
    r.Load(p, cb, rv);
    v.Load(p, cb, vv);
    p_.Load(p, cb, pv);
#pragma unroll
    for (int c = 0; c < 12; ++c) {
      const RealOf<P> vr = vv[2 * c], vi = vv[2 * c + 1];
      const RealOf<P> tr = pv[2 * c] - (omega_re * vr - omega_im * vi);
      const RealOf<P> ti = pv[2 * c + 1] - (omega_re * vi + omega_im * vr);
      pv[2 * c] = rv[2 * c] + (beta_re * tr - beta_im * ti);
      pv[2 * c + 1] = rv[2 * c + 1] + (beta_re * ti + beta_im * tr);
    }
    p_.Store(p, cb, pv);
  }
};

// r holds s: x = x + alpha p + omega s; r = s - omega t; |r|^2 and (r0, r).
template <Precision P>
struct BicgstabUpdateOp {
  static constexpr int kReduce = 3;
  SiteIo<P> p_, t, x, r, r0;
  RealOf<P> alpha_re, alpha_im, omega_re, omega_im;
  __device__ void operator()(int p, int cb, double* acc) const {
    RealOf<P> pv[24], tv[24], xv[24], sv[24], r0v[24];
    p_.Load(p, cb, pv);
    t.Load(p, cb, tv);
    x.Load(p, cb, xv);
    r.Load(p, cb, sv);
    r0.Load(p, cb, r0v);
#pragma unroll
    for (int c = 0; c < 12; ++c) {
      const RealOf<P> pr = pv[2 * c], pi = pv[2 * c + 1], sr = sv[2 * c], si = sv[2 * c + 1];
      const RealOf<P> tr = tv[2 * c], ti = tv[2 * c + 1];
      xv[2 * c] = (xv[2 * c] + (alpha_re * pr - alpha_im * pi)) + (omega_re * sr - omega_im * si);
      xv[2 * c + 1] = (xv[2 * c + 1] + (alpha_re * pi + alpha_im * pr)) + (omega_re * si + omega_im * sr);
      sv[2 * c] = sr - (omega_re * tr - omega_im * ti);
      sv[2 * c + 1] = si - (omega_re * ti + omega_im * tr);
    }
    x.Store(p, cb, xv);
    r.Store(p, cb, sv);  // sv now holds the stored new r
    AddNorm2(acc[0], sv);
    AddDot<RealOf<P>, true>(acc[1], acc[2], r0v, sv);  // (r0, r)
  }
};

// y = x rounded to y's precision (through y's compute type: a double input for a half output is first
// rounded to float, as the CPU backend does).
template <Precision Out, Precision In>
struct ConvertOp {
  static constexpr int kReduce = 0;
  SiteIo<Out> y;
  SiteIo<In> x;
  __device__ void operator()(int p, int cb, double*) const {
    RealOf<In> xv[24];
    x.Load(p, cb, xv);
    RealOf<Out> yv[24];
#pragma unroll
    for (int i = 0; i < 24; ++i) yv[i] = static_cast<RealOf<Out>>(xv[i]);
    y.Store(p, cb, yv);
  }
};

// ---- the kernels ----

// Fixed tree over the block's threads; thread 0 ends up with the block's sums.
template <int N>
__device__ __forceinline__ void BlockSum(double* acc, double (*shared)[kBlasBlock]) {
#pragma unroll
  for (int k = 0; k < N; ++k) shared[k][threadIdx.x] = acc[k];
  __syncthreads();
#pragma unroll
  for (int width = kBlasBlock / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
#pragma unroll
      for (int k = 0; k < N; ++k) shared[k][threadIdx.x] += shared[k][threadIdx.x + width];
    }
    __syncthreads();
  }
}

// Where a reduction leaves its numbers: one partial per block, an arrival counter (zero between
// reductions), and the result, written straight into pinned host memory mapped into the device.
struct ReductionTarget {
  double* partials;
  unsigned int* arrivals;
  double* result;
};

// Each block writes its partial sums; the LAST block to arrive (integer atomic counter) then sums all
// partials, block 0 first, in the same fixed tree, and writes the result. Which block is last depends on
// timing, but not what it sums nor in which order: the result is deterministic.
template <class Op>
__global__ void __launch_bounds__(kBlasBlock) BlasKernel(Op op, int sites, int n, ReductionTarget target) {
  constexpr int N = Op::kReduce;
  double acc[N > 0 ? N : 1] = {};
  for (int i = blockIdx.x * kBlasBlock + threadIdx.x; i < n; i += gridDim.x * kBlasBlock) {
    const int parity = i >= sites ? 1 : 0;
    op(parity, i - parity * sites, acc);
  }
  if constexpr (N > 0) {
    __shared__ double shared[N][kBlasBlock];
    __shared__ bool last;
    BlockSum<N>(acc, shared);
    if (threadIdx.x == 0) {
#pragma unroll
      for (int k = 0; k < N; ++k) target.partials[blockIdx.x * N + k] = shared[k][0];
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
      BlockSum<N>(total, shared);
      if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < N; ++k) target.result[k] = shared[k][0];
        *target.arrivals = 0;  // ready for the next reduction (kernels on the stream run one after another)
      }
    }
  }
}

constexpr int kMaxReduce = 4;

// Device memory for the partials and the counter, pinned host memory for the result (mapped, so the
// kernel writes it directly: no copy after the kernel, only a stream synchronisation); allocated on first
// use and kept for the life of the process (never freed: freeing at exit would race the CUDA runtime's
// own teardown). One reduction at a time (the default stream serialises them): not thread-safe.
struct ReductionScratch {
  ReductionTarget target{};
  double* host = nullptr;
};

ReductionScratch& Scratch() {
  static ReductionScratch* scratch = [] {
    auto* s = new ReductionScratch;
    LQCD_CUDA_CHECK(cudaMalloc(&s->target.partials, sizeof(double) * kMaxReduce * kBlasMaxBlocks));
    LQCD_CUDA_CHECK(cudaMalloc(&s->target.arrivals, sizeof(unsigned int)));
    LQCD_CUDA_CHECK(cudaMemset(s->target.arrivals, 0, sizeof(unsigned int)));
    LQCD_CUDA_CHECK(cudaHostAlloc(&s->host, sizeof(double) * kMaxReduce, cudaHostAllocMapped));
    LQCD_CUDA_CHECK(cudaHostGetDevicePointer(&s->target.result, s->host, 0));
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
  }
  return "?";
}

template <class Op>
void Run(const Op& op, const BlasLaunch& l, double* result) {
  static_assert(Op::kReduce <= kMaxReduce, "scratch holds kMaxReduce doubles per block");
  const int n = l.sites * l.parities;
  const int blocks = BlocksFor(n);
  ReductionScratch& s = Scratch();
  BlasKernel<Op><<<blocks, kBlasBlock>>>(op, l.sites, n, s.target);
  const std::string what = std::string("launch of blas ") + NameOf(l.op) + " (" + ToString(l.precision) + ")";
  CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  if constexpr (Op::kReduce > 0) {
    // Waits for the kernel (and reports a fault in it); its result is then in host memory.
    LQCD_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    const volatile double* host = s.host;
    for (int k = 0; k < Op::kReduce; ++k) result[k] = host[k];
  }
}

template <Precision P>
void LaunchFor(const BlasLaunch& l, double* result) {
  using Real = RealOf<P>;
  const Real a = static_cast<Real>(l.a[0]), ai = static_cast<Real>(l.a[1]);
  const Real b = static_cast<Real>(l.b[0]), bi = static_cast<Real>(l.b[1]);
  const FieldRef* f = l.field;
  switch (l.op) {
    case Operation::kNorm2: return Run(Norm2Op<P>{IoOf<P>(f[0])}, l, result);
    case Operation::kAllFinite: return Run(AllFiniteOp<P>{IoOf<P>(f[0])}, l, result);
    case Operation::kDot: return Run(DotOp<P, false, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l, result);
    case Operation::kReDot: return Run(DotOp<P, true, false>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l, result);
    case Operation::kDotNorm: return Run(DotOp<P, false, true>{IoOf<P>(f[0]), IoOf<P>(f[1])}, l, result);
    case Operation::kAxpy: return Run(AxpyOp<P, false>{IoOf<P>(f[0]), IoOf<P>(f[1]), a}, l, result);
    case Operation::kAxpyNorm: return Run(AxpyOp<P, true>{IoOf<P>(f[0]), IoOf<P>(f[1]), a}, l, result);
    case Operation::kXpay: return Run(XpayOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), a}, l, result);
    case Operation::kCaxpy: return Run(CaxpyOp<P, false>{IoOf<P>(f[0]), IoOf<P>(f[1]), a, ai}, l, result);
    case Operation::kCaxpyNorm: return Run(CaxpyOp<P, true>{IoOf<P>(f[0]), IoOf<P>(f[1]), a, ai}, l, result);
    case Operation::kCgUpdate:
      return Run(CgUpdateOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2]), IoOf<P>(f[3]), a}, l, result);
    case Operation::kBicgstabDirection:
      return Run(BicgstabDirectionOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2]), a, ai, b, bi}, l, result);
    case Operation::kBicgstabUpdate:
      return Run(BicgstabUpdateOp<P>{IoOf<P>(f[0]), IoOf<P>(f[1]), IoOf<P>(f[2]), IoOf<P>(f[3]), IoOf<P>(f[4]), a,
                                     ai, b, bi},
                 l, result);
    case Operation::kConvert: {
      const SiteIo<P> y = IoOf<P>(f[0]);
      switch (l.in_precision) {
        case Precision::kDouble:
          return Run(ConvertOp<P, Precision::kDouble>{y, IoOf<Precision::kDouble>(f[1])}, l, result);
        case Precision::kSingle:
          return Run(ConvertOp<P, Precision::kSingle>{y, IoOf<Precision::kSingle>(f[1])}, l, result);
        case Precision::kHalf: return Run(ConvertOp<P, Precision::kHalf>{y, IoOf<Precision::kHalf>(f[1])}, l, result);
      }
      return;
    }
    case Operation::kZero:
    case Operation::kCopy: break;  // memset / memcpy on the host side
  }
  throw std::logic_error(std::string("LaunchBlas: no kernel for ") + NameOf(l.op));
}

}  // namespace

void LaunchBlas(const BlasLaunch& launch, double* result) {
  switch (launch.precision) {
    case Precision::kDouble: return LaunchFor<Precision::kDouble>(launch, result);
    case Precision::kSingle: return LaunchFor<Precision::kSingle>(launch, result);
    case Precision::kHalf: return LaunchFor<Precision::kHalf>(launch, result);
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
