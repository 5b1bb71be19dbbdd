// gauge_accessor.cuh: where the links of a device gauge field live, and how they become a Link in
// registers (rebuilt from 12 or 8 reals when compressed). Kernels read links only through this.
//
// Device-side header (included by .cu files only).
//
// Layout: structure of arrays per (parity, direction). Link U_mu(n) of the site n with parity p and
// checkerboard index cb stores its reals (su3_reconstruct.cuh gives their order) in words of
// kRealsPerWord reals; word w sits at
//     data[((p * kDirections + mu) * kWords + w) * stride + cb],   stride = V/2 + pad,
// kDirections = 4 for a gauge field. A multi-GPU gauge ghost (halo.cuh) is the same layout with
// kDirections = 1: the links of one direction on one face, both parities, stride = face sites per parity.
//
//   reconstruct   double          single          half (fixed point, full scale 1)
//   18            9 x double2     9 x float2      2 x int4 + 1 x int     (16-bit levels, 8 per int4)
//   12            6 x double2     3 x float4      1 x int4 + 1 x int2
//   8             4 x double2     2 x float4      1 x int4               (phases / pi)
//
// Every real of a unitary matrix lies in [-1, 1], so half needs no norm (section 4.6).
//
// Half words are 16 bytes wide (one load instruction for 8 levels); where 8 does not divide the reals
// per link, the rest goes to a tail word of 4 or 8 bytes. All 16-byte arrays come first, then the tails:
//     16-byte word w of block b = kDirections p + mu:   int4 index (b * kWords + w) * stride + cb   (as above)
//     tail word of block b:      tail index  b * stride + cb, after the 2 kDirections kWords stride int4
// (the same bytes as 9 short2 / 3 short4 / 2 short4 words per link, aligned for any pad). A level q is
// stored as the 16 bits of q + 32768 (offset binary) so that one byte permutation turns it into the float
// 1.5 * 2^23 + 32768 + q and one subtraction into q, with no conversion instruction; lower real index in
// the lower half of each 32-bit word.
//
// Load returns the link's values. LoadRaw returns what the Dslash multiplies with: for half 18 and 12 the
// link in units of kRawUnit = 32768/32767, i.e. the levels times 2^-15 (exact: a second byte permutation,
// into the float 384 whose last mantissa bit is 2^-15; the third row of 12 rebuilt in those units), so that
// the unit joins the spinor's scale in one multiplication per hop; otherwise the values (unit 1), for
// half 8 with the phases decoded by one multiplication (q * (pi / 32767)) instead of Load's two.
// Why 2^-15 and not the levels themselves (unit 1/32767): the hop coefficient is norm / 32767 * unit, and
// with unit 1/32767 it became a subnormal float for spinor site norms below ~1.3e-29, losing relative
// accuracy there; with unit 32768/32767 that happens only below ~3.9e-34, as for 8 reals and the decode of
// a spinor (gpu/precision.h). Same instructions, same number of roundings.
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
  using Word = int4;  // 8 levels; plus a tail word (header comment)
  using Real = float;
  static constexpr int kRealsPerWord = 8;
};

// Half links: a 32-bit word of two offset-binary levels -> the two levels as exact floats.
__device__ __forceinline__ float LowLevelOf(unsigned w) {
  return __int_as_float(__byte_perm(w, kLevelMagicBits, 0x7610)) - (kLevelMagic + 32768.0f);
}
__device__ __forceinline__ float HighLevelOf(unsigned w) {
  return __int_as_float(__byte_perm(w, kLevelMagicBits, 0x7632)) - (kLevelMagic + 32768.0f);
}
// The same levels times 2^-15, exactly: 384 + (32768 + q) 2^-15 (the float 384 = 0x43C00000 has a last
// mantissa bit of 2^-15 and the result stays in [256, 512)), minus 385.
inline constexpr int kScaledLevelBaseBits = 0x43C00000;  // 384.0f
__device__ __forceinline__ float LowScaledLevelOf(unsigned w) {
  return __int_as_float(__byte_perm(w, kScaledLevelBaseBits, 0x7610)) - 385.0f;
}
__device__ __forceinline__ float HighScaledLevelOf(unsigned w) {
  return __int_as_float(__byte_perm(w, kScaledLevelBaseBits, 0x7632)) - 385.0f;
}
// Two levels (|q| <= 32767) -> one 32-bit word of offset-binary levels, the first in the low half.
__device__ __forceinline__ unsigned PackLevels(int low, int high) {
  return (static_cast<unsigned>(low + 32768) & 0xFFFFu) | (static_cast<unsigned>(high + 32768) << 16);
}

// kReadOnce: every link is loaded by one thread per launch (the staggered kernel), so its loads bypass L1
// (LoadReadOnce) and leave it to the colour vectors that neighbouring sites read again; otherwise through the
// read-only cache (LoadReadOnly).
template <Precision P, Reconstruct R, int kDirectionsPerParity = 4, bool kReadOnce = false>
struct GaugeAccessor {
  using Storage = GaugeStorage<P, R>;
  using Word = typename Storage::Word;
  using Real = typename Storage::Real;
  static constexpr int kReals = static_cast<int>(R);
  static constexpr int kRealsPerWord = Storage::kRealsPerWord;
  static constexpr int kWords = kReals / kRealsPerWord;  // full words (half: the 16-byte ones)
  static constexpr bool kFixedPoint = P == Precision::kHalf;
  static constexpr int kTailReals = kReals - kWords * kRealsPerWord;  // half 18: 2, half 12: 4, else 0
  // The 8-parameter phases are stored divided by pi in half precision only.
  static constexpr double kPi = 3.14159265358979323846;
  // LoadRaw's unit (header comment).
  static constexpr bool kRawInLevels = kFixedPoint && R != Reconstruct::k8;
  static constexpr Real kRawUnit = kRawInLevels ? Real(32768.0 / 32767.0) : Real(1);
  static constexpr int kDirections = kDirectionsPerParity;

  Word* data = nullptr;
  int stride = 0;

  template <typename T>
  __host__ __device__ __forceinline__ static T Fetch(const T* p) {
    if constexpr (kReadOnce) {
      return LoadReadOnce(p);
    } else {
      return LoadReadOnly(p);
    }
  }

  // WordIndex, LoadReals, FromRows, Load and Store are host functions too for 18 reals in double and single (the
  // host check of the staggered kernel, staggered_dslash.cu, packs and reads links on the host with them).
  __host__ __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * kDirections + mu) * kWords + w) * stride + cb;
  }

  // Half: the link's 32-bit words (two levels each) of the tail, after all 16-byte words.
  __device__ __forceinline__ int TailIndex(int mu, int parity, int cb) const { return (parity * kDirections + mu) * stride + cb; }
  template <typename Tail>
  __device__ __forceinline__ Tail* TailArray() const {
    return reinterpret_cast<Tail*>(data + 2 * kDirections * kWords * stride);
  }

  // Half: the levels of the link as exact floats (kScaled: times 2^-15), in the order of su3_reconstruct.cuh.
  template <bool kScaled = false>
  __device__ __forceinline__ void LoadLevels(int mu, int parity, int cb, Real* r) const {
    static_assert(kFixedPoint, "levels exist in half precision only");
    unsigned w[kReals / 2];
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      const int4 v = Fetch(data + WordIndex(mu, parity, cb, k));
      w[4 * k] = v.x;
      w[4 * k + 1] = v.y;
      w[4 * k + 2] = v.z;
      w[4 * k + 3] = v.w;
    }
    if constexpr (kTailReals == 4) {
      const int2 t = Fetch(TailArray<int2>() + TailIndex(mu, parity, cb));
      w[4 * kWords] = t.x;
      w[4 * kWords + 1] = t.y;
    } else if constexpr (kTailReals == 2) {
      w[4 * kWords] = Fetch(TailArray<int>() + TailIndex(mu, parity, cb));
    }
#pragma unroll
    for (int k = 0; k < kReals / 2; ++k) {
      r[2 * k] = kScaled ? LowScaledLevelOf(w[k]) : LowLevelOf(w[k]);
      r[2 * k + 1] = kScaled ? HighScaledLevelOf(w[k]) : HighLevelOf(w[k]);
    }
  }

  // The stored reals (values; for half the levels times 1/32767 and the phases times pi).
  __host__ __device__ __forceinline__ void LoadReals(int mu, int parity, int cb, Real* r) const {
    if constexpr (kFixedPoint) {
      LoadLevels(mu, parity, cb, r);
#pragma unroll
      for (int i = 0; i < kReals; ++i) r[i] *= Real(1) / Real(kHalfScale);
      if constexpr (R == Reconstruct::k8) {
        r[6] *= Real(kPi);
        r[7] *= Real(kPi);
      }
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) Unpack(Fetch(data + WordIndex(mu, parity, cb, w)), r + w * kRealsPerWord);
    }
  }

  // Rows of r (kRows = 2 or 3) into u; 12 reals: the third row from the first two.
  __host__ __device__ __forceinline__ static Link<Real> FromRows(const Real* r) {
    Link<Real> u;
    constexpr int kRows = kReals / 6;
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) u.m[i][j] = {r[2 * (3 * i + j)], r[2 * (3 * i + j) + 1]};
    }
    if constexpr (R == Reconstruct::k12) CompleteThirdRow(u);
    return u;
  }

  __host__ __device__ __forceinline__ Link<Real> Load(int mu, int parity, int cb) const {
    Real r[kReals];
    LoadReals(mu, parity, cb, r);
    if constexpr (R == Reconstruct::k8) {
      return ReconstructFrom8<kFixedPoint>(r);  // half: fast sincos, sqrt and reciprocal (su3_reconstruct.cuh)
    } else {
      return FromRows(r);
    }
  }

  // The link in units of kRawUnit. Half 18 / 12: the levels times 2^-15 (exact), and for 12 the third
  // row conj(a x b) of those times kRawUnit, so that all three rows are in the same units.
  __device__ __forceinline__ Link<Real> LoadRaw(int mu, int parity, int cb) const {
    if constexpr (kRawInLevels) {
      Real r[kReals];
      LoadLevels<true>(mu, parity, cb, r);
      Link<Real> u;
#pragma unroll
      for (int i = 0; i < kReals / 6; ++i) {
#pragma unroll
        for (int j = 0; j < 3; ++j) u.m[i][j] = {r[2 * (3 * i + j)], r[2 * (3 * i + j) + 1]};
      }
      if constexpr (R == Reconstruct::k12) CompleteThirdRowFused(u, kRawUnit);
      return u;
    } else if constexpr (kFixedPoint) {  // half, 8 reals: values, the phases with one multiplication
      Real r[kReals];
      LoadLevels(mu, parity, cb, r);
#pragma unroll
      for (int i = 0; i < 6; ++i) r[i] *= Real(1) / Real(kHalfScale);
      r[6] *= Real(kPi / kHalfScale);
      r[7] *= Real(kPi / kHalfScale);
      return ReconstructFrom8<true>(r);
    } else {
      return Load(mu, parity, cb);
    }
  }

  // Copies the stored words of link (mu, parity, cb) of `from` to (to_mu, to_parity, to_cb) here, bit for
  // bit (the multi-GPU gauge ghosts: halo.cuh).
  template <int kFromDirections>
  __device__ __forceinline__ void CopyStored(const GaugeAccessor<P, R, kFromDirections>& from, int mu, int parity,
                                             int cb, int to_mu, int to_parity, int to_cb) const {
#pragma unroll
    for (int w = 0; w < kWords; ++w) data[WordIndex(to_mu, to_parity, to_cb, w)] = from.data[from.WordIndex(mu, parity, cb, w)];
    if constexpr (kTailReals == 4) {
      TailArray<int2>()[TailIndex(to_mu, to_parity, to_cb)] = from.template TailArray<int2>()[from.TailIndex(mu, parity, cb)];
    } else if constexpr (kTailReals == 2) {
      TailArray<int>()[TailIndex(to_mu, to_parity, to_cb)] = from.template TailArray<int>()[from.TailIndex(mu, parity, cb)];
    }
  }

  // Compresses u (computed in T; double when packing from the host) and rounds to storage.
  template <typename T>
  __host__ __device__ __forceinline__ void Store(int mu, int parity, int cb, const Link<T>& u) const {
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
      unsigned w[kReals / 2];
#pragma unroll
      for (int k = 0; k < kReals / 2; ++k) {
        w[k] = PackLevels(RoundToLevel(r[2 * k] * T(kHalfScale)), RoundToLevel(r[2 * k + 1] * T(kHalfScale)));
      }
#pragma unroll
      for (int k = 0; k < kWords; ++k) {
        data[WordIndex(mu, parity, cb, k)] = make_int4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
      }
      if constexpr (kTailReals == 4) {
        TailArray<int2>()[TailIndex(mu, parity, cb)] = make_int2(w[4 * kWords], w[4 * kWords + 1]);
      } else if constexpr (kTailReals == 2) {
        TailArray<int>()[TailIndex(mu, parity, cb)] = w[4 * kWords];
      }
    } else {
#pragma unroll
      for (int w = 0; w < kWords; ++w) data[WordIndex(mu, parity, cb, w)] = WordMaker<Word>::Make(r + w * kRealsPerWord);
    }
  }
};

}  // namespace lqcd::gpu
