// u3_link_accessor.cuh: long (Naik) links stored as 13 numbers (staggered_dslash_launch.h's U3LinkView layout;
// reference/staggered/u3_compression.h's parametrisation): the first two rows a, b of X = L / scale and
// theta = arg det X, and how the kernel rebuilds L = scale (a; b; e^{i theta} conj(a x b)) in registers. Host
// functions too (the host check of the staggered kernel).
//
// Device-side header (included by .cu files only).
#pragma once

#include <cmath>
#include <type_traits>

#include "gpu/colour_vector_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/staggered_dslash_launch.h"

namespace lqcd::gpu {

// sin and cos of x in Real: the device's sincos / sincosf, the host's std::sin and std::cos.
template <typename Real>
__host__ __device__ __forceinline__ void SinCos(Real x, Real* s, Real* c) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<Real, float>) {
    sincosf(x, s, c);
  } else {
    sincos(x, s, c);
  }
#else
  *s = std::sin(x);
  *c = std::cos(x);
#endif
}

template <Precision P>
struct U3LinkAccessor {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  Word* data = nullptr;
  int stride = 0;
  Real scale = 1;

  __host__ __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * 4 + mu) * kU3Words + w) * stride + cb;
  }

  __host__ __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Link<Real> u;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) {
        const Word w = LoadReadOnly(data + WordIndex(mu, parity, cb, 3 * i + j));
        u.m[i][j] = {w.x, w.y};
      }
    }
    const Real theta = LoadReadOnly(data + WordIndex(mu, parity, cb, 6)).x;
    Real s, c;
    SinCos(theta, &s, &c);
    // third row: e^{i theta} conj(a x b), (a x b)_k = a_{k+1} b_{k+2} - a_{k+2} b_{k+1}
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      const DeviceComplex<Real> cross = u.m[0][k1] * u.m[1][k2] - u.m[0][k2] * u.m[1][k1];
      const DeviceComplex<Real> conj_cross{cross.re, -cross.im};
      u.m[2][k] = DeviceComplex<Real>{c, s} * conj_cross;
    }
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) u.m[i][j] = scale * u.m[i][j];
    }
    return u;
  }

  // The 14 reals of one link (12 row reals, theta, a zero pad) rounded to Real, into its words.
  __host__ __device__ __forceinline__ void Store(int mu, int parity, int cb, const double* r) const {
#pragma unroll
    for (int w = 0; w < kU3Words; ++w) {
      data[WordIndex(mu, parity, cb, w)] = Word{static_cast<Real>(r[2 * w]), static_cast<Real>(r[2 * w + 1])};
    }
  }
};

}  // namespace lqcd::gpu
