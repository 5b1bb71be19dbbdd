// hisq_links_test.cc: tree-level sums, explicit paths, gauge covariance, translation invariance, the U(3)
// projection and bad input of hisq_links.h.
//
// Tolerances come from the unit roundoff u = 2^-53 and counts of operations, never from observed errors:
//   - one 3x3 complex matrix product: each entry is 3 complex products summed, error at most kProduct = 16 u
//     times the product of the operands' norms (links and gauge matrices have norm 1, up to rounding);
//   - a path of l links: (l - 1) products; a sum of N terms: N u times the sum of the magnitudes;
//   - a gauge-transformed link g U g^dag: 2 products; the cancellation g^dag g = 1 at each interior site of a
//     path: 3 x max|g g^dag - 1| (max entry to norm);
//   - ProjectU3: ProjectionError(kappa) and the unitarity bound kProjectionUnitarity of u3_projection_testing.h
//     (also the GPU projection's test).
#include "reference/staggered/hisq_links.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/error_testing.h"
#include "reference/gauge_transform.h"
#include "reference/random.h"
#include "reference/su3.h"
#include "reference/su3_random.h"
#include "reference/staggered/u3_projection_testing.h"

namespace lqcd {
namespace {

using u3_testing::Finite;
using u3_testing::GaussianMatrix;
using u3_testing::Kappa;
using u3_testing::MaxDiff;
using u3_testing::ProjectionError;
using u3_testing::SigmaMin;
using u3_testing::WithSingularValues;

constexpr double kU = u3_testing::kProjectionUnitRoundoff;
constexpr double kProduct = u3_testing::kProjectionProduct;
constexpr double kUnitarity = u3_testing::kProjectionUnitarity;
constexpr int kTermsInFatSum = 85 + 5;  // paths per link + the final combination of the five kinds

double MaxDiff(const GaugeField<double>& a, const GaugeField<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.links().size(); ++i) d = std::max(d, MaxDiff(a.links()[i], b.links()[i]));
  return d;
}

// (count, path length, coefficient) of each kind of path of a fat link.
struct PathKind {
  int count, length;
  double coefficient;
};
std::vector<PathKind> Kinds(const SmearingCoefficients& c) {
  return {{1, 1, c.one_link}, {6, 3, c.three_staple}, {24, 5, c.five_staple}, {48, 7, c.seven_staple}, {6, 5, c.lepage}};
}

// Rounding bound of one computation of a fat link: (l - 1) products per path and the sum of N terms.
double FatRounding(const SmearingCoefficients& c) {
  double bound = 0;
  for (const PathKind& k : Kinds(c)) bound += k.count * std::abs(k.coefficient) * ((k.length - 1) * kProduct + kTermsInFatSum * kU);
  return bound;
}

// |F(g U) - g F(U) g^dag| bound: per path, l transformed links (2 products each), (l - 1) products, the
// interior cancellations, and on the other side the fat link's own rounding and its transformation.
double FatCovariance(const SmearingCoefficients& c, double g_deviation, double link_error) {
  double bound = 0;
  for (const PathKind& k : Kinds(c)) {
    bound += k.count * std::abs(k.coefficient) *
             (4 * k.length * kProduct + 2 * kTermsInFatSum * kU + 3 * k.length * g_deviation + k.length * link_error);
  }
  return bound;
}

double MaxGaugeDeviation(const GaugeTransformation<double>& g) {
  double d = 0;
  for (const auto& m : g.matrices()) d = std::max(d, UnitarityDeviation(m));
  return d;
}

// ---- tree level ----

TEST(HisqLinksTest, UnitLinksGiveTheTreeLevelSums) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> unit(lat);
  const ColorMatrix<double> one = ColorMatrix<double>::Identity();
  const SmearedLinks asqtad = AsqtadLinks(unit, 1.0);
  const SmearedLinks hisq = HisqLinks(unit, 0.0);
  const SmearedLinks naive = NaiveLinks(unit);
  // Products of unit matrices are exact; only the sums of the coefficients round. HISQ's W is 1 only to the
  // projection's accuracy (kappa = 1), which the level-2 paths multiply by their lengths.
  const double asqtad_bound = FatRounding(AsqtadCoefficients(1.0));
  double hisq_bound = FatRounding(HisqCoefficients(0.0));
  for (const PathKind& k : Kinds(HisqCoefficients(0.0))) hisq_bound += k.count * std::abs(k.coefficient) * k.length * ProjectionError(1);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      EXPECT_LE(MaxDiff(asqtad.fat.Link(site, mu), 9.0 / 8 * one), asqtad_bound);
      EXPECT_LE(MaxDiff(asqtad.naik.Link(site, mu), -1.0 / 24 * one), kU);
      EXPECT_LE(MaxDiff(hisq.fat.Link(site, mu), 9.0 / 8 * one), hisq_bound);
      EXPECT_LE(MaxDiff(hisq.naik.Link(site, mu), -1.0 / 24 * one), 3 * ProjectionError(1) / 24 + 2 * kProduct);
      EXPECT_EQ(naive.fat.Link(site, mu), one);
      EXPECT_EQ(naive.naik.Link(site, mu), ColorMatrix<double>::Zero());
    }
  }
  EXPECT_DOUBLE_EQ(Fat7Coefficients().TreeLevelSum(), 1.0);
  EXPECT_DOUBLE_EQ(AsqtadCoefficients(1.0).TreeLevelSum(), 9.0 / 8);
  EXPECT_DOUBLE_EQ(HisqCoefficients(0.0).TreeLevelSum(), 9.0 / 8);
}

TEST(HisqLinksTest, HisqEpsilonKeepsTheTreeLevelSlopeAtOne) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> unit(lat);
  const double epsilon = -0.3;
  const SmearedLinks hisq = HisqLinks(unit, epsilon);
  const ColorMatrix<double> one = ColorMatrix<double>::Identity();
  double fat_bound = FatRounding(HisqCoefficients(epsilon));
  for (const PathKind& k : Kinds(HisqCoefficients(epsilon))) fat_bound += k.count * std::abs(k.coefficient) * k.length * ProjectionError(1);
  const double naik_bound = 3 * ProjectionError(1) / 24 + 2 * kProduct;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      EXPECT_LE(MaxDiff(hisq.fat.Link(site, mu), (9 + epsilon) / 8 * one), fat_bound);
      EXPECT_LE(MaxDiff(hisq.naik.Link(site, mu), -(1 + epsilon) / 24 * one), naik_bound);
      // fat + 3 naik = 1: the free dispersion has slope 1 at p = 0 for every epsilon.
      EXPECT_LE(MaxDiff(hisq.fat.Link(site, mu) + 3 * hisq.naik.Link(site, mu), one), fat_bound + 3 * naik_bound);
    }
  }
}

TEST(HisqLinksTest, AsqtadCoefficientsScaleWithPowersOfU0) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> unit(lat);
  const double u0 = 0.85;
  const SmearedLinks asqtad = AsqtadLinks(unit, u0);
  // Path of length l carries u0^(1 - l).
  const double expected_fat = 5.0 / 8 + 6 * (1.0 / 16) / std::pow(u0, 2) + 24 * (1.0 / 64) / std::pow(u0, 4) +
                              48 * (1.0 / 384) / std::pow(u0, 6) - 6 * (1.0 / 16) / std::pow(u0, 4);
  const double expected_naik = -1.0 / 24 / std::pow(u0, 2);
  // Coefficients with up to 8 roundings each (powers, divisions), on top of the sum's rounding.
  const double bound = FatRounding(AsqtadCoefficients(u0)) * 2 + 8 * kU * expected_fat;
  for (int site = 0; site < lat.volume(); site += 7) {
    for (int mu = 0; mu < kDims; ++mu) {
      EXPECT_LE(MaxDiff(asqtad.fat.Link(site, mu), expected_fat * ColorMatrix<double>::Identity()), bound);
      EXPECT_LE(MaxDiff(asqtad.naik.Link(site, mu), expected_naik * ColorMatrix<double>::Identity()), 8 * kU);
    }
  }
}

// ---- the paths themselves ----

// Product of the hops of `path` (signed directions: +d = d, -d = -(d + 1)) from `site`.
ColorMatrix<double> WalkPath(const GaugeField<double>& u, int site, const std::vector<int>& path) {
  const Lattice& lat = u.lattice();
  ColorMatrix<double> product = ColorMatrix<double>::Identity();
  for (int step : path) {
    if (step >= 0) {
      product = product * u.Link(site, step);
      site = lat.Forward(site, step);
    } else {
      const int d = -step - 1;
      site = lat.Backward(site, d);
      product = product * u.Link(site, d).adjoint();
    }
  }
  return product;
}

// The fat link by enumerating every path explicitly (an independent construction of the same sum).
ColorMatrix<double> FatLinkByPaths(const GaugeField<double>& u, int site, int mu, const SmearingCoefficients& c) {
  auto back = [](int s) { return -s - 1; };  // the reverse of a signed hop (+d <-> -(d + 1))
  std::vector<int> transverse;
  for (int d = 0; d < kDims; ++d) {
    if (d == mu) continue;
    transverse.push_back(d);
    transverse.push_back(-d - 1);
  }
  auto dir = [](int s) { return s >= 0 ? s : -s - 1; };
  ColorMatrix<double> sum = c.one_link * u.Link(site, mu);
  for (int a : transverse) {
    sum += c.three_staple * WalkPath(u, site, {a, mu, back(a)});
    sum += c.lepage * WalkPath(u, site, {a, a, mu, back(a), back(a)});
    for (int b : transverse) {
      if (dir(b) == dir(a)) continue;
      sum += c.five_staple * WalkPath(u, site, {b, a, mu, back(a), back(b)});
      for (int h : transverse) {
        if (dir(h) == dir(a) || dir(h) == dir(b)) continue;
        sum += c.seven_staple * WalkPath(u, site, {h, b, a, mu, back(a), back(b), back(h)});
      }
    }
  }
  return sum;
}

TEST(HisqLinksTest, FatLinkEqualsTheSumOverExplicitPaths) {
  const Lattice lat(4, 4, 4, 6);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 11);
  const SmearingCoefficients c = AsqtadCoefficients(0.9);  // every kind of path present
  const GaugeField<double> fat = FatLink(u, c);
  const GaugeField<double> naik = NaikLink(u, -0.25);
  const double bound = 2 * FatRounding(c);
  for (int site = 0; site < lat.volume(); site += 5) {
    for (int mu = 0; mu < kDims; ++mu) {
      EXPECT_LE(MaxDiff(fat.Link(site, mu), FatLinkByPaths(u, site, mu, c)), bound) << "site " << site << " mu " << mu;
      EXPECT_LE(MaxDiff(naik.Link(site, mu), -0.25 * WalkPath(u, site, {mu, mu, mu})), 0.25 * 4 * kProduct);
    }
  }
}

// ---- gauge covariance ----

// g(n) F(n) g(n + hops * mu)^dag for every link.
GaugeField<double> TransformLinks(const GaugeTransformation<double>& g, const GaugeField<double>& f, int hops) {
  const Lattice& lat = f.lattice();
  GaugeField<double> out(lat);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      int end = site;
      for (int k = 0; k < hops; ++k) end = lat.Forward(end, mu);
      out.Link(site, mu) = g[site] * f.Link(site, mu) * g[end].adjoint();
    }
  }
  return out;
}

TEST(HisqLinksTest, AsqtadLinksAreGaugeCovariant) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 21);
  const GaugeTransformation<double> g = RandomGaugeTransformation<double>(lat, 22);
  const double g_dev = MaxGaugeDeviation(g);
  const double u0 = 0.9;
  const SmearedLinks transformed = AsqtadLinks(ApplyGaugeTransformation(g, u), u0);
  const SmearedLinks original = AsqtadLinks(u, u0);
  EXPECT_LE(MaxDiff(transformed.fat, TransformLinks(g, original.fat, 1)), FatCovariance(AsqtadCoefficients(u0), g_dev, 0));
  const double naik_bound = std::abs(AsqtadNaikCoefficient(u0)) * (4 * 3 * kProduct + 2 * kU + 9 * g_dev);
  EXPECT_LE(MaxDiff(transformed.naik, TransformLinks(g, original.naik, 3)), naik_bound);
}

TEST(HisqLinksTest, HisqLinksAreGaugeCovariant) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 31);
  const GaugeTransformation<double> g = RandomGaugeTransformation<double>(lat, 32);
  const double g_dev = MaxGaugeDeviation(g);
  const double epsilon = -0.2;
  const GaugeField<double> ug = ApplyGaugeTransformation(g, u);

  // Level 1: V, then W; the projection commutes with the transformation.
  const GaugeField<double> v = FatLink(u, Fat7Coefficients());
  double kappa = 1, sigma_min = std::numeric_limits<double>::infinity();
  for (const auto& link : v.links()) {
    kappa = std::max(kappa, Kappa(link));
    sigma_min = std::min(sigma_min, SigmaMin(link));
  }
  const double v_error = FatCovariance(Fat7Coefficients(), g_dev, 0);
  EXPECT_LE(MaxDiff(FatLink(ug, Fat7Coefficients()), TransformLinks(g, v, 1)), v_error);
  const double w_error = 3 * 2 * v_error / sigma_min + 2 * ProjectionError(kappa) + 2 * kProduct + 3 * g_dev;
  const GaugeField<double> w = HisqLevel1(u);
  EXPECT_LE(MaxDiff(HisqLevel1(ug), TransformLinks(g, w, 1)), w_error);

  // Level 2 from the (differently rounded) W's: each path of length l moves by at most l w_error.
  const SmearedLinks transformed = HisqLinks(ug, epsilon);
  const SmearedLinks original = HisqLinks(u, epsilon);
  const double fat_bound = FatCovariance(HisqCoefficients(epsilon), g_dev, w_error);
  EXPECT_LE(MaxDiff(transformed.fat, TransformLinks(g, original.fat, 1)), fat_bound);
  const double c_naik = std::abs(HisqNaikCoefficient(epsilon));
  const double naik_bound = c_naik * (4 * 3 * kProduct + 2 * kU + 9 * g_dev + 3 * w_error);
  EXPECT_LE(MaxDiff(transformed.naik, TransformLinks(g, original.naik, 3)), naik_bound);
}

// ---- translation ----

// U'_mu(n) = U_mu(n - shift).
GaugeField<double> Translate(const GaugeField<double>& u, const Coordinates& shift) {
  const Lattice& lat = u.lattice();
  GaugeField<double> out(lat);
  for (int site = 0; site < lat.volume(); ++site) {
    Coordinates n = lat.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) n[mu] = (n[mu] - shift[mu] + lat.extent(mu)) % lat.extent(mu);
    for (int mu = 0; mu < kDims; ++mu) out.Link(site, mu) = u.Link(lat.Index(n), mu);
  }
  return out;
}

TEST(HisqLinksTest, TranslatingTheLinksTranslatesTheSmearedLinksBitForBit) {
  // Every site does the same operations in the same order on the same values, so equality is exact.
  const Lattice lat(4, 4, 4, 6);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 41);
  const Coordinates shift{1, 2, 3, 5};
  const SmearedLinks hisq = HisqLinks(u, 0.0), hisq_shifted = HisqLinks(Translate(u, shift), 0.0);
  const SmearedLinks asqtad = AsqtadLinks(u, 0.87), asqtad_shifted = AsqtadLinks(Translate(u, shift), 0.87);
  EXPECT_EQ(Translate(hisq.fat, shift).links(), hisq_shifted.fat.links());
  EXPECT_EQ(Translate(hisq.naik, shift).links(), hisq_shifted.naik.links());
  EXPECT_EQ(Translate(asqtad.fat, shift).links(), asqtad_shifted.fat.links());
  EXPECT_EQ(Translate(asqtad.naik, shift).links(), asqtad_shifted.naik.links());
}

// The loops over sites run on every OpenMP thread; each link is computed by one thread in a fixed order, so the
// smeared links are the same to the bit with 1, 2, 3 and 5 threads (5 does not divide the volume, so the
// threads' shares differ in size).
TEST(HisqLinksTest, ThreadsChangeNoBit) {
  const Lattice lat(4, 4, 4, 6);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 43);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const SmearedLinks hisq = HisqLinks(u, 0.1), asqtad = AsqtadLinks(u, 0.87);
  for (const int threads : {2, 3, 5}) {
    omp_set_num_threads(threads);
    const SmearedLinks hisq_t = HisqLinks(u, 0.1), asqtad_t = AsqtadLinks(u, 0.87);
    EXPECT_EQ(hisq_t.fat.links(), hisq.fat.links()) << threads;
    EXPECT_EQ(hisq_t.naik.links(), hisq.naik.links()) << threads;
    EXPECT_EQ(asqtad_t.fat.links(), asqtad.fat.links()) << threads;
    EXPECT_EQ(asqtad_t.naik.links(), asqtad.naik.links()) << threads;
  }
  omp_set_num_threads(saved);
}

// ---- the U(3) projection ----

TEST(ProjectU3Test, RandomMatricesBecomeUnitaryAndTheProjectionIsCovariant) {
  RandomStream rng(51, 0);
  for (int trial = 0; trial < 200; ++trial) {
    const ColorMatrix<double> v = GaussianMatrix(rng);
    const ColorMatrix<double> g = HaarRandomSU3<double>(rng), h = HaarRandomSU3<double>(rng);
    const ColorMatrix<double> w = ProjectU3(v);
    ASSERT_TRUE(Finite(w));
    EXPECT_LE(UnitarityDeviation(w), kUnitarity);
    EXPECT_LE((w.adjoint() * w - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff(), kUnitarity);
    // W (V^dag V)^(1/2) = V, i.e. W^dag V is Hermitian positive: check Hermiticity.
    const ColorMatrix<double> p = w.adjoint() * v;
    const double v_norm = v.cwiseAbs().maxCoeff() * 3;
    EXPECT_LE((p - p.adjoint()).cwiseAbs().maxCoeff(), 2 * (ProjectionError(Kappa(v)) + kProduct) * v_norm);
    // P(g V h^dag) = g P(V) h^dag.
    const ColorMatrix<double> moved = g * v * h.adjoint();
    const double input_error = 3 * 2 * kProduct * v_norm / SigmaMin(v);
    EXPECT_LE(MaxDiff(ProjectU3(moved), g * w * h.adjoint()), 2 * ProjectionError(Kappa(v)) + input_error + 2 * kProduct);
  }
}

TEST(ProjectU3Test, UnitaryInputIsReturnedUnchanged) {
  // V^dag V = 1: all three eigenvalues degenerate, the eigenvectors arbitrary, W still = V.
  RandomStream rng(52, 0);
  for (int trial = 0; trial < 50; ++trial) {
    const ColorMatrix<double> v = HaarRandomSU3<double>(rng);
    EXPECT_LE(MaxDiff(ProjectU3(v), v), ProjectionError(1) + kUnitarity);
  }
  EXPECT_EQ(ProjectU3(ColorMatrix<double>(ColorMatrix<double>::Identity())), ColorMatrix<double>::Identity());
}

TEST(ProjectU3Test, NearlyDegenerateAndNearlySingularInputs) {
  RandomStream rng(53, 0);
  for (int trial = 0; trial < 20; ++trial) {
    const ColorMatrix<double> a = HaarRandomSU3<double>(rng), b = HaarRandomSU3<double>(rng);
    const ColorMatrix<double> ab = a * b;
    // Nearly degenerate singular values: W = A B, with kappa = 2.
    const ColorMatrix<double> near_degenerate = WithSingularValues(a, 1, 1 + 1e-9, 2, b);
    const double input_error = 2 * kProduct * 2;  // building V: 2 products of norm-2 operands
    EXPECT_LE(MaxDiff(ProjectU3(near_degenerate), ab), ProjectionError(2) + 3 * 2 * input_error + kProduct);

    // Nearly singular, sigma_min^2 = 1e-8 above the cutoff: still the polar factor A B.
    const ColorMatrix<double> small = WithSingularValues(a, 1, 0.5, 1e-4, b);
    const ColorMatrix<double> w_small = ProjectU3(small);
    EXPECT_LE(UnitarityDeviation(w_small), kUnitarity);
    EXPECT_LE(MaxDiff(w_small, ab), ProjectionError(1e4) + 3 * 2 * 2 * kProduct / 1e-4 + kProduct);

    // Below the cutoff (sigma^2 = 1e-20 < kU3ProjectionCutoff), rank 2, rank 1 and zero: W is finite and
    // unitary, and on the range directions B^dag e_0 (and e_1) it maps like A B.
    for (double tiny : {1e-10, 0.0}) {
      const ColorMatrix<double> w = ProjectU3(WithSingularValues(a, 1, 0.5, tiny, b));
      ASSERT_TRUE(Finite(w));
      EXPECT_LE(UnitarityDeviation(w), kUnitarity);
      for (int k = 0; k < 2; ++k) {
        const ColorVector<double> direction = b.adjoint().col(k);
        EXPECT_LE((w * direction - a.col(k)).cwiseAbs().maxCoeff(), ProjectionError(2) + 3 * 2 * 2 * kProduct / 0.5 + kProduct);
      }
    }
    const ColorMatrix<double> w_rank1 = ProjectU3(WithSingularValues(a, 1, 0, 0, b));
    ASSERT_TRUE(Finite(w_rank1));
    EXPECT_LE(UnitarityDeviation(w_rank1), kUnitarity);
    EXPECT_LE((w_rank1 * b.adjoint().col(0) - a.col(0)).cwiseAbs().maxCoeff(), ProjectionError(1) + 4 * kProduct);
  }
  const ColorMatrix<double> w_zero = ProjectU3(ColorMatrix<double>(ColorMatrix<double>::Zero()));
  ASSERT_TRUE(Finite(w_zero));
  EXPECT_LE(UnitarityDeviation(w_zero), kUnitarity);
}

// ---- bad input ----

TEST(HisqLinksTest, BadInputIsRefused) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> unit(lat);
  for (double u0 : {0.0, -0.9, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_CONTAINS(ErrorOf([&] { AsqtadLinks(unit, u0); }), "u0");
    EXPECT_CONTAINS(ErrorOf([&] { AsqtadCoefficients(u0); }), "must be finite and positive");
  }
  EXPECT_CONTAINS(ErrorOf([&] { HisqLinks(unit, std::nan("")); }), "epsilon");
  EXPECT_CONTAINS(ErrorOf([&] { HisqCoefficients(std::numeric_limits<double>::infinity()); }), "must be finite");

  const GaugeField<double> thin(Lattice(4, 2, 4, 4));
  EXPECT_CONTAINS(ErrorOf([&] { NaikLink(thin, -1.0 / 24); }), "extent 2 < 3 in direction 1");
  EXPECT_CONTAINS(ErrorOf([&] { AsqtadLinks(thin, 1.0); }), "Naik 3-hop");
  EXPECT_CONTAINS(ErrorOf([&] { HisqLinks(thin, 0.0); }), "Naik 3-hop");
  // Naive links and fat links alone have no 3-hop: they accept extent 2.
  EXPECT_EQ(ErrorOf([&] { NaiveLinks(thin); }), "");
  EXPECT_EQ(ErrorOf([&] { FatLink(thin, Fat7Coefficients()); }), "");
}

// The order FatLink sums its paths in (the GPU smearing follows it to round alike): direction ascending, forward
// before backward, mu and the used directions left out.
TEST(TransverseDirections, AscendingForwardFirstWithoutMuAndTheUsed) {
  auto as_text = [](const std::vector<SignedDirection>& hops) {
    std::string s;
    for (const SignedDirection& h : hops) s += (h.forward ? "+" : "-") + std::to_string(h.dir) + " ";
    return s;
  };
  EXPECT_EQ(as_text(TransverseDirections(0, {})), "+1 -1 +2 -2 +3 -3 ");
  EXPECT_EQ(as_text(TransverseDirections(2, {})), "+0 -0 +1 -1 +3 -3 ");
  EXPECT_EQ(as_text(TransverseDirections(3, {1})), "+0 -0 +2 -2 ");
  EXPECT_EQ(as_text(TransverseDirections(1, {0, 3})), "+2 -2 ");
}

}  // namespace
}  // namespace lqcd
