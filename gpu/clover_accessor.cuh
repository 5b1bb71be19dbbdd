// clover_accessor.cuh: where the 72 reals of a site's clover term T(n) = (4 + m) + A(n) (or of T(n)^{-1})
// live on the device, and how a kernel applies them to a UKQCD-basis spinor in registers. Kernels touch clover
// fields only through this, so no operator sees the storage format.
//
// Device-side header (included by .cu files only). The decisions below are derived in docs/conventions.md,
// "Wilson-clover on the GPU: the clover term".
//
// What is stored: the two Hermitian 6x6 chiral blocks B_+, B_- of reference/clover.h (DeGrand-Rossi basis,
// chirality 0 = spins {0, 1} with gamma_5 = +1, index 3 (s mod 2) + c), each divided by 2: C_+- = B_+- / 2
// (a power of two: exact in every precision, see Store). Device spinors are in the UKQCD basis,
// psi_U = S psi_DR with S = H / sqrt 2, H = [[1, 1], [1, -1]] (x) 1_2 in spin pairs, so with psi_U = (u, l):
//     T_UKQCD psi_U = S diag(B_+, B_-) S psi_U = (1/2) H diag(B_+, B_-) H psi_U
//                   = (C_+ a + C_- b,  C_+ a - C_- b),   a = u + l,  b = u - l.
// Apply therefore forms the chiral sums a, b (24 additions), applies the two blocks (2 x 252 = 504 flops,
// reference/clover.h's count) and recombines (24 additions): the two 1/sqrt 2 of the rotations make one
// factor 1/2, folded into the stored entries, so no multiplication is spent on it. The alternative, storing
// P = (B_+ + B_-)/2 and Q = (B_+ - B_-)/2 (T_UKQCD = [[P, Q], [Q, P]], also Hermitian, also 72 reals),
// needs no rotation but four 6x6 products (4 x 252 + 24 = 1032 flops instead of 552) for the same bytes.
//
// Order of the 36 reals of one block (r = 0..35): the real diagonal, then the strict lower triangle by rows:
//     r = i                      Re C_ii,            i = 0..5
//     r = 6 + 2k, 7 + 2k         Re, Im of C_ij,     i > j,  k = i (i - 1) / 2 + j  (k = 0..14)
// The upper triangle is conj(lower); Im C_ii is not stored (a Hermitian block has none).
//
// Layout: structure of arrays, like spinors (spinor_accessor.cuh): the reals of a site, block 0 then block 1,
// are grouped into words of kRealsPerWord reals, and word w of checkerboard site cb sits at
//     data[w * stride + cb],   stride = sites + pad,   block chi = words [chi * kWordsPerBlock, (chi + 1) * ...)
//
//   precision   word     words per site   arithmetic   extra
//   double      double2  36 (18 a block)  double
//   single      float4   18 (9 a block)   float
//   half        short4   18 (9 a block)   float        norm[chi * stride + cb]: one float per chiral block
//
// Half: C_r = q_r * n / 32767, n = fl32(the block's largest |C_r|) stored as a float, q rounded to the nearest
// level from that float n (so the error is at most half a level, n / 65534). A norm per block, not per site:
// T's two blocks (and especially T^{-1}'s) can differ in size, and each keeps its own resolution. The diagonal
// (about 4 + m, or its inverse) usually sets n; the off-diagonal entries then carry the same absolute level.
// Half never decodes entries one by one: BlockTimes multiplies the integer levels (converted to float exactly
// by LevelToFloat) with the spinor and scales the six results by n / 32767 once (12 multiplications per block
// instead of 36; the scale is one more rounding, counted in docs/error_bounds.md). The level sums are at most
// 11 x 32767 |x|, so they stay finite in float for spinor reals up to ~9e32.
//
// Bytes per site: 72 reals x 8 / 4 / 2 bytes, plus 2 x 4 bytes of norms in half: 576, 288, 152.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "gpu/clover_view.h"
#include "gpu/precision.h"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"  // Unpack, WordMaker, LevelToFloat: the spinors' word conversions

namespace lqcd::gpu {

inline constexpr int kCloverRealsPerBlock = 36;  // 6 real diagonal + 15 complex lower-triangle entries

template <Precision P>
struct CloverStorage;

template <>
struct CloverStorage<Precision::kDouble> {
  using Word = double2;
  using Arithmetic = double;
  static constexpr int kRealsPerWord = 2;
  static constexpr bool kHasNorm = false;
};

template <>
struct CloverStorage<Precision::kSingle> {
  using Word = float4;
  using Arithmetic = float;
  static constexpr int kRealsPerWord = 4;
  static constexpr bool kHasNorm = false;
};

template <>
struct CloverStorage<Precision::kHalf> {
  using Word = short4;
  using Arithmetic = float;
  static constexpr int kRealsPerWord = 4;
  static constexpr bool kHasNorm = true;
};

// Real index of the lower-triangle entry (i, j), i > j, within a block (file comment).
__host__ __device__ constexpr int CloverLowerIndex(int i, int j) { return 6 + 2 * (i * (i - 1) / 2 + j); }

template <Precision P>
struct CloverAccessor {
  using Storage = CloverStorage<P>;
  using Word = typename Storage::Word;
  using Arithmetic = typename Storage::Arithmetic;  // what the kernels of this precision compute in
  static constexpr int kRealsPerWord = Storage::kRealsPerWord;
  static constexpr int kWordsPerBlock = kCloverRealsPerBlock / kRealsPerWord;
  static constexpr int kWords = 2 * kWordsPerBlock;
  // The stored numbers before the block's scale: integer levels for half, the values of C otherwise.
  using Raw = std::conditional_t<Storage::kHasNorm, int, Arithmetic>;

  Word* data = nullptr;
  float* norm = nullptr;  // half only
  int stride = 0;

  // The 36 stored numbers of block `chirality` of site cb (levels for half).
  template <int chirality>
  __device__ __forceinline__ void LoadBlockRaw(int cb, Raw* r) const {
#pragma unroll
    for (int w = 0; w < kWordsPerBlock; ++w) {
      Unpack(__ldg(data + (chirality * kWordsPerBlock + w) * stride + cb), r + w * kRealsPerWord);
    }
  }

  // C = BlockScale * raw: the block's norm / 32767 for half (two float roundings), 1 otherwise.
  template <int chirality>
  __device__ __forceinline__ Arithmetic BlockScale(int cb) const {
    if constexpr (Storage::kHasNorm) {
      return __ldg(norm + chirality * stride + cb) * (1.0f / kHalfScale);
    } else {
      return Arithmetic(1);
    }
  }

  // C_chirality x for a half spinor x (index 3 s + c), reading the real diagonal and the lower triangle:
  // 6 real-times-complex (12 flops), 15 entries used as c and conj(c) (180), 30 complex additions (60): 252.
  template <int chirality, typename Real>
  __device__ __forceinline__ HalfSpinor<Real> BlockTimes(int cb, const HalfSpinor<Real>& x) const {
    Raw raw[kCloverRealsPerBlock];
    LoadBlockRaw<chirality>(cb, raw);
    Real c[kCloverRealsPerBlock];
#pragma unroll
    for (int r = 0; r < kCloverRealsPerBlock; ++r) {
      if constexpr (Storage::kHasNorm) {
        c[r] = static_cast<Real>(LevelToFloat(raw[r]));  // exact: |q| <= 32767
      } else {
        c[r] = static_cast<Real>(raw[r]);
      }
    }
    DeviceComplex<Real> v[6], y[6];
#pragma unroll
    for (int k = 0; k < 6; ++k) v[k] = x.v[k / 3][k % 3];
#pragma unroll
    for (int i = 0; i < 6; ++i) y[i] = c[i] * v[i];
#pragma unroll
    for (int i = 1; i < 6; ++i) {
#pragma unroll
      for (int j = 0; j < i; ++j) {
        const DeviceComplex<Real> lower{c[CloverLowerIndex(i, j)], c[CloverLowerIndex(i, j) + 1]};
        y[i] = y[i] + lower * v[j];
        y[j] = y[j] + ConjTimes(lower, v[i]);
      }
    }
    if constexpr (Storage::kHasNorm) {
      const Real scale = static_cast<Real>(BlockScale<chirality>(cb));
#pragma unroll
      for (int k = 0; k < 6; ++k) y[k] = scale * y[k];
    }
    HalfSpinor<Real> result;
#pragma unroll
    for (int k = 0; k < 6; ++k) result.v[k / 3][k % 3] = y[k];
    return result;
  }

  // T psi (or T^{-1} psi, for an accessor of the inverse field) at site cb, psi and the result in the UKQCD
  // basis: a = u + l, b = u - l (sqrt 2 times the chiral pairs), x = C_+ a, y = C_- b, result (x + y, x - y).
  // 504 flops in the blocks, 48 in the two rotations. Site-local: the caller may store over psi's site.
  template <typename Real>
  __device__ __forceinline__ ColorSpinor<Real> Apply(int cb, const ColorSpinor<Real>& psi_ukqcd) const {
    HalfSpinor<Real> a, b;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        a.v[s][c] = psi_ukqcd.v[s][c] + psi_ukqcd.v[s + 2][c];
        b.v[s][c] = psi_ukqcd.v[s][c] - psi_ukqcd.v[s + 2][c];
      }
    }
    const HalfSpinor<Real> x = BlockTimes<0>(cb, a);
    const HalfSpinor<Real> y = BlockTimes<1>(cb, b);
    ColorSpinor<Real> out;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        out.v[s][c] = x.v[s][c] + y.v[s][c];
        out.v[s + 2][c] = x.v[s][c] - y.v[s][c];
      }
    }
    return out;
  }

  // Stores block `chirality` of site cb from the 36 reals of B (NOT halved; the order of the file comment),
  // as C = B / 2 rounded to the storage: T = double when packing from the host. Halving is exact except for
  // subnormal results (|B| < 2^-1021 in double, 2^-125 once rounded to float), a change of at most half the
  // subnormal spacing. Half: n = fl32(max |C_r|), levels q = round(C_r * 32767 / n) computed in T (|C_r| <= n
  // up to the float rounding of n, so |q| <= 32767); a NaN or Inf makes the norm NaN (every product then NaN).
  template <typename T>
  __device__ __forceinline__ void Store(int cb, int chirality, const T* block) const {
    T c[kCloverRealsPerBlock];
#pragma unroll
    for (int r = 0; r < kCloverRealsPerBlock; ++r) c[r] = T(0.5) * block[r];
    if constexpr (Storage::kHasNorm) {
      T largest = 0, poison = 0;  // 0 * x is 0 for finite x and NaN for NaN or Inf
#pragma unroll
      for (int r = 0; r < kCloverRealsPerBlock; ++r) {
        largest = fmax(largest, fabs(c[r]));
        poison += T(0) * c[r];
      }
      const float n = static_cast<float>(largest + poison);
      // Levels from the stored float n, not from the exact largest: the decode uses n, so this keeps the
      // error at half a level of what the kernel multiplies by. A zero block stores n = 0 and zero levels.
      const T to_levels = n > 0 ? T(kHalfScale) / T(n) : T(0);
#pragma unroll
      for (int r = 0; r < kCloverRealsPerBlock; ++r) c[r] *= to_levels;
      norm[chirality * stride + cb] = n;
    }
#pragma unroll
    for (int w = 0; w < kWordsPerBlock; ++w) {
      data[(chirality * kWordsPerBlock + w) * stride + cb] = WordMaker<Word>::Make(c + w * kRealsPerWord);
    }
  }

  // The 36 reals of B = 2 C as the kernels use them, in double (for Download): exact for double and single;
  // half gives 2 (q n / 32767) with q n exact and one rounding of the division (relative 2^-53).
  __device__ __forceinline__ void LoadBlock(int cb, int chirality, double* block) const {
    Raw raw[kCloverRealsPerBlock];
    if (chirality == 0) {
      LoadBlockRaw<0>(cb, raw);
    } else {
      LoadBlockRaw<1>(cb, raw);
    }
    const double n = Storage::kHasNorm ? static_cast<double>(norm[chirality * stride + cb]) : 1.0;
#pragma unroll
    for (int r = 0; r < kCloverRealsPerBlock; ++r) {
      if constexpr (Storage::kHasNorm) {
        block[r] = 2.0 * (static_cast<double>(raw[r]) * n / static_cast<double>(kHalfScale));
      } else {
        block[r] = 2.0 * static_cast<double>(raw[r]);
      }
    }
  }
};

template <Precision P>
CloverAccessor<P> CloverAccessorOf(const CloverView& v) {
  CloverAccessor<P> a;
  a.data = static_cast<typename CloverAccessor<P>::Word*>(v.data);
  a.norm = v.norm;
  a.stride = v.stride;
  return a;
}

}  // namespace lqcd::gpu
