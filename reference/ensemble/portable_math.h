// portable_math.h: the few elementary functions the quenched generator's random sampling needs, written
// with +, -, *, / and exact operations only, so that their results are the same bits on every machine.
//
// Why: the C library's log, exp, sin and cos are not correctly rounded and differ between library versions,
// and glibc picks different code paths at run time (FMA or not) depending on the CPU. A heatbath sample that
// differs in its last bit changes an accept/reject decision sooner or later, and the Markov chain then
// diverges. IEEE-754 double +, -, *, / and sqrt are correctly rounded, so these functions give the same
// result everywhere, provided the compiler keeps the operations as written: no fused multiply-add
// contraction (GCC and Clang do not contract in ISO C++ mode on baseline x86-64, which has no FMA) and no
// -ffast-math. Accuracy: a few units in the last place (tested in portable_math_test against <cmath>);
// they are used for sampling only, where that is far below any statistical effect.
//
//   PortableLog(x)        ln x for finite x > 0 (x = 2^e m, ln m = 2 atanh((m - 1) / (m + 1)) series).
//   PortableLog1p(z)      ln(1 + z) for z > -1, accurate relative to the result for small |z|.
//   PortableExpm1(t)      e^t - 1 for t <= 709, accurate relative to the result for small |t|.
//   PortableCos2Pi(x), PortableSin2Pi(x)   cos(2 pi x), sin(2 pi x) for x in [0, 1).
//   PortableGaussian(stream)   a standard normal number (Box-Muller with the functions above).
// Out-of-range arguments throw std::domain_error.
#pragma once

#include <cmath>
#include <stdexcept>

#include "reference/random.h"

namespace lqcd {

namespace portable_internal {

// The series below are evaluated by Horner's rule from the highest term down, with fixed coefficient
// tables (the correctly rounded values, written in hexadecimal so that no compiler or library computes them)
// and enough terms that the first omitted one is below 2^-56 of the leading one.

// 1 / (2k + 1), k = 0..19.
inline constexpr double kAtanhCoefficients[20] = {
    0x1.0000000000000p+0, 0x1.5555555555555p-2, 0x1.999999999999ap-3, 0x1.2492492492492p-3, 0x1.c71c71c71c71cp-4,
    0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4, 0x1.1111111111111p-4, 0x1.e1e1e1e1e1e1ep-5, 0x1.af286bca1af28p-5,
    0x1.8618618618618p-5, 0x1.642c8590b2164p-5, 0x1.47ae147ae147bp-5, 0x1.2f684bda12f68p-5, 0x1.1a7b9611a7b96p-5,
    0x1.0842108421084p-5, 0x1.f07c1f07c1f08p-6, 0x1.d41d41d41d41dp-6, 0x1.bacf914c1bad0p-6, 0x1.a41a41a41a41ap-6};
// 1 / n!, n = 1..17.
inline constexpr double kExpm1Coefficients[17] = {
    0x1.0000000000000p+0,  0x1.0000000000000p-1,  0x1.5555555555555p-3,  0x1.5555555555555p-5,  0x1.1111111111111p-7,
    0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22,
    0x1.ae64567f544e4p-26, 0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-41,
    0x1.ae7f3e733b81fp-45, 0x1.952c77030ad4ap-49};
// (-1)^k / (2k + 1)!, k = 0..9, and (-1)^k / (2k)!, k = 0..10.
inline constexpr double kSinCoefficients[10] = {
    0x1.0000000000000p+0,   -0x1.5555555555555p-3, 0x1.1111111111111p-7,  -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,
    -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33, -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49, -0x1.2f49b46814157p-57};
inline constexpr double kCosCoefficients[11] = {
    0x1.0000000000000p+0,  -0x1.0000000000000p-1, 0x1.5555555555555p-5,  -0x1.6c16c16c16c17p-10,
    0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37,
    0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53, 0x1.e542ba4020225p-62};

inline double Horner(const double* coefficients, int n, double x) {
  double sum = coefficients[n - 1];
  for (int k = n - 2; k >= 0; --k) sum = coefficients[k] + x * sum;
  return sum;
}

// 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...) for |s| <= 1/3: 12 terms suffice for |s| <= 0.18
// (0.18^24 / 25 < 1e-19), 20 for |s| <= 1/3 ((1/3)^40 / 41 < 1e-20).
inline double TwoAtanh(double s) {
  const double s2 = s * s;
  return 2 * s * Horner(kAtanhCoefficients, std::fabs(s) <= 0.18 ? 12 : 20, s2);
}

// e^r - 1 = r (1 + r/2! + r^2/3! + ... + r^16/17!) for |r| <= 0.5 (0.5^17 / 18! < 1e-20).
inline double Expm1Small(double r) { return r * Horner(kExpm1Coefficients, 17, r); }

// sin(theta), cos(theta) for |theta| <= pi/4 ((pi/4)^20 / 20! < 1e-20).
inline double SinSmall(double theta) { return theta * Horner(kSinCoefficients, 10, theta * theta); }
inline double CosSmall(double theta) { return Horner(kCosCoefficients, 11, theta * theta); }

// ln 2 = kLn2Hi + kLn2Lo to ~2^-93; kLn2Hi has 37 significant bits, so e * kLn2Hi is exact for |e| < 2^16.
inline constexpr double kLn2Hi = 0x1.62e42fefa0000p-1;
inline constexpr double kLn2Lo = 0x1.cf79abc9e3b3ap-40;
inline constexpr double kSqrtHalf = 0.70710678118654752440;

}  // namespace portable_internal

inline double PortableLog(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::domain_error("PortableLog: argument must be finite and > 0");
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m 2^e, m in [0.5, 1)
  if (m < portable_internal::kSqrtHalf) {
    m *= 2;  // exact
    --e;
  }
  // m in [sqrt(1/2), sqrt(2)): s = (m - 1) / (m + 1) in [-0.172, 0.172].
  const double s = (m - 1) / (m + 1);
  return e * portable_internal::kLn2Hi + (portable_internal::TwoAtanh(s) + e * portable_internal::kLn2Lo);
}

inline double PortableLog1p(double z) {
  if (!(z > -1) || !std::isfinite(z)) throw std::domain_error("PortableLog1p: argument must be finite and > -1");
  // ln(1 + z) = 2 atanh(z / (2 + z)); for |z| <= 0.5, |s| <= 1/3 and z / (2 + z) is accurate relative to z.
  if (std::fabs(z) <= 0.5) return portable_internal::TwoAtanh(z / (2 + z));
  return PortableLog(1 + z);  // 1 + z is >= 0.5 or > 1.5 here: its rounding is relative to the result
}

inline double PortableExpm1(double t) {
  if (std::isnan(t) || t > 709) throw std::domain_error("PortableExpm1: argument must be <= 709");
  if (std::fabs(t) <= 0.5) return portable_internal::Expm1Small(t);
  if (t < -40) return -1.0;  // e^t < 4.3e-18 is below half an ulp of 1
  // t = k ln2 + r with |r| <= ln2/2 + rounding; e^t = 2^k e^r.
  const double k = std::floor(t / portable_internal::kLn2Hi + 0.5);
  const double r = (t - k * portable_internal::kLn2Hi) - k * portable_internal::kLn2Lo;
  const double exp_r = 1 + portable_internal::Expm1Small(r);
  return std::ldexp(exp_r, static_cast<int>(k)) - 1;
}

// cos(2 pi x), sin(2 pi x) for x in [0, 1): 8x is split exactly into an octant and a remainder.
inline void PortableSinCos2Pi(double x, double* sin_out, double* cos_out) {
  if (!(x >= 0 && x < 1)) throw std::domain_error("PortableSinCos2Pi: argument must be in [0, 1)");
  const double y = 8 * x;                // exact
  const double octant = std::floor(y);   // 0..7
  double f = y - octant;                 // exact, in [0, 1)
  int o = static_cast<int>(octant);
  // Angle within the octant, measured from the nearer multiple of pi/2 so that |theta| <= pi/4.
  if (o & 1) f -= 1;                                   // exact; f in [-1, 0): angle from the next quadrant edge
  const int quadrant = ((o + 1) / 2) % 4;              // which multiple of pi/2 the angle is measured from
  const double theta = f * (M_PI / 4);
  const double s = portable_internal::SinSmall(theta), c = portable_internal::CosSmall(theta);
  switch (quadrant) {  // (sin, cos) of quadrant * pi/2 + theta
    case 0: *sin_out = s; *cos_out = c; break;
    case 1: *sin_out = c; *cos_out = -s; break;
    case 2: *sin_out = -s; *cos_out = -c; break;
    default: *sin_out = -c; *cos_out = s; break;
  }
}

inline double PortableCos2Pi(double x) {
  double s, c;
  PortableSinCos2Pi(x, &s, &c);
  return c;
}

inline double PortableSin2Pi(double x) {
  double s, c;
  PortableSinCos2Pi(x, &s, &c);
  return s;
}

// Box-Muller: sqrt(-2 ln u1) cos(2 pi u2) with u1 in (0, 1]. One normal per call (the sine partner is
// discarded so that the stream position depends only on the number of calls).
inline double PortableGaussian(RandomStream& stream) {
  const double u1 = 1.0 - stream.Uniform(), u2 = stream.Uniform();
  return std::sqrt(-2 * PortableLog(u1)) * PortableCos2Pi(u2);
}

}  // namespace lqcd
