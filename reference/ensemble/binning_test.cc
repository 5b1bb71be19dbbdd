// Tests of binning.h on series with known errors: independent Gaussians and an AR(1) process.
#include "reference/ensemble/binning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "reference/random.h"

namespace lqcd {
namespace {

constexpr int kLength = 1 << 15;

// x_t = rho x_{t-1} + sqrt(1 - rho^2) eta_t with unit-variance eta: unit variance, autocorrelation rho^|t|,
// so the variance of the mean is (1/N) (1 + rho) / (1 - rho) for N >> 1/(1 - rho).
std::vector<double> Ar1(double rho, std::uint64_t seed) {
  RandomStream stream(seed, 0);
  std::vector<double> x(kLength);
  double previous = stream.Gaussian();
  for (double& v : x) {
    v = rho * previous + std::sqrt(1 - rho * rho) * stream.Gaussian();
    previous = v;
  }
  return x;
}

// With 32 bins the error estimate itself has a relative standard deviation 1/sqrt(2 * 31) = 0.127; the
// tolerance is 4 of those (51%). The AR(1) case with rho = 0.8 has a true error 3x the naive one, so a
// binning that did not account for autocorrelation would fail it.
TEST(Binning, IndependentAndCorrelatedSeries) {
  for (double rho : {0.0, 0.8}) {
    const BinnedEstimate e = BinnedMean(Ar1(rho, 7));
    const double expected = std::sqrt((1 + rho) / (1 - rho) / kLength);
    EXPECT_EQ(e.bins, kDefaultBins);
    EXPECT_NEAR(e.error / expected, 1.0, 4 * 0.127) << "rho = " << rho;
    EXPECT_NEAR(e.mean, 0.0, 5 * expected) << "rho = " << rho;
    // tau_int = (1 + rho) / (2 (1 - rho)): 0.5 and 4.5; its estimate inherits twice the relative error.
    EXPECT_NEAR(e.TauIntegrated() / ((1 + rho) / (2 * (1 - rho))), 1.0, 8 * 0.127) << "rho = " << rho;
  }
}

TEST(Binning, ExactOnASmallExample) {
  // Bins of 2: averages 1.5, 3.5, 5.5 (the trailing 9 is dropped); mean 3.5; error sqrt(8 / 6) / sqrt... :
  // sum of squared deviations 4 + 0 + 4 = 8, error = sqrt(8 / (3 * 2)).
  const BinnedEstimate e = BinnedMean({1, 2, 3, 4, 5, 6, 9}, 2);
  EXPECT_DOUBLE_EQ(e.mean, 3.5);
  EXPECT_DOUBLE_EQ(e.error, std::sqrt(8.0 / 6.0));
  EXPECT_EQ(e.bins, 3);
}

TEST(Binning, RejectsTooShortSeries) {
  EXPECT_THROW(BinnedMean({1.0}, 1), std::invalid_argument);
  EXPECT_THROW(BinnedMean({1.0, 2.0, 3.0}, 2), std::invalid_argument);
  EXPECT_THROW(BinnedMean({1.0, 2.0}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd
