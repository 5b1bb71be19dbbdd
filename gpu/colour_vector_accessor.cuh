// colour_vector_accessor.cuh: where the reals of a single-parity colour-vector field live on the device
// (staggered_dslash_launch.h: colour c of checkerboard site cb at word c * stride + cb, one complex number per
// word) and how they become a ColourVector in registers and back. Host functions too: the host checks of the
// staggered kernels run their per-site code on host memory.
//
// Device-side header (included by .cu files only).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "gpu/precision.h"
#include "gpu/register_types.cuh"

namespace lqcd::gpu {

template <Precision P>
struct ColourStorage;
template <>
struct ColourStorage<Precision::kDouble> {
  using Word = double2;
  using Real = double;
};
template <>
struct ColourStorage<Precision::kSingle> {
  using Word = float2;
  using Real = float;
};
// Half: two 16-bit levels per word and a float norm per site (staggered_dslash_launch.h); arithmetic in float.
template <>
struct ColourStorage<Precision::kHalf> {
  using Word = short2;
  using Real = float;
};

// The nearest integer of x (ties to even), |x| <= 32767.5: the same on the device (one conversion) and on the
// host (the default rounding mode), so the host check quantises as the kernel does.
__host__ __device__ __forceinline__ short NearestLevel(float x) {
#ifdef __CUDA_ARCH__
  return static_cast<short>(__float2int_rn(x));
#else
  return x == x ? static_cast<short>(std::nearbyint(x)) : short(0);  // NaN: some level, as on the device (the
#endif                                                               // site's norm is NaN then)
}

template <typename Real>
struct ColourVector {
  DeviceComplex<Real> c[3];
};

// a b + c with one rounding in Real: fmaf for float on both sides (a host compiler might otherwise pick the
// double fma for float arguments and round twice), so the host emulations match the device bit for bit.
template <typename Real>
__host__ __device__ __forceinline__ Real FusedMultiplyAdd(Real a, Real b, Real c) {
  if constexpr (std::is_same_v<Real, float>) {
    return fmaf(a, b, c);
  } else {
    return fma(a, b, c);
  }
}

// s u + v, one rounding per part: how the staggered vector kernels update a component (staggered_blas.cu), and how
// the staggered Dslash's fused CG update forms r + c q (staggered_dslash.cu), so that the two give the same bits.
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> Fma(Real s, DeviceComplex<Real> u, DeviceComplex<Real> v) {
  return {FusedMultiplyAdd(s, u.re, v.re), FusedMultiplyAdd(s, u.im, v.im)};
}

// a * b rounded once, never contracted with a following addition (on the device; the host compiler here does
// not contract): how a half level becomes a value in the vector operations.
__host__ __device__ __forceinline__ float RoundedProduct(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// One half site as stored: three words of two levels and the norm.
struct HalfColourSite {
  short2 levels[3];
  float norm;
};

// The half format's quantisation of one site (the one routine every writer of half colour vectors uses): the
// norm is the site's largest |real| (NaN if a real is NaN or Inf, so that a non-finite result survives the
// store: every load of the site is then NaN), each real the nearest level of real * (32767 / norm). Sites below
// 2^-64 are scaled by 2^64 first (exact), since 32767 / norm would overflow float below about 1e-34; the stored
// norm stays unscaled.
__host__ __device__ __forceinline__ HalfColourSite QuantizeColourSite(const ColourVector<float>& v) {
  float r[6];
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    r[2 * c] = v.c[c].re;
    r[2 * c + 1] = v.c[c].im;
  }
  float largest = 0, poison = 0;  // 0 * x: 0 for finite x, NaN for NaN or Inf
#pragma unroll
  for (int i = 0; i < 6; ++i) {
    const float a = r[i] < 0 ? -r[i] : r[i];
    largest = a > largest ? a : largest;
    poison += 0.0f * r[i];
  }
  largest += poison;
  HalfColourSite q;
  q.norm = largest;
  if (largest < 0x1p-64f) {  // false for NaN
#pragma unroll
    for (int i = 0; i < 6; ++i) r[i] *= 0x1p64f;
    largest *= 0x1p64f;
  }
  const float to_levels = largest > 0.0f ? kHalfScale / largest : 0.0f;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    q.levels[c] = short2{NearestLevel(r[2 * c] * to_levels), NearestLevel(r[2 * c + 1] * to_levels)};
  }
  return q;
}

// The storage of staggered_dslash_launch.h: colour c of site cb at data[c * stride + cb] (half: levels, and the
// site's norm at norm[cb]).
template <Precision P>
struct ColourVectorAccessor {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  static constexpr bool kHalf = P == Precision::kHalf;
  Word* data = nullptr;
  float* norm = nullptr;  // half only: data + 3 * stride words, as floats
  int stride = 0;

  __host__ __device__ __forceinline__ ColourVector<Real> Load(int cb) const {
    ColourVector<Real> v;
    if constexpr (kHalf) {
      const float scale = LoadReadOnly(norm + cb) * (1.0f / kHalfScale);
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const Word w = LoadReadOnly(data + c * stride + cb);
        v.c[c] = {static_cast<float>(w.x) * scale, static_cast<float>(w.y) * scale};
      }
    } else {
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const Word w = LoadReadOnly(data + c * stride + cb);
        v.c[c] = {w.x, w.y};
      }
    }
    return v;
  }

  // Stores v (half: quantised by QuantizeColourSite).
  __host__ __device__ __forceinline__ void Store(int cb, const ColourVector<Real>& v) const {
    if constexpr (kHalf) {
      WriteHalfSite(cb, QuantizeColourSite(v));
    } else {
#pragma unroll
      for (int c = 0; c < 3; ++c) data[c * stride + cb] = Word{v.c[c].re, v.c[c].im};
    }
  }

  // The vector operations' site access (staggered_blas.cu): plain loads, never the read-only path, since they
  // also write the fields they read. Half: each real is the rounded product level * (norm * (1 / 32767)), never
  // fused into the caller's next operation: what the host's UnpackColourVectors decodes, so that the host
  // emulation, Download and the device agree bit for bit.
  __host__ __device__ __forceinline__ ColourVector<Real> LoadSite(int cb) const {
    ColourVector<Real> v;
    if constexpr (kHalf) {
      const float scale = RoundedProduct(norm[cb], 1.0f / kHalfScale);
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const Word w = data[c * stride + cb];
        v.c[c] = {RoundedProduct(static_cast<float>(w.x), scale), RoundedProduct(static_cast<float>(w.y), scale)};
      }
    } else {
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const Word w = data[c * stride + cb];
        v.c[c] = {w.x, w.y};
      }
    }
    return v;
  }
  // Stores v as Store does and returns the values as stored, i.e. what LoadSite then returns (half: the
  // decoded levels; double and single: v). The reductions fused into an update sum these.
  __host__ __device__ __forceinline__ ColourVector<Real> StoreSite(int cb, const ColourVector<Real>& v) const {
    if constexpr (kHalf) {
      const HalfColourSite q = QuantizeColourSite(v);
      WriteHalfSite(cb, q);
      const float scale = RoundedProduct(q.norm, 1.0f / kHalfScale);
      ColourVector<Real> stored;
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        stored.c[c] = {RoundedProduct(static_cast<float>(q.levels[c].x), scale),
                       RoundedProduct(static_cast<float>(q.levels[c].y), scale)};
      }
      return stored;
    } else {
      Store(cb, v);
      return v;
    }
  }

  // One complex component (the double and single vector operations run over components, not sites; a plain
  // load, since they also read fields they write). Not for half (a site's components share its norm).
  __host__ __device__ __forceinline__ DeviceComplex<Real> LoadComponent(int c, int cb) const {
    static_assert(!kHalf, "half colour vectors are read a site at a time");
    const Word w = data[c * stride + cb];
    return {w.x, w.y};
  }
  __host__ __device__ __forceinline__ void StoreComponent(int c, int cb, DeviceComplex<Real> z) const {
    static_assert(!kHalf, "half colour vectors are written a site at a time");
    data[c * stride + cb] = Word{z.re, z.im};
  }

 private:
  __host__ __device__ __forceinline__ void WriteHalfSite(int cb, const HalfColourSite& q) const {
#pragma unroll
    for (int c = 0; c < 3; ++c) data[c * stride + cb] = q.levels[c];
    norm[cb] = q.norm;
  }
};

}  // namespace lqcd::gpu
