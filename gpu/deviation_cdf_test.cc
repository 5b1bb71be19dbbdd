// deviation_cdf_test: Delta(eps) of the paper's Eq. (3) counts exactly the components at or beyond eps (ties
// included, NaN always), uses the complex modulus of absolute differences, and the eps grid is logarithmic.
#include "gpu/deviation_cdf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace lqcd::gpu {
namespace {

TEST(DeviationCdfTest, CountsComponentsAtOrBeyondEps) {
  const std::vector<double> d = {0.0, 1e-16, 1e-8, 1e-8, 0.5, NAN};
  const std::vector<double> eps = {1e-20, 1e-16, 2e-16, 1e-8, 0.5, 1.0, 1e300};
  const std::vector<double> f = ExceedanceFractions(d, eps);
  const std::vector<double> expected = {5.0 / 6, 5.0 / 6, 4.0 / 6, 4.0 / 6, 2.0 / 6, 1.0 / 6, 1.0 / 6};
  ASSERT_EQ(f.size(), expected.size());
  for (std::size_t k = 0; k < f.size(); ++k) EXPECT_DOUBLE_EQ(f[k], expected[k]) << "eps " << eps[k];
  EXPECT_THROW(ExceedanceFractions({}, eps), std::invalid_argument);
}

TEST(DeviationCdfTest, DeviationIsTheComplexModulusPerComponent) {
  const Lattice lattice(2, 2, 2, 2);
  SpinorField<double> a(lattice, Subset::kEven), b(lattice, Subset::kEven);
  b[3](2, 1) = {3e-9, -4e-9};  // |a - b| = 5e-9 in this one component of 12 x 8
  const std::vector<double> d = ComponentDeviations(a, b);
  ASSERT_EQ(d.size(), 12u * 8);
  EXPECT_DOUBLE_EQ(d[12 * 3 + 3 * 2 + 1], 5e-9);
  int nonzero = 0;
  for (double x : d) nonzero += x != 0;
  EXPECT_EQ(nonzero, 1);
  SpinorField<double> odd(lattice, Subset::kOdd);
  EXPECT_THROW(ComponentDeviations(a, odd), std::invalid_argument);
}

TEST(DeviationCdfTest, LogGridSpansTheDecades) {
  const std::vector<double> g = LogGrid(1e-17, 1.0, 10);
  ASSERT_EQ(g.size(), 171u);
  EXPECT_NEAR(g.front() / 1e-17, 1.0, 1e-12);
  EXPECT_NEAR(g.back(), 1.0, 1e-12);
  for (std::size_t k = 1; k < g.size(); ++k) EXPECT_NEAR(g[k] / g[k - 1], std::pow(10.0, 0.1), 1e-12);
  EXPECT_THROW(LogGrid(0, 1, 10), std::invalid_argument);
  EXPECT_THROW(LogGrid(1, 0.1, 10), std::invalid_argument);
  EXPECT_THROW(LogGrid(1e-3, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
