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
//       the gauge field refuses links with N below kMinimum8ParameterN (device_gauge_field.h).
//       Half precision stores the two phases divided by pi, so that they lie in [-1, 1].
#pragma once

#include "gpu/register_types.cuh"

namespace lqcd::gpu {

// Third row from the first two: c = (a x b)^*.
template <typename Real>
__device__ __forceinline__ void CompleteThirdRow(Link<Real>& u) {
  const auto* a = u.m[0];
  const auto* b = u.m[1];
  u.m[2][0] = Conj(a[1] * b[2] - a[2] * b[1]);
  u.m[2][1] = Conj(a[2] * b[0] - a[0] * b[2]);
  u.m[2][2] = Conj(a[0] * b[1] - a[1] * b[0]);
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

// U from the 8 reals p (phases in radians). kFastTrig uses the hardware __sincosf (absolute error below
// 2^-21.4 on [-pi, pi]): far below half precision's 2^-16 storage rounding, so half uses it; double and
// single keep the accurate sincos (within 2 ulp), whose accuracy their 8-parameter links need.
template <bool kFastTrig, typename Real>
__device__ __forceinline__ Link<Real> ReconstructFrom8(const Real* p) {
  Link<Real> u;
  const DeviceComplex<Real> a2{p[0], p[1]}, a3{p[2], p[3]}, b1{p[4], p[5]};
  const Real n2 = Norm2(a2) + Norm2(a3);
  const Real inv_n2 = Real(1) / n2;
  const Real a1_modulus = sqrt(fmax(Real(1) - n2, Real(0)));
  const Real c1_modulus = sqrt(fmax(n2 - Norm2(b1), Real(0)));
  Real sin_a1, cos_a1, sin_c1, cos_c1;
  if constexpr (kFastTrig) {
    static_assert(sizeof(Real) == sizeof(float), "the fast sincos is single precision");
    __sincosf(p[6], &sin_a1, &cos_a1);
    __sincosf(p[7], &sin_c1, &cos_c1);
  } else {
    sincos(p[6], &sin_a1, &cos_a1);
    sincos(p[7], &sin_c1, &cos_c1);
  }
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
  return u;
}

}  // namespace lqcd::gpu
