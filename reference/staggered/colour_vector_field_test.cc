// colour_vector_field_test: the layout of ColourVectorField (sizes, checkerboard indexing, Extract/Insert
// round trip), reproducible random fields independent of the subset, and the vector operations (exact on
// the values used, or within the stated double accumulation).
#include "reference/staggered/colour_vector_field.h"

#include <gtest/gtest.h>

namespace lqcd {
namespace {

TEST(ColourVectorFieldTest, SizesAndIndexing) {
  const Lattice lattice(4, 2, 2, 6);
  const ColourVectorField<double> full(lattice), even(lattice, Subset::kEven), odd(lattice, Subset::kOdd);
  EXPECT_EQ(full.sites(), lattice.volume());
  EXPECT_EQ(even.sites(), lattice.half_volume());
  EXPECT_EQ(full.size(), 3 * lattice.volume());
  EXPECT_EQ(even.parity(), Parity::kEven);
  EXPECT_EQ(odd.parity(), Parity::kOdd);
  EXPECT_THROW(full.parity(), std::logic_error);
  for (int i = 0; i < even.sites(); ++i) {
    EXPECT_EQ(lattice.SiteParity(even.SiteIndex(i)), Parity::kEven);
    EXPECT_EQ(Lattice::CheckerboardIndex(even.SiteIndex(i)), i);
    EXPECT_EQ(lattice.SiteParity(odd.SiteIndex(i)), Parity::kOdd);
  }
  EXPECT_EQ(full[0], ColorVector<double>::Zero());
}

TEST(ColourVectorFieldTest, ExtractInsertRoundTripAndSubsetIndependentRandomness) {
  const Lattice lattice(4, 4, 2, 2);
  ColourVectorField<double> full(lattice);
  FillGaussian(full, 7);
  ColourVectorField<double> odd(lattice, Subset::kOdd);
  FillGaussian(odd, 7);
  const ColourVectorField<double> extracted = Extract(full, Parity::kOdd);
  for (int i = 0; i < odd.sites(); ++i) EXPECT_EQ(odd[i], extracted[i]);  // same stream per site
  ColourVectorField<double> rebuilt(lattice);
  Insert(rebuilt, Extract(full, Parity::kEven));
  Insert(rebuilt, extracted);
  for (int i = 0; i < full.sites(); ++i) EXPECT_EQ(rebuilt[i], full[i]);
  EXPECT_THROW(Extract(odd, Parity::kEven), std::invalid_argument);
  EXPECT_THROW(Insert(rebuilt, full), std::invalid_argument);
}

TEST(ColourVectorFieldTest, AlgebraOnSmallIntegers) {
  const Lattice lattice(2, 2, 2, 2);
  ColourVectorField<double> a(lattice), b(lattice);
  for (int i = 0; i < a.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      a[i](c) = Complex<double>(i + c, 1);
      b[i](c) = Complex<double>(1, -c);
    }
  }
  // Small integers: every operation below is exact in double.
  Complex<double> dot = 0;
  double norm2 = 0;
  for (int i = 0; i < a.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      dot += std::conj(a[i](c)) * b[i](c);
      norm2 += std::norm(a[i](c));
    }
  }
  EXPECT_EQ(Dot(a, b), dot);
  EXPECT_EQ(Norm2(a), norm2);
  ColourVectorField<double> y = b;
  Axpy(Complex<double>(2, 0), a, y);
  Xpay(a, Complex<double>(-1, 0), y);  // y = a - (2a + b) = -a - b
  for (int i = 0; i < a.sites(); ++i) EXPECT_EQ(y[i], -a[i] - b[i]);
  Scale(Complex<double>(0, 1), y);
  for (int i = 0; i < a.sites(); ++i) EXPECT_EQ(y[i], Complex<double>(0, -1) * (a[i] + b[i]));
  const ColourVectorField<double> d = Difference(a, b);
  for (int i = 0; i < a.sites(); ++i) EXPECT_EQ(d[i], a[i] - b[i]);
  const ColourVectorField<double> other(Lattice(2, 2, 2, 4));
  EXPECT_THROW(Dot(a, other), std::invalid_argument);
  const ColourVectorField<float> f = ConvertColourVectorField<float>(a);
  EXPECT_EQ(ConvertColourVectorField<double>(f)[3], a[3]);
}

}  // namespace
}  // namespace lqcd
