// spinor_field_test: parity extraction/insertion, reproducible random fills, inner products.
#include "reference/spinor_field.h"

#include <gtest/gtest.h>

#include "reference/gauge_field.h"
#include "reference/spinor_algebra.h"

namespace lqcd {
namespace {

TEST(SpinorFieldTest, ExtractAndInsertRoundTrip) {
  const Lattice lat(4, 2, 2, 4);
  SpinorField<double> full(lat);
  FillGaussian(full, 3);
  SpinorField<double> rebuilt(lat);
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    const SpinorField<double> part = Extract(full, p);
    EXPECT_EQ(part.sites(), lat.half_volume());
    for (int i = 0; i < part.sites(); ++i) EXPECT_EQ(lat.SiteParity(part.SiteIndex(i)), p);
    Insert(rebuilt, part);
  }
  EXPECT_EQ(Norm2(Difference(full, rebuilt)), 0.0);
}

TEST(SpinorFieldTest, RandomFillDependsOnSiteNotSubset) {
  const Lattice lat(2, 2, 2, 4);
  SpinorField<double> full(lat), odd(lat, Subset::kOdd);
  FillGaussian(full, 11);
  FillGaussian(odd, 11);
  EXPECT_EQ(Norm2(Difference(Extract(full, Parity::kOdd), odd)), 0.0);
  SpinorField<double> other(lat);
  FillGaussian(other, 12);
  EXPECT_GT(Norm2(Difference(full, other)), 0.0);
}

TEST(SpinorAlgebraTest, DotIsAntilinearInTheFirstArgumentAndMatchesNorm) {
  const Lattice lat(2, 2, 2, 2);
  SpinorField<double> a(lat), b(lat);
  FillGaussian(a, 1);
  FillGaussian(b, 2);
  const Complex<double> i(0, 1);
  SpinorField<double> ia = a;
  Scale(i, ia);
  EXPECT_NEAR(std::abs(Dot(ia, b) - (-i) * Dot(a, b)), 0.0, 1e-12);
  EXPECT_NEAR(Dot(a, a).real(), Norm2(a), 1e-12);
  EXPECT_NEAR(std::abs(Dot(a, b) - std::conj(Dot(b, a))), 0.0, 1e-12);
  SpinorField<double> y = b;
  Axpy(2.0, a, y);  // y = 2a + b
  Xpay(a, -0.5, y);  // y = a - a - b/2 = -b/2
  EXPECT_LT(RelativeDeviation(y, [&] { auto t = b; Scale(-0.5, t); return t; }()), 1e-15);
}

TEST(SpinorAlgebraTest, MismatchedFieldsAreRejected) {
  SpinorField<double> a(Lattice(2, 2, 2, 2)), b(Lattice(2, 2, 2, 4)), e(Lattice(2, 2, 2, 2), Subset::kEven);
  EXPECT_THROW(Dot(a, b), std::invalid_argument);
  EXPECT_THROW(Axpy(1.0, a, e), std::invalid_argument);
  EXPECT_THROW(Extract(e, Parity::kOdd), std::invalid_argument);
}

TEST(GaugeFieldTest, NewFieldIsUnitAndConvertsPrecision) {
  const Lattice lat(2, 2, 2, 2);
  GaugeField<double> u(lat);
  EXPECT_EQ(u.Link(5, 2), ColorMatrix<double>::Identity());
  u.Link(3, 1)(0, 1) = Complex<double>(0.25, -0.5);
  const GaugeField<float> f = ConvertGaugeField<float>(u);
  EXPECT_EQ(f.Link(3, 1)(0, 1), Complex<float>(0.25f, -0.5f));
}

}  // namespace
}  // namespace lqcd
