// su3_reconstruct.cuh: the compressed forms of an SU(3) link (the paper's Appendix A) on the device:
// Compress (to 18, 12 or 8 reals) when fields are packed, Reconstruct (back to 3 x 3) in registers
// inside every kernel. Our own device implementation; reference/ has the CPU one.
//
// Device-side header. Rows of U are a, b, c; a = (a1, a2, a3) etc.
//   18 reals: U row-major, (re, im) per element.
//   12 reals: rows a and b; c = (a x b)^*  (A.1; exact for U in SU(3)).
//    8 reals: a2, a3, b1 (re, im), then arg(a1), arg(c1) in radians (A.2). Reconstruction:
//       N^2 = |a2|^2 + |a3|^2,  a1 = sqrt(1 - N^2) e^{i arg a1},  c1 = sqrt(N^2 - |b1|^2) e^{i arg c1}
//       (the paper writes |c1|^2 = 1 - |a1|^2 - |b1|^2, the same number; N^2 - |b1|^2 avoids the
//        cancellation of 1 - |a1|^2), both square roots of negative rounding residue clamped to 0 as the
//       paper advises for half precision. With p1 = c1^* / N, p2 = b1 / N, the rows
//       b = p1 b' + p2 c',  c = -p2^* b' + p1^* c',  b' = (0, -a3^*, a2^*) / N,  c' = (N, -a1^* a2 / N, -a1^* a3 / N)
//       give, written out,
//         b2 = -(c1^* a3^* + b1 a1^* a2) / N^2     b3 = (c1^* a2^* - b1 a1^* a3) / N^2
//         c2 = (b1^* a3^* - c1 a1^* a2) / N^2      c3 = -(b1^* a2^* + c1 a1^* a3) / N^2.
//       Singular at N = 0 (|a1| = 1): rounding errors of the stored reals are amplified by about 1/N, so
//       the gauge field accepts links with N below kMinimum8ParameterN (device_gauge_field.h) only in the
//       singular form diag(a1, a1^*, 1) (unit links, for one), stored with a2 = a3 = b1 = 0 and rebuilt
//       exactly from arg a1 when the stored N is exactly 0 (as reference/su3_compression.h does on the
//       CPU): every 8-real reconstruction handles it, at a cost of a few instructions (CompleteSingularForm).
//       Half precision stores the two phases divided by pi, so that they lie in [-1, 1].
#pragma once

#include <cmath>
#include <type_traits>

#include "gpu/register_types.cuh"

namespace lqcd::gpu {

// sin and cos of x in Real: the device's sincos / sincosf (within 2 ulp), the host's std::sin and std::cos.
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

// Third row from the first two: c = (a x b)^*.
template <typename Real>
__device__ __forceinline__ void CompleteThirdRow(Link<Real>& u) {
  const auto* a = u.m[0];
  const auto* b = u.m[1];
  u.m[2][0] = Conj(a[1] * b[2] - a[2] * b[1]);
  u.m[2][1] = Conj(a[2] * b[0] - a[0] * b[2]);
  u.m[2][2] = Conj(a[0] * b[1] - a[1] * b[0]);
}

// c = unit * (a x b)^* with each part a chain of one multiplication and three fma (the half kernels, whose
// rows a and b are values / unit, unit = 32768/32767: multiplying by unit puts c in the same units).
template <typename Real>
__device__ __forceinline__ void CompleteThirdRowFused(Link<Real>& u, Real unit) {
  const auto* a = u.m[0];
  const auto* b = u.m[1];
#pragma unroll
  for (int j = 0; j < 3; ++j) {
    const int k = (j + 1) % 3, l = (j + 2) % 3;  // c_j = conj(a_k b_l - a_l b_k)
    Real re = a[k].re * b[l].re;
    re = fma(-a[k].im, b[l].im, re);
    re = fma(-a[l].re, b[k].re, re);
    re = fma(a[l].im, b[k].im, re);
    Real im = a[k].re * b[l].im;
    im = fma(a[k].im, b[l].re, im);
    im = fma(-a[l].re, b[k].im, im);
    im = fma(-a[l].im, b[k].re, im);
    u.m[2][j] = {unit * re, -(unit * im)};
  }
}

// The 8 reals of U (phases in radians), computed in the type of U (double when packing).
template <typename Real>
__device__ __forceinline__ void CompressTo8(const Link<Real>& u, Real* p) {
  p[0] = u.m[0][1].re;
  p[1] = u.m[0][1].im;
  p[2] = u.m[0][2].re;
  p[3] = u.m[0][2].im;
  p[4] = u.m[1][0].re;
  p[5] = u.m[1][0].im;
  p[6] = atan2(u.m[0][0].im, u.m[0][0].re);
  p[7] = atan2(u.m[2][0].im, u.m[2][0].re);
}

// The singular form diag(a1, a1^*, 1), stored with a2 = a3 = b1 = 0 (N = 0 exactly; file comment). With
// 1/N^2 taken as 0 there, the general formulas already give it except for two entries: a1 = e^{i arg a1}
// (modulus sqrt(1 - 0)), c1 = 0 (modulus sqrt(0 - 0)), b3 = c2 = 0, and b2 = c3 = 0 where a1^* and 1
// belong. Those two are set here: two selects per entry on every 8-real link, instead of a separate
// kernel family for fields that hold such links. For N > 0 nothing changes.
template <typename Real>
__host__ __device__ __forceinline__ void CompleteSingularForm(Real n2, Link<Real>& u) {
  if (n2 == Real(0)) {
    u.m[1][1] = Conj(u.m[0][0]);
    u.m[2][2] = {Real(1), Real(0)};
  }
}

// Square root and reciprocal from the special-function unit alone (PTX sqrt.approx / rcp.approx: within
// 1 ulp, relative error below 2^-22), without the correctly rounded versions' refinement steps.
__device__ __forceinline__ float ApproximateSqrt(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float ApproximateReciprocal(float x) {
  float r;
  asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// p0 q0 + p1 q1 + p2 q2 + p3 q3 as one multiplication and three fma (signs go into the arguments).
__device__ __forceinline__ float FusedSum4(float p0, float q0, float p1, float q1, float p2, float q2, float p3,
                                           float q3) {
  return fmaf(p3, q3, fmaf(p2, q2, fmaf(p1, q1, p0 * q0)));
}

// The half kernels' 8-parameter reconstruction: the same formulas as ReconstructFrom8 below, with the fast
// sincos, square root and reciprocal and every sum of products as one chain of fused multiply-adds.
__device__ __forceinline__ Link<float> ReconstructFrom8Fast(const float* p) {
  Link<float> u;
  const DeviceComplex<float> a2{p[0], p[1]}, a3{p[2], p[3]}, b1{p[4], p[5]};
  const float n2 = FusedSum4(a2.re, a2.re, a2.im, a2.im, a3.re, a3.re, a3.im, a3.im);
  const float inv_n2 = n2 > 0.0f ? ApproximateReciprocal(n2) : 0.0f;  // N = 0: see CompleteSingularForm
  const float a1_modulus = ApproximateSqrt(fmaxf(1.0f - n2, 0.0f));
  const float c1_modulus = ApproximateSqrt(fmaxf(fmaf(-b1.re, b1.re, fmaf(-b1.im, b1.im, n2)), 0.0f));
  float sin_a1, cos_a1, sin_c1, cos_c1;
  __sincosf(p[6], &sin_a1, &cos_a1);
  __sincosf(p[7], &sin_c1, &cos_c1);
  const DeviceComplex<float> a1{a1_modulus * cos_a1, a1_modulus * sin_a1};
  const DeviceComplex<float> c1{c1_modulus * cos_c1, c1_modulus * sin_c1};
  const DeviceComplex<float> x2 = ConjTimes(a1, a2);  // a1^* a2
  const DeviceComplex<float> x3 = ConjTimes(a1, a3);  // a1^* a3
  const float minus_inv_n2 = -inv_n2;
  u.m[0][0] = a1;
  u.m[0][1] = a2;
  u.m[0][2] = a3;
  u.m[1][0] = b1;
  u.m[2][0] = c1;
  // b2 = -(conj(c1 a3) + b1 x2) / N^2
  u.m[1][1] = {minus_inv_n2 * FusedSum4(c1.re, a3.re, -c1.im, a3.im, b1.re, x2.re, -b1.im, x2.im),
               minus_inv_n2 * FusedSum4(-c1.re, a3.im, -c1.im, a3.re, b1.re, x2.im, b1.im, x2.re)};
  // b3 = (conj(c1 a2) - b1 x3) / N^2
  u.m[1][2] = {inv_n2 * FusedSum4(c1.re, a2.re, -c1.im, a2.im, -b1.re, x3.re, b1.im, x3.im),
               inv_n2 * FusedSum4(-c1.re, a2.im, -c1.im, a2.re, -b1.re, x3.im, -b1.im, x3.re)};
  // c2 = (conj(b1 a3) - c1 x2) / N^2
  u.m[2][1] = {inv_n2 * FusedSum4(b1.re, a3.re, -b1.im, a3.im, -c1.re, x2.re, c1.im, x2.im),
               inv_n2 * FusedSum4(-b1.re, a3.im, -b1.im, a3.re, -c1.re, x2.im, -c1.im, x2.re)};
  // c3 = -(conj(b1 a2) + c1 x3) / N^2
  u.m[2][2] = {minus_inv_n2 * FusedSum4(b1.re, a2.re, -b1.im, a2.im, c1.re, x3.re, -c1.im, x3.im),
               minus_inv_n2 * FusedSum4(-b1.re, a2.im, -b1.im, a2.re, c1.re, x3.im, c1.im, x3.re)};
  CompleteSingularForm(n2, u);
  return u;
}

// U from the 8 reals p (phases in radians). kFastTrig (half precision) is ReconstructFrom8Fast: the hardware
// __sincosf (absolute error below 2^-21.4 on [-pi, pi]) and the approximate square root and reciprocal
// (relative 2^-22), far below half precision's 2^-16 storage rounding; double and single keep the accurate
// sincos (within 2 ulp), sqrt and division, whose accuracy their 8-parameter links need. Both rebuild the
// singular form exactly (CompleteSingularForm). The accurate form runs on the host too (the staggered kernel's
// host check rebuilds 9-number long links with it).
template <bool kFastTrig, typename Real>
__host__ __device__ __forceinline__ Link<Real> ReconstructFrom8(const Real* p) {
  if constexpr (kFastTrig) {
    static_assert(sizeof(Real) == sizeof(float), "the fast reconstruction is single precision");
    return ReconstructFrom8Fast(p);
  } else {
    Link<Real> u;
    const DeviceComplex<Real> a2{p[0], p[1]}, a3{p[2], p[3]}, b1{p[4], p[5]};
    const Real n2 = Norm2(a2) + Norm2(a3);
    const Real inv_n2 = n2 > Real(0) ? Real(1) / n2 : Real(0);  // N = 0: see CompleteSingularForm
    const Real a1_modulus = sqrt(fmax(Real(1) - n2, Real(0)));
    const Real c1_modulus = sqrt(fmax(n2 - Norm2(b1), Real(0)));
    Real sin_a1, cos_a1, sin_c1, cos_c1;
    SinCos(p[6], &sin_a1, &cos_a1);
    SinCos(p[7], &sin_c1, &cos_c1);
    const DeviceComplex<Real> a1{a1_modulus * cos_a1, a1_modulus * sin_a1};
    const DeviceComplex<Real> c1{c1_modulus * cos_c1, c1_modulus * sin_c1};
    const DeviceComplex<Real> a1c_a2 = ConjTimes(a1, a2);  // a1^* a2
    const DeviceComplex<Real> a1c_a3 = ConjTimes(a1, a3);  // a1^* a3
    u.m[0][0] = a1;
    u.m[0][1] = a2;
    u.m[0][2] = a3;
    u.m[1][0] = b1;
    u.m[2][0] = c1;
    u.m[1][1] = -inv_n2 * (Conj(c1 * a3) + b1 * a1c_a2);
    u.m[1][2] = inv_n2 * (Conj(c1 * a2) - b1 * a1c_a3);
    u.m[2][1] = inv_n2 * (Conj(b1 * a3) - c1 * a1c_a2);
    u.m[2][2] = -inv_n2 * (Conj(b1 * a2) + c1 * a1c_a3);
    CompleteSingularForm(n2, u);
    return u;
  }
}

}  // namespace lqcd::gpu
