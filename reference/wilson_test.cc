// wilson_test: property tests of the Wilson-Dirac operator (wilson.h), in double and float, in both gamma
// bases and with periodic and antiperiodic fermion boundary conditions.
//
// What is proved (each with a tolerance derived in wilson_error_bounds.h or next to the assertion):
//   - free-field plane waves are eigenvectors of M with eigenvalue m + sum(1 - cos p) +- i sqrt(sum sin^2 p),
//     for periodic and antiperiodic momenta (catches a wrong sign of gamma, of the hop, of the boundary phase);
//   - gamma5-hermiticity M^dag = g5 M g5, <x, M y> = <M^dag x, y> (also for D, M_pp, and the normal operators);
//   - D = D_eo + D_oe and <x, D_eo y> = <(D^dag)_oe x, y> (the parity split and its dagger);
//   - the Schur pieces: M_pp x_p = b'_p for b = M x, and ReconstructSolution recovers x, for both parities;
//   - basis equivalence M_UKQCD (S psi) = S (M_DR psi) for M, M^dag and M_ee;
//   - gauge covariance D(U^g)(g psi) = g D(U) psi (and for M_ee), also for the temporal-gauge field with
//     its unit t-links (gauge_transform.h);
//   - antiperiodic equals periodic with the last slice's links negated (bit for bit);
//   - exact agreement, on small-integer links and spinors in double, with an independent loop over the
//     formula and with two hops worked out by hand (catches index and sign errors with zero tolerance);
//   - bad input throws std::invalid_argument.
#include "reference/wilson.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <omp.h>

#include "reference/gauge_transform.h"
#include "reference/spinor_algebra.h"
#include "reference/su3.h"
#include "reference/su3_random.h"
#include "reference/wilson_error_bounds.h"

namespace lqcd {
namespace {

using testing_bounds::ErrorEnvelope;
using testing_bounds::UnitRoundoff;
namespace tb = testing_bounds;

constexpr double kUd = UnitRoundoff<double>();

struct Config {
  GammaBasis basis;
  FermionBoundary boundary;
  std::string name;
};

FermionBoundary AntiperiodicXAndT() {
  FermionBoundary b;
  b.condition[0] = BoundaryCondition::kAntiperiodic;
  return b;
}

std::vector<Config> AllConfigs() {
  std::vector<Config> configs;
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    for (const FermionBoundary& boundary : {FermionBoundary::Periodic(), FermionBoundary::AntiperiodicTime(), AntiperiodicXAndT()}) {
      configs.push_back({basis, boundary, std::string(ToString(basis)) + " " + boundary.ToString()});
    }
  }
  return configs;
}

WilsonParams Params(double mass, const Config& config) {
  WilsonParams p;
  p.mass = mass;
  p.basis = config.basis;
  p.boundary = config.boundary;
  return p;
}

template <typename T>
double Norm(const SpinorField<T>& x) {
  return std::sqrt(Norm2(x));
}

template <typename T>
SpinorField<T> GaussianField(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  SpinorField<T> x(lattice, subset);
  FillGaussian(x, seed);
  return x;
}

// g x site by site for a spin matrix g, evaluated in double and rounded to T once.
template <typename T>
SpinorField<T> ApplySpin(const SpinMatrix& g, const SpinorField<T>& x) {
  SpinorField<T> out(x.lattice(), x.subset());
  for (int i = 0; i < x.sites(); ++i) out[i] = (g * x[i].template cast<Complex<double>>()).template cast<Complex<T>>();
  return out;
}

// Rounding of ApplySpin for g = S (entries +-1/sqrt 2, two per row): 1/sqrt 2 rounded, the product and the
// sum, each u_d, times the row 1-norm sqrt(2): < 5 u_d; then one rounding to T.
template <typename T>
double SpinRotationRounding() {
  return UnitRoundoff<T>() + 5 * kUd;
}

// A lattice with unequal extents so that a swapped direction or stride shows.
Lattice TestLattice() { return Lattice(4, 6, 2, 8); }

template <typename T>
class WilsonTest : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(WilsonTest, Precisions);

// ---------------------------------------------------------------------------------------------------
// Free field: plane waves (docs/conventions.md, "Free-field plane waves").

// exp(i p.n) chi (x) colour with p_mu = pi (2 k_mu + a_mu) / L_mu, a_mu = 1 for an antiperiodic
// direction. The phase is reduced exactly in integers first, (2k + a) n mod 2L, so each direction's factor
// exp(i pi j / L) has an argument with <= 3 roundings (< 10 u_d); the product of four unit factors adds
// < 4 x 3 u_d. With the spin eigenvector's residual (< 10 u_d) the double-precision wave is within
// 64 u_d of the exact one, relative.
SpinorField<double> PlaneWave(const Lattice& lattice, const std::array<int, kDims>& k, const FermionBoundary& boundary,
                              const Eigen::Matrix<Complex<double>, 4, 1>& chi, const ColorVector<double>& colour) {
  SpinorField<double> wave(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    Complex<double> phase = 1;
    for (int mu = 0; mu < kDims; ++mu) {
      const int a = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 1 : 0;
      const int two_l = 2 * lattice.extent(mu);
      const int j = ((2 * k[mu] + a) * n[mu]) % two_l;
      phase *= std::polar(1.0, M_PI * j / lattice.extent(mu));
    }
    wave[site] = phase * chi * colour.transpose();
  }
  return wave;
}

constexpr double kPlaneWaveInputError = 64 * kUd;

TYPED_TEST(WilsonTest, FreePlaneWavesAreEigenvectorsWithTheAnalyticEigenvalue) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<T> unit(lattice);
  const std::vector<std::array<int, kDims>> momenta = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 3}, {1, 2, 1, 5},
                                                       {3, 5, 0, 7}, {2, 3, 1, 4}, {1, 4, 1, 2}};
  ColorVector<double> colour(Complex<double>(1, 0), Complex<double>(0, 2), Complex<double>(-1, 1));
  colour /= colour.norm();
  for (const Config& config : AllConfigs()) {
    for (double mass : {0.1, -0.4}) {
      const WilsonParams params = Params(mass, config);
      for (const auto& k : momenta) {
        std::array<double, kDims> p{};
        SpinMatrix g = SpinMatrix::Zero();  // sum_mu gamma_mu sin p_mu
        double wilson_term = mass, sin2 = 0;
        for (int mu = 0; mu < kDims; ++mu) {
          const int a = config.boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 1 : 0;
          p[mu] = M_PI * (2 * k[mu] + a) / lattice.extent(mu);
          g += std::sin(p[mu]) * Gamma(config.basis, mu);
          wilson_term += 1 - std::cos(p[mu]);
          sin2 += std::sin(p[mu]) * std::sin(p[mu]);
        }
        const double s = std::sqrt(sin2);
        for (int sign : {1, -1}) {
          SCOPED_TRACE(config.name + " m=" + std::to_string(mass) + " k=(" + std::to_string(k[0]) + "," +
                       std::to_string(k[1]) + "," + std::to_string(k[2]) + "," + std::to_string(k[3]) +
                       ") sign=" + std::to_string(sign));
          // Eigenvector of g with eigenvalue sign * s: (g + sign s) v, since (g - sign s)(g + sign s) = g^2 - s^2 = 0.
          Eigen::Matrix<Complex<double>, 4, 1> chi = Eigen::Matrix<Complex<double>, 4, 1>::Unit(0);
          if (s > 0) {
            const SpinMatrix q = g + sign * s * SpinMatrix::Identity();
            Eigen::Index best = 0;
            q.colwise().norm().maxCoeff(&best);
            chi = q.col(best) / q.col(best).norm();
          }
          const Complex<double> lambda(wilson_term, sign * s);
          const SpinorField<T> wave =
              ConvertSpinorField<T>(PlaneWave(lattice, k, config.boundary, chi, colour));
          SpinorField<T> m_wave(lattice);
          ApplyWilson(m_wave, unit, wave, params, Dagger::kNo);
          SpinorField<T> expected = wave;
          Scale(lambda, expected);
          // fl(M w~) - lambda w~ = [fl(M w~) - M w~] + (M - lambda)(w~ - w) for the exact wave w: the first
          // term is the Wilson envelope, the second <= (||M|| + |lambda|) (u_T + input error); the product
          // lambda w~ evaluated in T adds 3 u |lambda|.
          const double bound = tb::Wilson(tb::Input(), params.kappa(), u).error +
                               (tb::WilsonNorm(params.kappa()) + std::abs(lambda)) * (u + kPlaneWaveInputError) +
                               3 * u * std::abs(lambda);
          EXPECT_LE(Norm(Difference(m_wave, expected)), bound * Norm(wave));
        }
      }
    }
  }
}

// The boundary phase matters: an antiperiodic-time wave is not an eigenvector of the periodic operator.
TEST(WilsonTest, AntiperiodicWaveIsNotAnEigenvectorOfThePeriodicOperator) {
  const Lattice lattice = TestLattice();
  const GaugeField<double> unit(lattice);
  const Eigen::Matrix<Complex<double>, 4, 1> chi = Eigen::Matrix<Complex<double>, 4, 1>::Unit(0);
  const ColorVector<double> colour = ColorVector<double>::Unit(0);
  // k = 0 with a = 1 in time: p_t = pi / 8, all other p = 0. Under the periodic operator the wave has a
  // jump at the boundary, so no multiple of it is M w; check against the antiperiodic eigenvalue's real
  // part, which the periodic M would reproduce only if the boundary sign were ignored.
  const SpinorField<double> wave =
      PlaneWave(lattice, {0, 0, 0, 0}, FermionBoundary::AntiperiodicTime(), chi, colour);
  WilsonParams periodic;
  periodic.mass = 0.1;
  periodic.boundary = FermionBoundary::Periodic();
  SpinorField<double> m_wave(lattice);
  ApplyWilson(m_wave, unit, wave, periodic, Dagger::kNo);
  const Complex<double> rayleigh = Dot(wave, m_wave) / Norm2(wave);
  SpinorField<double> residual = wave;
  Scale(rayleigh, residual);
  // The best eigenvalue fit leaves a residual of order one (the boundary slices see a jump of 2).
  EXPECT_GT(Norm(Difference(m_wave, residual)), 0.1 * Norm(wave));
}

// ---------------------------------------------------------------------------------------------------
// gamma5-hermiticity and adjoints.

TYPED_TEST(WilsonTest, Gamma5HermiticityAndAdjointsOnRandomFields) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<T> links = RandomGaugeField<T>(lattice, 101);
  const SpinorField<T> x = GaussianField<T>(lattice, Subset::kFull, 7);
  const SpinorField<T> y = GaussianField<T>(lattice, Subset::kFull, 8);
  const double nx = Norm(x), ny = Norm(y);
  const double dot_rounding = tb::DotRounding(x.size());
  for (const Config& config : AllConfigs()) {
    SCOPED_TRACE(config.name);
    const WilsonParams params = Params(-0.3, config);
    const double kappa = params.kappa();
    const SpinMatrix& g5 = Gamma5(config.basis);  // entries 0, +-1: applying it is exact

    SpinorField<T> m_dag_x(lattice), m_x(lattice), g5_m_g5_x(lattice);
    ApplyWilson(m_dag_x, links, x, params, Dagger::kYes);
    ApplyWilson(m_x, links, x, params, Dagger::kNo);
    ApplyWilson(g5_m_g5_x, links, ApplySpin(g5, x), params, Dagger::kNo);
    g5_m_g5_x = ApplySpin(g5, g5_m_g5_x);
    const ErrorEnvelope wilson = tb::Wilson(tb::Input(), kappa, u);
    // Two independently rounded evaluations of the same vector.
    EXPECT_LE(Norm(Difference(g5_m_g5_x, m_dag_x)), 2 * wilson.error * nx);
    // The dagger is not the identity map: M^dag x and M x differ at order one.
    EXPECT_GT(Norm(Difference(m_x, m_dag_x)), 0.1 * nx);

    // <x, M y> = <M^dag x, y>: each side has the operator's rounding times the other vector's norm, and
    // Dot's own rounding relative to ||x|| ||M y||.
    SpinorField<T> m_y(lattice);
    ApplyWilson(m_y, links, y, params, Dagger::kNo);
    const double adjoint_bound = (2 * wilson.error + 2 * dot_rounding * wilson.norm) * nx * ny;
    EXPECT_LE(std::abs(Dot(x, m_y) - Dot(m_dag_x, y)), adjoint_bound);

    // The same for D.
    SpinorField<T> d_y(lattice), d_dag_x(lattice);
    ApplyHopping(d_y, links, y, config.basis, config.boundary, Dagger::kNo);
    ApplyHopping(d_dag_x, links, x, config.basis, config.boundary, Dagger::kYes);
    const ErrorEnvelope hop = tb::Hop(tb::Input(), u);
    EXPECT_LE(std::abs(Dot(x, d_y) - Dot(d_dag_x, y)), (2 * hop.error + 2 * dot_rounding * hop.norm) * nx * ny);

    // The normal operator: <y, M^dag M x> = <M y, M x>. Left: the error of M^dag (M x) is the envelope of
    // two Wilson applications; right: two independent M applications.
    SpinorField<T> normal_x(lattice);
    ApplyWilsonNormal(normal_x, links, x, params);
    const ErrorEnvelope normal = tb::Wilson(wilson, kappa, u);
    const double normal_bound = (normal.error + 2 * wilson.error * wilson.norm +
                                 2 * dot_rounding * normal.norm) * nx * ny;
    EXPECT_LE(std::abs(Dot(y, normal_x) - Dot(m_y, m_x)), normal_bound);

    // Schur complement on each parity: <x_p, M_pp y_p> = <M_pp^dag x_p, y_p>, and its normal operator.
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      SCOPED_TRACE(ToString(parity));
      const SpinorField<T> xp = Extract(x, parity), yp = Extract(y, parity);
      SpinorField<T> s_y(lattice, SubsetOf(parity)), s_dag_x(lattice, SubsetOf(parity)), s_x(lattice, SubsetOf(parity));
      ApplySchur(s_y, links, yp, params, Dagger::kNo);
      ApplySchur(s_x, links, xp, params, Dagger::kNo);
      ApplySchur(s_dag_x, links, xp, params, Dagger::kYes);
      const ErrorEnvelope schur = tb::Schur(tb::Input(), kappa, u);
      const double nxp = Norm(xp), nyp = Norm(yp);
      EXPECT_LE(std::abs(Dot(xp, s_y) - Dot(s_dag_x, yp)),
                (2 * schur.error + 2 * tb::DotRounding(xp.size()) * schur.norm) * nxp * nyp);
      SpinorField<T> s_normal_x(lattice, SubsetOf(parity));
      ApplySchurNormal(s_normal_x, links, xp, params);
      const ErrorEnvelope s_normal = tb::Schur(schur, kappa, u);
      EXPECT_LE(std::abs(Dot(yp, s_normal_x) - Dot(s_y, s_x)),
                (s_normal.error + 2 * schur.error * schur.norm + 2 * tb::DotRounding(xp.size()) * s_normal.norm) *
                    nxp * nyp);
      // gamma5-hermiticity of the Schur complement (g5 is diagonal in space, so it commutes with Extract).
      SpinorField<T> g5_s_g5_x(lattice, SubsetOf(parity));
      ApplySchur(g5_s_g5_x, links, ApplySpin(g5, xp), params, Dagger::kNo);
      EXPECT_LE(Norm(Difference(ApplySpin(g5, g5_s_g5_x), s_dag_x)), 2 * schur.error * nxp);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Parity split.

TYPED_TEST(WilsonTest, HoppingIsTheSumOfItsParityBlocksAndTheBlocksAreAdjoint) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<T> links = RandomGaugeField<T>(lattice, 202);
  const SpinorField<T> x = GaussianField<T>(lattice, Subset::kFull, 11);
  const SpinorField<T> y = GaussianField<T>(lattice, Subset::kFull, 12);
  const ErrorEnvelope hop = tb::Hop(tb::Input(), u);
  for (const Config& config : AllConfigs()) {
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SCOPED_TRACE(config.name + (dagger == Dagger::kYes ? " dagger" : ""));
      SpinorField<T> d_x(lattice);
      ApplyHopping(d_x, links, x, config.basis, config.boundary, dagger);
      SpinorField<T> d_eo_x(lattice, Subset::kEven), d_oe_x(lattice, Subset::kOdd);
      ApplyHoppingParity(d_eo_x, links, Extract(x, Parity::kOdd), config.basis, config.boundary, dagger);
      ApplyHoppingParity(d_oe_x, links, Extract(x, Parity::kEven), config.basis, config.boundary, dagger);
      ASSERT_EQ(d_eo_x.subset(), Subset::kEven);
      ASSERT_EQ(d_oe_x.subset(), Subset::kOdd);
      SpinorField<T> split(lattice);
      Insert(split, d_eo_x);
      Insert(split, d_oe_x);
      // fl(D x) and the two parity hops (inputs of norm <= ||x|| each; their errors add in quadrature
      // at most as sqrt(2)): (1 + sqrt 2) c_D u ||x||.
      EXPECT_LE(Norm(Difference(split, d_x)), (1 + std::sqrt(2.0)) * hop.error * Norm(x));
    }
    // <x_e, D_eo y_o> = <(D^dag)_oe x_e, y_o>, and the same with the parities exchanged.
    for (Parity out : {Parity::kEven, Parity::kOdd}) {
      SCOPED_TRACE(config.name + " out=" + ToString(out));
      const SpinorField<T> x_out = Extract(x, out), y_in = Extract(y, Opposite(out));
      SpinorField<T> d_y(lattice, SubsetOf(out)), d_dag_x(lattice, SubsetOf(Opposite(out)));
      ApplyHoppingParity(d_y, links, y_in, config.basis, config.boundary, Dagger::kNo);
      ApplyHoppingParity(d_dag_x, links, x_out, config.basis, config.boundary, Dagger::kYes);
      const double bound = (2 * hop.error + 2 * tb::DotRounding(x_out.size()) * hop.norm) * Norm(x_out) * Norm(y_in);
      EXPECT_LE(std::abs(Dot(x_out, d_y) - Dot(d_dag_x, y_in)), bound);
      // Not vacuous: the plain (undaggered) block gives a different number.
      SpinorField<T> d_x(lattice, SubsetOf(Opposite(out)));
      ApplyHoppingParity(d_x, links, x_out, config.basis, config.boundary, Dagger::kNo);
      EXPECT_GT(std::abs(Dot(x_out, d_y) - Dot(d_x, y_in)), 10 * bound);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Schur complement: source preparation and reconstruction (docs/conventions.md, "Even-odd preconditioning").

TYPED_TEST(WilsonTest, SchurSourceAndReconstructionReproduceTheFullSystem) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<T> links = RandomGaugeField<T>(lattice, 303);
  const SpinorField<T> x = GaussianField<T>(lattice, Subset::kFull, 21);
  const double nx = Norm(x);
  for (const Config& config : AllConfigs()) {
    const WilsonParams params = Params(0.2, config);
    const double kappa = params.kappa();
    SpinorField<T> b(lattice);
    ApplyWilson(b, links, x, params, Dagger::kNo);
    // b = fl(M x): its envelope relative to ||x||.
    const ErrorEnvelope b_env = tb::Wilson(tb::Input(), kappa, u);
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      SCOPED_TRACE(config.name + " " + ToString(parity));
      const SpinorField<T> b_prime = PrepareSchurSource(links, b, params, parity);
      ASSERT_EQ(b_prime.subset(), SubsetOf(parity));
      SpinorField<T> m_xp(lattice, SubsetOf(parity));
      ApplySchur(m_xp, links, Extract(x, parity), params, Dagger::kNo);
      // Exactly, M_pp x_p = 2 kappa (b_p + kappa D b_p') for b = M x. Computed: the envelope of
      // 2 kappa b_p + 2 kappa^2 D b_p' built on the computed b, plus that of M_pp x_p.
      const ErrorEnvelope b_prime_env = tb::Combine(2 * kappa, b_env, 2 * kappa * kappa, tb::Hop(b_env, u), u);
      const ErrorEnvelope schur = tb::Schur(tb::Input(), kappa, u);
      EXPECT_LE(Norm(Difference(m_xp, b_prime)), (b_prime_env.error + schur.error) * nx);

      // x_p' = 2 kappa b_p' + kappa D x_p recovers the other parity; x_p is copied.
      const SpinorField<T> reconstructed = ReconstructSolution(links, Extract(x, parity), b, params);
      const ErrorEnvelope x_other = tb::Combine(kappa, tb::Hop(tb::Input(), u), 2 * kappa, b_env, u);
      EXPECT_LE(Norm(Difference(reconstructed, x)), x_other.error * nx);
      EXPECT_EQ(MaxAbsDifference(Extract(reconstructed, parity), Extract(x, parity)), 0.0);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Basis equivalence: psi(UKQCD) = S psi(DR), O(UKQCD) = S O(DR) S (docs/conventions.md, "Gamma matrices").

TYPED_TEST(WilsonTest, UkqcdOperatorIsTheRotatedDeGrandRossiOperator) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<T> links = RandomGaugeField<T>(lattice, 404);
  const SpinorField<T> x = GaussianField<T>(lattice, Subset::kFull, 31);
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  const double rot = SpinRotationRounding<T>();
  for (const FermionBoundary& boundary : {FermionBoundary::Periodic(), FermionBoundary::AntiperiodicTime()}) {
    WilsonParams dr;
    dr.mass = 0.1;
    dr.boundary = boundary;
    dr.basis = GammaBasis::kDeGrandRossi;
    WilsonParams ukqcd = dr;
    ukqcd.basis = GammaBasis::kUkqcd;
    const double kappa = dr.kappa();
    const SpinorField<T> s_x = ApplySpin(s, x);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SCOPED_TRACE(boundary.ToString() + (dagger == Dagger::kYes ? " dagger" : ""));
      SpinorField<T> m_dr_x(lattice), m_uk_sx(lattice);
      ApplyWilson(m_dr_x, links, x, dr, dagger);
      ApplyWilson(m_uk_sx, links, s_x, ukqcd, dagger);
      // Left: M_UK applied to S x (input rounded by `rot`); right: S applied to fl(M_DR x) (rounding `rot`
      // relative to ||M x||). ||S|| = 1.
      const ErrorEnvelope m = tb::Wilson(tb::Input(), kappa, u);
      const double bound = tb::Wilson(tb::Input(rot), kappa, u).error + m.error + rot * m.norm;
      EXPECT_LE(Norm(Difference(m_uk_sx, ApplySpin(s, m_dr_x))), bound * Norm(x));
      // Not vacuous: without the rotation the bases give different results.
      SpinorField<T> m_uk_x(lattice);
      ApplyWilson(m_uk_x, links, x, ukqcd, dagger);
      EXPECT_GT(Norm(Difference(m_uk_x, m_dr_x)), 0.1 * Norm(x));
    }
    // The Schur complement on the even sites.
    const SpinorField<T> xe = Extract(x, Parity::kEven);
    SpinorField<T> s_dr(lattice, Subset::kEven), s_uk(lattice, Subset::kEven);
    ApplySchur(s_dr, links, xe, dr, Dagger::kNo);
    ApplySchur(s_uk, links, ApplySpin(s, xe), ukqcd, Dagger::kNo);
    const ErrorEnvelope schur = tb::Schur(tb::Input(), kappa, u);
    const double bound = tb::Schur(tb::Input(rot), kappa, u).error + schur.error + rot * schur.norm;
    EXPECT_LE(Norm(Difference(s_uk, ApplySpin(s, s_dr))), bound * Norm(xe));
  }
}

// ---------------------------------------------------------------------------------------------------
// Gauge covariance: U^g_mu(n) = g(n) U_mu(n) g(n + mu)^dag, (g psi)(n) = g(n) psi(n) (gauge_transform.h,
// docs/conventions.md "Gauge transformations and temporal gauge").

TYPED_TEST(WilsonTest, HoppingAndSchurAreGaugeCovariant) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 505);
  const GaugeTransformation<double> rotation = RandomGaugeTransformation<double>(lattice, 506);
  const SpinorField<double> psi = GaussianField<double>(lattice, Subset::kFull, 41);
  const GaugeField<T> links_t = ConvertGaugeField<T>(links);
  const GaugeField<T> transformed_links = ConvertGaugeField<T>(ApplyGaugeTransformation(rotation, links));
  const SpinorField<T> transformed_psi = ConvertSpinorField<T>(ApplyGaugeTransformation(rotation, psi));
  // Input rounding. Spinors: g psi is computed in double (3-term products, < 10 u_d relative) and rounded to
  // T (u): relative error `input`. Links: g U g^dag in double has an absolute entry error below
  // 2 x 5 u_d x (|g| |U| |g^dag|)_ij <= 30 u_d, i.e. ||dU||_F < 90 u_d < 60 u_d ||U||_F (||U||_F = sqrt 3),
  // and rounding to T adds u ||U||_F; for e = u + 60 u_d a link perturbation with ||dU||_F <= e ||U||_F
  // changes D by ||dD|| <= 8 hops x ||1 +- gamma|| (= 2) x e sqrt(3) = 16 sqrt(3) e. The untransformed
  // links are rounded to T too, so each side carries one such term.
  const double input = u + 10 * kUd;
  const double link_input = 16 * std::sqrt(3.0) * (u + 60 * kUd);
  for (const Config& config : AllConfigs()) {
    SCOPED_TRACE(config.name);
    SpinorField<T> left(lattice), right(lattice);
    ApplyHopping(left, transformed_links, transformed_psi, config.basis, config.boundary, Dagger::kNo);
    ApplyHopping(right, links_t, ConvertSpinorField<T>(psi), config.basis, config.boundary, Dagger::kNo);
    const SpinorField<T> g_right = ConvertSpinorField<T>(ApplyGaugeTransformation(rotation, ConvertSpinorField<double>(right)));
    const ErrorEnvelope hop_in = tb::Hop(tb::Input(input), u);
    const ErrorEnvelope hop = tb::Hop(tb::Input(u), u);
    // left: rounding + spinor input + link input; right: rounding of fl(D psi~) + link input, then g (.)
    // in double and rounded to T (`input` relative to ||D psi||).
    const double bound = hop_in.error + hop.error + 2 * link_input + input * hop.norm;
    EXPECT_LE(Norm(Difference(left, g_right)), bound * Norm(psi));
    // Not vacuous: untransformed links with the transformed spinor do not give g D psi.
    SpinorField<T> wrong(lattice);
    ApplyHopping(wrong, links_t, transformed_psi, config.basis, config.boundary, Dagger::kNo);
    EXPECT_GT(Norm(Difference(wrong, g_right)), 0.1 * Norm(psi));

    // M_pp (U^g) (g x_p) = g M_pp(U) x_p: the rotation is site-local, so it preserves parity.
    const WilsonParams params = Params(0.1, config);
    const double kappa = params.kappa();
    const SpinorField<double> psi_e = Extract(psi, Parity::kEven);
    SpinorField<T> s_left(lattice, Subset::kEven), s_right(lattice, Subset::kEven);
    ApplySchur(s_left, transformed_links, ConvertSpinorField<T>(ApplyGaugeTransformation(rotation, psi_e)), params, Dagger::kNo);
    ApplySchur(s_right, links_t, ConvertSpinorField<T>(psi_e), params, Dagger::kNo);
    const SpinorField<T> g_s_right = ConvertSpinorField<T>(ApplyGaugeTransformation(rotation, ConvertSpinorField<double>(s_right)));
    // A link perturbation enters both hops of M_pp = 1 - kappa^2 D D: kappa^2 2 ||D|| ||dD||, on each side.
    const ErrorEnvelope schur_in = tb::Schur(tb::Input(input), kappa, u);
    const ErrorEnvelope schur = tb::Schur(tb::Input(u), kappa, u);
    const double schur_bound = schur_in.error + schur.error +
                               2 * kappa * kappa * 2 * tb::kHoppingNorm * link_input + input * schur.norm;
    EXPECT_LE(Norm(Difference(s_left, g_s_right)), schur_bound * Norm(psi_e));
  }
}

// The paper's temporal gauge (section 4.3): all t-links 1 except on the last slice. The fixed field gives
// the gauge-rotated operator, so a kernel may skip loading those links.
TYPED_TEST(WilsonTest, TemporalGaugeFieldGivesTheGaugeRotatedOperator) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice = TestLattice();
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 707);
  const TemporalGauge<double> fixed = TemporalGaugeFix(links);
  const SpinorField<double> psi = GaussianField<double>(lattice, Subset::kFull, 61);
  // Deviation of the fixed links from g U g^dag (docs/error_bounds.md, "Gauge transformations and temporal gauge: rounding", in double): with eta the
  // input t-links' deviation from unitarity (spectral norm <= 3 x the largest entry of U U^dag - 1) and
  // s = (Lt - 1)(3 eta + 25.8 u_d) that of g, the stored unit t-links are within s + 38.7 u_d of g U g^dag,
  // other links within 25.8 u_d; g^dag g = 1 + Delta with ||Delta|| <= 3 s enters every hop once more.
  // A perturbation of every link by at most e in spectral norm changes D by <= 8 hops x 2 x e = 16 e.
  double eta = 0;
  for (int site = 0; site < lattice.volume(); ++site) eta = std::max(eta, 3 * UnitarityDeviation(links.Link(site, 3)));
  const double s = (lattice.extent(3) - 1) * (3 * eta + 25.8 * kUd);
  const double link_error = s + 38.7 * kUd + 3 * s;
  // Rounding to T: the fixed links (relative u, see HoppingAndSchurAreGaugeCovariant) and the spinors.
  const double input = u + 10 * kUd;
  const double link_input = 16 * std::sqrt(3.0) * u;
  // Unit t-links off the last slice are exactly 1.
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.Coords(site)[3] != lattice.extent(3) - 1) {
      ASSERT_EQ(fixed.field.Link(site, 3), ColorMatrix<double>::Identity());
    }
  }
  for (const Config& config : AllConfigs()) {
    SCOPED_TRACE(config.name);
    SpinorField<T> left(lattice), right(lattice);
    ApplyHopping(left, ConvertGaugeField<T>(fixed.field),
                 ConvertSpinorField<T>(ApplyGaugeTransformation(fixed.transformation, psi)), config.basis,
                 config.boundary, Dagger::kNo);
    ApplyHopping(right, ConvertGaugeField<T>(links), ConvertSpinorField<T>(psi), config.basis, config.boundary,
                 Dagger::kNo);
    const SpinorField<T> g_right =
        ConvertSpinorField<T>(ApplyGaugeTransformation(fixed.transformation, ConvertSpinorField<double>(right)));
    const ErrorEnvelope hop_in = tb::Hop(tb::Input(input), u);
    const ErrorEnvelope hop = tb::Hop(tb::Input(u), u);
    const double bound = hop_in.error + hop.error + 2 * link_input + 16 * link_error + (input + 3 * s) * hop.norm;
    EXPECT_LE(Norm(Difference(left, g_right)), bound * Norm(psi));
  }
}

// ---------------------------------------------------------------------------------------------------
// Boundary conditions (docs/conventions.md, "Lattice").

// Negates U_mu(n) on the slice n_mu = L_mu - 1 for every antiperiodic direction mu.
template <typename T>
GaugeField<T> NegateBoundaryLinks(const GaugeField<T>& links, const FermionBoundary& boundary) {
  GaugeField<T> out = links;
  const Lattice& lattice = links.lattice();
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) {
      if (boundary.condition[mu] == BoundaryCondition::kAntiperiodic && n[mu] == lattice.extent(mu) - 1) {
        out.Link(site, mu) = -out.Link(site, mu);
      }
    }
  }
  return out;
}

TYPED_TEST(WilsonTest, AntiperiodicEqualsPeriodicWithNegatedBoundaryLinks) {
  using T = TypeParam;
  const Lattice lattice = TestLattice();
  const GaugeField<T> links = RandomGaugeField<T>(lattice, 606);
  const SpinorField<T> x = GaussianField<T>(lattice, Subset::kFull, 51);
  for (const Config& config : AllConfigs()) {
    if (config.boundary.ToString() == "PPPP") continue;
    const GaugeField<T> negated = NegateBoundaryLinks(links, config.boundary);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SCOPED_TRACE(config.name + (dagger == Dagger::kYes ? " dagger" : ""));
      SpinorField<T> antiperiodic(lattice), periodic(lattice);
      ApplyHopping(antiperiodic, links, x, config.basis, config.boundary, dagger);
      ApplyHopping(periodic, negated, x, config.basis, FermionBoundary::Periodic(), dagger);
      // Bit for bit: the hop through a negated link is -fl(P psi U^T) and round-to-nearest commutes with
      // negation; the boundary sign multiplies the same fl(P psi U^T) by -1 exactly. The same operations
      // run in the same order, so the sums agree exactly.
      EXPECT_EQ(MaxAbsDifference(antiperiodic, periodic), 0.0);
      // The condition matters: with the original links and periodic conditions the result differs.
      SpinorField<T> plain(lattice);
      ApplyHopping(plain, links, x, config.basis, FermionBoundary::Periodic(), dagger);
      EXPECT_GT(MaxAbsDifference(plain, antiperiodic), 0.1);
      // And for the parity blocks.
      for (Parity out : {Parity::kEven, Parity::kOdd}) {
        SpinorField<T> a(lattice, SubsetOf(out)), p(lattice, SubsetOf(out));
        ApplyHoppingParity(a, links, Extract(x, Opposite(out)), config.basis, config.boundary, dagger);
        ApplyHoppingParity(p, negated, Extract(x, Opposite(out)), config.basis, FermionBoundary::Periodic(), dagger);
        EXPECT_EQ(MaxAbsDifference(a, p), 0.0);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Exact arithmetic: small-integer links and spinors in double. Every product and sum of the operator is
// then an integer (or, for M with m = 0, kappa = 1/8, a dyadic rational) far below 2^53, so the computed
// result must equal an independent evaluation of Eq. (1) exactly.

// Gaussian integers with real and imaginary parts in {-2, ..., 2}.
Complex<double> SmallInteger(RandomStream& rng) {
  return Complex<double>(static_cast<double>(rng.NextWord() % 5) - 2.0, static_cast<double>(rng.NextWord() % 5) - 2.0);
}

GaugeField<double> IntegerLinks(const Lattice& lattice, std::uint64_t seed) {
  GaugeField<double> links(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) links.Link(site, mu)(a, b) = SmallInteger(rng);
      }
    }
  }
  return links;
}

SpinorField<double> IntegerSpinor(const Lattice& lattice, std::uint64_t seed) {
  SpinorField<double> psi(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    RandomStream rng(seed, static_cast<std::uint64_t>(site));
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) psi[site](s, c) = SmallInteger(rng);
    }
  }
  return psi;
}

// Eq. (1) component by component, neighbours from coordinates: the independent evaluation.
SpinorField<double> HoppingByTheFormula(const GaugeField<double>& links, const SpinorField<double>& psi,
                                        GammaBasis basis, const FermionBoundary& boundary, Dagger dagger) {
  const Lattice& lattice = psi.lattice();
  const double s = dagger == Dagger::kNo ? 1.0 : -1.0;  // D^dag: gamma -> -gamma
  SpinorField<double> out(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) {
      const SpinMatrix& gamma = Gamma(basis, mu);
      const int extent = lattice.extent(mu);
      const double wrap = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? -1.0 : 1.0;
      Coordinates up = n, down = n;
      up[mu] = (n[mu] + 1) % extent;
      down[mu] = (n[mu] + extent - 1) % extent;
      const int up_site = lattice.Index(up), down_site = lattice.Index(down);
      const double up_sign = n[mu] == extent - 1 ? wrap : 1.0;
      const double down_sign = n[mu] == 0 ? wrap : 1.0;
      const ColorMatrix<double>& u_up = links.Link(site, mu);
      const ColorMatrix<double> u_down_dag = links.Link(down_site, mu).adjoint();
      for (int a = 0; a < 4; ++a) {
        for (int c = 0; c < 3; ++c) {
          Complex<double> sum = 0;
          for (int b = 0; b < 4; ++b) {
            const Complex<double> p_forward = (a == b ? 1.0 : 0.0) - s * gamma(a, b);
            const Complex<double> p_backward = (a == b ? 1.0 : 0.0) + s * gamma(a, b);
            for (int d = 0; d < 3; ++d) {
              sum += up_sign * p_forward * u_up(c, d) * psi[up_site](b, d);
              sum += down_sign * p_backward * u_down_dag(c, d) * psi[down_site](b, d);
            }
          }
          out[site](a, c) += sum;
        }
      }
    }
  }
  return out;
}

// The hopping term's loops over output sites run on OpenMP's threads; each site is computed alone by the same
// code, so the full and the single-parity operator give the same bits on 1, 2 and 3 threads (3 does not divide
// the site counts, so the static schedule's chunk edges move), and inside an enclosing parallel region.
TEST(WilsonThreadsTest, AnyThreadCountGivesTheSameBits) {
  const Lattice lattice = TestLattice();
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 404);
  const SpinorField<double> full = GaussianField<double>(lattice, Subset::kFull, 405);
  const SpinorField<double> odd = GaussianField<double>(lattice, Subset::kOdd, 406);
  const FermionBoundary boundary = AntiperiodicXAndT();
  const auto run = [&](int threads, bool nested) {
    std::pair<SpinorField<double>, SpinorField<double>> out{SpinorField<double>(lattice),
                                                            SpinorField<double>(lattice, Subset::kEven)};
    const int previous = omp_get_max_threads();
    omp_set_num_threads(threads);
    const auto apply = [&] {
      ApplyHopping(out.first, links, full, GammaBasis::kDeGrandRossi, boundary, Dagger::kNo);
      ApplyHoppingParity(out.second, links, odd, GammaBasis::kUkqcd, boundary, Dagger::kYes);
    };
    if (nested) {
#pragma omp parallel num_threads(2)
      {
#pragma omp single
        apply();
      }
    } else {
      apply();
    }
    omp_set_num_threads(previous);
    return out;
  };
  const auto one = run(1, false);
  for (const auto& [threads, nested] : {std::pair{2, false}, std::pair{3, false}, std::pair{2, true}}) {
    const auto other = run(threads, nested);
    for (int i = 0; i < one.first.sites(); ++i) {
      ASSERT_EQ(std::memcmp(&one.first[i], &other.first[i], sizeof(one.first[i])), 0)
          << threads << " threads" << (nested ? " (nested)" : "") << ", full operator, site " << i;
    }
    for (int i = 0; i < one.second.sites(); ++i) {
      ASSERT_EQ(std::memcmp(&one.second[i], &other.second[i], sizeof(one.second[i])), 0)
          << threads << " threads" << (nested ? " (nested)" : "") << ", parity operator, site " << i;
    }
  }
}

TEST(WilsonExactTest, IntegerInputsMatchTheFormulaExactly) {
  const Lattice lattice(4, 6, 2, 8);
  const GaugeField<double> links = IntegerLinks(lattice, 77);
  const SpinorField<double> psi = IntegerSpinor(lattice, 78);
  for (const Config& config : AllConfigs()) {
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SCOPED_TRACE(config.name + (dagger == Dagger::kYes ? " dagger" : ""));
      const SpinorField<double> expected = HoppingByTheFormula(links, psi, config.basis, config.boundary, dagger);
      SpinorField<double> d_psi(lattice);
      ApplyHopping(d_psi, links, psi, config.basis, config.boundary, dagger);
      EXPECT_EQ(MaxAbsDifference(d_psi, expected), 0.0);
      for (Parity out : {Parity::kEven, Parity::kOdd}) {
        SpinorField<double> part(lattice, SubsetOf(out));
        ApplyHoppingParity(part, links, Extract(psi, Opposite(out)), config.basis, config.boundary, dagger);
        // D_{p,p'} psi_p' is the p rows of D applied to psi with its p sites zeroed.
        SpinorField<double> masked(lattice);
        Insert(masked, Extract(psi, Opposite(out)));
        EXPECT_EQ(MaxAbsDifference(part, Extract(HoppingByTheFormula(links, masked, config.basis, config.boundary, dagger), out)),
                  0.0);
      }
      // M = 4 psi - D psi / 2 at m = 0 (kappa = 1/8): dyadic, so exact.
      const WilsonParams params = Params(0.0, config);
      SpinorField<double> m_psi(lattice);
      ApplyWilson(m_psi, links, psi, params, dagger);
      SpinorField<double> m_expected = psi;
      Scale(Complex<double>(4), m_expected);
      Axpy(Complex<double>(-0.5), expected, m_expected);
      EXPECT_EQ(MaxAbsDifference(m_psi, m_expected), 0.0);
      // M_ee = 1 - D_eo D_oe / 64 at m = 0.
      const SpinorField<double> psi_e = Extract(psi, Parity::kEven);
      SpinorField<double> embedded(lattice);
      Insert(embedded, psi_e);
      const SpinorField<double> dd = HoppingByTheFormula(
          links, HoppingByTheFormula(links, embedded, config.basis, config.boundary, dagger), config.basis,
          config.boundary, dagger);
      SpinorField<double> schur_expected = psi_e;
      Axpy(Complex<double>(-1.0 / 64), Extract(dd, Parity::kEven), schur_expected);
      SpinorField<double> schur(lattice, Subset::kEven);
      ApplySchur(schur, links, psi_e, params, dagger);
      EXPECT_EQ(MaxAbsDifference(schur, schur_expected), 0.0);
    }
  }
}

// Two hops worked out by hand, DeGrand-Rossi basis, on a point source with psi(s, c) = 3 s + c + 1:
//   rows psi_0 = (1, 2, 3), psi_1 = (4, 5, 6), psi_2 = (7, 8, 9), psi_3 = (10, 11, 12).
// Time: 1 - gamma_4 has rows (1, 0, -1, 0), (0, 1, 0, -1), (-1, 0, 1, 0), (0, -1, 0, 1), so the forward
//   hop into n = m - t sees (psi_0 - psi_2, psi_1 - psi_3, -(psi_0 - psi_2), -(psi_1 - psi_3)) =
//   ((-6,-6,-6), (-6,-6,-6), (6,6,6), (6,6,6)) multiplied by U_t(n) = [[1, i, 0], [0, 2, 0], [1, 0, -1]]:
//   U (-6,-6,-6) = (-6 - 6i, -12, 0).
//   The backward hop into n = m + t carries 1 + gamma_4: (psi_0 + psi_2, psi_1 + psi_3, same, same) =
//   ((8,10,12), (14,16,18), (8,10,12), (14,16,18)) times U_t(m)^dag = [[1, 0, 1], [-i, 2, 0], [0, 0, -1]]:
//   U^dag (8,10,12) = (20, 20 - 8i, -12), U^dag (14,16,18) = (32, 32 - 14i, -18).
// x: 1 - gamma_1 has rows (1, 0, 0, -i), (0, 1, -i, 0), (0, i, 1, 0), (i, 0, 0, 1) (gamma_1(0,3) = i, ...),
//   so with a unit link the forward hop into n = m - x is
//   (psi_0 - i psi_3, psi_1 - i psi_2, psi_2 + i psi_1, psi_3 + i psi_0).
TEST(WilsonExactTest, SingleSiteHopsComputedByHand) {
  const Lattice lattice(4, 4, 4, 4);
  using C = Complex<double>;
  const C i(0, 1);
  const Coordinates m{1, 2, 1, 0};  // t = 0: the backward neighbour m - t wraps around
  const int site = lattice.Index(m);
  SpinorField<double> psi(lattice);
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi[site](s, c) = 3 * s + c + 1;
  }
  GaugeField<double> links(lattice);
  ColorMatrix<double> u;
  u << 1, i, 0, 0, 2, 0, 1, 0, -1;
  const int below = lattice.Index({1, 2, 1, 3});  // m - t (wrapped)
  const int above = lattice.Index({1, 2, 1, 1});  // m + t
  links.Link(below, 3) = u;                       // U_t(m - t): carries psi(m) into m - t
  links.Link(site, 3) = u;                        // U_t(m): its dagger carries psi(m) into m + t
  for (const FermionBoundary& boundary : {FermionBoundary::Periodic(), FermionBoundary::AntiperiodicTime()}) {
    SCOPED_TRACE(boundary.ToString());
    SpinorField<double> d_psi(lattice);
    ApplyHopping(d_psi, links, psi, GammaBasis::kDeGrandRossi, boundary, Dagger::kNo);
    const double wrap = boundary.WrapSign(3);  // the hop m -> m - t crosses t = 0
    SiteSpinor<double> forward_t;
    forward_t << -6.0 - 6.0 * i, -12, 0, -6.0 - 6.0 * i, -12, 0, 6.0 + 6.0 * i, 12, 0, 6.0 + 6.0 * i, 12, 0;
    EXPECT_EQ(d_psi[below], wrap * forward_t);
    SiteSpinor<double> backward_t;
    backward_t << 20, 20.0 - 8.0 * i, -12, 32, 32.0 - 14.0 * i, -18, 20, 20.0 - 8.0 * i, -12, 32, 32.0 - 14.0 * i, -18;
    EXPECT_EQ(d_psi[above], backward_t);
    const int left = lattice.Index({0, 2, 1, 0});  // m - x
    SiteSpinor<double> forward_x;
    forward_x << 1.0 - 10.0 * i, 2.0 - 11.0 * i, 3.0 - 12.0 * i,  //
        4.0 - 7.0 * i, 5.0 - 8.0 * i, 6.0 - 9.0 * i,              //
        7.0 + 4.0 * i, 8.0 + 5.0 * i, 9.0 + 6.0 * i,              //
        10.0 + 1.0 * i, 11.0 + 2.0 * i, 12.0 + 3.0 * i;
    EXPECT_EQ(d_psi[left], forward_x);
    // Exactly the eight neighbours are reached; every other site stays zero.
    int non_zero = 0;
    for (int n = 0; n < lattice.volume(); ++n) non_zero += d_psi[n].cwiseAbs().maxCoeff() > 0 ? 1 : 0;
    EXPECT_EQ(non_zero, 8);
  }
}

// ---------------------------------------------------------------------------------------------------
// Bad input.

template <typename F>
void ExpectInvalidArgument(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning \"" << fragment << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(WilsonBadInputTest, ClearErrors) {
  const Lattice lattice(4, 4, 4, 4), other(4, 4, 4, 8);
  const GaugeField<double> links(lattice);
  const SpinorField<double> full = GaussianField<double>(lattice, Subset::kFull, 1);
  const SpinorField<double> full_other = GaussianField<double>(other, Subset::kFull, 1);
  const SpinorField<double> even = Extract(full, Parity::kEven);
  const WilsonParams params;
  SpinorField<double> out(lattice);
  const GammaBasis dr = GammaBasis::kDeGrandRossi;
  const FermionBoundary apbc = FermionBoundary::AntiperiodicTime();

  ExpectInvalidArgument([&] { ApplyHopping(out, links, full_other, dr, apbc, Dagger::kNo); }, "4x4x4x8");
  ExpectInvalidArgument([&] { ApplyWilson(out, links, full_other, params, Dagger::kNo); }, "4x4x4x8");
  ExpectInvalidArgument([&] { ApplyHopping(out, links, even, dr, apbc, Dagger::kNo); }, "full-lattice");
  ExpectInvalidArgument([&] { ApplyHoppingParity(out, links, full, dr, apbc, Dagger::kNo); }, "single-parity");
  ExpectInvalidArgument([&] { ApplySchur(out, links, full, params, Dagger::kNo); }, "single-parity");
  ExpectInvalidArgument([&] { ApplySchur(out, links, Extract(full_other, Parity::kEven), params, Dagger::kNo); },
                        "4x4x4x8");
  ExpectInvalidArgument([&] { PrepareSchurSource(links, even, params, Parity::kEven); }, "full-lattice");
  ExpectInvalidArgument([&] { ReconstructSolution(links, full, full, params); }, "single-parity");
  ExpectInvalidArgument([&] { ReconstructSolution(links, even, even, params); }, "full-lattice");
  ExpectInvalidArgument([&] { ReconstructSolution(links, even, full_other, params); }, "differ");
  SpinorField<double> same = full;
  ExpectInvalidArgument([&] { ApplyHopping(same, links, same, dr, apbc, Dagger::kNo); }, "different");

  // m <= -4 (kappa undefined or negative), and non-finite masses and kappas.
  for (double mass : {-4.0, -5.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(mass);
    WilsonParams bad;
    bad.mass = mass;
    ExpectInvalidArgument([&] { bad.kappa(); }, "4 + m > 0");
    ExpectInvalidArgument([&] { ApplyWilson(out, links, full, bad, Dagger::kNo); }, "4 + m > 0");
    ExpectInvalidArgument([&] { ApplySchur(out, links, even, bad, Dagger::kNo); }, "4 + m > 0");
    ExpectInvalidArgument([&] { PrepareSchurSource(links, full, bad, Parity::kEven); }, "4 + m > 0");
  }
  for (double kappa : {0.0, -0.1, std::nan("")}) ExpectInvalidArgument([&] { WilsonParams::FromKappa(kappa); }, "kappa");
  // FromKappa is the inverse of kappa(): kappa = 1/8 is m = 0.
  EXPECT_EQ(WilsonParams::FromKappa(0.125).mass, 0.0);
  EXPECT_EQ(WilsonParams{}.kappa(), 0.125);
}

}  // namespace
}  // namespace lqcd
