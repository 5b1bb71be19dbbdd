// random_test: Philox4x32-10 against the published known-answer vectors, and the derived streams.
#include "reference/random.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lqcd {
namespace {

// Known-answer vectors of the Random123 distribution (kat_vectors, philox4x32 with 10 rounds).
TEST(Philox4x32Test, MatchesPublishedKnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<std::uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(Philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (std::array<std::uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(Philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
            (std::array<std::uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(RandomStreamTest, SameSeedAndStreamGiveTheSameNumbers) {
  RandomStream a(42, 7), b(42, 7), c(42, 8), d(43, 7);
  for (int i = 0; i < 100; ++i) {
    const double x = a.Uniform();
    EXPECT_EQ(x, b.Uniform());
    EXPECT_NE(x, c.Uniform());
    EXPECT_NE(x, d.Uniform());
  }
}

// Moments of 10^5 draws: mean and variance within 5 standard errors of their exact values.
TEST(RandomStreamTest, UniformAndGaussianMomentsAreRight) {
  const int n = 100000;
  RandomStream rng(1, 0);
  double su = 0, su2 = 0, sg = 0, sg2 = 0, sg4 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    su2 += u * u;
    const double g = rng.Gaussian();
    sg += g;
    sg2 += g * g;
    sg4 += g * g * g * g;
  }
  EXPECT_NEAR(su / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(su2 / n, 1.0 / 3, 5 * std::sqrt((1.0 / 5 - 1.0 / 9) / n));
  EXPECT_NEAR(sg / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sg2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sg4 / n, 3.0, 5 * std::sqrt(96.0 / n));
}

}  // namespace
}  // namespace lqcd
