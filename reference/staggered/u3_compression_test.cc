// What is proved:
//   - the identity behind the 13-number form: for unitary U with rows a, b, c, c = e^{i theta} conj(a x b),
//     theta = arg det U: Reconstruct13(Compress13(U)) returns U within a derived bound, in float and double,
//     on Haar SU(3) matrices times a phase spread over the whole circle;
//   - the 12-number rule (theta = 0) misses such a U's third row by |1 - e^{-i theta}| |c|, so 12 and 8
//     numbers cannot store it, and Compress12 refuses it;
//   - the 9-number form adds to Reconstruct8's own error only the phase's few ulp (derived bound);
//   - HISQ's Naik links divided by their coefficient are unitary with determinants far from 1 (they need 13 or
//     9 numbers), and round-trip through both forms within the bounds; asqtad's are in SU(3);
//   - unit links round-trip exactly; bad input is refused with the reason.
#include "reference/staggered/u3_compression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include <Eigen/LU>

#include "reference/random.h"
#include "reference/staggered/hisq_links.h"
#include "reference/su3.h"
#include "reference/su3_random.h"
#include "reference/wilson_error_bounds.h"

namespace lqcd {
namespace {

using LongComplex = std::complex<long double>;
using LongMatrix = ColorMatrix<long double>;

using testing_bounds::UnitRoundoff;

template <typename T>
double MaxDifference(const ColorMatrix<T>& a, const ColorMatrix<T>& b) {
  return static_cast<double>((a.template cast<LongComplex>() - b.template cast<LongComplex>()).cwiseAbs().maxCoeff());
}

template <typename T>
double UnitaryDeviation(const ColorMatrix<T>& u) {
  const LongMatrix v = u.template cast<LongComplex>();
  return static_cast<double>((v * v.adjoint() - LongMatrix::Identity()).cwiseAbs().maxCoeff());
}

// A Haar SU(3) matrix times e^{i phi}, phi uniform in (-pi, pi]: a unitary matrix with det e^{3 i phi}, exact
// to long double rounding, then rounded to T.
template <typename T>
ColorMatrix<T> RandomU3(RandomStream& rng) {
  const LongMatrix v = HaarRandomSU3<long double>(rng);
  const long double phi = 3.14159265358979323846L * (2 * static_cast<long double>(rng.Uniform()) - 1);
  return (std::polar(1.0L, phi) * v).template cast<Complex<T>>();
}

// Bound on max_ij |Reconstruct13(Compress13(U)) - U| for U = round_T(U_exact), U_exact unitary, entries <= 1,
// u = T's unit roundoff. Rows a, b are stored exactly. The third row, against c_exact = e^{i theta} conj(a x b)
// of U_exact, then against U's c:
//   input rounding: |delta a_j|, |delta b_j| <= sqrt(2) u, so each cross-product entry a_i b_j - a_j b_i moves
//     by <= 4 sqrt(2) u = 5.7 u; det U moves by <= 3 sqrt(3) sqrt(2) u = 7.3 u (d det = det tr(U^-1 dU)), and so
//     does theta; storing theta in T adds pi u: 10.5 u;
//   arithmetic in T: the cross product (two complex products and a difference of unit-size numbers) 4 u, cos
//     and sin of theta 2 u, the product with the phase 3 u: 9 u;
//   U's own c differs from c_exact by its rounding, sqrt(2) u.
// Total 5.7 + 10.5 + 9 + 1.4 = 26.6 u: 27 u. For an input that is unitary only to a deviation d =
// max |U U^dag - 1| (links computed in double), the identity itself holds to first order in d: + 3 d.
double Bound13(double u, double input_deviation) { return 27 * u + 3 * input_deviation; }

template <typename T>
void CheckHaarRoundTrip13() {
  const double u = UnitRoundoff<T>();
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    RandomStream rng(71, i);
    const ColorMatrix<T> m = RandomU3<T>(rng);
    const double err = MaxDifference(Reconstruct13(Compress13(m)), m);
    ASSERT_LE(err, Bound13(u, 0)) << "sample " << i;
    worst = std::max(worst, err);
  }
  std::printf("13 numbers, %s, 20000 U(3) matrices: worst error %.2f u, bound 27 u\n", sizeof(T) == 4 ? "float" : "double",
              worst / u);
}

TEST(U3Compression, ThirteenNumbersRebuildTheThirdRowWithTheDeterminantPhase) {
  CheckHaarRoundTrip13<float>();
  CheckHaarRoundTrip13<double>();
}

TEST(U3Compression, TheSU3RuleMissesAU3LinkByItsDeterminantPhase) {
  const double u = UnitRoundoff<double>();
  for (int i = 0; i < 200; ++i) {
    RandomStream rng(72, i);
    const ColorMatrix<double> m = RandomU3<double>(rng);
    const double theta = DeterminantPhase(m);
    // conj(a x b) = e^{-i theta} c: the 12-number third row is off by |1 - e^{-i theta}| |c_j| in entry j.
    const Eigen::Matrix<Complex<double>, 1, 3> naive = ThirdRow<double>(m.row(0), m.row(1));
    const double expected = std::abs(1.0 - std::polar(1.0, -theta)) * m.row(2).cwiseAbs().maxCoeff();
    const double miss = (naive - m.row(2)).cwiseAbs().maxCoeff();
    EXPECT_NEAR(miss, expected, Bound13(u, 0)) << "theta " << theta;
    if (std::abs(std::polar(1.0, theta) - 1.0) > 2 * kMaxLinkDeviation) {
      EXPECT_THROW(Compress12(m), std::invalid_argument) << "theta " << theta;
    }
  }
}

// Bound on |Reconstruct9(Compress9(U)) - U| given e8 = |Reconstruct8(Compress8(S)) - S| for the S that Compress9
// stores (S = round_T(e^{-i theta / 3} U), computed in double). Reconstruct9 = round(p~ S8) with p~ = e^{i theta~/3}
// in T: |p~| <= 1 + u; |p~ - e^{i theta / 3}| <= (pi/3) u (theta~) + (pi/3) u (the division) + 2 u (cos, sin)
// = 4.1 u; |e^{i theta/3} S - U| <= sqrt(2) u (the rounding of S); the complex product 3 u. So
// e9 <= (1 + u) e8 + 4.1 u + 1.4 u + 3 u < (1 + u) e8 + 9 u.
template <typename T>
void CheckHaarRoundTrip9() {
  const double u = UnitRoundoff<T>();
  double worst_excess = 0;
  for (int i = 0; i < 20000; ++i) {
    RandomStream rng(73, i);
    const ColorMatrix<T> m = RandomU3<T>(rng);
    const Compressed9<T> c = Compress9(m);
    const double theta = DeterminantPhase(m);
    const ColorMatrix<T> s =
        (std::polar(1.0, -theta / 3) * m.template cast<Complex<double>>()).template cast<Complex<T>>();
    const double e8 = MaxDifference(Reconstruct8(c.special), s);
    const double e9 = MaxDifference(Reconstruct9(c), m);
    ASSERT_LE(e9, (1 + u) * e8 + 9 * u) << "sample " << i;
    worst_excess = std::max(worst_excess, e9 - e8);
  }
  std::printf("9 numbers, %s, 20000 U(3) matrices: worst excess over the 8-number error %.2f u, bound 9 u\n",
              sizeof(T) == 4 ? "float" : "double", worst_excess / u);
}

TEST(U3Compression, NineNumbersAddOnlyThePhaseToTheEightNumberError) {
  CheckHaarRoundTrip9<float>();
  CheckHaarRoundTrip9<double>();
}

// HISQ's Naik links are c_naik times products of three U(3) links: unitary after dividing by c_naik, with
// determinants anywhere on the unit circle on a hot gauge field; asqtad's are c_naik times SU(3) products.
TEST(U3Compression, HisqNaikLinksNeedTheDeterminantPhaseAsqtadOnesDoNot) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> thin = RandomGaugeField<double>(lattice, 74);
  const GaugeField<double> hisq_naik = HisqLinks(thin, 0.0).naik;
  const GaugeField<double> asqtad_naik = AsqtadLinks(thin, 1.0).naik;
  const double c_hisq = HisqNaikCoefficient(0.0), c_asqtad = AsqtadNaikCoefficient(1.0);
  const double u = UnitRoundoff<double>();
  double hisq_det_spread = 0, asqtad_det_spread = 0, worst13 = 0, worst9 = 0;
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const ColorMatrix<double> x = hisq_naik.Link(site, mu) / c_hisq;
      const double deviation = UnitaryDeviation(x);
      ASSERT_LE(deviation, 64 * u) << "site " << site << " mu " << mu;  // a product of three unitary W
      hisq_det_spread = std::max(hisq_det_spread, std::abs(x.determinant() - 1.0));
      const double e13 = MaxDifference(Reconstruct13(Compress13(x)), x);
      ASSERT_LE(e13, Bound13(u, deviation)) << "site " << site << " mu " << mu;
      worst13 = std::max(worst13, e13);
      // 9 numbers: the same relation to the 8-number error of the stored S as for the Haar matrices.
      const Compressed9<double> c9 = Compress9(x);
      const ColorMatrix<double> s = std::polar(1.0, -DeterminantPhase(x) / 3) * x;
      const double e9 = MaxDifference(Reconstruct9(c9), x);
      ASSERT_LE(e9, (1 + u) * MaxDifference(Reconstruct8(c9.special), s) + 9 * u) << "site " << site << " mu " << mu;
      worst9 = std::max(worst9, e9);
      const ColorMatrix<double> y = asqtad_naik.Link(site, mu) / c_asqtad;
      asqtad_det_spread = std::max(asqtad_det_spread, std::abs(y.determinant() - 1.0));
    }
  }
  std::printf("HISQ Naik / c_naik on a hot 4^4 field: max |det - 1| = %.3f; 13 numbers worst %.2f u, 9 numbers "
              "worst %.2f u; asqtad max |det - 1| = %.1e\n",
              hisq_det_spread, worst13 / u, worst9 / u, asqtad_det_spread);
  // The phases of 1024 links of a hot field are spread over the circle: all of them within 60 degrees of 0
  // (|e^{i theta} - 1| <= 1) would be a one-in-3^1024 event if they were uniform.
  EXPECT_GT(hisq_det_spread, 1.0);
  EXPECT_LE(asqtad_det_spread, 64 * u);  // products of three SU(3) links in double
}

// The field-level form: each long link L = c X through its compressed form and back, times c; what a kernel
// storing the long links in 13 or 9 numbers sees. Bit for bit the per-link composition, within c times the
// 13-number bound (+ the division and multiplication by c: 2 sqrt(2) u) of the input, and errors name the link.
template <typename T>
void CheckFieldForm() {
  const Lattice lattice(4, 4, 4, 4);
  const double c = HisqNaikCoefficient(0.0);
  const GaugeField<T> naik = ConvertGaugeField<T>(HisqLinks(RandomGaugeField<double>(lattice, 76), 0.0).naik);
  const GaugeField<T> f18 = CompressAndReconstructU3(naik, c, U3Compression::k18);
  const GaugeField<T> f13 = CompressAndReconstructU3(naik, c, U3Compression::k13);
  const GaugeField<T> f9 = CompressAndReconstructU3(naik, c, U3Compression::k9);
  const double u = UnitRoundoff<T>();
  const T ct = static_cast<T>(c);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const ColorMatrix<T>& l = naik.Link(site, mu);
      ASSERT_EQ(f18.Link(site, mu), l);
      const ColorMatrix<T> x = l / ct;
      ASSERT_EQ(f13.Link(site, mu), (ct * Reconstruct13(Compress13(x))).eval());
      ASSERT_EQ(f9.Link(site, mu), (ct * Reconstruct9(Compress9(x))).eval());
      ASSERT_LE(MaxDifference(f13.Link(site, mu), l), std::abs(c) * (Bound13(u, UnitaryDeviation(x)) + 2 * std::sqrt(2.0) * u))
          << "site " << site << " mu " << mu;
    }
  }
}

TEST(U3Compression, TheFieldFormIsThePerLinkRoundTripTimesTheScale) {
  CheckFieldForm<float>();
  CheckFieldForm<double>();
  const Lattice lattice(4, 4, 4, 4);
  GaugeField<double> links(lattice);  // unit links: unitary
  links.Link(7, 2) *= 2.0;
  try {
    CompressAndReconstructU3(links, 1.0, U3Compression::k13);
    FAIL() << "a link of row norm 2 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("site 7 mu 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CompressAndReconstructU3(links, 0.0, U3Compression::k9), std::invalid_argument);
  // Free-field long links c x 1: (c 1) / c = 1 exactly, which both forms keep exactly.
  const double c = -1.0 / 24;
  GaugeField<double> free_links(lattice);
  for (auto& link : free_links.links()) link *= c;
  EXPECT_EQ(CompressAndReconstructU3(free_links, c, U3Compression::k13).links(), free_links.links());
  EXPECT_EQ(CompressAndReconstructU3(free_links, c, U3Compression::k9).links(), free_links.links());
}

TEST(U3Compression, UnitLinksRoundTripExactly) {
  const ColorMatrix<double> one = ColorMatrix<double>::Identity();
  EXPECT_EQ(Reconstruct13(Compress13(one)), one);
  EXPECT_EQ(Reconstruct9(Compress9(one)), one);
  const ColorMatrix<float> one_f = ColorMatrix<float>::Identity();
  EXPECT_EQ(Reconstruct13(Compress13(one_f)), one_f);
  EXPECT_EQ(Reconstruct9(Compress9(one_f)), one_f);
}

TEST(U3Compression, BadInputIsRefusedWithTheReason) {
  RandomStream rng(75, 0);
  ColorMatrix<double> m = RandomU3<double>(rng);
  const ColorMatrix<double> doubled = 2.0 * m;
  try {
    Compress13(doubled);
    FAIL() << "a matrix of row norm 2 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not unitary"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Compress9(doubled), std::invalid_argument);
  m(1, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Compress13(m), std::invalid_argument);
  Compressed13<double> c13 = Compress13(ColorMatrix<double>(ColorMatrix<double>::Identity()));
  c13.theta = std::numeric_limits<double>::infinity();
  EXPECT_THROW(Reconstruct13(c13), std::invalid_argument);
  Compressed9<double> c9 = Compress9(ColorMatrix<double>(ColorMatrix<double>::Identity()));
  c9.theta = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Reconstruct9(c9), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd
