// staggered_blas.cu: the vector operations of staggered_blas_launch.h: the Arg struct, the per-component
// functor (a host function too), the fixed-grid kernel with its in-block tree, and the same loops on the host.
#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/colour_vector_accessor.cuh"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/staggered_blas_launch.h"

namespace lqcd::gpu {
namespace {

template <Precision P>
struct ColourBlasArg {
  using Real = typename ColourStorage<P>::Real;
  ColourBlasOp op;
  ColourVectorAccessor<P> x, y, z;
  Real a, b;
  int sites;       // V / 2 per colour
  int components;  // 3 V / 2
};

// a b + c with one rounding in Real: fmaf for float on both sides (a host compiler might otherwise pick the
// double fma for float arguments and round twice), so the host emulation matches the device bit for bit.
template <typename Real>
__host__ __device__ __forceinline__ Real FusedMultiplyAdd(Real a, Real b, Real c) {
  if constexpr (std::is_same_v<Real, float>) {
    return fmaf(a, b, c);
  } else {
    return fma(a, b, c);
  }
}

template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> Fma(Real s, DeviceComplex<Real> u, DeviceComplex<Real> v) {
  return {FusedMultiplyAdd(s, u.re, v.re), FusedMultiplyAdd(s, u.im, v.im)};  // s u + v, one rounding per part
}

// Component e: its update and its contribution to the sums (acc[0], acc[1]), accumulated in double.
template <Precision P>
struct ColourBlasComponent {
  __host__ __device__ __forceinline__ void operator()(const ColourBlasArg<P>& arg, int e, double (&acc)[2]) const {
    using Real = typename ColourStorage<P>::Real;
    const int c = e / arg.sites, cb = e - c * arg.sites;
    switch (arg.op) {
      case ColourBlasOp::kAxpy:
      case ColourBlasOp::kAxpyNorm: {
        const DeviceComplex<Real> y = Fma(arg.a, arg.x.LoadComponent(c, cb), arg.y.LoadComponent(c, cb));
        arg.y.StoreComponent(c, cb, y);
        if (arg.op == ColourBlasOp::kAxpyNorm) {
          acc[0] = fma(double(y.re), double(y.re), acc[0]);
          acc[0] = fma(double(y.im), double(y.im), acc[0]);
        }
        return;
      }
      case ColourBlasOp::kCaxpy: {
        // y += (a + i b) x: re = y.re + a x.re - b x.im, im = y.im + a x.im + b x.re, two fused steps each.
        const DeviceComplex<Real> x = arg.x.LoadComponent(c, cb), y = arg.y.LoadComponent(c, cb);
        arg.y.StoreComponent(c, cb,
                             DeviceComplex<Real>{FusedMultiplyAdd(arg.a, x.re, FusedMultiplyAdd(-arg.b, x.im, y.re)),
                                                 FusedMultiplyAdd(arg.a, x.im, FusedMultiplyAdd(arg.b, x.re, y.im))});
        return;
      }
      case ColourBlasOp::kXpay:
        arg.y.StoreComponent(c, cb, Fma(arg.a, arg.y.LoadComponent(c, cb), arg.x.LoadComponent(c, cb)));
        return;
      case ColourBlasOp::kCgSolutionDirection: {
        const DeviceComplex<Real> p = arg.z.LoadComponent(c, cb);
        arg.y.StoreComponent(c, cb, Fma(arg.a, p, arg.y.LoadComponent(c, cb)));  // x_sol += alpha p
        arg.z.StoreComponent(c, cb, Fma(arg.b, p, arg.x.LoadComponent(c, cb)));  // p = r + beta p
        return;
      }
      case ColourBlasOp::kNorm2: {
        const DeviceComplex<Real> x = arg.x.LoadComponent(c, cb);
        acc[0] = fma(double(x.re), double(x.re), acc[0]);
        acc[0] = fma(double(x.im), double(x.im), acc[0]);
        return;
      }
      case ColourBlasOp::kReDot:
      case ColourBlasOp::kDot: {
        const DeviceComplex<Real> x = arg.x.LoadComponent(c, cb), y = arg.y.LoadComponent(c, cb);
        // conj(x) y = (xr yr + xi yi) + i (xr yi - xi yr)
        acc[0] = fma(double(x.re), double(y.re), acc[0]);
        acc[0] = fma(double(x.im), double(y.im), acc[0]);
        if (arg.op == ColourBlasOp::kDot) {
          acc[1] = fma(double(x.re), double(y.im), acc[1]);
          acc[1] = fma(-double(x.im), double(y.re), acc[1]);
        }
        return;
      }
      case ColourBlasOp::kNonFinite: {
        const DeviceComplex<Real> x = arg.x.LoadComponent(c, cb);
        acc[0] += 0.0 * double(x.re) + 0.0 * double(x.im);
        return;
      }
    }
  }
};

bool Reduces(ColourBlasOp op) {
  return op == ColourBlasOp::kAxpyNorm || op == ColourBlasOp::kNorm2 || op == ColourBlasOp::kReDot ||
         op == ColourBlasOp::kDot || op == ColourBlasOp::kNonFinite;
}

// Thread t of block g sums the components g * threads + t, + grid * threads, ... in that order; the block
// then adds its threads' sums in a fixed tree (the same on the host).
template <Precision P>
__global__ void ColourBlasKernel(const ColourBlasArg<P> arg, double* partials) {
  __shared__ double sum[2][kColourBlasThreads];
  double acc[2] = {0, 0};
  for (int e = blockIdx.x * kColourBlasThreads + threadIdx.x; e < arg.components;
       e += kColourBlasBlocks * kColourBlasThreads) {
    ColourBlasComponent<P>{}(arg, e, acc);
  }
  sum[0][threadIdx.x] = acc[0];
  sum[1][threadIdx.x] = acc[1];
  __syncthreads();
  for (int s = kColourBlasThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      sum[0][threadIdx.x] += sum[0][threadIdx.x + s];
      sum[1][threadIdx.x] += sum[1][threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = sum[0][0];
    partials[2 * blockIdx.x + 1] = sum[1][0];
  }
}

template <Precision P>
ColourBlasArg<P> ArgOf(const ColourBlasLaunch& l) {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  ColourBlasArg<P> arg;
  arg.op = l.op;
  arg.x.data = static_cast<Word*>(const_cast<void*>(l.x.data));  // never stored through
  arg.x.stride = l.x.stride;
  arg.y.data = static_cast<Word*>(l.y.data);
  arg.y.stride = l.y.stride;
  arg.z.data = static_cast<Word*>(l.z.data);
  arg.z.stride = l.z.stride;
  arg.a = static_cast<Real>(l.a);
  arg.b = static_cast<Real>(l.b);
  arg.sites = l.x.sites;
  arg.components = 3 * l.x.sites;
  return arg;
}

std::array<double, 2> SumInBlockOrder(const std::vector<double>& partials) {
  std::array<double, 2> total{0, 0};
  for (int g = 0; g < kColourBlasBlocks; ++g) {
    total[0] += partials[2 * g];
    total[1] += partials[2 * g + 1];
  }
  return total;
}

template <Precision P>
std::array<double, 2> Launch(const ColourBlasLaunch& l) {
  // Reused by every call (launches are stream-ordered); never freed, so that no CUDA call runs at exit.
  static DeviceBuffer* const partials = new DeviceBuffer(2 * kColourBlasBlocks * sizeof(double));
  const ColourBlasArg<P> arg = ArgOf<P>(l);
  ColourBlasKernel<P><<<kColourBlasBlocks, kColourBlasThreads>>>(arg, static_cast<double*>(partials->data()));
  CheckCuda(cudaGetLastError(), "launch of the staggered vector operation", __FILE__, __LINE__);
  if (!Reduces(l.op)) return {0, 0};
  std::vector<double> host(2 * kColourBlasBlocks);
  partials->CopyToHost(host.data(), host.size() * sizeof(double));  // waits for the kernel
  return SumInBlockOrder(host);
}

template <Precision P>
std::array<double, 2> RunOnHost(const ColourBlasLaunch& l) {
  const ColourBlasArg<P> arg = ArgOf<P>(l);
  std::vector<double> partials(2 * kColourBlasBlocks);
  std::vector<double> sum0(kColourBlasThreads), sum1(kColourBlasThreads);
  for (int g = 0; g < kColourBlasBlocks; ++g) {
    for (int t = 0; t < kColourBlasThreads; ++t) {
      double acc[2] = {0, 0};
      for (int e = g * kColourBlasThreads + t; e < arg.components; e += kColourBlasBlocks * kColourBlasThreads) {
        ColourBlasComponent<P>{}(arg, e, acc);
      }
      sum0[t] = acc[0];
      sum1[t] = acc[1];
    }
    for (int s = kColourBlasThreads / 2; s > 0; s /= 2) {
      for (int t = 0; t < s; ++t) {
        sum0[t] += sum0[t + s];
        sum1[t] += sum1[t + s];
      }
    }
    partials[2 * g] = sum0[0];
    partials[2 * g + 1] = sum1[0];
  }
  if (!Reduces(l.op)) return {0, 0};
  return SumInBlockOrder(partials);
}

template <Precision To, Precision From>
struct ColourConvertArg {
  ColourVectorAccessor<To> y;
  ColourVectorAccessor<From> x;
  int sites, components;
};

template <Precision To, Precision From>
struct ColourConvertComponent {
  __host__ __device__ __forceinline__ void operator()(const ColourConvertArg<To, From>& arg, int e) const {
    using Real = typename ColourStorage<To>::Real;
    const int c = e / arg.sites, cb = e - c * arg.sites;
    const auto z = arg.x.LoadComponent(c, cb);
    arg.y.StoreComponent(c, cb, DeviceComplex<Real>{static_cast<Real>(z.re), static_cast<Real>(z.im)});
  }
};

template <Precision To, Precision From>
__global__ void ColourConvertKernel(const ColourConvertArg<To, From> arg) {
  for (int e = blockIdx.x * kColourBlasThreads + threadIdx.x; e < arg.components;
       e += kColourBlasBlocks * kColourBlasThreads) {
    ColourConvertComponent<To, From>{}(arg, e);
  }
}

template <Precision To, Precision From>
void Convert(const ColourVectorView& y, const ConstColourVectorView& x, bool on_host) {
  ColourConvertArg<To, From> arg;
  arg.y.data = static_cast<typename ColourStorage<To>::Word*>(y.data);
  arg.y.stride = y.stride;
  arg.x.data = static_cast<typename ColourStorage<From>::Word*>(const_cast<void*>(x.data));  // only loaded
  arg.x.stride = x.stride;
  arg.sites = x.sites;
  arg.components = 3 * x.sites;
  if (on_host) {
    for (int e = 0; e < arg.components; ++e) ColourConvertComponent<To, From>{}(arg, e);
    return;
  }
  ColourConvertKernel<To, From><<<kColourBlasBlocks, kColourBlasThreads>>>(arg);
  CheckCuda(cudaGetLastError(), "launch of the staggered precision conversion", __FILE__, __LINE__);
}

void ConvertDispatch(const ColourVectorView& y, const ConstColourVectorView& x, bool on_host) {
  if (y.precision == Precision::kHalf || x.precision == Precision::kHalf) {
    throw std::invalid_argument("ColourConvert: half precision is not implemented");
  }
  if (y.precision == Precision::kDouble) {
    if (x.precision == Precision::kDouble) return Convert<Precision::kDouble, Precision::kDouble>(y, x, on_host);
    return Convert<Precision::kDouble, Precision::kSingle>(y, x, on_host);
  }
  if (x.precision == Precision::kDouble) return Convert<Precision::kSingle, Precision::kDouble>(y, x, on_host);
  Convert<Precision::kSingle, Precision::kSingle>(y, x, on_host);
}

}  // namespace

void LaunchColourConvert(const ColourVectorView& y, const ConstColourVectorView& x) { ConvertDispatch(y, x, false); }
void RunColourConvertOnHost(const ColourVectorView& y, const ConstColourVectorView& x) {
  ConvertDispatch(y, x, true);
}

std::array<double, 2> LaunchColourBlas(const ColourBlasLaunch& launch) {
  switch (launch.x.precision) {
    case Precision::kDouble: return Launch<Precision::kDouble>(launch);
    case Precision::kSingle: return Launch<Precision::kSingle>(launch);
    case Precision::kHalf: break;
  }
  throw std::invalid_argument("LaunchColourBlas: half precision is not implemented");
}

std::array<double, 2> RunColourBlasOnHost(const ColourBlasLaunch& launch) {
  switch (launch.x.precision) {
    case Precision::kDouble: return RunOnHost<Precision::kDouble>(launch);
    case Precision::kSingle: return RunOnHost<Precision::kSingle>(launch);
    case Precision::kHalf: break;
  }
  throw std::invalid_argument("RunColourBlasOnHost: half precision is not implemented");
}

}  // namespace lqcd::gpu
