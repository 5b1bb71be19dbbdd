// su3_random_test: Haar SU(3) matrices and random gauge fields (su3_random.h).
//
// What is proved: generated matrices are special unitary to a derived number of ulp; fields are reproducible
// functions of (lattice, seed) with the documented stream ids; the Haar generator has the moments of the
// SU(3) Haar measure (which a U(3)-Haar, a non-uniform or a wrongly phase-fixed generator does not); the hot
// field's plaquette and link trace vanish within their statistical errors; exp(i epsilon H) is the matrix
// exponential, and the near-unit field has the plaquette 1 - (8/3) epsilon^2 predicted for it.
#include "reference/su3_random.h"

#include <gtest/gtest.h>

#include <Eigen/LU>  // determinant(), used by DeterminantDeviation in su3.h (which includes only Eigen/Core)
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/plaquette.h"

namespace lqcd {
namespace {

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;  // 2^-24 float, 2^-53 double
}

// Bounds for one HaarRandomSU3<T> matrix, with u = u_T (derivation in docs/error_bounds.md, "Random SU(3)
// matrices and gauge fields"; complex products err by sqrt(5) u relative, sums by u):
//   rows a', b': |row|^2 - 1 <= 10 u (norm and division) + 8.5 u (the unit phase w, |w| = 1 +- 2 u, and the
//   complex product) = 18.5 u;  |<a', b'>| <= 18 u after two Gram-Schmidt passes;
//   row c = fl(conj(a' x b')): |c|^2 - 1 <= 2 * 18.5 u + 9.2 u (cross-product rounding) = 46.2 u,
//   |<a', c>|, |<b', c>| <= 4.6 u.  So UnitarityDeviation <= 47 u_T, plus evaluating U U^dag in double
//   (<= 5.3 u_double).
//   det U = |a' x b'|^2 + (rounding of c).(a' x b') is real: |det U - 1| <= 37 u + 4.6 u <= 42 u_T, plus the
//   double-precision 3x3 determinant (6 triple products summing to at most 3^(3/2) in modulus, <= 8 u each):
//   <= 42 u_double.
template <typename T>
double UnitarityBound() {
  return 47 * UnitRoundoff<T>() + 5.3 * UnitRoundoff<double>();
}
template <typename T>
double DeterminantBound() {
  return 42 * UnitRoundoff<T>() + 42 * UnitRoundoff<double>();
}

template <typename T>
void ExpectSpecialUnitary(int samples) {
  double worst_unitarity = 0, worst_det = 0;
  for (int i = 0; i < samples; ++i) {
    RandomStream rng(2024, i);
    const ColorMatrix<T> u = HaarRandomSU3<T>(rng);
    worst_unitarity = std::max(worst_unitarity, UnitarityDeviation(u));
    worst_det = std::max(worst_det, DeterminantDeviation(u));
  }
  std::printf("HaarRandomSU3<%s>, %d matrices: max |U U^dag - 1| = %.2f u, max |det U - 1| = %.2f u\n",
              sizeof(T) == 4 ? "float" : "double", samples, worst_unitarity / UnitRoundoff<T>(),
              worst_det / UnitRoundoff<T>());
  EXPECT_LE(worst_unitarity, UnitarityBound<T>());
  EXPECT_LE(worst_det, DeterminantBound<T>());
}

TEST(HaarRandomSU3Test, IsSpecialUnitaryToDerivedBoundDouble) { ExpectSpecialUnitary<double>(20000); }
TEST(HaarRandomSU3Test, IsSpecialUnitaryToDerivedBoundFloat) { ExpectSpecialUnitary<float>(20000); }

TEST(HaarRandomSU3Test, SameStreamGivesTheSameMatrix) {
  RandomStream a(7, 3), b(7, 3), c(7, 4), d(8, 3);
  const ColorMatrix<double> ua = HaarRandomSU3<double>(a);
  EXPECT_EQ(ua, HaarRandomSU3<double>(b));
  EXPECT_NE(ua, HaarRandomSU3<double>(c));
  EXPECT_NE(ua, HaarRandomSU3<double>(d));
}

// Moments of the Haar measure on SU(3), over M independent matrices; each sample mean must lie within 5
// standard errors sigma / sqrt(M) of its exact value (a 5-sigma event; the seed is fixed, so the test is
// deterministic). Exact values (docs/error_bounds.md): by Schur orthogonality E[(Tr U)^j conj(Tr U)^k] counts
// the SU(3) invariants in 3^{(x)j} (x) 3bar^{(x)k}:
//   E Tr U = 0, E |Tr U|^2 = 1, E |Tr U|^4 = 2, E |Tr U|^6 = 6, E (Tr U)^3 = 1 (the invariant epsilon_ijk,
//   which U(3) lacks: there E (Tr U)^3 = 0), E (Tr U)^2 = 0.
//   Entries: U_ij is uniform on the unit sphere of C^3 row-wise, so |U_ij|^2 ~ Beta(1, 2): E |U_ij|^2 = 1/3,
//   E |U_ij|^4 = 1/6, and E U_ij = 0.
// Variances used: Var(Tr U) = E|Tr U|^2 = 1 (complex), Var |Tr U|^2 = 2 - 1 = 1,
// Var (Tr U)^3 = E|Tr U|^6 - |E (Tr U)^3|^2 = 5, Var U_ij = 1/3, Var |U_ij|^2 = 1/6 - 1/9 = 1/18.
TEST(HaarRandomSU3Test, HasTheMomentsOfTheSU3HaarMeasure) {
  const int m = 100000;
  Complex<double> sum_tr = 0, sum_tr3 = 0;
  double sum_tr2 = 0;
  ColorMatrix<double> sum_u = ColorMatrix<double>::Zero();
  Eigen::Matrix3d sum_abs2 = Eigen::Matrix3d::Zero();
  for (int i = 0; i < m; ++i) {
    RandomStream rng(99, i);
    const ColorMatrix<double> u = HaarRandomSU3<double>(rng);
    const Complex<double> tr = u.trace();
    sum_tr += tr;
    sum_tr2 += std::norm(tr);
    sum_tr3 += tr * tr * tr;
    sum_u += u;
    sum_abs2 += u.cwiseAbs2();
  }
  const double root_m = std::sqrt(double(m));
  std::printf("Haar moments over %d matrices: <Tr U> = (%.4f, %.4f), <|Tr U|^2> = %.4f, <(Tr U)^3> = (%.4f, %.4f)\n",
              m, sum_tr.real() / m, sum_tr.imag() / m, sum_tr2 / m, sum_tr3.real() / m, sum_tr3.imag() / m);
  EXPECT_LE(std::abs(sum_tr / double(m)), 5 * 1.0 / root_m);
  EXPECT_LE(std::abs(sum_tr2 / m - 1.0), 5 * 1.0 / root_m);
  EXPECT_LE(std::abs(sum_tr3 / double(m) - 1.0), 5 * std::sqrt(5.0) / root_m);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_LE(std::abs(sum_u(i, j) / double(m)), 5 * std::sqrt(1.0 / 3) / root_m) << i << j;
      EXPECT_LE(std::abs(sum_abs2(i, j) / m - 1.0 / 3), 5 * std::sqrt(1.0 / 18) / root_m) << i << j;
    }
  }
}

TEST(RandomGaugeFieldTest, IsAFunctionOfSeedAndStreamIdFourSitePlusMu) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 5);
  for (int site : {0, 7, lat.volume() - 1}) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(5, 4 * site + mu);
      EXPECT_EQ(u.Link(site, mu), HaarRandomSU3<double>(rng));
    }
  }
  EXPECT_EQ(RandomGaugeField<double>(lat, 5).links(), u.links());
  const GaugeField<double> other = RandomGaugeField<double>(lat, 6);
  for (std::size_t i = 0; i < u.links().size(); ++i) EXPECT_NE(u.links()[i], other.links()[i]);
  // The float field is the double field rounded.
  EXPECT_EQ(RandomGaugeField<float>(lat, 5).links(), ConvertGaugeField<float>(u).links());
}

// Every plaquette of a hot field is a product of four independent Haar links, hence Haar itself, so
// E[Re Tr U_p / 3] = 0 and Var[Re Tr U_p / 3] = (1/9) E[(Re Tr U)^2] = (1/9)(E|Tr U|^2 + Re E(Tr U)^2) / 2
// = 1/18. Two different plaquettes are uncorrelated: one of them contains a link X that the other lacks, and
// E[Tr(A X B) | everything but X] = Tr(B A E[X]) = 0. So the average over P plaquettes has standard error
// sqrt(1 / (18 P)); likewise the link trace over 4V independent links.
TEST(RandomGaugeFieldTest, HotFieldPlaquetteAndLinkTraceVanishWithinStatisticalError) {
  const Lattice lat(4, 4, 4, 4);
  for (std::uint64_t seed : {1, 2, 3}) {
    const GaugeField<double> u = RandomGaugeField<double>(lat, seed);
    const PlaquetteAverages p = MeasurePlaquette(u);
    const double plaquettes = 6.0 * lat.volume();
    const double sigma_total = std::sqrt(1.0 / (18 * plaquettes));
    const double sigma_half = std::sqrt(1.0 / (18 * plaquettes / 2));  // spatial or temporal: 3 planes
    const double sigma_link = std::sqrt(1.0 / (18 * 4.0 * lat.volume()));
    std::printf("hot %s seed %llu: plaquette %.5f (sigma %.5f), spatial %.5f, temporal %.5f, link trace %.5f\n",
                lat.ToString().c_str(), static_cast<unsigned long long>(seed), p.total, sigma_total, p.spatial,
                p.temporal, LinkTrace(u));
    EXPECT_LE(std::abs(p.total), 5 * sigma_total);
    EXPECT_LE(std::abs(p.spatial), 5 * sigma_half);
    EXPECT_LE(std::abs(p.temporal), 5 * sigma_half);
    EXPECT_LE(std::abs(LinkTrace(u)), 5 * sigma_link);
  }
}

TEST(RandomGaugeFieldTest, UnitFieldIsTheDefault) {
  const GaugeField<float> u(Lattice(2, 2, 2, 2));
  for (const auto& link : u.links()) EXPECT_EQ(link, ColorMatrix<float>::Identity());
  // Each plane's average is exactly 1; the total adds six rounded sixths: <= 6 u.
  EXPECT_NEAR(MeasurePlaquette(u).total, 1.0, 6 * UnitRoundoff<double>());
}

TEST(GaussianTracelessHermitianTest, IsHermitianTracelessWithTheGellMannNormalisation) {
  // H = sum h_a lambda_a / 2 with Tr(lambda_a lambda_b) = 2 delta_ab, so Tr H^2 = sum h_a^2 / 2:
  // mean 4, variance 8 * 2 / 4 = 4. Trace: three terms of size |h| rounded once each (<= 4 u |h|).
  const int m = 20000;
  double sum_tr_h2 = 0;
  for (int i = 0; i < m; ++i) {
    RandomStream rng(3, i);
    const ColorMatrix<double> h = GaussianTracelessHermitian(rng);
    ASSERT_EQ(h, h.adjoint());
    ASSERT_LE(std::abs(h.trace()), 4 * UnitRoundoff<double>() * h.cwiseAbs().maxCoeff());
    sum_tr_h2 += (h * h).trace().real();
  }
  EXPECT_LE(std::abs(sum_tr_h2 / m - 4.0), 5 * 2.0 / std::sqrt(double(m)));
}

using LongComplex = std::complex<long double>;
using LongMatrix = Eigen::Matrix<LongComplex, 3, 3>;

// exp(i epsilon h) by its Taylor series in long double (terms until they vanish): an independent reference.
LongMatrix TaylorExpI(const ColorMatrix<double>& h, double epsilon) {
  const LongMatrix x = h.cast<LongComplex>() * LongComplex(0, epsilon);
  LongMatrix sum = LongMatrix::Identity(), term = LongMatrix::Identity();
  for (int k = 1; k < 60; ++k) {
    term = term * x / static_cast<long double>(k);
    sum += term;
  }
  return sum;
}

// ExponentiateHermitian against the Taylor series. Error budget of the eigenvector formula (u = 2^-53): the
// Hermitian eigensolver is backward stable, V Lambda V^dag = h + E with |E|_2 <= 9 u |h|_2 (p(n) = n^2) and
// |V^dag V - 1| <= 9 u, giving <= 9 u epsilon |h|_2 + 18 u min(2, epsilon |h|_2); forming 1 + V D V^dag costs
// two 3x3 products (<= 4.3 u each relative to |V||D||V|) and the sum: <= 10 u. In all
// (9 epsilon |h|_2 + 18 min(2, epsilon |h|_2) + 10) u, with |h|_2 <= |h|_F.
TEST(ExponentiateHermitianTest, MatchesTheTaylorSeriesAndIsSpecialUnitary) {
  const double u = UnitRoundoff<double>();
  double worst_ratio = 0;
  for (double epsilon : {1e-6, 1e-3, 0.1, 0.7, 2.0}) {
    for (int i = 0; i < 200; ++i) {
      RandomStream rng(17, i);
      const ColorMatrix<double> h = GaussianTracelessHermitian(rng);
      const ColorMatrix<double> e = ExponentiateHermitian(h, epsilon);
      const double x = epsilon * h.norm();  // Frobenius norm bounds the spectral norm
      const double bound = (9 * x + 18 * std::min(2.0, x) + 10) * u;
      const double err = static_cast<double>((e.cast<LongComplex>() - TaylorExpI(h, epsilon)).cwiseAbs().maxCoeff());
      worst_ratio = std::max(worst_ratio, err / bound);
      ASSERT_LE(err, bound) << "epsilon " << epsilon << " sample " << i;
      // Unitarity and det = 1 follow from the same budget b: an elementwise error b moves (U U^dag)_ij by
      // <= 2 sqrt(3) b and det U by <= 3 |E|_2 <= 9 b; plus evaluating them in double (5.3 u and 42 u).
      ASSERT_LE(UnitarityDeviation(e), 3.5 * bound + 5.3 * u);
      ASSERT_LE(DeterminantDeviation(e), 9 * bound + 42 * u);
    }
  }
  std::printf("ExponentiateHermitian: worst error / bound = %.3f\n", worst_ratio);
  // Group property e^{i a h} e^{i b h} = e^{i (a + b) h}: same eigenvectors, so this checks the sign of i.
  RandomStream rng(1, 1);
  const ColorMatrix<double> h = GaussianTracelessHermitian(rng);
  const double budget = (27 * 0.3 * h.norm() + 10) * u;  // one factor, as above with epsilon |h| = 0.3 |h|
  // Each factor is within budget of its exact value (entries <= 1): the product errs by <= 2 sqrt(3) budget,
  // plus the rounding of the product (<= 4.3 u) and of subtracting 1 (u).
  EXPECT_LE((ExponentiateHermitian(h, 0.3) * ExponentiateHermitian(h, -0.3) - ColorMatrix<double>::Identity())
                .cwiseAbs()
                .maxCoeff(),
            3.5 * budget + 5.3 * u);
  EXPECT_THROW(ExponentiateHermitian(h + ColorMatrix<double>::Identity() * Complex<double>(0, 1), 0.1),
               std::invalid_argument);
}

TEST(RandomNearUnitGaugeFieldTest, IsCloseToUnitAndReproducible) {
  const Lattice lat(2, 2, 2, 4);
  const double u = UnitRoundoff<double>();
  const GaugeField<double> unit = RandomNearUnitGaugeField<double>(lat, 4, 0.0);
  for (const auto& link : unit.links()) {
    EXPECT_EQ(link, ColorMatrix<double>::Identity());
  }
  const double epsilon = 0.01;
  const GaugeField<double> field = RandomNearUnitGaugeField<double>(lat, 4, epsilon);
  EXPECT_EQ(field.links(), RandomNearUnitGaugeField<double>(lat, 4, epsilon).links());
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(4, 4 * site + mu);
      const ColorMatrix<double> h = GaussianTracelessHermitian(rng);
      const ColorMatrix<double>& link = field.Link(site, mu);
      // |e^{i eps h} - 1|_2 = max_k |e^{i eps lambda_k} - 1| <= eps |h|_2 <= eps |h|_F; entries are below the
      // spectral norm; rounding as in ExponentiateHermitianTest.
      const double x = epsilon * h.norm();
      EXPECT_LE((link - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff(), x + (27 * x + 10) * u);
      EXPECT_LE(UnitarityDeviation(link), 3.5 * (27 * x + 10) * u + 5.3 * u);
      EXPECT_LE(DeterminantDeviation(link), 9 * (27 * x + 10) * u + 42 * u);
    }
  }
  EXPECT_THROW(RandomNearUnitGaugeField<double>(lat, 4, -0.1), std::invalid_argument);
  EXPECT_THROW(RandomNearUnitGaugeField<double>(lat, 4, std::nan("")), std::invalid_argument);
}

// For small epsilon, U_p = exp(i epsilon S + O(epsilon^2)) with S = H1 + H2 - H3 - H4 (four independent
// H), and 1 - Re Tr U_p / 3 = epsilon^2 Tr S^2 / 6 + O(epsilon^4) (the epsilon^3 term has zero mean).
// E Tr S^2 = 4 E Tr H^2 = 16, so E[1 - plaquette] = (8/3) epsilon^2. Per plaquette Var(Tr S^2) = 64;
// two plaquettes sharing one link have Cov(Tr S1^2, Tr S2^2) = Var(Tr H^2) = 4, and each plaquette
// shares a link with 20 others, so the mean over P plaquettes has variance (64 + 20 * 4) / P in units of
// Tr S^2, i.e. a standard error sqrt(144 / P) / 6 in (1 - plaquette) / epsilon^2.
TEST(RandomNearUnitGaugeFieldTest, PlaquetteIsOneMinusEightThirdsEpsilonSquared) {
  const Lattice lat(4, 4, 4, 4);
  const double epsilon = 0.01;
  const double plaquettes = 6.0 * lat.volume();
  const double sigma = std::sqrt(144 / plaquettes) / 6;
  for (std::uint64_t seed : {1, 2}) {
    const double p = MeasurePlaquette(RandomNearUnitGaugeField<double>(lat, seed, epsilon)).total;
    const double scaled = (1 - p) / (epsilon * epsilon);
    std::printf("near-unit epsilon %g seed %llu: (1 - plaquette) / epsilon^2 = %.4f (expect 8/3 = %.4f +- %.4f)\n",
                epsilon, static_cast<unsigned long long>(seed), scaled, 8.0 / 3, sigma);
    // O(epsilon^2) relative corrections (1e-4 of 8/3) and rounding (1e-16 / 1e-4) are far below 5 sigma.
    EXPECT_LE(std::abs(scaled - 8.0 / 3), 5 * sigma);
  }
}

}  // namespace
}  // namespace lqcd
