// u3_link_accessor.cuh: long (Naik) links stored as 13 or 9 numbers (staggered_dslash_launch.h's U3LinkView
// layouts; reference/staggered/u3_compression.h's parametrisations), and how the kernel rebuilds them in
// registers:
//   13 numbers (U3LinkAccessor): the first two rows a, b of X = L / scale and theta = arg det X;
//       L = scale (a; b; e^{i theta} conj(a x b)).
//   9 numbers (U9LinkAccessor): the 8 reals of S = e^{-i theta / 3} X (an SU(3) matrix) in su3_reconstruct.cuh's
//       order and theta; L = (scale e^{i theta / 3}) ReconstructFrom8(the 8 reals), the accurate reconstruction
//       of the Wilson kernels' 8-real links in double and single.
// Host functions too (the host check of the staggered kernel).
//
// Device-side header (included by .cu files only).
#pragma once

#include "gpu/colour_vector_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/staggered_dslash_launch.h"
#include "gpu/su3_reconstruct.cuh"

namespace lqcd::gpu {

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

template <Precision P>
struct U9LinkAccessor {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  Word* data = nullptr;
  int stride = 0;
  Real scale = 1;

  __host__ __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * 4 + mu) * kU9Words + w) * stride + cb;
  }

  __host__ __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Real p[2 * kU9Words];
#pragma unroll
    for (int w = 0; w < kU9Words; ++w) {
      const Word word = LoadReadOnly(data + WordIndex(mu, parity, cb, w));
      p[2 * w] = word.x;
      p[2 * w + 1] = word.y;
    }
    Link<Real> u = ReconstructFrom8<false>(p);  // S, with det S = 1
    Real s, c;
    SinCos(p[8] / Real(3), &s, &c);
    const DeviceComplex<Real> phase{scale * c, scale * s};  // scale e^{i theta / 3}
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) u.m[i][j] = phase * u.m[i][j];
    }
    return u;
  }

  // The 10 reals of one link (the 8 of S, theta, a zero pad) rounded to Real, into its words.
  __host__ __device__ __forceinline__ void Store(int mu, int parity, int cb, const double* r) const {
#pragma unroll
    for (int w = 0; w < kU9Words; ++w) {
      data[WordIndex(mu, parity, cb, w)] = Word{static_cast<Real>(r[2 * w]), static_cast<Real>(r[2 * w + 1])};
    }
  }
};

}  // namespace lqcd::gpu
