// Tests of portable_math.h against long-double references from <cmath> (x86-64 long double has a 64-bit
// significand, so its functions are ~2^11 times more accurate than what is tested here).
#include "reference/ensemble/portable_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace lqcd {
namespace {

constexpr double kUnitRoundoff = 0x1.0p-53;

// Each function is a handful of correctly rounded operations plus a series truncated below 2^-60 of its
// leading term: PortableLog rounds m + 1 and the division (2u in s), ~1.5u in the series, 1u in the final
// sum; the others are similar. Bound: 6u relative to the result, plus 1e-300 so exact zeros compare.
// (Measured over 10^6 arguments: at most 3.7u for log and log1p, 1.7u for expm1, 4.0u for sin/cos.)
double Tolerance(long double reference) { return 6 * kUnitRoundoff * std::fabs(static_cast<double>(reference)) + 1e-300; }

TEST(PortableMath, LogMatchesReference) {
  RandomStream stream(41, 0);
  for (int i = 0; i < 20000; ++i) {
    // Uniform in (0, 1] (what the sampler needs) and log-uniform over the whole positive range.
    const double x = i % 2 ? 1.0 - stream.Uniform() : std::exp2(2000 * stream.Uniform() - 1000);
    EXPECT_NEAR(PortableLog(x), static_cast<double>(std::log(static_cast<long double>(x))),
                Tolerance(std::log(static_cast<long double>(x))))
        << "x = " << x;
  }
  EXPECT_EQ(PortableLog(1.0), 0.0);
  EXPECT_NEAR(PortableLog(0x1.0p-1074), -1074 * M_LN2, 1e-12);  // subnormal input
}

TEST(PortableMath, Log1pAndExpm1MatchReference) {
  RandomStream stream(42, 0);
  for (int i = 0; i < 20000; ++i) {
    // (-1, 2]: dense near -1 (down to -1 + 2^-50), tiny of both signs, and up to 2.
    const double u = stream.Uniform();
    const double z = i % 3 == 0 ? -1 + std::exp2(-50 * u) : (i % 3 == 1 ? (i % 2 ? -1 : 1) * std::exp2(-60 * u) : 2 * u);
    const long double ref = std::log1p(static_cast<long double>(z));
    EXPECT_NEAR(PortableLog1p(z), static_cast<double>(ref), Tolerance(ref)) << "z = " << z;
    const double t = (i % 2 ? -1 : 1) * std::exp2(14 * stream.Uniform() - 20) * 40;  // |t| from 4e-5 to 650
    if (t > 700) continue;
    const long double ref_e = std::expm1(static_cast<long double>(t));
    EXPECT_NEAR(PortableExpm1(t), static_cast<double>(ref_e), Tolerance(ref_e)) << "t = " << t;
  }
  EXPECT_NEAR(PortableLog1p(1e-20), 1e-20, 1e-36);
  EXPECT_NEAR(PortableExpm1(-1e-20), -1e-20, 1e-36);
  EXPECT_EQ(PortableExpm1(-100), -1.0);
}

TEST(PortableMath, SinCosMatchReference) {
  RandomStream stream(43, 0);
  const long double two_pi = 2 * 3.141592653589793238462643383279502884L;
  for (int i = 0; i < 20000; ++i) {
    const double x = stream.Uniform();
    double s, c;
    PortableSinCos2Pi(x, &s, &c);
    const long double rs = std::sin(two_pi * x), rc = std::cos(two_pi * x);
    // The long-double reference has absolute error ~1e-19 from 2 pi x; that floor is added.
    EXPECT_NEAR(s, static_cast<double>(rs), Tolerance(rs) + 1e-18) << "x = " << x;
    EXPECT_NEAR(c, static_cast<double>(rc), Tolerance(rc) + 1e-18) << "x = " << x;
  }
  // Exact octant points.
  EXPECT_EQ(PortableCos2Pi(0.0), 1.0);
  EXPECT_EQ(PortableSin2Pi(0.25), 1.0);
  EXPECT_EQ(PortableCos2Pi(0.5), -1.0);
  EXPECT_EQ(PortableSin2Pi(0.75), -1.0);
}

// Box-Muller normals: mean 0, variance 1, fourth moment 3, each within 5 standard errors
// (Var(x) = 1, Var(x^2) = 2, Var(x^4) = 105 - 9 = 96).
TEST(PortableMath, GaussianMoments) {
  RandomStream stream(44, 0);
  constexpr int n = 100000;
  double m1 = 0, m2 = 0, m4 = 0;
  for (int i = 0; i < n; ++i) {
    const double g = PortableGaussian(stream);
    m1 += g / n;
    m2 += g * g / n;
    m4 += g * g * g * g / n;
  }
  EXPECT_NEAR(m1, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(m2, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m4, 3.0, 5 * std::sqrt(96.0 / n));
}

// Golden bits: these values are what every correct build must produce, bit for bit. If this fails after
// a compiler or flag change (e.g. FMA contraction, -ffast-math), ensembles are no longer reproducible
// across builds: fix the flags rather than the numbers.
TEST(PortableMath, GoldenBits) {
  EXPECT_EQ(PortableLog(0.3), -0x1.34378fcbda721p+0);
  EXPECT_EQ(PortableLog1p(-0.123), -0x1.0ccbe6d52a927p-3);
  EXPECT_EQ(PortableExpm1(-1.7), -0x1.a2774e1d59d7ep-1);
  EXPECT_EQ(PortableCos2Pi(0.1), 0x1.9e3779b97f4a8p-1);
}

TEST(PortableMath, RejectsBadArguments) {
  EXPECT_THROW(PortableLog(0.0), std::domain_error);
  EXPECT_THROW(PortableLog(-1.0), std::domain_error);
  EXPECT_THROW(PortableLog(INFINITY), std::domain_error);
  EXPECT_THROW(PortableLog1p(-1.0), std::domain_error);
  EXPECT_THROW(PortableExpm1(710), std::domain_error);
  EXPECT_THROW(PortableCos2Pi(1.0), std::domain_error);
  EXPECT_THROW(PortableSin2Pi(-0.1), std::domain_error);
}

}  // namespace
}  // namespace lqcd
