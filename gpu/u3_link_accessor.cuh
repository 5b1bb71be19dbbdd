// u3_link_accessor.cuh: long (Naik) links stored as 13 or 9 numbers (staggered_dslash_launch.h's U3LinkView
// layouts; reference/staggered/u3_compression.h's parametrisations), and how the kernel rebuilds them in
// registers:
//   13 numbers (U3LinkAccessor): the first two rows a, b of X = L / scale and theta = arg det X;
//       L = scale (a; b; e^{i theta} conj(a x b)).
//   9 numbers (U9LinkAccessor): the 8 reals of S = e^{-i theta / 3} X (an SU(3) matrix) in su3_reconstruct.cuh's
//       order and theta; L = (scale e^{i theta / 3}) ReconstructFrom8(the 8 reals), the accurate reconstruction
//       of the Wilson kernels' 8-real links in double and single.
// Host functions too (the host check of the staggered kernel). Only the staggered kernel reads these, each link
// once per launch: the loads bypass L1 (register_types.cuh LoadReadOnce).
//
// Device-side header (included by .cu files only).
#pragma once

#include "gpu/colour_vector_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/staggered_dslash_launch.h"
#include "gpu/su3_reconstruct.cuh"

namespace lqcd::gpu {

// What the two forms share: kWords complex words per link, word w of link (parity, mu, cb) at
// data[((parity * 4 + mu) * kWords + w) * stride + cb] (staggered_dslash_launch.h), and the scale the rebuilt
// unitary X is multiplied by.
template <Precision P, int kWords>
struct CompressedLinkWords {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  static constexpr int kReals = 2 * kWords;
  Word* data = nullptr;
  int stride = 0;
  Real scale = 1;

  __host__ __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * 4 + mu) * kWords + w) * stride + cb;
  }

  // The kReals stored reals of one link.
  __host__ __device__ __forceinline__ void LoadReals(int mu, int parity, int cb, Real* r) const {
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      const Word word = LoadReadOnce(data + WordIndex(mu, parity, cb, w));
      r[2 * w] = word.x;
      r[2 * w + 1] = word.y;
    }
  }

  // The kReals reals of one link (CanonicalU3Links / CanonicalU9Links order) rounded to Real, into its words.
  __host__ __device__ __forceinline__ void Store(int mu, int parity, int cb, const double* r) const {
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      data[WordIndex(mu, parity, cb, w)] = Word{static_cast<Real>(r[2 * w]), static_cast<Real>(r[2 * w + 1])};
    }
  }
};

// 13 numbers: the 12 reals of rows a and b, theta, a zero pad.
template <Precision P>
struct U3LinkAccessor : CompressedLinkWords<P, kU3Words> {
  using Real = typename ColourStorage<P>::Real;

  __host__ __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Real r[2 * kU3Words];
    this->LoadReals(mu, parity, cb, r);
    Link<Real> u;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) u.m[i][j] = {r[2 * (3 * i + j)], r[2 * (3 * i + j) + 1]};
    }
    Real s, c;
    SinCos(r[12], &s, &c);
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
      for (int j = 0; j < 3; ++j) u.m[i][j] = this->scale * u.m[i][j];
    }
    return u;
  }
};

// 9 numbers: the 8 reals of S = e^{-i theta / 3} X (su3_reconstruct.cuh's order), theta, a zero pad.
template <Precision P>
struct U9LinkAccessor : CompressedLinkWords<P, kU9Words> {
  using Real = typename ColourStorage<P>::Real;

  __host__ __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Real p[2 * kU9Words];
    this->LoadReals(mu, parity, cb, p);
    Link<Real> u = ReconstructFrom8<false>(p);  // S, with det S = 1
    Real s, c;
    SinCos(p[8] / Real(3), &s, &c);
    const DeviceComplex<Real> phase{this->scale * c, this->scale * s};  // scale e^{i theta / 3}
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) u.m[i][j] = phase * u.m[i][j];
    }
    return u;
  }
};

}  // namespace lqcd::gpu
