// gauge_accessor.cuh: where the links of a device gauge field live, and how they become a Link in
// registers (rebuilt from 12 or 8 reals when compressed). Kernels read links only through this.
//
// Device-side header (included by .cu files only).
//
// Layout: structure of arrays per (parity, direction). Link U_mu(n) of the site n with parity p and
// checkerboard index cb stores its reals (su3_reconstruct.cuh gives their order) in words of
// kRealsPerWord reals; word w sits at
//     data[((p * 4 + mu) * kWords + w) * stride + cb],   stride = V/2 + pad.
//
//   reconstruct   double          single          half (fixed point, full scale 1)
//   18            9 x double2     9 x float2      9 x short2
//   12            6 x double2     3 x float4      3 x short4
//   8             4 x double2     2 x float4      2 x short4   (phases / pi)
//
// Every real of a unitary matrix lies in [-1, 1], so half needs no norm (section 4.6).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "gpu/precision.h"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"
#include "gpu/su3_reconstruct.cuh"

namespace lqcd::gpu {

template <Precision P, Reconstruct R>
struct GaugeStorage;

template <Reconstruct R>
struct GaugeStorage<Precision::kDouble, R> {
  using Word = double2;
  using Real = double;
  static constexpr int kRealsPerWord = 2;
};

template <Reconstruct R>
struct GaugeStorage<Precision::kSingle, R> {
  using Word = std::conditional_t<R == Reconstruct::k18, float2, float4>;
  using Real = float;
  static constexpr int kRealsPerWord = R == Reconstruct::k18 ? 2 : 4;
};

template <Reconstruct R>
struct GaugeStorage<Precision::kHalf, R> {
  using Word = std::conditional_t<R == Reconstruct::k18, short2, short4>;
  using Real = float;
  static constexpr int kRealsPerWord = R == Reconstruct::k18 ? 2 : 4;
};

template <Precision P, Reconstruct R>
struct GaugeAccessor {
  using Storage = GaugeStorage<P, R>;
  using Word = typename Storage::Word;
  using Real = typename Storage::Real;
  static constexpr int kReals = static_cast<int>(R);
  static constexpr int kRealsPerWord = Storage::kRealsPerWord;
  static constexpr int kWords = kReals / kRealsPerWord;
  static constexpr bool kFixedPoint = P == Precision::kHalf;
  // The 8-parameter phases are stored divided by pi in half precision only.
  static constexpr double kPi = 3.14159265358979323846;

  Word* data = nullptr;
  int stride = 0;

  __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * 4 + mu) * kWords + w) * stride + cb;
  }

  __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Real r[kReals];
#pragma unroll
    for (int w = 0; w < kWords; ++w) Unpack(__ldg(data + WordIndex(mu, parity, cb, w)), r + w * kRealsPerWord);
    if constexpr (kFixedPoint) {
#pragma unroll
      for (int i = 0; i < kReals; ++i) r[i] *= Real(1) / Real(kHalfScale);
    }
    Link<Real> u;
    if constexpr (R == Reconstruct::k8) {
      if constexpr (kFixedPoint) {
        r[6] *= Real(kPi);
        r[7] *= Real(kPi);
      }
      u = ReconstructFrom8<kFixedPoint>(r);  // half: the fast sincos (su3_reconstruct.cuh)
    } else {
      constexpr int kRows = kReals / 6;
#pragma unroll
      for (int i = 0; i < kRows; ++i) {
#pragma unroll
        for (int j = 0; j < 3; ++j) u.m[i][j] = {r[2 * (3 * i + j)], r[2 * (3 * i + j) + 1]};
      }
      if constexpr (R == Reconstruct::k12) CompleteThirdRow(u);
    }
    return u;
  }

  // Compresses u (computed in T; double when packing from the host) and rounds to storage.
  template <typename T>
  __device__ __forceinline__ void Store(int mu, int parity, int cb, const Link<T>& u) const {
    T r[18];
    if constexpr (R == Reconstruct::k8) {
      CompressTo8(u, r);
      if constexpr (kFixedPoint) {
        r[6] /= T(kPi);
        r[7] /= T(kPi);
      }
    } else {
#pragma unroll
      for (int i = 0; i < 3; ++i) {
#pragma unroll
        for (int j = 0; j < 3; ++j) {
          r[2 * (3 * i + j)] = u.m[i][j].re;
          r[2 * (3 * i + j) + 1] = u.m[i][j].im;
        }
      }
    }
    if constexpr (kFixedPoint) {
#pragma unroll
      for (int i = 0; i < kReals; ++i) r[i] *= T(kHalfScale);
    }
#pragma unroll
    for (int w = 0; w < kWords; ++w) data[WordIndex(mu, parity, cb, w)] = WordMaker<Word>::Make(r + w * kRealsPerWord);
  }
};

}  // namespace lqcd::gpu
