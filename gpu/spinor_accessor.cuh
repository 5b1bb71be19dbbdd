// spinor_accessor.cuh: where the reals of a single-parity spinor field live on the device, and how they
// turn into a ColorSpinor in registers and back. Kernels read and write spinors only through this, so
// the stencil never sees the storage format.
//
// Device-side header (included by .cu files only).
//
// Layout (the paper's section 4.1): structure of arrays. A site's 24 reals, in the order
//     real index r = 2 * (3 * spin + colour) + (0 for the real part, 1 for the imaginary part),
// are grouped into words of kRealsPerWord reals; word w of checkerboard site cb sits at
//     data[w * stride + cb],   stride = sites + pad,
// so consecutive threads (sites) read consecutive words: coalesced. The pad (in sites) separates the
// sub-arrays (the paper's fix for partition camping).
//
//   precision   word     words per site   arithmetic   extra
//   double      double2  12               double
//   single      float4   6                float
//   half        short4   6                float        norm[cb]: one float per site
//
// Half: real = q * norm / 32767 with norm the largest |real| of the site (section 4.6). Storing rounds
// to the nearest level; a zero spinor stores norm 0; a NaN or Inf anywhere in the site stores norm NaN.
// Spins 0, 1 are reals 0..11 and spins 2, 3 reals 12..23: whole words in every precision, so the
// temporal hop of the UKQCD basis loads exactly half the words (LoadSpinPair).
//
// Two ways to load:
//   Load / LoadSpinPair      the values (half: q * (norm * (1/32767)), as every reader of the format does);
//   LoadRaw / LoadSpinPairRaw + RawScale
//                            the stored numbers before the site's scale: integer levels q for half (so
//                            sums and differences of two are exact integers, RawToReal turns them into
//                            floats exactly), the values themselves for double and single (scale 1). The
//                            Dslash projects raw spinors and applies the scale once per hop, inside the
//                            fused multiply-add that accumulates the hop (wilson_dslash_kernel.cuh).
// Half never uses the hardware int <-> float conversions (a quarter-rate unit on Hopper that the half
// kernels would otherwise saturate): a level becomes a float through the bits of 1.5 * 2^23 + q, a float
// becomes a level by adding 1.5 * 2^23 (LevelToFloat, RoundToLevel); both are exact in the range used.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "gpu/field_views.h"
#include "gpu/precision.h"
#include "gpu/register_types.cuh"

namespace lqcd::gpu {

template <Precision P>
struct SpinorStorage;

template <>
struct SpinorStorage<Precision::kDouble> {
  using Word = double2;
  using Real = double;
  static constexpr int kRealsPerWord = 2;
  static constexpr bool kHasNorm = false;
};

template <>
struct SpinorStorage<Precision::kSingle> {
  using Word = float4;
  using Real = float;
  static constexpr int kRealsPerWord = 4;
  static constexpr bool kHasNorm = false;
};

template <>
struct SpinorStorage<Precision::kHalf> {
  using Word = short4;
  using Real = float;
  static constexpr int kRealsPerWord = 4;
  static constexpr bool kHasNorm = true;
};

// Word <-> reals. For half the reals are the raw levels q (scaled by the caller).
// Unpack and Make of double2 and float2 words are also host functions: the host check of the staggered kernel
// (staggered_dslash.cu) runs its per-site functor on host memory.
template <typename T>
__host__ __device__ __forceinline__ void Unpack(double2 w, T* r) {
  r[0] = w.x;
  r[1] = w.y;
}
template <typename T>
__device__ __forceinline__ void Unpack(float4 w, T* r) {
  r[0] = w.x;
  r[1] = w.y;
  r[2] = w.z;
  r[3] = w.w;
}
template <typename T>
__device__ __forceinline__ void Unpack(short4 w, T* r) {
  r[0] = w.x;
  r[1] = w.y;
  r[2] = w.z;
  r[3] = w.w;
}
template <typename T>
__host__ __device__ __forceinline__ void Unpack(float2 w, T* r) {
  r[0] = w.x;
  r[1] = w.y;
}

// Rounds to the nearest storable value: IEEE round-to-nearest for double and float words; for short
// words the caller has already scaled to levels, and rounding is to the nearest integer.
template <typename Word>
struct WordMaker;

template <>
struct WordMaker<double2> {
  template <typename T>
  __host__ __device__ static double2 Make(const T* r) {
    return make_double2(r[0], r[1]);
  }
};
template <>
struct WordMaker<float4> {
  template <typename T>
  __device__ static float4 Make(const T* r) {
    return make_float4(static_cast<float>(r[0]), static_cast<float>(r[1]), static_cast<float>(r[2]),
                       static_cast<float>(r[3]));
  }
};
template <>
struct WordMaker<float2> {
  template <typename T>
  __host__ __device__ static float2 Make(const T* r) {
    return make_float2(static_cast<float>(r[0]), static_cast<float>(r[1]));
  }
};

// 1.5 * 2^23: floats in [2^23, 2^24) are spaced by exactly 1, so for an integer |q| < 2^22 the float
// with the bits 0x4B400000 + q is 1.5 * 2^23 + q, and for |x| < 2^22 the sum x + 1.5 * 2^23 is x rounded
// to the nearest integer (ties to even, as __float2int_rn) sitting in the low bits.
inline constexpr float kLevelMagic = 12582912.0f;
inline constexpr int kLevelMagicBits = 0x4B400000;

// q -> float(q), exact for |q| < 2^22 (levels and sums of two levels), with an integer add and a float
// subtraction instead of the quarter-rate I2F conversion.
__device__ __forceinline__ float LevelToFloat(int q) { return __int_as_float(kLevelMagicBits + q) - kLevelMagic; }

// Nearest level of x for |x| <= 32767.5: bit for bit __float2int_rn(x) truncated to 16 bits, through one
// float addition (__fadd_rn: never fused with the multiplication that produced x) instead of F2I. (A NaN
// gives some level; Store then makes the site's norm NaN, which every load turns into NaN.)
__device__ __forceinline__ short RoundToLevel(float x) {
  return static_cast<short>(__float_as_int(__fadd_rn(x, kLevelMagic)));
}
__device__ __forceinline__ short RoundToLevel(double x) { return static_cast<short>(__double2int_rn(x)); }

// max(a, b) that returns NaN if either is NaN (fmax drops a NaN).
__device__ __forceinline__ float MaxPropagatingNan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// The factor 32767 / largest that turns a half site's reals into levels, for largest >= 0 or NaN. For a
// tiny site (largest < 2^-64) the reals are first multiplied by 2^64: 32767 / largest would overflow float
// below ~9.6e-35 (and every level would come out 0). Scaling by a power of two is exact, so every other
// tiny site gets bit for bit the levels of the unscaled arithmetic; sites with largest >= 2^-64 are
// untouched. (The stored norm stays the unscaled largest.)
template <typename T>
__device__ __forceinline__ T ToLevelsFactor(T largest, T* r) {
  if (largest < T(0x1p-64)) {  // false for NaN
#pragma unroll
    for (int i = 0; i < 24; ++i) r[i] *= T(0x1p64);
    largest *= T(0x1p64);
  }
  return largest > T(0) ? T(kHalfScale) / largest : T(0);
}

// The half format's quantisation of one site's 24 reals (T = float in kernels, double when packing from
// the host), the one routine every writer of half spinors uses: returns the norm to store, the largest
// |real| (NaN if any real is NaN or Inf, so that a non-finite value survives the store instead of
// vanishing), and sets q to the levels round-to-nearest(r * 32767 / norm). May scale r (ToLevelsFactor).
template <typename T>
__device__ __forceinline__ float QuantizeHalfSite(T* r, short* q) {
  T largest = 0;
  if constexpr (std::is_same_v<T, float>) {
    // The largest |real| with NaN kept, then L + (L - L) is L when finite and NaN when L is NaN or Inf.
    // Same norm and levels as the double path's arithmetic done in float.
#pragma unroll
    for (int i = 0; i < 24; ++i) largest = MaxPropagatingNan(largest, fabsf(r[i]));
    largest += largest - largest;
  } else {
    T poison = 0;  // 0 * x is 0 for finite x and NaN for NaN or Inf (IEEE; no fast-math here)
#pragma unroll
    for (int i = 0; i < 24; ++i) {
      largest = fmax(largest, fabs(r[i]));
      poison += T(0) * r[i];
    }
    largest += poison;
  }
  const T to_levels = ToLevelsFactor(largest, r);
#pragma unroll
  for (int i = 0; i < 24; ++i) q[i] = RoundToLevel(r[i] * to_levels);
  return static_cast<float>(largest);
}

// Half words for fields whose caller has already scaled the reals to levels (the clover term's blocks,
// clover_accessor.cuh); spinors quantise a site at a time through QuantizeHalfSite.
template <>
struct WordMaker<short4> {
  template <typename T>
  __device__ static short4 Make(const T* r) {
    return make_short4(RoundToLevel(r[0]), RoundToLevel(r[1]), RoundToLevel(r[2]), RoundToLevel(r[3]));
  }
};

template <Precision P>
struct SpinorAccessor {
  using Storage = SpinorStorage<P>;
  using Word = typename Storage::Word;
  using Real = typename Storage::Real;
  static constexpr int kRealsPerWord = Storage::kRealsPerWord;
  static constexpr int kWords = 24 / kRealsPerWord;
  // The numbers LoadRaw returns: integer levels for half, the values otherwise (header comment).
  using Raw = std::conditional_t<Storage::kHasNorm, int, Real>;
  static constexpr bool kScaled = Storage::kHasNorm;

  Word* data = nullptr;
  float* norm = nullptr;  // half only
  int stride = 0;

  // Scale from stored levels to values (half); 1 otherwise.
  __device__ __forceinline__ Real LoadScale(int cb) const {
    if constexpr (Storage::kHasNorm) {
      return __ldg(norm + cb) * (1.0f / kHalfScale);
    } else {
      return Real(1);
    }
  }

  // Words [first_word, first_word + count) of site cb, as reals (scaled for half).
  template <int first_word, int count>
  __device__ __forceinline__ void LoadReals(int cb, Real* r) const {
    const Real scale = LoadScale(cb);
    Raw q[count * kRealsPerWord];
    LoadRawReals<first_word, count>(cb, q);
#pragma unroll
    for (int i = 0; i < count * kRealsPerWord; ++i) {
      if constexpr (Storage::kHasNorm) {
        r[i] = LevelToFloat(q[i]) * scale;  // = float(q) * scale, exactly as with a conversion instruction
      } else {
        r[i] = q[i];
      }
    }
  }

  // Words [first_word, first_word + count) of site cb, unscaled (levels for half).
  template <int first_word, int count>
  __device__ __forceinline__ void LoadRawReals(int cb, Raw* r) const {
#pragma unroll
    for (int w = 0; w < count; ++w) Unpack(__ldg(data + (first_word + w) * stride + cb), r + w * kRealsPerWord);
  }

  // value = RawScale(cb) * raw: norm / 32767 for half, 1 otherwise.
  __device__ __forceinline__ Real RawScale(int cb) const { return LoadScale(cb); }

  __device__ __forceinline__ ColorSpinor<Raw> LoadRaw(int cb) const {
    Raw r[24];
    LoadRawReals<0, kWords>(cb, r);
    ColorSpinor<Raw> psi;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) psi.v[s][c] = {r[2 * (3 * s + c)], r[2 * (3 * s + c) + 1]};
    }
    return psi;
  }

  template <int first_spin>
  __device__ __forceinline__ HalfSpinor<Raw> LoadSpinPairRaw(int cb) const {
    static_assert(first_spin == 0 || first_spin == 2, "spin pairs are (0, 1) and (2, 3)");
    Raw r[12];
    LoadRawReals<first_spin * 6 / kRealsPerWord, kWords / 2>(cb, r);
    HalfSpinor<Raw> h;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) h.v[s][c] = {r[2 * (3 * s + c)], r[2 * (3 * s + c) + 1]};
    }
    return h;
  }

  // Raw numbers (or sums and differences of two of them) as Real, exactly.
  __device__ __forceinline__ static ColorSpinor<Real> RawToReal(const ColorSpinor<Raw>& psi) {
    if constexpr (Storage::kHasNorm) {
      ColorSpinor<Real> r;
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#pragma unroll
        for (int c = 0; c < 3; ++c) r.v[s][c] = {LevelToFloat(psi.v[s][c].re), LevelToFloat(psi.v[s][c].im)};
      }
      return r;
    } else {
      return psi;
    }
  }
  __device__ __forceinline__ static HalfSpinor<Real> RawToReal(const HalfSpinor<Raw>& h) {
    if constexpr (Storage::kHasNorm) {
      HalfSpinor<Real> r;
#pragma unroll
      for (int s = 0; s < 2; ++s) {
#pragma unroll
        for (int c = 0; c < 3; ++c) r.v[s][c] = {LevelToFloat(h.v[s][c].re), LevelToFloat(h.v[s][c].im)};
      }
      return r;
    } else {
      return h;
    }
  }

  __device__ __forceinline__ ColorSpinor<Real> Load(int cb) const {
    Real r[24];
    LoadReals<0, kWords>(cb, r);
    ColorSpinor<Real> psi;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) psi.v[s][c] = {r[2 * (3 * s + c)], r[2 * (3 * s + c) + 1]};
    }
    return psi;
  }

  // Spins first_spin and first_spin + 1 (first_spin = 0 or 2) only: half the words.
  template <int first_spin>
  __device__ __forceinline__ HalfSpinor<Real> LoadSpinPair(int cb) const {
    static_assert(first_spin == 0 || first_spin == 2, "spin pairs are (0, 1) and (2, 3)");
    Real r[12];
    LoadReals<first_spin * 6 / kRealsPerWord, kWords / 2>(cb, r);
    HalfSpinor<Real> h;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) h.v[s][c] = {r[2 * (3 * s + c)], r[2 * (3 * s + c) + 1]};
    }
    return h;
  }

  // Stores psi (T = the arithmetic type, or double when packing from the host), rounding to storage.
  template <typename T>
  __device__ __forceinline__ void Store(int cb, const ColorSpinor<T>& psi) const {
    T r[24];
    ToReals(psi, r);
    if constexpr (Storage::kHasNorm) {
      short q[24];
      StoreHalf(cb, r, q);
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) data[w * stride + cb] = WordMaker<Word>::Make(r + w * kRealsPerWord);
    }
  }

  // Store, and return the values as a later Load of this site returns them (half: each level times the stored
  // norm / 32767, as LoadReals decodes; single and double store exactly).
  __device__ __forceinline__ ColorSpinor<Real> StoreReturningStored(int cb, const ColorSpinor<Real>& psi) const {
    if constexpr (Storage::kHasNorm) {
      Real r[24];
      ToReals(psi, r);
      short q[24];
      const float stored_norm = StoreHalf(cb, r, q);
      const Real scale = stored_norm * (1.0f / kHalfScale);
      ColorSpinor<Real> stored;
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#pragma unroll
        for (int c = 0; c < 3; ++c) {
          stored.v[s][c] = {__fmul_rn(LevelToFloat(q[2 * (3 * s + c)]), scale),
                            __fmul_rn(LevelToFloat(q[2 * (3 * s + c) + 1]), scale)};
        }
      }
      return stored;
    } else {
      Store(cb, psi);
      return psi;
    }
  }

 private:
  template <typename T>
  __device__ __forceinline__ static void ToReals(const ColorSpinor<T>& psi, T* r) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        r[2 * (3 * s + c)] = psi.v[s][c].re;
        r[2 * (3 * s + c) + 1] = psi.v[s][c].im;
      }
    }
  }
  // Half: quantises the site (QuantizeHalfSite, which may scale r), writes the levels and the norm; returns the norm.
  template <typename T>
  __device__ __forceinline__ float StoreHalf(int cb, T* r, short* q) const {
    const float stored_norm = QuantizeHalfSite(r, q);
    norm[cb] = stored_norm;
#pragma unroll
    for (int w = 0; w < kWords; ++w) data[w * stride + cb] = make_short4(q[4 * w], q[4 * w + 1], q[4 * w + 2], q[4 * w + 3]);
    return stored_norm;
  }
};

// The accessor of a view. One accessor type serves inputs and outputs; kernels never write through an
// input's accessor.
template <Precision P>
SpinorAccessor<P> SpinorAccessorOf(const ConstSpinorView& v) {
  SpinorAccessor<P> a;
  a.data = static_cast<typename SpinorAccessor<P>::Word*>(const_cast<void*>(v.data));
  a.norm = const_cast<float*>(v.norm);
  a.stride = v.stride;
  return a;
}

}  // namespace lqcd::gpu
