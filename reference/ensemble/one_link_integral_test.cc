// Tests of one_link_integral.h against the strong- and weak-coupling expansions of the one-link integral.
#include "reference/ensemble/one_link_integral.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace lqcd {
namespace {

// Haar measure: <Re Tr U> = 0. The trapezoid rule is exact for this trigonometric polynomial; the
// numerator, 128^2 terms of size <= 64 * 3 that cancel, has rounding <= 128^2 * 192 * 2^-53 ~ 3.5e-10, and
// the denominator is 3 * 128^2 * 6 (the mean of |Delta|^2 is 6): ~1.2e-15 after the division; 1e-14 bound.
TEST(OneLinkTrace, VanishesForHaarMeasure) { EXPECT_NEAR(OneLinkTrace(0.0), 0.0, 1e-14); }

// Strong coupling: with x = beta / 3, u = beta/18 + beta^2/216 - 5 beta^4/93312 - beta^5/186624
// + 7 beta^6/33592320 + 59 beta^7/604661760 + ... (docs/quenched_generator.md derives it from the Haar
// moments <(2 Re Tr U)^n> = 1, 0, 2, 2, 12, 30, 130, 462, ...). Truncating after beta^6 leaves the beta^7
// term plus smaller ones; the tolerance is twice that term (the series' terms fall by > 4x per order for
// beta <= 1.2) plus the rounding of the integral (1e-14).
TEST(OneLinkTrace, MatchesTheStrongCouplingSeries) {
  for (double beta : {0.3, 0.6, 1.2}) {
    const double b2 = beta * beta, b4 = b2 * b2;
    const double series = beta / 18 + b2 / 216 - 5 * b4 / 93312 - b4 * beta / 186624 + 7 * b4 * b2 / 33592320;
    const double next = 59 * b4 * b2 * beta / 604661760;
    EXPECT_NEAR(OneLinkTrace(beta / 3), series, 2 * next + 1e-14) << "beta = " << beta;
  }
  // The beta^2 term matters: without it the series misses by beta^2/216 >> the tolerance above.
  EXPECT_GT(std::abs(OneLinkTrace(0.2) - 0.6 / 18), 0.5 * 0.36 / 216);
}

// Weak coupling: U = exp(i a_a T_a), Re Tr U = 3 - (1/4) sum_a a_a^2 + ..., so each of the 8 a_a has
// variance 2/x and 1 - u = (1/12) sum <a_a^2> = 4 / (3x) + O(1/x^2). The O(1/x^2) coefficient, measured
// with this integral for x = 25..100, is -0.11..-0.12; the tolerance 0.2 / x^2 bounds it.
TEST(OneLinkTrace, MatchesTheWeakCouplingExpansion) {
  for (double x : {40.0, 100.0}) EXPECT_NEAR(1 - OneLinkTrace(x), 4 / (3 * x), 0.2 / (x * x)) << "x = " << x;
}

// Grid convergence: the default grid (128) agrees with a finer one (200) to rounding. Each is a ratio of
// sums of up to 200^2 positive terms, whose relative rounding is at most 200^2 * 2^-53 = 4.4e-12 each, so
// the tolerance is 1e-11. (A 96 grid misses by 6e-11 at x = 100, which this would catch.)
TEST(OneLinkTrace, GridIsConverged) {
  for (double x : {1.0, 10.0, 50.0, 100.0}) EXPECT_NEAR(OneLinkTrace(x), OneLinkTrace(x, 200), 1e-11) << "x = " << x;
}

TEST(OneLinkTrace, RejectsBadArguments) {
  EXPECT_THROW(OneLinkTrace(-1), std::invalid_argument);
  EXPECT_THROW(OneLinkTrace(std::nan("")), std::invalid_argument);
  EXPECT_THROW(OneLinkTrace(101), std::invalid_argument);
  EXPECT_THROW(OneLinkTrace(1, 4), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd
