// gauge_transform_test: gauge transformations and temporal gauge fixing (gauge_transform.h), float and double.
//
// What is proved, with bounds derived in docs/error_bounds.md ("Gauge transformations and temporal gauge: rounding"):
//   - every plaquette is invariant under a random gauge transformation (which does change the links);
//   - the spinor transformation psi -> psi g^T matches the link transformation: the gauge-invariant hop
//     sum_n <psi(n), U_mu(n) psi(n + mu)> and site norms are unchanged (a wrong convention, psi g or psi g^dag,
//     fails this);
//   - temporal gauge: t-links below the last slice are the identity (exactly in the returned field, to the
//     derived rounding bound before they are overwritten), the last slice holds the Polyakov lines, the
//     plaquette and the Polyakov loops are unchanged;
//   - reproducibility of the random transformation, and bad input refused.
//
// Rounding facts used (u = unit roundoff of T; matrices with unit rows and columns): a complex 3x3 product
// errs by <= (sqrt 5 + 2) u = 4.3 u per entry, i.e. <= 12.9 u in spectral norm (|E|_2 <= 3 |E|_max); a
// transformed link fl(fl(g L) g'^dag) is within 25.8 u (spectral) of g L g'^dag; |Tr X| <= 3 |X|_2.
#include "reference/gauge_transform.h"

#include <gtest/gtest.h>

#include <Eigen/LU>  // determinant(), used by DeterminantDeviation in su3.h (which includes only Eigen/Core)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/plaquette.h"
#include "reference/spinor_field.h"
#include "reference/su3.h"
#include "reference/su3_random.h"

namespace lqcd {
namespace {

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}
constexpr double kDoubleRoundoff = UnitRoundoff<double>();

template <typename T>
const char* Name() {
  return sizeof(T) == 4 ? "float" : "double";
}

template <typename T>
double MaxDeviation(const std::vector<ColorMatrix<T>>& matrices) {
  double worst = 0;
  for (const auto& m : matrices) worst = std::max(worst, UnitarityDeviation(m));
  return worst;
}

template <typename T>
double MaxDifference(const ColorMatrix<T>& a, const ColorMatrix<T>& b) {
  return (a.template cast<Complex<double>>() - b.template cast<Complex<double>>()).cwiseAbs().maxCoeff();
}

// Per plaquette, |Re Tr U'_p - Re Tr U_p| / 3 <= 180.6 u + 12 eta_g: the four transformed links (4 x 25.8 u),
// the three products of each of the two plaquettes (2 x 38.7 u), times 3 for the trace, divided by 3; and the
// four junctions g^dag g = 1 + Delta, |Delta|_2 <= 3 eta_g, each moving the trace by <= 3 * 3 eta_g, divided by 3.
template <typename T>
double PlaquetteInvarianceBound(double eta_g) {
  return 181 * UnitRoundoff<T>() + 12 * eta_g;
}

template <typename T>
void ExpectPlaquettesInvariant(const Lattice& lat) {
  const GaugeField<T> u = RandomGaugeField<T>(lat, 10);
  const GaugeTransformation<T> g = RandomGaugeTransformation<T>(lat, 20);
  const GaugeField<T> v = ApplyGaugeTransformation(g, u);
  const double eta_g = MaxDeviation(g.matrices());
  const double bound = PlaquetteInvarianceBound<T>(eta_g);
  double worst = 0, link_change = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      link_change = std::max(link_change, MaxDifference(u.Link(site, mu), v.Link(site, mu)));
      for (int nu = mu + 1; nu < kDims; ++nu) {
        const double before = double(Plaquette(u, site, mu, nu).trace().real()) / 3;
        const double after = double(Plaquette(v, site, mu, nu).trace().real()) / 3;
        worst = std::max(worst, std::abs(after - before));
      }
    }
  }
  std::printf("%s %s: max |plaquette change| = %.2f u (bound %.1f u); links changed by up to %.2f\n", Name<T>(),
              lat.ToString().c_str(), worst / UnitRoundoff<T>(), bound / UnitRoundoff<T>(), link_change);
  EXPECT_LE(worst, bound);
  EXPECT_GT(link_change, 0.5);  // the transformation is not (nearly) trivial: Haar links move by O(1)
  // The averages: the same bound plus the double-precision sums over V terms per plane (<= V u_double each).
  const PlaquetteAverages pu = MeasurePlaquette(u), pv = MeasurePlaquette(v);
  EXPECT_LE(std::abs(pu.total - pv.total), bound + 2 * lat.volume() * kDoubleRoundoff);
  EXPECT_LE(std::abs(pu.temporal - pv.temporal), bound + 2 * lat.volume() * kDoubleRoundoff);
}

TEST(GaugeTransformTest, PlaquetteIsInvariantDouble) { ExpectPlaquettesInvariant<double>(Lattice(4, 4, 4, 8)); }
TEST(GaugeTransformTest, PlaquetteIsInvariantFloat) { ExpectPlaquettesInvariant<float>(Lattice(4, 4, 4, 8)); }

// S_mu = sum_n <psi(n), U_mu(n) psi(n + mu)> (in the 4x3 layout the hop is psi(n + mu) U^T) is gauge invariant.
// Per site the error is <= (56 u + 24 u_double + 6 eta_g) |psi(n)| |psi(n + mu)|: two transformed spinors
// (7.5 u each: |fl(g v) - g v| <= sqrt(3) 4.3 u |v|), the transformed link (25.8 u), the hop products in both
// evaluations (7.5 u each), the double inner products (12 u_double each) and two junctions g^dag g (3 eta_g
// each); plus the double sum over V sites (V u_double relative to the sum of moduli).
template <typename T>
void ExpectSpinorTransformationMatchesLinks() {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<T> u = RandomGaugeField<T>(lat, 1);
  const GaugeTransformation<T> g = RandomGaugeTransformation<T>(lat, 2);
  SpinorField<T> psi(lat);
  FillGaussian(psi, 3);
  const GaugeField<T> ug = ApplyGaugeTransformation(g, u);
  const SpinorField<T> psig = ApplyGaugeTransformation(g, psi);
  const double eta_g = MaxDeviation(g.matrices());
  const double u_t = UnitRoundoff<T>();
  for (int mu = 0; mu < kDims; ++mu) {
    Complex<double> before = 0, after = 0;
    double moduli = 0;
    for (int n = 0; n < lat.volume(); ++n) {
      const int m = lat.Forward(n, mu);
      const SiteSpinor<T> hop = psi[m] * u.Link(n, mu).transpose();
      const SiteSpinor<T> hop_g = psig[m] * ug.Link(n, mu).transpose();
      before += (psi[n].template cast<Complex<double>>().conjugate().cwiseProduct(hop.template cast<Complex<double>>()))
                    .sum();
      after += (psig[n].template cast<Complex<double>>().conjugate().cwiseProduct(hop_g.template cast<Complex<double>>()))
                   .sum();
      moduli += double(psi[n].norm()) * double(psi[m].norm());
    }
    const double bound = (56 * u_t + 24 * kDoubleRoundoff + 6 * eta_g + lat.volume() * kDoubleRoundoff) * moduli;
    EXPECT_LE(std::abs(after - before), bound) << Name<T>() << " mu " << mu;
  }
  // Site norms: |psi g^T|^2 = |psi|^2 up to 2 x 7.5 u (rounding), 3 eta_g (g^dag g) and the double sums.
  for (int n = 0; n < lat.volume(); ++n) {
    const double before = psi[n].template cast<Complex<double>>().squaredNorm();
    const double after = psig[n].template cast<Complex<double>>().squaredNorm();
    EXPECT_LE(std::abs(after - before), (15 * u_t + 3 * eta_g + 48 * kDoubleRoundoff) * before);
  }
  // A single-parity field transforms site by site like the full one.
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    const SpinorField<T> part = ApplyGaugeTransformation(g, Extract(psi, p));
    const SpinorField<T> expected = Extract(psig, p);
    for (int i = 0; i < part.sites(); ++i) EXPECT_EQ(part[i], expected[i]);
  }
}

TEST(GaugeTransformTest, SpinorTransformationMatchesLinksDouble) { ExpectSpinorTransformationMatchesLinks<double>(); }
TEST(GaugeTransformTest, SpinorTransformationMatchesLinksFloat) { ExpectSpinorTransformationMatchesLinks<float>(); }

TEST(GaugeTransformTest, RandomTransformationIsReproducibleAndSpecialUnitary) {
  const Lattice lat(2, 2, 2, 4);
  const GaugeTransformation<double> g = RandomGaugeTransformation<double>(lat, 9);
  for (int site = 0; site < lat.volume(); ++site) {
    RandomStream rng(9, site);
    EXPECT_EQ(g[site], HaarRandomSU3<double>(rng));
    // The bounds of su3_random_test (47 u + 5.3 u for unitarity, 42 u + 42 u for det, u = u_double).
    EXPECT_LE(UnitarityDeviation(g[site]), 53 * kDoubleRoundoff);
    EXPECT_LE(DeterminantDeviation(g[site]), 84 * kDoubleRoundoff);
  }
  EXPECT_EQ(RandomGaugeTransformation<float>(lat, 9)[5], g[5].cast<Complex<float>>());
  // The identity transformation leaves a field untouched (products with 1 are exact).
  const GaugeField<double> u = RandomGaugeField<double>(lat, 4);
  EXPECT_EQ(ApplyGaugeTransformation(GaugeTransformation<double>(lat), u).links(), u.links());
}

// Temporal gauge. With eta = max |U_t U_t^dag - 1| of the input t-links and s_t the spectral deviation of g(., t)
// from unitarity: s_0 = 0 and s_{t+1} <= s_t + 3 eta + 25.8 u (one more factor, one rounded product), so
// g deviates by at most s = (Lt - 1)(3 eta + 25.8 u). Before being set to 1, a t-link below the last slice is
// fl(fl(g U) g'^dag) with g' = fl(g U) computed the same way: within 25.8 u (two roundings of the same product)
// + 12.9 u (the last product) + s of the identity: w = s + 38.7 u. The last slice holds
// fl(g(Lt - 1) U_t(Lt - 1)) (g(0) = 1 exactly, so the last factor is exact), the same left-to-right product as
// PolyakovLine: two such products differ by <= 2 (Lt - 1) 12.9 u.
template <typename T>
void ExpectTemporalGauge(const Lattice& lat) {
  const double u_t = UnitRoundoff<T>();
  const int lt = lat.extent(3), spatial_volume = lat.volume() / lt;
  const GaugeField<T> u = RandomGaugeField<T>(lat, 77);
  double eta = 0;
  for (int site = 0; site < lat.volume(); ++site) eta = std::max(eta, UnitarityDeviation(u.Link(site, 3)));
  const double s = (lt - 1) * (3 * eta + 25.8 * u_t);
  const double w = s + 38.7 * u_t;

  const TemporalGauge<T> fixed = TemporalGaugeFix(u);
  const GaugeField<T> transformed = ApplyGaugeTransformation(fixed.transformation, u);
  double worst_unit = 0, worst_polyakov = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    const int t = lat.Coords(site)[3];
    for (int mu = 0; mu < kDims; ++mu) {
      if (mu == 3 && t < lt - 1) {
        EXPECT_EQ(fixed.field.Link(site, 3), ColorMatrix<T>::Identity());  // exactly
        worst_unit = std::max(worst_unit, MaxDifference<T>(transformed.Link(site, 3), ColorMatrix<T>::Identity()));
      } else {
        EXPECT_EQ(fixed.field.Link(site, mu), transformed.Link(site, mu));  // all other links: g U g^dag
      }
    }
    if (t == 0) {
      EXPECT_EQ(fixed.transformation[site], ColorMatrix<T>::Identity());
    }
  }
  EXPECT_LE(worst_unit, w);
  EXPECT_LE(MaxDeviation(fixed.transformation.matrices()), s + 5.3 * kDoubleRoundoff);
  // The last slice holds the Polyakov lines, and the Polyakov loops of the fixed field are those of U.
  for (int x = 0; x < spatial_volume; ++x) {
    const ColorMatrix<T> line = PolyakovLine(u, x);
    const double diff = MaxDifference(fixed.field.Link(x + spatial_volume * (lt - 1), 3), line);
    worst_polyakov = std::max(worst_polyakov, diff);
    EXPECT_LE(diff, 2 * (lt - 1) * 12.9 * u_t);
    // Products with the exact identity links are exact, so the fixed field's line is its last link.
    EXPECT_EQ(PolyakovLine(fixed.field, x), fixed.field.Link(x + spatial_volume * (lt - 1), 3));
    EXPECT_LE(std::abs(Complex<double>(PolyakovLine(fixed.field, x).trace() - line.trace())),
              3 * 2 * (lt - 1) * 12.9 * u_t);
  }
  // Plaquettes: the invariance bound with the measured eta_g of g, plus the two overwritten t-links of a
  // temporal plaquette (each moved by worst_unit entrywise, <= 3 worst_unit in spectral norm: <= 3 * 2 * 3
  // worst_unit on the trace, 6 worst_unit after dividing by 3).
  const double bound = PlaquetteInvarianceBound<T>(MaxDeviation(fixed.transformation.matrices())) + 6 * worst_unit;
  double worst_plaquette = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = mu + 1; nu < kDims; ++nu) {
        worst_plaquette = std::max(worst_plaquette, std::abs(double(Plaquette(u, site, mu, nu).trace().real()) / 3 -
                                                             double(Plaquette(fixed.field, site, mu, nu).trace().real()) / 3));
      }
    }
  }
  EXPECT_LE(worst_plaquette, bound);
  std::printf("temporal gauge, %s %s: t-links before overwrite within %.2f u of 1 (bound %.1f u); Polyakov lines "
              "within %.2f u; plaquettes within %.2f u (bound %.1f u)\n",
              Name<T>(), lat.ToString().c_str(), worst_unit / u_t, w / u_t, worst_polyakov / u_t, worst_plaquette / u_t,
              bound / u_t);
}

TEST(TemporalGaugeTest, FixesTemporalLinksKeepsPlaquetteAndPolyakovLoopsDouble) {
  ExpectTemporalGauge<double>(Lattice(4, 4, 4, 8));
}
TEST(TemporalGaugeTest, FixesTemporalLinksKeepsPlaquetteAndPolyakovLoopsFloat) {
  ExpectTemporalGauge<float>(Lattice(4, 4, 4, 8));
  ExpectTemporalGauge<float>(Lattice(2, 2, 2, 16));
}

// Polyakov loops are gauge invariant under any transformation: P'(s) = g(s, 0) P(s) g(s, 0)^dag. The computed
// traces differ by <= 3 (Lt 25.8 u + 2 (Lt - 1) 12.9 u + 3 Lt eta_g) (links, the two chains of products, and the
// Lt junctions g^dag g).
TEST(TemporalGaugeTest, PolyakovLoopsAreGaugeInvariant) {
  const Lattice lat(2, 2, 2, 8);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 5);
  const GaugeTransformation<double> g = RandomGaugeTransformation<double>(lat, 6);
  const GaugeField<double> v = ApplyGaugeTransformation(g, u);
  const double eta_g = MaxDeviation(g.matrices());
  const int lt = lat.extent(3);
  const double bound = 3 * (lt * 25.8 * kDoubleRoundoff + 2 * (lt - 1) * 12.9 * kDoubleRoundoff + 3 * lt * eta_g);
  for (int x = 0; x < lat.volume() / lt; ++x) {
    EXPECT_LE(std::abs(PolyakovLine(v, x).trace() - PolyakovLine(u, x).trace()), bound);
  }
  EXPECT_THROW(PolyakovLine(u, lat.volume() / lt), std::invalid_argument);
  EXPECT_THROW(PolyakovLine(u, -1), std::invalid_argument);
}

TEST(GaugeTransformTest, BadInputIsRefused) {
  const Lattice lat(2, 2, 2, 4), other(2, 2, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 1);
  EXPECT_THROW(ApplyGaugeTransformation(GaugeTransformation<double>(other), u), std::invalid_argument);
  EXPECT_THROW(ApplyGaugeTransformation(GaugeTransformation<double>(other), SpinorField<double>(lat)),
               std::invalid_argument);
  GaugeTransformation<double> scaled = RandomGaugeTransformation<double>(lat, 2);
  scaled[3] *= 1.01;
  EXPECT_THROW(ApplyGaugeTransformation(scaled, u), std::invalid_argument);
  GaugeField<double> broken = u;
  broken.Link(6, 3) *= 2.0;
  EXPECT_THROW(TemporalGaugeFix(broken), std::invalid_argument);
  broken = u;
  broken.Link(6, 3)(0, 0) = Complex<double>(std::nan(""), 0);
  EXPECT_THROW(TemporalGaugeFix(broken), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd
