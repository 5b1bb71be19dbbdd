// register_types.cuh: the small per-thread objects the kernels compute with: a complex number, a colour
// spinor (4 spins x 3 colours), a half spinor (2 spins x 3 colours) and an SU(3) link (3 x 3).
//
// Device-side header (included by .cu files only). All arrays are indexed with compile-time constants
// inside fully unrolled loops, so they live in registers, never in local memory.
// Index conventions follow reference/types.h: spinor(s, c) with spin s = 0..3 and colour c = 0..2;
// link(i, j) row i, column j; U acts on a colour vector v as (U v)_i = sum_j U_ij v_j.
#pragma once

#include <cstring>
#include <type_traits>

namespace lqcd::gpu {

// A read-only load: through the read-only data cache (__ldg) on the device, a plain load in host code (host
// checks run kernels' per-site functors on host memory).
template <typename T>
__host__ __device__ __forceinline__ T LoadReadOnly(const T* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

// A load of data that a kernel reads once per launch, such as a Dslash's links (each link is read by one output
// site: its own forward link or its backward neighbour's), on the same non-coherent path as LoadReadOnly but
// without allocating in L1 (ld.global.nc.L1::no_allocate), so that streaming it does not evict the colour
// vectors that neighbouring sites read again. T is 4, 8 or 16 bytes (a word of a field); a plain load in host
// code.
template <typename T>
__host__ __device__ __forceinline__ T LoadReadOnce(const T* p) {
#ifdef __CUDA_ARCH__
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "LoadReadOnce: a 4-, 8- or 16-byte word");
  T value;
  if constexpr (std::is_same_v<T, double2>) {  // typed: the doubles go straight into 64-bit registers
    asm("ld.global.nc.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(value.x), "=d"(value.y) : "l"(p));
  } else if constexpr (std::is_same_v<T, float2>) {
    asm("ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(value.x), "=f"(value.y) : "l"(p));
  } else if constexpr (sizeof(T) == 4) {
    unsigned w;
    asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(w) : "l"(p));
    memcpy(&value, &w, sizeof(T));
  } else if constexpr (sizeof(T) == 8) {
    uint2 w;
    asm("ld.global.nc.L1::no_allocate.v2.b32 {%0, %1}, [%2];" : "=r"(w.x), "=r"(w.y) : "l"(p));
    memcpy(&value, &w, sizeof(T));
  } else {
    uint4 w;
    asm("ld.global.nc.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
        : "l"(p));
    memcpy(&value, &w, sizeof(T));
  }
  return value;
#else
  return *p;
#endif
}

template <typename Real>
struct DeviceComplex {
  Real re, im;
};

template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> operator+(DeviceComplex<Real> a, DeviceComplex<Real> b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> operator-(DeviceComplex<Real> a, DeviceComplex<Real> b) {
  return {a.re - b.re, a.im - b.im};
}
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> operator-(DeviceComplex<Real> a) {
  return {-a.re, -a.im};
}
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> operator*(Real s, DeviceComplex<Real> a) {
  return {s * a.re, s * a.im};
}
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> operator*(DeviceComplex<Real> a, DeviceComplex<Real> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> Conj(DeviceComplex<Real> a) {
  return {a.re, -a.im};
}
// conj(a) * b
template <typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> ConjTimes(DeviceComplex<Real> a, DeviceComplex<Real> b) {
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}
template <typename Real>
__host__ __device__ __forceinline__ Real Norm2(DeviceComplex<Real> a) {
  return a.re * a.re + a.im * a.im;
}

// i^k * a for k = 0..3 (1, i, -1, -i): exact, no flops. The spin projectors of the UKQCD basis have only
// such entries, so projecting and reconstructing spinors never rounds.
template <int k, typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> TimesIPower(DeviceComplex<Real> a) {
  static_assert(k >= 0 && k < 4, "power of i must be 0..3");
  if constexpr (k == 0) {
    return a;
  } else if constexpr (k == 1) {
    return {-a.im, a.re};
  } else if constexpr (k == 2) {
    return {-a.re, -a.im};
  } else {
    return {a.im, -a.re};
  }
}

template <typename Real>
struct ColorSpinor {
  DeviceComplex<Real> v[4][3];  // v[spin][colour]

  __device__ __forceinline__ static ColorSpinor Zero() {
    ColorSpinor psi;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) psi.v[s][c] = {Real(0), Real(0)};
    }
    return psi;
  }
};

template <typename Real>
struct HalfSpinor {
  DeviceComplex<Real> v[2][3];
};

// h = -h, component by component (exact).
template <typename Real>
__device__ __forceinline__ void Negate(HalfSpinor<Real>& h) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) h.v[s][c] = -h.v[s][c];
  }
}

template <typename Real>
struct Link {
  DeviceComplex<Real> m[3][3];  // m[row][column]
};

// a0 b0 + a1 b1 + a2 b2 (kConjugate: conj(a_j) b_j) as one chain of fused multiply-adds per part: one
// multiplication and five fma, 6 roundings along the chain like the 6-term sum of separate products.
template <bool kConjugate, typename Real>
__host__ __device__ __forceinline__ DeviceComplex<Real> FusedDot3(DeviceComplex<Real> a0, DeviceComplex<Real> a1,
                                                         DeviceComplex<Real> a2, DeviceComplex<Real> b0,
                                                         DeviceComplex<Real> b1, DeviceComplex<Real> b2) {
  // conj(a) b = (ar br + ai bi) + i (ar bi - ai br);  a b = (ar br - ai bi) + i (ar bi + ai br).
  constexpr Real s = kConjugate ? Real(1) : Real(-1);
  Real re = a0.re * b0.re;
  re = fma(s * a0.im, b0.im, re);
  re = fma(a1.re, b1.re, re);
  re = fma(s * a1.im, b1.im, re);
  re = fma(a2.re, b2.re, re);
  re = fma(s * a2.im, b2.im, re);
  Real im = a0.re * b0.im;
  im = fma(-s * a0.im, b0.re, im);
  im = fma(a1.re, b1.im, im);
  im = fma(-s * a1.im, b1.re, im);
  im = fma(a2.re, b2.im, im);
  im = fma(-s * a2.im, b2.re, im);
  return {re, im};
}

// r_s = U h_s for both spins. kFused: each component as FusedDot3 (fewer instructions; used by the half
// kernels); otherwise products and sums as written (double and single).
template <bool kFused = false, typename Real>
__device__ __forceinline__ HalfSpinor<Real> Multiply(const Link<Real>& u, const HalfSpinor<Real>& h) {
  HalfSpinor<Real> r;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      if constexpr (kFused) {
        r.v[s][i] = FusedDot3<false>(u.m[i][0], u.m[i][1], u.m[i][2], h.v[s][0], h.v[s][1], h.v[s][2]);
      } else {
        r.v[s][i] = u.m[i][0] * h.v[s][0] + u.m[i][1] * h.v[s][1] + u.m[i][2] * h.v[s][2];
      }
    }
  }
  return r;
}

// r_s = U^dag h_s for both spins: (U^dag h)_i = sum_j conj(U_ji) h_j.
template <bool kFused = false, typename Real>
__device__ __forceinline__ HalfSpinor<Real> MultiplyAdjoint(const Link<Real>& u, const HalfSpinor<Real>& h) {
  HalfSpinor<Real> r;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int i = 0; i < 3; ++i) {
      if constexpr (kFused) {
        r.v[s][i] = FusedDot3<true>(u.m[0][i], u.m[1][i], u.m[2][i], h.v[s][0], h.v[s][1], h.v[s][2]);
      } else {
        r.v[s][i] =
            ConjTimes(u.m[0][i], h.v[s][0]) + ConjTimes(u.m[1][i], h.v[s][1]) + ConjTimes(u.m[2][i], h.v[s][2]);
      }
    }
  }
  return r;
}

}  // namespace lqcd::gpu
