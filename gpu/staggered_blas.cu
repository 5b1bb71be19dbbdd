// staggered_blas.cu: the vector operations of staggered_blas_launch.h: the Arg struct, the per-item functor (a
// complex component in double and single, a site in half; a host function too), the fixed-grid kernel with its
// in-block tree, and the same loops on the host; the precision conversion and the Z2 noise, one site per item.
#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/checkerboard.cuh"
#include "gpu/colour_vector_accessor.cuh"
#include "gpu/cuda_check.h"
#include "gpu/philox_stream.cuh"
#include "gpu/staggered_blas_launch.h"

namespace lqcd::gpu {
namespace {

template <Precision P>
struct ColourBlasArg {
  using Real = typename ColourStorage<P>::Real;
  ColourVectorAccessor<P> x, y, z;
  Real a, b;
  int sites;  // V / 2 per colour
  int items;  // the loop's items: the 3 V / 2 complex components in double and single, the V / 2 sites in half
};

// Which fields an operation reads besides x, and which it writes.
__host__ __device__ constexpr bool ReadsY(ColourBlasOp op) {
  return op != ColourBlasOp::kNorm2 && op != ColourBlasOp::kNonFinite;
}
__host__ __device__ constexpr bool UsesZ(ColourBlasOp op) { return op == ColourBlasOp::kCgSolutionDirection; }
__host__ __device__ constexpr bool WritesY(ColourBlasOp op) {
  return op == ColourBlasOp::kAxpy || op == ColourBlasOp::kAxpyNorm || op == ColourBlasOp::kCaxpy ||
         op == ColourBlasOp::kXpay || op == ColourBlasOp::kCgSolutionDirection;
}

// One complex component's update in Real, the same in every precision (half: on the loaded values, before the
// site is quantised): y (and z) replaced by the new values from x, y, z as loaded.
template <typename Real>
__host__ __device__ __forceinline__ void UpdateComponent(ColourBlasOp op, Real a, Real b, DeviceComplex<Real> x,
                                                         DeviceComplex<Real>& y, DeviceComplex<Real>& z) {
  switch (op) {
    case ColourBlasOp::kAxpy:
    case ColourBlasOp::kAxpyNorm: y = Fma(a, x, y); return;
    case ColourBlasOp::kCaxpy:
      // y += (a + i b) x: re = y.re + a x.re - b x.im, im = y.im + a x.im + b x.re, two fused steps each.
      y = DeviceComplex<Real>{FusedMultiplyAdd(a, x.re, FusedMultiplyAdd(-b, x.im, y.re)),
                              FusedMultiplyAdd(a, x.im, FusedMultiplyAdd(b, x.re, y.im))};
      return;
    case ColourBlasOp::kXpay: y = Fma(a, y, x); return;
    case ColourBlasOp::kCgSolutionDirection: {
      const DeviceComplex<Real> p = z;
      y = Fma(a, p, y);  // x_sol += alpha p
      z = Fma(b, p, x);  // p = r + beta p
      return;
    }
    default: return;  // the reductions
  }
}

// One complex component's terms of the operation's sums, accumulated in double: of x, and of y as stored
// (AxpyNorm's |y|^2 is then the Norm2 of what it wrote, in every precision).
template <typename Real>
__host__ __device__ __forceinline__ void AccumulateComponent(ColourBlasOp op, DeviceComplex<Real> x,
                                                             DeviceComplex<Real> y, double (&acc)[2]) {
  switch (op) {
    case ColourBlasOp::kAxpyNorm:
      acc[0] = fma(double(y.re), double(y.re), acc[0]);
      acc[0] = fma(double(y.im), double(y.im), acc[0]);
      return;
    case ColourBlasOp::kNorm2:
      acc[0] = fma(double(x.re), double(x.re), acc[0]);
      acc[0] = fma(double(x.im), double(x.im), acc[0]);
      return;
    case ColourBlasOp::kReDot:
    case ColourBlasOp::kDot:
      // conj(x) y = (xr yr + xi yi) + i (xr yi - xi yr)
      acc[0] = fma(double(x.re), double(y.re), acc[0]);
      acc[0] = fma(double(x.im), double(y.im), acc[0]);
      if (op == ColourBlasOp::kDot) {
        acc[1] = fma(double(x.re), double(y.im), acc[1]);
        acc[1] = fma(-double(x.im), double(y.re), acc[1]);
      }
      return;
    case ColourBlasOp::kNonFinite: acc[0] += 0.0 * double(x.re) + 0.0 * double(x.im); return;
    default: return;  // no sum
  }
}

// Colour c and site cb of component e = c * sites + cb, without a division (c < 3).
__host__ __device__ __forceinline__ void ComponentOf(int e, int sites, int& c, int& cb) {
  c = (e >= sites) + (e >= 2 * sites);
  cb = e - c * sites;
}

// Item e of the loop: its update and its contribution to the sums (acc[0], acc[1]), accumulated in double.
// The operation is a template argument, so that each kernel holds only its own operation's code:
// with the operation a run-time value every item ran its branches, about 70 instructions per item, and the
// reductions reached a third of the copy bandwidth.
// Double and single: complex component e (colour c of site cb). Half: site e, its three components updated in
// float as above, the site quantised when stored (a site's components share its norm), and the sums taken over
// its stored values in colour order. Load reads the item's inputs and Finish does the rest, so that the kernel
// can issue the loads of several items before it computes any (items never share a word, a site's norm
// included, so this is the same as one item after another).
template <Precision P, ColourBlasOp kOp>
struct ColourBlasItem {
  using Real = typename ColourStorage<P>::Real;
  using Value = std::conditional_t<P == Precision::kHalf, ColourVector<Real>, DeviceComplex<Real>>;
  struct Loaded {
    Value x, y, z;
  };

  __host__ __device__ __forceinline__ Loaded Load(const ColourBlasArg<P>& arg, int e) const {
    Loaded v{};
    if constexpr (P == Precision::kHalf) {
      v.x = arg.x.LoadSite(e);
      if constexpr (ReadsY(kOp)) v.y = arg.y.LoadSite(e);
      if constexpr (UsesZ(kOp)) v.z = arg.z.LoadSite(e);
    } else {
      int c, cb;
      ComponentOf(e, arg.sites, c, cb);
      v.x = arg.x.LoadComponent(c, cb);
      if constexpr (ReadsY(kOp)) v.y = arg.y.LoadComponent(c, cb);
      if constexpr (UsesZ(kOp)) v.z = arg.z.LoadComponent(c, cb);
    }
    return v;
  }

  __host__ __device__ __forceinline__ void Finish(const ColourBlasArg<P>& arg, int e, Loaded v,
                                                  double (&acc)[2]) const {
    if constexpr (P == Precision::kHalf) {
#pragma unroll
      for (int c = 0; c < 3; ++c) UpdateComponent(kOp, arg.a, arg.b, v.x.c[c], v.y.c[c], v.z.c[c]);
      if constexpr (WritesY(kOp)) v.y = arg.y.StoreSite(e, v.y);
      if constexpr (UsesZ(kOp)) arg.z.StoreSite(e, v.z);
#pragma unroll
      for (int c = 0; c < 3; ++c) AccumulateComponent(kOp, v.x.c[c], v.y.c[c], acc);
    } else {
      int c, cb;
      ComponentOf(e, arg.sites, c, cb);
      UpdateComponent(kOp, arg.a, arg.b, v.x, v.y, v.z);
      if constexpr (WritesY(kOp)) arg.y.StoreComponent(c, cb, v.y);
      if constexpr (UsesZ(kOp)) arg.z.StoreComponent(c, cb, v.z);
      AccumulateComponent(kOp, v.x, v.y, acc);
    }
  }

  __host__ __device__ __forceinline__ void operator()(const ColourBlasArg<P>& arg, int e, double (&acc)[2]) const {
    Finish(arg, e, Load(arg, e), acc);
  }
};

__host__ __device__ constexpr bool Reduces(ColourBlasOp op) {
  return op == ColourBlasOp::kAxpyNorm || op == ColourBlasOp::kNorm2 || op == ColourBlasOp::kReDot ||
         op == ColourBlasOp::kDot || op == ColourBlasOp::kNonFinite;
}

// The fixed tree over a block's threads: sum[k][0] ends up with the block's sums (the host does the same).
__host__ __device__ __forceinline__ void TreeStep(double (&sum)[2][kColourBlasThreads], int t, int s) {
  sum[0][t] += sum[0][t + s];
  sum[1][t] += sum[1][t + s];
}

// Each thread's two values summed over the block in the fixed tree: sum[k][0] ends up with the block's sums.
__device__ __forceinline__ void BlockTree(double (&sum)[2][kColourBlasThreads], const double (&value)[2]) {
  sum[0][threadIdx.x] = value[0];
  sum[1][threadIdx.x] = value[1];
  __syncthreads();
  for (int s = kColourBlasThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) TreeStep(sum, threadIdx.x, s);
    __syncthreads();
  }
}

// Where a reduction's numbers go: each block's two partial sums, the arrival counter (zero between reductions)
// and the result: a ScalarSlot's device copy (or null) and pinned host memory mapped into the device (the slot's
// host copy, or the launcher's own, which it reads after a stream synchronisation), with no copy.
struct ColourReductionTarget {
  double* partials;
  unsigned int* arrivals;
  double* result_device;
  double* result_host;
};

// One thread's items, first = g * threads + t for thread t of block g: first, first + grid, first + 2 grid, ...
// (grid = blocks x threads), their updates done and their terms summed into acc in that order. The loads of
// kColourBlasUnroll items are issued before any of them is computed: with one 8- or 16-byte load per field and
// item, one item at a time leaves too few bytes in flight to cover the memory latency on the fixed grid.
// Items never share a word (a half site's norm included), so this is the same as one item after another. The
// kernel and RunOnHost both run it.
template <Precision P, ColourBlasOp kOp>
__host__ __device__ __forceinline__ void ThreadItems(const ColourBlasArg<P>& arg, int first, double (&acc)[2]) {
  constexpr int kGrid = kColourBlasBlocks * kColourBlasThreads;
  const ColourBlasItem<P, kOp> item;
  int e = first;
  for (; e + (kColourBlasUnroll - 1) * kGrid < arg.items; e += kColourBlasUnroll * kGrid) {
    typename ColourBlasItem<P, kOp>::Loaded v[kColourBlasUnroll];
#pragma unroll
    for (int u = 0; u < kColourBlasUnroll; ++u) v[u] = item.Load(arg, e + u * kGrid);
#pragma unroll
    for (int u = 0; u < kColourBlasUnroll; ++u) item.Finish(arg, e + u * kGrid, v[u], acc);
  }
  for (; e < arg.items; e += kGrid) item(arg, e, acc);
}

// Thread t of block g sums its items (ThreadItems); the block then adds
// its threads' sums in a fixed tree. The last block to arrive (an integer atomic counter) adds the blocks'
// partials: thread t those of blocks t, t + threads, ... in that order, then the same tree. Which block is last
// depends on timing, but not what it adds nor in which order: deterministic, and RunOnHost does the same sums.
// Deferred scalars (scalar_program.h's ScalarSource): a and b are the real parts of the values, rounded to Real
// as ArgOf rounds the launch's numbers.
template <Precision P, ColourBlasOp kOp, ScalarSource kSource>
__global__ void ColourBlasKernel(const ColourBlasArg<P> launch_arg, ColourReductionTarget target,
                                 const __grid_constant__ ScalarSourceArg<kSource> scalars) {
  using Real = typename ColourStorage<P>::Real;
  __shared__ double sum[2][kColourBlasThreads];
  __shared__ bool last;
  ColourBlasArg<P> arg = launch_arg;
  if constexpr (kSource == ScalarSource::kValuesInMemory) {
    arg.a = static_cast<Real>(__ldg(scalars.values));
    arg.b = static_cast<Real>(__ldg(scalars.values + 2));
  } else if constexpr (kSource == ScalarSource::kPrograms) {
    __shared__ double values[4];
    if (threadIdx.x == 0) EvaluatePairIntoShared(scalars.pair, values);
    __syncthreads();
    arg.a = static_cast<Real>(values[0]);
    arg.b = static_cast<Real>(values[2]);
  }
  double acc[2] = {0, 0};
  ThreadItems<P, kOp>(arg, blockIdx.x * kColourBlasThreads + threadIdx.x, acc);
  if constexpr (!Reduces(kOp)) return;
  BlockTree(sum, acc);
  if (threadIdx.x == 0) {
    target.partials[2 * blockIdx.x] = sum[0][0];
    target.partials[2 * blockIdx.x + 1] = sum[1][0];
    __threadfence();  // the partials are visible device-wide before this block counts as arrived
    last = atomicAdd(target.arrivals, 1u) == kColourBlasBlocks - 1;
  }
  __syncthreads();
  if (!last) return;
  double total[2] = {0, 0};
  for (int g = threadIdx.x; g < kColourBlasBlocks; g += kColourBlasThreads) {
    total[0] += __ldcg(target.partials + 2 * g);  // from L2, never a stale L1 line
    total[1] += __ldcg(target.partials + 2 * g + 1);
  }
  BlockTree(sum, total);
  if (threadIdx.x == 0) {
    if (target.result_device != nullptr) {
      target.result_device[0] = sum[0][0];
      target.result_device[1] = sum[1][0];
    }
    target.result_host[0] = sum[0][0];
    target.result_host[1] = sum[1][0];
    *target.arrivals = 0;  // ready for the next reduction (launches on the stream run one after another)
  }
}

// The accessor of a view's storage: its words and, in half, the norms after its 3 x stride words
// (staggered_dslash_launch.h).
template <Precision P>
ColourVectorAccessor<P> AccessorOf(const void* data, int stride) {
  ColourVectorAccessor<P> a;
  a.data = static_cast<typename ColourStorage<P>::Word*>(const_cast<void*>(data));  // inputs are only loaded
  a.stride = stride;
  if constexpr (P == Precision::kHalf) {
    if (data != nullptr) a.norm = reinterpret_cast<float*>(a.data + 3 * static_cast<long>(stride));
  }
  return a;
}

template <Precision P>
ColourBlasArg<P> ArgOf(const ColourBlasLaunch& l) {
  using Real = typename ColourStorage<P>::Real;
  ColourBlasArg<P> arg;
  arg.x = AccessorOf<P>(l.x.data, l.x.stride);  // never stored through
  arg.y = AccessorOf<P>(l.y.data, l.y.stride);
  arg.z = AccessorOf<P>(l.z.data, l.z.stride);
  arg.a = static_cast<Real>(l.a);
  arg.b = static_cast<Real>(l.b);
  arg.sites = l.x.sites;
  arg.items = static_cast<int>(ColourBlasItems(P, l.x.sites));
  return arg;
}

// The fixed tree of TreeStep over sum[k][0..threads).
void TreeOnHost(double (&sum)[2][kColourBlasThreads]) {
  for (int s = kColourBlasThreads / 2; s > 0; s /= 2) {
    for (int t = 0; t < s; ++t) TreeStep(sum, t, s);
  }
}

// The last block's sum of the block partials (ColourBlasKernel), on the host.
std::array<double, 2> FinishOnHost(const std::vector<double>& partials) {
  double sum[2][kColourBlasThreads];
  for (int t = 0; t < kColourBlasThreads; ++t) {
    double total[2] = {0, 0};
    for (int g = t; g < kColourBlasBlocks; g += kColourBlasThreads) {
      total[0] += partials[2 * g];
      total[1] += partials[2 * g + 1];
    }
    sum[0][t] = total[0];
    sum[1][t] = total[1];
  }
  TreeOnHost(sum);
  return {sum[0][0], sum[1][0]};
}

// The partials and the counter in device memory and the result in pinned mapped host memory, allocated on first
// use and kept for the life of the process (never freed: no CUDA call at exit). The default stream runs the
// reductions one after another, so one set of partials and one counter serve them all; not thread-safe.
struct ColourReductionScratch {
  ColourReductionTarget target{};
  volatile double* host_result = nullptr;
};

const ColourReductionScratch& ReductionScratch() {
  static const ColourReductionScratch* const scratch = [] {
    auto* s = new ColourReductionScratch;
    LQCD_CUDA_CHECK(cudaMalloc(&s->target.partials, 2 * kColourBlasBlocks * sizeof(double)));
    LQCD_CUDA_CHECK(cudaMalloc(&s->target.arrivals, sizeof(unsigned int)));
    LQCD_CUDA_CHECK(cudaMemset(s->target.arrivals, 0, sizeof(unsigned int)));
    double* host = nullptr;
    LQCD_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(double), cudaHostAllocMapped));
    LQCD_CUDA_CHECK(cudaHostGetDevicePointer(&s->target.result_host, host, 0));
    s->host_result = host;
    return s;
  }();
  return *scratch;
}

// f(std::integral_constant<ColourBlasOp, op>{}): the run-time operation as a template argument.
template <class F>
void WithOperation(ColourBlasOp op, F&& f) {
  using Op = ColourBlasOp;
  switch (op) {
    case Op::kAxpy: return f(std::integral_constant<Op, Op::kAxpy>{});
    case Op::kCaxpy: return f(std::integral_constant<Op, Op::kCaxpy>{});
    case Op::kXpay: return f(std::integral_constant<Op, Op::kXpay>{});
    case Op::kAxpyNorm: return f(std::integral_constant<Op, Op::kAxpyNorm>{});
    case Op::kCgSolutionDirection: return f(std::integral_constant<Op, Op::kCgSolutionDirection>{});
    case Op::kNorm2: return f(std::integral_constant<Op, Op::kNorm2>{});
    case Op::kReDot: return f(std::integral_constant<Op, Op::kReDot>{});
    case Op::kDot: return f(std::integral_constant<Op, Op::kDot>{});
    case Op::kNonFinite: return f(std::integral_constant<Op, Op::kNonFinite>{});
  }
  throw std::invalid_argument("staggered vector operation: unknown operation");
}

template <Precision P>
std::array<double, 2> Launch(const ColourBlasLaunch& l) {
  const ColourReductionScratch& scratch = ReductionScratch();
  const ColourBlasArg<P> arg = ArgOf<P>(l);
  if ((l.device_scalars || l.scalar_values != nullptr) && l.op == ColourBlasOp::kCaxpy) {
    throw std::invalid_argument("LaunchColourBlas: Caxpy takes its complex scalar as numbers only");
  }
  if ((l.result_device == nullptr) != (l.result_host == nullptr)) {
    throw std::invalid_argument("LaunchColourBlas: both result addresses or neither");
  }
  const bool to_slot = l.result_host != nullptr;
  ColourReductionTarget target = scratch.target;
  if (to_slot) {
    target.result_device = l.result_device;
    target.result_host = l.result_host;
  } else if (Reduces(l.op)) {
    // The launcher's own result: the previous reduction into it is complete (the host waited for it), so a
    // result the kernel failed to write reads as NaN, never as the previous reduction's value.
    scratch.host_result[0] = std::numeric_limits<double>::quiet_NaN();
    scratch.host_result[1] = std::numeric_limits<double>::quiet_NaN();
  }
  WithOperation(l.op, [&](auto op) {
    constexpr ColourBlasOp kOp = decltype(op)::value;
    if (l.scalar_values != nullptr) {
      ColourBlasKernel<P, kOp, ScalarSource::kValuesInMemory><<<kColourBlasBlocks, kColourBlasThreads>>>(
          arg, target, {l.scalar_values});
    } else if (l.device_scalars) {
      ColourBlasKernel<P, kOp, ScalarSource::kPrograms><<<kColourBlasBlocks, kColourBlasThreads>>>(
          arg, target, {l.scalar_programs});
    } else {
      ColourBlasKernel<P, kOp, ScalarSource::kArguments><<<kColourBlasBlocks, kColourBlasThreads>>>(arg, target, {});
    }
  });
  CheckCuda(cudaGetLastError(), "launch of the staggered vector operation", __FILE__, __LINE__);
  if (!Reduces(l.op) || to_slot) return {0, 0};
  CheckCuda(cudaStreamSynchronize(0), "the staggered vector operation's reduction", __FILE__, __LINE__);
  return {scratch.host_result[0], scratch.host_result[1]};
}

template <Precision P>
std::array<double, 2> RunOnHost(const ColourBlasLaunch& l) {
  const ColourBlasArg<P> arg = ArgOf<P>(l);
  std::vector<double> partials(2 * kColourBlasBlocks);
  WithOperation(l.op, [&](auto op) {
    double sum[2][kColourBlasThreads];
    for (int g = 0; g < kColourBlasBlocks; ++g) {
      for (int t = 0; t < kColourBlasThreads; ++t) {
        double acc[2] = {0, 0};
        ThreadItems<P, decltype(op)::value>(arg, g * kColourBlasThreads + t, acc);
        sum[0][t] = acc[0];
        sum[1][t] = acc[1];
      }
      TreeOnHost(sum);
      partials[2 * g] = sum[0][0];
      partials[2 * g + 1] = sum[1][0];
    }
  });
  if (!Reduces(l.op)) return {0, 0};
  return FinishOnHost(partials);
}

template <Precision To, Precision From>
struct ColourConvertArg {
  ColourVectorAccessor<To> y;
  ColourVectorAccessor<From> x;
  int sites;
};

// Site cb: each real converted to To's compute type (a double for a half field is rounded to float first), then
// stored (half: the site quantised).
template <Precision To, Precision From>
struct ColourConvertSite {
  __host__ __device__ __forceinline__ void operator()(const ColourConvertArg<To, From>& arg, int cb) const {
    using Real = typename ColourStorage<To>::Real;
    const auto v = arg.x.LoadSite(cb);
    ColourVector<Real> w;
#pragma unroll
    for (int c = 0; c < 3; ++c) w.c[c] = {static_cast<Real>(v.c[c].re), static_cast<Real>(v.c[c].im)};
    arg.y.Store(cb, w);
  }
};

template <Precision To, Precision From>
__global__ void ColourConvertKernel(const ColourConvertArg<To, From> arg) {
  for (int cb = blockIdx.x * kColourBlasThreads + threadIdx.x; cb < arg.sites;
       cb += kColourBlasBlocks * kColourBlasThreads) {
    ColourConvertSite<To, From>{}(arg, cb);
  }
}

template <Precision To, Precision From>
void Convert(const ColourVectorView& y, const ConstColourVectorView& x, bool on_host) {
  ColourConvertArg<To, From> arg;
  arg.y = AccessorOf<To>(y.data, y.stride);
  arg.x = AccessorOf<From>(x.data, x.stride);  // only loaded
  arg.sites = x.sites;
  if (on_host) {
    for (int cb = 0; cb < arg.sites; ++cb) ColourConvertSite<To, From>{}(arg, cb);
    return;
  }
  ColourConvertKernel<To, From><<<kColourBlasBlocks, kColourBlasThreads>>>(arg);
  CheckCuda(cudaGetLastError(), "launch of the staggered precision conversion", __FILE__, __LINE__);
}

template <Precision To>
void ConvertFrom(const ColourVectorView& y, const ConstColourVectorView& x, bool on_host) {
  switch (x.precision) {
    case Precision::kDouble: return Convert<To, Precision::kDouble>(y, x, on_host);
    case Precision::kSingle: return Convert<To, Precision::kSingle>(y, x, on_host);
    case Precision::kHalf: return Convert<To, Precision::kHalf>(y, x, on_host);
  }
}

void ConvertDispatch(const ColourVectorView& y, const ConstColourVectorView& x, bool on_host) {
  switch (y.precision) {
    case Precision::kDouble: return ConvertFrom<Precision::kDouble>(y, x, on_host);
    case Precision::kSingle: return ConvertFrom<Precision::kSingle>(y, x, on_host);
    case Precision::kHalf: return ConvertFrom<Precision::kHalf>(y, x, on_host);
  }
}

template <Precision P>
struct ColourZ2NoiseArg {
  ColourVectorAccessor<P> y;
  int parity;
  int extents[4];
  std::uint64_t seed;
  int sites;
};

// Site cb: its lexicographic index names the Philox stream; colour c is +1 or -1 by the lowest bit of the
// stream's word c (solvers/staggered_pbp.h FillZ2Noise draws the same words in the same order).
template <Precision P>
struct ColourZ2NoiseSite {
  __host__ __device__ __forceinline__ void operator()(const ColourZ2NoiseArg<P>& arg, int cb) const {
    using Real = typename ColourStorage<P>::Real;
    PhiloxStream stream(arg.seed, static_cast<std::uint64_t>(CheckerboardSite(cb, arg.parity, arg.extents).full_index));
    ColourVector<Real> w;
#pragma unroll
    for (int c = 0; c < 3; ++c) w.c[c] = {(stream.NextWord() & 1u) ? Real(1) : Real(-1), Real(0)};
    arg.y.Store(cb, w);
  }
};

template <Precision P>
__global__ void ColourZ2NoiseKernel(const ColourZ2NoiseArg<P> arg) {
  for (int cb = blockIdx.x * kColourBlasThreads + threadIdx.x; cb < arg.sites;
       cb += kColourBlasBlocks * kColourBlasThreads) {
    ColourZ2NoiseSite<P>{}(arg, cb);
  }
}

template <Precision P>
void Z2Noise(const ColourVectorView& y, std::uint64_t seed, bool on_host) {
  ColourZ2NoiseArg<P> arg;
  arg.y = AccessorOf<P>(y.data, y.stride);
  arg.parity = y.parity;
  for (int mu = 0; mu < 4; ++mu) arg.extents[mu] = y.extents[mu];
  arg.seed = seed;
  arg.sites = y.sites;
  if (on_host) {
    for (int cb = 0; cb < arg.sites; ++cb) ColourZ2NoiseSite<P>{}(arg, cb);
    return;
  }
  ColourZ2NoiseKernel<P><<<kColourBlasBlocks, kColourBlasThreads>>>(arg);
  CheckCuda(cudaGetLastError(), "launch of the staggered Z2 noise", __FILE__, __LINE__);
}

void Z2NoiseDispatch(const ColourVectorView& y, std::uint64_t seed, bool on_host) {
  switch (y.precision) {
    case Precision::kDouble: return Z2Noise<Precision::kDouble>(y, seed, on_host);
    case Precision::kSingle: return Z2Noise<Precision::kSingle>(y, seed, on_host);
    case Precision::kHalf: return Z2Noise<Precision::kHalf>(y, seed, on_host);
  }
}

}  // namespace

void LaunchColourZ2Noise(const ColourVectorView& y, std::uint64_t seed) { Z2NoiseDispatch(y, seed, false); }
void RunColourZ2NoiseOnHost(const ColourVectorView& y, std::uint64_t seed) { Z2NoiseDispatch(y, seed, true); }

void LaunchColourConvert(const ColourVectorView& y, const ConstColourVectorView& x) { ConvertDispatch(y, x, false); }
void RunColourConvertOnHost(const ColourVectorView& y, const ConstColourVectorView& x) {
  ConvertDispatch(y, x, true);
}

std::array<double, 2> LaunchColourBlas(const ColourBlasLaunch& launch) {
  switch (launch.x.precision) {
    case Precision::kDouble: return Launch<Precision::kDouble>(launch);
    case Precision::kSingle: return Launch<Precision::kSingle>(launch);
    case Precision::kHalf: return Launch<Precision::kHalf>(launch);
  }
  throw std::invalid_argument("LaunchColourBlas: unknown precision");
}

std::array<double, 2> RunColourBlasOnHost(const ColourBlasLaunch& launch) {
  switch (launch.x.precision) {
    case Precision::kDouble: return RunOnHost<Precision::kDouble>(launch);
    case Precision::kSingle: return RunOnHost<Precision::kSingle>(launch);
    case Precision::kHalf: return RunOnHost<Precision::kHalf>(launch);
  }
  throw std::invalid_argument("RunColourBlasOnHost: unknown precision");
}

}  // namespace lqcd::gpu
