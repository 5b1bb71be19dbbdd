// clover_test: the clover-leaf field strength, the clover term and its per-site blocks, and the
// Wilson-clover operator (full lattice and both even-odd forms); the two trace conventions (CloverTrace) and
// the mapping of Chroma's and MILC's clover parameters onto ours. Every tolerance is derived next to its
// assertion from the unit roundoff u = 2^-53 (double) or 2^-24 (float). docs/conventions.md, "Clover term",
// derives the physics checks (smooth-field limit, Landau-level cancellation at c_sw = 1) and the mappings.
#include "reference/clover.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "reference/error_testing.h"
#include "reference/gauge_transform.h"
#include "reference/random.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"

namespace lqcd {
namespace {

constexpr double kU = 0x1p-53;   // unit roundoff, double
constexpr double kUf = 0x1p-24;  // unit roundoff, float

// The SC10 paper (Babich, Clark, Joo) quotes 3696 flops per site for the even-odd clover operator:
// two hopping terms (1320 each), two clover block applications (504 each) and one xpay (48).
static_assert(kCloverSchurFlopsPerSite == 3696, "2 x (1320 + 504) + 48");
static_assert(kWilsonCloverFlopsPerSite == 1872, "1320 + 504 + 48");
static_assert(kCloverRealsPerSite == 2 * (6 + 2 * 15), "two Hermitian 6x6 blocks: 6 real + 15 complex each");

template <typename Matrix>
double MaxAbs(const Matrix& m) {
  return static_cast<double>(m.cwiseAbs().maxCoeff());
}

// 1_spin (x) g and s (x) 1_colour on the index 3 * spin + colour.
SpinColorMatrix<double> ColourOnly(const ColorMatrix<double>& g) {
  SpinColorMatrix<double> out = SpinColorMatrix<double>::Zero();
  for (int s = 0; s < 4; ++s) out.block<3, 3>(3 * s, 3 * s) = g;
  return out;
}
SpinColorMatrix<double> SpinOnly(const SpinMatrix& m) {
  SpinColorMatrix<double> out = SpinColorMatrix<double>::Zero();
  for (int s = 0; s < 4; ++s) {
    for (int t = 0; t < 4; ++t) out.block<3, 3>(3 * s, 3 * t) = m(s, t) * ColorMatrix<double>::Identity();
  }
  return out;
}

SpinorField<double> MultiplyGamma5(const SpinorField<double>& psi, GammaBasis basis) {
  SpinorField<double> out(psi.lattice(), psi.subset());
  for (int i = 0; i < psi.sites(); ++i) out[i] = Gamma5(basis) * psi[i];
  return out;
}

// Colour charges of the abelian test fields: U = diag(e^{i q_c phi}); traceless, so the field is in SU(3).
constexpr int kCharge[3] = {1, -1, 0};

ColorMatrix<double> AbelianLink(double phi) {
  ColorMatrix<double> m = ColorMatrix<double>::Zero();
  for (int c = 0; c < 3; ++c) m(c, c) = std::polar(1.0, kCharge[c] * phi);
  return m;
}

// Constant field strength f = 2 pi quanta / (L_mu L_nu) in the (mu, nu) plane on the torus: A_nu = f x_mu,
// plus the transition phase on the links U_mu(n) with n_mu = L_mu - 1. Every (mu, nu) plaquette, including
// those that wrap, equals AbelianLink(f) (docs/conventions.md, "Clover term").
GaugeField<double> ConstantFluxField(const Lattice& lat, int mu, int nu, int quanta) {
  GaugeField<double> u(lat);
  const int l_mu = lat.extent(mu), l_nu = lat.extent(nu);
  const double f = 2 * M_PI * quanta / (l_mu * l_nu);
  for (int site = 0; site < lat.volume(); ++site) {
    const Coordinates n = lat.Coords(site);
    u.Link(site, nu) = AbelianLink(f * n[mu]);
    if (n[mu] == l_mu - 1) u.Link(site, mu) = AbelianLink(-f * l_mu * n[nu]);
  }
  return u;
}

// ---------------------------------------------------------------------------------------------------------
// Field strength

TEST(FieldStrengthTest, VanishesOnTheUnitFieldAndOnPureGauge) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> unit(lat);
  const GaugeField<double> pure = ApplyGaugeTransformation(RandomGaugeTransformation<double>(lat, 5005), unit);
  CloverParams params;
  params.mass = 0.1;
  params.c_sw = 1.5;
  const CloverField<double> clover(unit, params);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        if (mu == nu) continue;
        // Unit links: every leaf is exactly 1, Q = 4, Q - Q^dag = 0 exactly.
        EXPECT_EQ(MaxAbs(FieldStrength(unit, site, mu, nu)), 0.0);
        // Pure gauge: each link g g^dag is 1 to ~5u per entry (3-term sums of products bounded by 1); a leaf
        // multiplies 4 of them (3 more products of ~5u each), so |leaf - 1| <~ 35u per entry, |Q - 4| <~ 140u,
        // |F| <= 2 * 140u / 8 = 35u, at most doubled by the trace removal: bound 128u.
        EXPECT_LE(MaxAbs(FieldStrength(pure, site, mu, nu)), 128 * kU);
      }
    }
    // A = 0 and T = 4 + m exactly on the unit field.
    EXPECT_EQ(MaxAbs(clover.SiteMatrix(site) - 4.1 * SpinColorMatrix<double>::Identity()), 0.0);
  }
}

TEST(FieldStrengthTest, IsHermitianTracelessAndAntisymmetric) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 17);
  double largest = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        const ColorMatrix<double> f = FieldStrength(u, site, mu, nu);
        if (mu == nu) {
          EXPECT_EQ(MaxAbs(f), 0.0);
          continue;
        }
        largest = std::max(largest, MaxAbs(f));
        // (Q - Q^dag) * (-i/8) is Hermitian to the last bit (mirror entries are computed by the same
        // operations on conjugate inputs) and the trace removed is real: exactly Hermitian.
        EXPECT_EQ(MaxAbs(f - f.adjoint()), 0.0);
        // tr F after subtracting tr/3 from each diagonal entry: 3 subtractions and 2 additions of numbers
        // <= |F|max (|F| <= 2, see below): |tr F| <= 5u * 3 * 2 = 30u; bound 32u.
        EXPECT_LE(std::abs(f.trace()), 32 * kU);
        // |Q| <= 4 (four unitary leaves), so |(Q - Q^dag)/(8i)| <= 1 and the traceless part is <= 2.
        EXPECT_LE(f.norm(), 2.0 * std::sqrt(3.0));
        // F_{nu mu} = -F_{mu nu}: the (nu, mu) leaves are the (mu, nu) leaves' adjoints, multiplied in the
        // opposite order. Hot links have entries <= 1 and each 3x3 product of unitaries rounds by <= ~5u per
        // entry: 3 products per leaf, 4 leaves, / 8, both sides: 2 * 4 * 15u / 8 = 15u; bound 64u.
        EXPECT_LE(MaxAbs(FieldStrength(u, site, nu, mu) + f), 64 * kU);
      }
    }
  }
  // A hot field has O(1) field strength (guards against a trivially vanishing F).
  EXPECT_GT(largest, 0.3);
}

TEST(FieldStrengthTest, ConstantFluxGivesTheSineOfThePlaquetteAngle) {
  for (int mu = 0; mu < kDims; ++mu) {
    for (int nu = mu + 1; nu < kDims; ++nu) {
      Coordinates extents{2, 2, 2, 2};
      extents[mu] = extents[nu] = 4;
      const Lattice lat(extents);
      const GaugeField<double> u = ConstantFluxField(lat, mu, nu, 1);
      const double f = 2 * M_PI / 16;
      // Q_{mu nu} = 4 diag(e^{i q f}) at every site: F = diag(sin(q f)) (traceless: charges 1, -1, 0 and sin odd).
      ColorMatrix<double> expected = ColorMatrix<double>::Zero();
      for (int c = 0; c < 3; ++c) expected(c, c) = std::sin(kCharge[c] * f);
      for (int site = 0; site < lat.volume(); ++site) {
        // Link phases have arguments up to f L_mu L_nu = 2 pi, so each carries an absolute error <= 2 pi u
        // (+ u for polar); a plaquette angle sums 4 of them: <= 4 * 8u = 32u; F inherits it: bound 64u.
        EXPECT_LE(MaxAbs(FieldStrength(u, site, mu, nu) - expected), 64 * kU) << "plane " << mu << nu;
        EXPECT_LE(MaxAbs(FieldStrength(u, site, nu, mu) + expected), 64 * kU);
        for (int rho = 0; rho < kDims; ++rho) {
          for (int sigma = rho + 1; sigma < kDims; ++sigma) {
            if (rho == mu && sigma == nu) continue;
            // Other planes: every plaquette is a product of commuting phases that cancel; same bound.
            EXPECT_LE(MaxAbs(FieldStrength(u, site, rho, sigma)), 64 * kU);
          }
        }
      }
    }
  }
}

// A smooth, non-constant abelian field: A_nu(x) = (B / k) sin(k x_mu) (or A_mu(x) = -(B / k) sin(k x_nu)),
// so F_{mu nu}(x) = B cos(k x_d) with d the direction of variation, k = 2 pi / L. The links carry the exact
// line integrals, so each plaquette angle is the exact flux theta(m) = (B / k) [sin(k (m + 1)) - sin(k m)]
// through its square, and the clover average is
//     F_clover(n) = [sin theta(n_d) + sin theta(n_d - 1)] / 2 = B cos(k n_d) sin(k) / k + O(B^3),
// which differs from the continuum B cos(k n_d) by B cos(k n_d) (1 - sin k / k) = B k^2 / 6 + O(k^4): second
// order in the lattice spacing (derivation in docs/conventions.md). A single plaquette is centred at
// n + (mu + nu) / 2 and misses F(n) at first order, B k / 2.
TEST(FieldStrengthTest, SmoothFieldIsReproducedToSecondOrder) {
  const double b = 1e-3;
  for (int mu = 0; mu < kDims; ++mu) {
    for (int nu = mu + 1; nu < kDims; ++nu) {
      for (const int d : {mu, nu}) {
        double clover_error[2], plaquette_error[2];
        const int extents_of_d[2] = {8, 16};
        for (int level = 0; level < 2; ++level) {
          const int length = extents_of_d[level];
          Coordinates extents{2, 2, 2, 2};
          extents[d] = length;
          const Lattice lat(extents);
          const double k = 2 * M_PI / length;
          GaugeField<double> u(lat);
          for (int site = 0; site < lat.volume(); ++site) {
            const double potential = (b / k) * std::sin(k * lat.Coords(site)[d]);
            if (d == mu) {
              u.Link(site, nu) = AbelianLink(potential);  // A_nu(x_mu)
            } else {
              u.Link(site, mu) = AbelianLink(-potential);  // A_mu(x_nu) = -(B/k) sin(k x_nu)
            }
          }
          auto theta = [&](int m) { return (b / k) * (std::sin(k * (m + 1)) - std::sin(k * m)); };
          clover_error[level] = plaquette_error[level] = 0;
          for (int site = 0; site < lat.volume(); ++site) {
            const int x = lat.Coords(site)[d];
            const ColorMatrix<double> f = FieldStrength(u, site, mu, nu);
            const double lattice_value = 0.5 * (std::sin(theta(x)) + std::sin(theta(x - 1)));
            // The exact lattice identity F = diag(s, -s, 0): phases of size <= B / k < 3e-3 round to
            // <= 3e-3 u, negligible; the sums and products of unit-modulus numbers round by a few u. Bound 16u.
            ColorMatrix<double> expected = ColorMatrix<double>::Zero();
            expected(0, 0) = lattice_value;
            expected(1, 1) = -lattice_value;
            EXPECT_LE(MaxAbs(f - expected), 16 * kU);
            // |sin theta - theta| <= |theta|^3 / 6 with |theta| <= B: the linearised clover value is exact to B^3 / 6.
            EXPECT_NEAR(lattice_value, b * std::cos(k * x) * std::sin(k) / k, b * b * b / 6 + 16 * kU);
            clover_error[level] = std::max(clover_error[level], std::abs(f(0, 0).real() - b * std::cos(k * x)));
            plaquette_error[level] =
                std::max(plaquette_error[level], std::abs(std::sin(theta(x)) - b * std::cos(k * x)));
          }
          // max_n |B cos(k n) (sin k / k - 1)| = B (1 - sin k / k) (at n = 0), up to the B^3 / 6 of the sines.
          EXPECT_NEAR(clover_error[level], b * (1 - std::sin(k) / k), b * b * b / 6 + 16 * kU);
          // The single plaquette is off by ~B k / 2 (0.39 B at L = 8, 0.20 B at L = 16), the clover by
          // ~B k^2 / 6 (0.10 B, 0.026 B): the clover must be better by more than 3x at both spacings.
          EXPECT_GT(plaquette_error[level], 3 * clover_error[level]);
        }
        // Halving the spacing (L 8 -> 16) divides the clover error by (1 - sin k/k) / (1 - sin(k/2)/(k/2))
        // = 3.91 at k = pi / 4 (-> 4 as k -> 0): second order. A first-order scheme would give ~2.
        const double k8 = 2 * M_PI / 8;
        const double predicted = (1 - std::sin(k8) / k8) / (1 - std::sin(k8 / 2) / (k8 / 2));
        EXPECT_NEAR(clover_error[0] / clover_error[1], predicted, 0.01);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Clover term and its blocks

TEST(CloverTermTest, SigmaIsHermitianCommutesWithGamma5AndSquaresToOne) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        const SpinMatrix s = Sigma(basis, mu, nu);
        // Entries are 0, +-1, +-i computed exactly (products and sums of such numbers, times i/2).
        EXPECT_EQ(MaxAbs(s - s.adjoint()), 0.0);
        EXPECT_EQ(MaxAbs(s * Gamma5(basis) - Gamma5(basis) * s), 0.0);
        EXPECT_EQ(MaxAbs(s + Sigma(basis, nu, mu)), 0.0);
        if (mu != nu) {
          EXPECT_EQ(MaxAbs(s * s - SpinMatrix::Identity()), 0.0);  // (i g_mu g_nu)^2 = 1
        }
      }
    }
  }
}

TEST(CloverTermTest, ChiralBlocksInDeGrandRossiAndTheUkqcdStructure) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 23);
  const double c_sw = 1.3;
  const SpinColorMatrix<double> s = SpinOnly(DeGrandRossiToUkqcd());
  for (int site = 0; site < lat.volume(); ++site) {
    const SpinColorMatrix<double> a = CloverTermMatrix(u, site, c_sw, GammaBasis::kDeGrandRossi);
    const SpinColorMatrix<double> a_uk = CloverTermMatrix(u, site, c_sw, GammaBasis::kUkqcd);
    const double size = MaxAbs(a);
    EXPECT_GT(size, 0.1);  // hot field: an O(1) clover term
    // Hermitian exactly: sigma (x) F with exactly Hermitian factors, summed in the same order for mirror entries.
    EXPECT_EQ(MaxAbs(a - a.adjoint()), 0.0);
    EXPECT_EQ(MaxAbs(a_uk - a_uk.adjoint()), 0.0);
    // DeGrand-Rossi: sigma_{mu nu} has no entries between spins {0,1} and {2,3}, so the off-diagonal chiral
    // blocks are exact zeros and A = diag(B_+, B_-).
    EXPECT_EQ(MaxAbs(a.block<6, 6>(0, 6)), 0.0);
    EXPECT_EQ(MaxAbs(a.block<6, 6>(6, 0)), 0.0);
    // Traceless in spin x colour (tr sigma = 0).
    EXPECT_LE(std::abs(a.trace()), 12 * 8 * kU * size);
    // Basis covariance: A(UKQCD) = S A(DR) S. S has entries 1/sqrt 2 (rounded, u) and S^2 = 1 + O(u); the two
    // 12x12 products sum 2 terms each at a time per entry of sizes <= |A|: bound 16u |A|.
    EXPECT_LE(MaxAbs(a_uk - s * a * s), 16 * kU * size);
    // In UKQCD gamma_5 is off-diagonal, so A is [[P, X], [X, P]] in spin pairs with P = (B_+ + B_-)/2 and
    // X = (B_+ - B_-)/2, both Hermitian; X does not vanish: no block split.
    const ChiralBlock<double> b_plus = a.block<6, 6>(0, 0), b_minus = a.block<6, 6>(6, 6);
    EXPECT_LE(MaxAbs(a_uk.block<6, 6>(0, 0) - 0.5 * (b_plus + b_minus)), 16 * kU * size);
    EXPECT_LE(MaxAbs(a_uk.block<6, 6>(6, 6) - 0.5 * (b_plus + b_minus)), 16 * kU * size);
    EXPECT_LE(MaxAbs(a_uk.block<6, 6>(0, 6) - 0.5 * (b_plus - b_minus)), 16 * kU * size);
    EXPECT_LE(MaxAbs(a_uk.block<6, 6>(6, 0) - 0.5 * (b_plus - b_minus)), 16 * kU * size);
    EXPECT_GT(MaxAbs(a_uk.block<6, 6>(0, 6)), 0.01 * size);
    // sigma commutes with gamma_5 in any basis, hence so does A.
    for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
      const SpinColorMatrix<double> g5 = SpinOnly(Gamma5(basis));
      const SpinColorMatrix<double>& m = basis == GammaBasis::kDeGrandRossi ? a : a_uk;
      EXPECT_LE(MaxAbs(g5 * m - m * g5), 16 * kU * size);
    }
  }
}

// T(n) = (4 + m) + A(n) from the stored blocks: equals the dense definition, applies as the dense matrix,
// and its stored inverse inverts it, in both bases and both precisions.
template <typename T>
void CheckBlocks(double u_round) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u_double = RandomGaugeField<double>(lat, 29);
  const GaugeField<T> u = ConvertGaugeField<T>(u_double);
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    CloverParams params;
    params.mass = -0.4;
    params.c_sw = 1.1;
    params.basis = basis;
    const CloverField<T> clover(u, params);
    const double cond = clover.max_condition();
    const double norm_t = std::max(std::abs(clover.min_eigenvalue()), std::abs(clover.max_eigenvalue()));
    EXPECT_GT(cond, 1.5);  // a genuinely non-trivial T
    SpinorField<T> psi(lat);
    FillGaussian(psi, 31);
    for (int site = 0; site < lat.volume(); ++site) {
      // A from the float links (rounded, u_f) vs the double links: the stored T must match the dense
      // definition on the links it was given, to the rounding of storing T (u_round |T|) and, in UKQCD, of the
      // basis change (16u |T|, as above).
      const SpinColorMatrix<double> dense =
          (4 + params.mass) * SpinColorMatrix<double>::Identity() + CloverTermMatrix(u, site, params.c_sw, basis);
      const SpinColorMatrix<double> t = clover.SiteMatrix(site).template cast<Complex<double>>();
      const SpinColorMatrix<double> t_inv = clover.SiteInverse(site).template cast<Complex<double>>();
      EXPECT_LE(MaxAbs(t - dense), (2 * u_round + 16 * kU) * norm_t);
      for (int chirality = 0; chirality < 2; ++chirality) {
        EXPECT_EQ(MaxAbs(clover.Block(site, chirality) - clover.Block(site, chirality).adjoint()), 0.0);
      }
      // T T^{-1} = 1: the inverse comes from a Hermitian eigen-decomposition in double (backward stable, so
      // forward error <= ~12 u cond), then is rounded to T (u_round) and multiplied (12 terms): bound
      // 144 u_round cond, with u_round >= u.
      EXPECT_LE(MaxAbs(t * t_inv - SpinColorMatrix<double>::Identity()), 144 * u_round * cond);
      // The 504-flop block kernel equals the dense product: 12-term sums of products bounded by
      // |T| |psi|max: <= 12 u_round |T| |psi| per entry, twice that in UKQCD (the H additions); bound 32.
      const Eigen::Matrix<Complex<double>, 12, 1> v = ToSpinColorVector(psi[site]).template cast<Complex<double>>();
      const double psi_max = MaxAbs(v);
      const Eigen::Matrix<Complex<double>, 12, 1> tv =
          ToSpinColorVector(clover.Apply(site, psi[site])).template cast<Complex<double>>();
      EXPECT_LE(MaxAbs(tv - t * v), 32 * u_round * norm_t * psi_max);
      const Eigen::Matrix<Complex<double>, 12, 1> tinv_v =
          ToSpinColorVector(clover.ApplyInverse(site, psi[site])).template cast<Complex<double>>();
      EXPECT_LE(MaxAbs(tinv_v - t_inv * v), 32 * u_round * MaxAbs(t_inv) * 12 * psi_max);
      // Round trip T^{-1} T psi = psi: the inverse's error (144 u cond) plus the two applications.
      const SiteSpinor<T> back = clover.ApplyInverse(site, clover.Apply(site, psi[site]));
      EXPECT_LE(MaxAbs((back - psi[site]).template cast<Complex<double>>()), 200 * u_round * cond * 12 * psi_max);
    }
  }
}

TEST(CloverFieldTest, BlocksMatchTheDefinitionApplyAndInvertInDouble) { CheckBlocks<double>(kU); }
TEST(CloverFieldTest, BlocksMatchTheDefinitionApplyAndInvertInFloat) { CheckBlocks<float>(kUf); }

TEST(CloverFieldTest, GaugeCovariance) {
  const Lattice lat(4, 4, 2, 2);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 37);
  const GaugeTransformation<double> g = RandomGaugeTransformation<double>(lat, 4141);
  const GaugeField<double> gu = ApplyGaugeTransformation(g, u);
  const double c_sw = 1.0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = mu + 1; nu < kDims; ++nu) {
        // F(gU)(n) = g(n) F(U)(n) g(n)^dag. Each transformed link adds ~2 x 5u per entry to the 4 links of a
        // leaf, and the conjugation on the right side 2 x 5u: with the leaf products themselves (~35u per
        // side, as above) |delta F| <= 2 * (4 * 40u + 35u) / 8 ~ 50u; bound 128u.
        const ColorMatrix<double> f = FieldStrength(u, site, mu, nu);
        EXPECT_LE(MaxAbs(FieldStrength(gu, site, mu, nu) - g[site] * f * g[site].adjoint()), 128 * kU);
      }
    }
    // A(gU) = G A(U) G^dag with G = 1 (x) g(n): 6 planes of F, each 128u, times c_sw / 2, plus the 12x12
    // conjugation (~2 x 3 x 5u |A|): bound (6 * 128 / 2 + 64) u for c_sw = 1.
    const SpinColorMatrix<double> big_g = ColourOnly(g[site]);
    const SpinColorMatrix<double> a = CloverTermMatrix(u, site, c_sw, GammaBasis::kDeGrandRossi);
    EXPECT_LE(MaxAbs(CloverTermMatrix(gu, site, c_sw, GammaBasis::kDeGrandRossi) - big_g * a * big_g.adjoint()),
              (6 * 128 / 2 + 64) * kU);
  }
  // The operator: M(gU) (g psi) = g (M(U) psi), in both bases.
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    CloverParams params;
    params.mass = 0.2;
    params.c_sw = c_sw;
    params.basis = basis;
    const CloverField<double> clover(u, params), clover_g(gu, params);
    SpinorField<double> psi(lat);
    FillGaussian(psi, 43);
    SpinorField<double> m_psi(lat), m_g_psi(lat);
    ApplyWilsonClover(m_psi, u, clover, psi, Dagger::kNo);
    ApplyWilsonClover(m_g_psi, gu, clover_g, ApplyGaugeTransformation(g, psi), Dagger::kNo);
    // Per output entry: 8 hops (4 spin x 3 colour products each) + 12 clover terms = 108 terms of size
    // <= (|U| |psi|, |T| |psi|), each rounding u, plus the transformation's 3-term products (~5u): the
    // relative norm deviation is bounded by ~(108 + 2 x 5) u x (sum of |terms|) / |M psi| <= 120u x
    // (16 + |T|) / (lambda_min - 4) ~ 120u x 22 / 1; bound 4096u.
    EXPECT_LE(RelativeDeviation(m_g_psi, ApplyGaugeTransformation(g, m_psi)), 4096 * kU);
  }
}

TEST(CloverFieldTest, RejectsBadInput) {
  const Lattice lat(4, 4, 2, 2);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 47);
  CloverParams params;
  params.c_sw = std::nan("");
  EXPECT_THROW((CloverField<double>(u, params)), std::invalid_argument);
  params.c_sw = 1;
  params.mass = -4.5;  // 4 + m <= 0: no kappa
  EXPECT_THROW((CloverField<double>(u, params)), std::invalid_argument);
  EXPECT_THROW(FieldStrength(u, 0, 0, 4), std::out_of_range);
  EXPECT_THROW(CloverLeaves(u, 0, 2, 2), std::invalid_argument);
  EXPECT_THROW(FieldStrength(u, lat.volume(), 0, 1), std::out_of_range);
  // An exactly singular block: in the constant-flux field the colour-0 clover term is
  // -(c_sw / 2) sin(f) sigma_01 (x) e_0 e_0^T, eigenvalues -+(c_sw / 2) sin f; c_sw = 2 (4 + m) / sin f puts an
  // eigenvalue of T at 0 (to rounding), far beyond the condition limit.
  const Lattice flux_lat(4, 4, 2, 2);
  const GaugeField<double> flux = ConstantFluxField(flux_lat, 0, 1, 1);
  CloverParams singular;
  singular.mass = 0.3;
  singular.c_sw = 2 * 4.3 / std::sin(2 * M_PI / 16);
  EXPECT_THROW((CloverField<double>(flux, singular)), std::domain_error);
  // Operators: lattice mismatch, wrong subset, aliasing.
  params.mass = 0.1;
  const CloverField<double> clover(u, params);
  const Lattice other(4, 4, 2, 4);
  SpinorField<double> wrong(other), out(other), full(lat), even(lat, Subset::kEven);
  EXPECT_THROW(ApplyWilsonClover(out, u, clover, wrong, Dagger::kNo), std::invalid_argument);
  EXPECT_THROW(ApplyCloverBlocks(out, clover, wrong), std::invalid_argument);
  EXPECT_THROW(ApplyWilsonClover(full, u, clover, full, Dagger::kNo), std::invalid_argument);
  EXPECT_THROW(ApplyWilsonClover(out, u, clover, even, Dagger::kNo), std::invalid_argument);
  EXPECT_THROW(ApplyCloverSchur(out, u, clover, full, CloverSchurForm::kUnitDiagonal, Dagger::kNo),
               std::invalid_argument);
  EXPECT_THROW(PrepareCloverSchurSource(u, clover, even, Parity::kEven, CloverSchurForm::kComplement),
               std::invalid_argument);
  EXPECT_THROW(ReconstructCloverSolution(u, clover, full, full), std::invalid_argument);
}

TEST(CloverFieldTest, APieceHoldsTheWholeFieldsBlocksOfItsSites) {
  const Lattice whole_lat(4, 4, 2, 4), piece_lat(2, 4, 2, 2);
  const GaugeField<double> u = RandomGaugeField<double>(whole_lat, 53);
  CloverParams params;
  params.mass = 0.2;
  params.c_sw = 1.3;
  params.basis = GammaBasis::kUkqcd;
  const CloverField<double> whole(u, params);
  // A block of the lattice at offset (2, 0, 0, 2), listed in the piece's lexicographic order.
  std::vector<int> sites(piece_lat.volume());
  for (int n = 0; n < piece_lat.volume(); ++n) {
    Coordinates c = piece_lat.Coords(n);
    c[0] += 2;
    c[3] += 2;
    sites[n] = whole_lat.Index(c);
  }
  const CloverField<double> piece(whole, piece_lat, sites);
  EXPECT_EQ(piece.lattice(), piece_lat);
  EXPECT_EQ(piece.params().mass, params.mass);
  EXPECT_EQ(piece.params().c_sw, params.c_sw);
  EXPECT_EQ(piece.params().basis, params.basis);
  EXPECT_EQ(piece.max_condition(), whole.max_condition());
  EXPECT_EQ(piece.min_eigenvalue(), whole.min_eigenvalue());
  EXPECT_EQ(piece.max_eigenvalue(), whole.max_eigenvalue());
  for (int n = 0; n < piece_lat.volume(); ++n) {
    for (int chirality = 0; chirality < 2; ++chirality) {
      EXPECT_TRUE(piece.Block(n, chirality) == whole.Block(sites[n], chirality)) << "site " << n;
      EXPECT_TRUE(piece.InverseBlock(n, chirality) == whole.InverseBlock(sites[n], chirality)) << "site " << n;
    }
  }
  // The piece applies T exactly as the whole does at the same site.
  SiteSpinor<double> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi(s, c) = Complex<double>(s + 1, c - 1);
  }
  EXPECT_TRUE(piece.Apply(5, psi) == whole.Apply(sites[5], psi));
  EXPECT_TRUE(piece.ApplyInverse(5, psi) == whole.ApplyInverse(sites[5], psi));

  std::vector<int> short_list(sites.begin(), sites.end() - 1);
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(CloverField<double>(whole, piece_lat, short_list)); }),
                  "31 sites for a piece on");
  std::vector<int> outside = sites;
  outside[3] = whole_lat.volume();
  EXPECT_CONTAINS(ErrorOf([&] { static_cast<void>(CloverField<double>(whole, piece_lat, outside)); }),
                  "site 128 is not a site of the whole");
}

// ---------------------------------------------------------------------------------------------------------
// Operators

struct OperatorSetup {
  Lattice lat;
  GaugeField<double> u;
  CloverField<double> clover;
  // Bound on the rounding of one application of M to x, per unit |x|: 108 terms per output entry
  // (8 hops x 12 + 12 clover) of sizes up to (|D| / 2 + |T|) |x|, |D| / 2 <= 4 sqrt 2 < 8.
  double apply_bound() const {
    return 108 * kU * (8 + std::max(std::abs(clover.min_eigenvalue()), std::abs(clover.max_eigenvalue())));
  }
};

OperatorSetup MakeSetup(GammaBasis basis, double mass, double c_sw, double epsilon, std::uint64_t seed,
                        const Lattice& lat = Lattice(4, 4, 2, 4)) {
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lat, seed, epsilon);
  CloverParams params;
  params.mass = mass;
  params.c_sw = c_sw;
  params.basis = basis;
  return OperatorSetup{lat, u, CloverField<double>(u, params)};
}

TEST(CloverOperatorTest, Gamma5HermiticityAndAdjoints) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const OperatorSetup s = MakeSetup(basis, -0.2, 1.4, 0.6, 53);
    SpinorField<double> x(s.lat), y(s.lat);
    FillGaussian(x, 1);
    FillGaussian(y, 2);
    SpinorField<double> mx(s.lat), mdag_x(s.lat), mdag_y(s.lat), g5mg5x(s.lat);
    ApplyWilsonClover(mx, s.u, s.clover, x, Dagger::kNo);
    ApplyWilsonClover(mdag_x, s.u, s.clover, x, Dagger::kYes);
    ApplyWilsonClover(mdag_y, s.u, s.clover, y, Dagger::kYes);
    ApplyWilsonClover(g5mg5x, s.u, s.clover, MultiplyGamma5(x, basis), Dagger::kNo);
    g5mg5x = MultiplyGamma5(g5mg5x, basis);
    const double nx = std::sqrt(Norm2(x)), ny = std::sqrt(Norm2(y));
    // M^dag = gamma_5 M gamma_5 (sigma commutes with gamma_5, T is Hermitian): two applications' rounding,
    // absolute <= 2 apply_bound |x| (gamma_5 is exact).
    EXPECT_LE(std::sqrt(Norm2(Difference(g5mg5x, mdag_x))), 2 * s.apply_bound() * nx);
    // <y, M x> = <M^dag y, x>: each side is off by apply_bound |x| |y| from its application and by the
    // 12V-term inner product (12V u |Mx| |y|, |Mx| <= (8 + |T|) |x|).
    const double dot_bound = 2 * (s.apply_bound() + 12 * s.lat.volume() * kU * (8 + 5)) * nx * ny;
    EXPECT_LE(std::abs(Dot(y, mx) - Dot(mdag_y, x)), dot_bound);
    // M^dag M as two applications.
    SpinorField<double> normal(s.lat), m_dag_m(s.lat);
    ApplyWilsonCloverNormal(normal, s.u, s.clover, x);
    ApplyWilsonClover(m_dag_m, s.u, s.clover, mx, Dagger::kYes);
    EXPECT_EQ(MaxAbsDifference(normal, m_dag_m), 0.0);  // the same operations in the same order

    // The two Schur forms on each parity: <y_p, X x_p> = <X^dag y_p, x_p>. With |T^{-1}| <= 1 / lambda_min and
    // the entry-wise bound |D| <= 16, the partial results of X x are bounded by
    // x_size = (1 + 16^2 / (4 lambda_min^2)) max(1, lambda_max) |x|; X applies 4 stages (two hops, two blocks),
    // each rounding its <= 108-term sums by 108 u relative, and the inner product of V/2 sites adds 6V u.
    const double lambda_min = s.clover.min_eigenvalue();
    ASSERT_GT(lambda_min, 1.0);
    const double x_size = (1 + 64 / (lambda_min * lambda_min)) * std::max(1.0, s.clover.max_eigenvalue());
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      const SpinorField<double> xp = Extract(x, parity), yp = Extract(y, parity);
      const double nxp = std::sqrt(Norm2(xp)), nyp = std::sqrt(Norm2(yp));
      for (CloverSchurForm form : {CloverSchurForm::kUnitDiagonal, CloverSchurForm::kComplement}) {
        SpinorField<double> x_out(s.lat, xp.subset()), y_out(s.lat, yp.subset());
        ApplyCloverSchur(x_out, s.u, s.clover, xp, form, Dagger::kNo);
        ApplyCloverSchur(y_out, s.u, s.clover, yp, form, Dagger::kYes);
        const double schur_bound = 2 * (4 * 108 + 6 * s.lat.volume()) * kU * x_size * nxp * nyp;
        EXPECT_LE(std::abs(Dot(yp, x_out) - Dot(y_out, xp)), schur_bound) << ToString(form) << " " << ToString(parity);
        // Guard: the forms are not the identity (the test above would hold trivially for a zero operator term).
        EXPECT_GT(RelativeDeviation(x_out, xp), 1e-3);
        // X^dag X via ApplyCloverSchurNormal: <x, X^dag X x> = |X x|^2, real. Eight stages now, and partial
        // results up to x_size^2 |x|: bound 2 (8 x 108 + 6V) u x_size^2 |x|^2.
        SpinorField<double> normal_p(s.lat, xp.subset());
        ApplyCloverSchurNormal(normal_p, s.u, s.clover, xp, form);
        const Complex<double> quad = Dot(xp, normal_p);
        const double quad_bound = 2 * (8 * 108 + 6 * s.lat.volume()) * kU * x_size * x_size * nxp * nxp;
        EXPECT_NEAR(quad.real(), Norm2(x_out), quad_bound);
        EXPECT_LE(std::abs(quad.imag()), quad_bound);
      }
    }
  }
}

TEST(CloverOperatorTest, EvenOddBlocksReassembleTheFullOperator) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const OperatorSetup s = MakeSetup(basis, 0.1, 1.0, 0.5, 59);
    const CloverParams& p = s.clover.params();
    SpinorField<double> x(s.lat), mx(s.lat);
    FillGaussian(x, 3);
    ApplyWilsonClover(mx, s.u, s.clover, x, Dagger::kNo);
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      // (M x)_p = T_pp x_p - D_pp' x_p' / 2.
      SpinorField<double> t_xp(s.lat, SubsetOf(parity)), d_xq(s.lat, SubsetOf(parity));
      ApplyCloverBlocks(t_xp, s.clover, Extract(x, parity));
      ApplyHoppingParity(d_xq, s.u, Extract(x, Opposite(parity)), p.basis, p.boundary, Dagger::kNo);
      Axpy(-0.5, d_xq, t_xp);
      // The same per-site operations, summed in another order (hops, then T, then the subtraction): the
      // difference is the rounding of one application, apply_bound |x|.
      EXPECT_LE(std::sqrt(Norm2(Difference(t_xp, Extract(mx, parity)))), s.apply_bound() * std::sqrt(Norm2(x)));
      // S_pp = T_pp Mhat_pp.
      const SpinorField<double> xp = Extract(x, parity);
      SpinorField<double> mhat(s.lat, xp.subset()), schur(s.lat, xp.subset()), t_mhat(s.lat, xp.subset());
      ApplyCloverSchur(mhat, s.u, s.clover, xp, CloverSchurForm::kUnitDiagonal, Dagger::kNo);
      ApplyCloverSchur(schur, s.u, s.clover, xp, CloverSchurForm::kComplement, Dagger::kNo);
      ApplyCloverBlocks(t_mhat, s.clover, mhat);
      // T T^{-1} = 1 to 144 u cond (above), times |D T^{-1} D x / 4| <= 32 |x| / lambda_min, plus the
      // applications: bound (144 cond x 32 / lambda_min + 4 apply_bound) |x|.
      const double bound = (144 * kU * s.clover.max_condition() * 32 / s.clover.min_eigenvalue() +
                            4 * s.apply_bound()) * std::sqrt(Norm2(xp));
      EXPECT_LE(std::sqrt(Norm2(Difference(t_mhat, schur))), bound);
    }
  }
}

TEST(CloverOperatorTest, ZeroCswIsTheWilsonOperator) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    // A hot field: c_sw = 0 must give Wilson whatever the links.
    const Lattice lat(4, 4, 2, 4);
    const GaugeField<double> u = RandomGaugeField<double>(lat, 61);
    CloverParams params;
    params.mass = 0.15;
    params.c_sw = 0;
    params.basis = basis;
    const CloverField<double> clover(u, params);
    const WilsonParams wilson = params.wilson();
    const double kappa = params.kappa();
    SpinorField<double> x(lat);
    FillGaussian(x, 5);
    // Both paths share the hopping sums bit for bit; they differ only in the scalings ((4+m) x - D x / 2
    // vs (1/2kappa)(x - kappa D x), T^{-1} = 1/(4+m) from an eigen-decomposition vs kappa^2): a few roundings
    // of numbers <= (1 + |D| kappa)^2 |x| <= 4 |x| (|D| kappa <= 8 sqrt 2 / 8.3): bound 64u relative.
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SpinorField<double> m_clover(lat), m_wilson(lat);
      ApplyWilsonClover(m_clover, u, clover, x, dagger);
      ApplyWilson(m_wilson, u, x, wilson, dagger);
      EXPECT_LE(RelativeDeviation(m_clover, m_wilson), 64 * kU);
      for (Parity parity : {Parity::kEven, Parity::kOdd}) {
        const SpinorField<double> xp = Extract(x, parity);
        SpinorField<double> mhat(lat, xp.subset()), schur(lat, xp.subset()), m_pp(lat, xp.subset());
        ApplyCloverSchur(mhat, u, clover, xp, CloverSchurForm::kUnitDiagonal, dagger);
        ApplyCloverSchur(schur, u, clover, xp, CloverSchurForm::kComplement, dagger);
        ApplySchur(m_pp, u, xp, wilson, dagger);
        EXPECT_LE(RelativeDeviation(mhat, m_pp), 64 * kU);  // Mhat_pp = wilson.h's M_pp
        Scale(2 * kappa, schur);                              // S_pp = (1 / 2 kappa) M_pp
        EXPECT_LE(RelativeDeviation(schur, m_pp), 64 * kU);
      }
    }
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      EXPECT_LE(RelativeDeviation(PrepareCloverSchurSource(u, clover, x, parity, CloverSchurForm::kUnitDiagonal),
                                  PrepareSchurSource(u, x, wilson, parity)),
                64 * kU);
      const SpinorField<double> xp = Extract(x, parity);
      EXPECT_LE(RelativeDeviation(ReconstructCloverSolution(u, clover, xp, x), ReconstructSolution(u, xp, x, wilson)),
                64 * kU);
    }
  }
}

// The clover term of the sparse ground truth (sparse_wilson.h): the dense definition per site.
SiteBlocks CloverSiteTerms(const GaugeField<double>& u, const CloverParams& params) {
  SiteBlocks blocks(u.lattice().volume());
  for (int site = 0; site < u.lattice().volume(); ++site) {
    blocks[site] = CloverTermMatrix(u, site, params.c_sw, params.basis, params.trace);
  }
  return blocks;
}

TEST(CloverOperatorTest, MatchesTheIndependentlyAssembledSparseMatrix) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const OperatorSetup s = MakeSetup(basis, -0.1, 1.2, 0.7, 67);
    const SiteBlocks terms = CloverSiteTerms(s.u, s.clover.params());
    SpinorField<double> x(s.lat);
    FillGaussian(x, 7);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SpinorField<double> mx(s.lat);
      ApplyWilsonClover(mx, s.u, s.clover, x, dagger);
      const SparseComplexMatrix m = SparseWilson(s.u, s.clover.params().wilson(), dagger, terms);
      const SpinorField<double> sparse_mx = ApplySparse(m, x, Subset::kFull);
      // Both round one application each; the UKQCD block path adds the basis change (~16u |T|).
      EXPECT_LE(std::sqrt(Norm2(Difference(mx, sparse_mx))), 2 * s.apply_bound() * std::sqrt(Norm2(x)));
    }
  }
}

// The Schur route recovers the full solution: solve X x_p = bhat_p matrix-free (CG on X^dag X), reconstruct,
// and compare with an LU solve of the independently assembled full M (sparse_wilson.h). With m = 1 and a
// smooth field, lambda_min(T) > 4, so the Hermitian part of M is >= h = lambda_min - 4 > 0 and
// |M^{-1}| <= 1 / h (clover.h): this turns residuals into error bounds.
TEST(CloverSchurSolveTest, RecoversTheDirectFullSolution) {
  const Lattice lat(4, 4, 4, 4);
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const OperatorSetup s = MakeSetup(basis, 1.0, 1.0, 0.3, 71, lat);
    const CloverParams& params = s.clover.params();
    const double h = s.clover.min_eigenvalue() - 4;
    const double t_max = s.clover.max_eigenvalue();
    ASSERT_GT(h, 0.1);
    SpinorField<double> b(lat);
    FillGaussian(b, 9);
    const double nb = std::sqrt(Norm2(b));
    const DirectWilsonSolver direct(s.u, params.wilson(), Dagger::kNo, CloverSiteTerms(s.u, params));
    const SpinorField<double> x_direct = direct.Solve(b);
    // |b - M x| measured, plus the rounding of measuring it (apply_bound |x| + u |b|).
    auto residual = [&](const SpinorField<double>& x) {
      SpinorField<double> mx(lat);
      ApplyWilsonClover(mx, s.u, s.clover, x, Dagger::kNo);
      return std::sqrt(Norm2(Difference(b, mx))) + s.apply_bound() * std::sqrt(Norm2(x)) + kU * nb;
    };
    const double residual_direct = residual(x_direct);
    // The direct solve is backward stable: a relative residual of order 12V u growth; a loose sanity bound.
    EXPECT_LE(residual_direct, 1e-11 * nb);
    for (Parity parity : {Parity::kEven, Parity::kOdd}) {
      for (CloverSchurForm form : {CloverSchurForm::kUnitDiagonal, CloverSchurForm::kComplement}) {
        const SpinorField<double> bhat = PrepareCloverSchurSource(s.u, s.clover, b, parity, form);
        // CG on X^dag X x = X^dag bhat.
        SpinorField<double> rhs(lat, bhat.subset());
        ApplyCloverSchur(rhs, s.u, s.clover, bhat, form, Dagger::kYes);
        SpinorField<double> x(lat, bhat.subset()), r = rhs, p = rhs, ap(lat, bhat.subset());
        double rr = Norm2(r);
        const double stop = 1e-28 * Norm2(rhs);
        int iterations = 0;
        for (; iterations < 500 && rr > stop; ++iterations) {
          ApplyCloverSchurNormal(ap, s.u, s.clover, p, form);
          const double alpha = rr / Dot(p, ap).real();
          Axpy(alpha, p, x);
          Axpy(-alpha, ap, r);
          const double rr_new = Norm2(r);
          Xpay(r, rr_new / rr, p);  // p = r + beta p
          rr = rr_new;
        }
        // sigma_min(S_pp) >= 1 / |M^{-1}| >= h (S^{-1} is a block of M^{-1}) and Mhat = T^{-1} S, so cond(X)
        // <= (|X| / h) t_max <~ 60: CG on X^dag X (cond <~ 4e3) converges in well under 500 iterations.
        EXPECT_LT(iterations, 500);
        SpinorField<double> x_out(lat, bhat.subset());
        ApplyCloverSchur(x_out, s.u, s.clover, x, form, Dagger::kNo);
        const double schur_residual = std::sqrt(Norm2(Difference(bhat, x_out)));
        // True residual after stopping at |X^dag r| <= 1e-14 |X^dag bhat|: |r| <= cond(X) 1e-14 |bhat| plus
        // the drift of CG's recursive residual (~iterations x cond x u): well below 1e-10 |bhat|.
        EXPECT_LE(schur_residual, 1e-10 * std::sqrt(Norm2(bhat)));
        const SpinorField<double> x_full = ReconstructCloverSolution(s.u, s.clover, x, b);
        // Exact identity: with x_p' reconstructed, (b - M x)_p' = 0 and (b - M x)_p = S x_p - bhat^S, which is
        // T_pp (Mhat x_p - bhat) in the unit-diagonal form. So |b - M x| <= |T| |r_schur| (or |r_schur|), plus
        // the rounding of the reconstruction (one application) and of measuring the residual (inside residual()).
        const double scale = form == CloverSchurForm::kUnitDiagonal ? t_max : 1.0;
        const double residual_full = residual(x_full);
        EXPECT_LE(residual_full, scale * schur_residual + 2 * s.apply_bound() * std::sqrt(Norm2(x_full)) + kU * nb)
            << ToString(form) << " " << ToString(parity);
        // |x - x_direct| <= |M^{-1}| (|b - M x| + |b - M x_direct|) <= (residual_full + residual_direct) / h.
        const double error = std::sqrt(Norm2(Difference(x_full, x_direct)));
        EXPECT_LE(error, (residual_full + residual_direct) / h) << ToString(form) << " " << ToString(parity);
        EXPECT_LE(error, 1e-9 * std::sqrt(Norm2(x_direct)));  // and it is a real agreement, not a loose bound
      }
    }
  }
}

TEST(CloverOperatorTest, FloatAgreesWithDouble) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const OperatorSetup s = MakeSetup(basis, 0.05, 1.0, 0.5, 73);
    const GaugeField<float> u_f = ConvertGaugeField<float>(s.u);
    const CloverField<float> clover_f(u_f, s.clover.params());
    SpinorField<double> x(s.lat), mx(s.lat);
    FillGaussian(x, 11);
    ApplyWilsonClover(mx, s.u, s.clover, x, Dagger::kNo);
    const SpinorField<float> x_f = ConvertSpinorField<float>(x);
    SpinorField<float> mx_f(s.lat);
    ApplyWilsonClover(mx_f, u_f, clover_f, x_f, Dagger::kNo);
    // Rounding the inputs (links, x, T: u_f each, relative) and one float application (apply_bound with u_f):
    // bound (3 u_f (8 + |T|) + apply_bound u_f / u) |x|.
    const double t = std::max(std::abs(s.clover.min_eigenvalue()), std::abs(s.clover.max_eigenvalue()));
    const double bound = (3 * kUf * (8 + t) + s.apply_bound() * kUf / kU) * std::sqrt(Norm2(x));
    EXPECT_LE(std::sqrt(Norm2(Difference(ConvertSpinorField<double>(mx_f), mx))), bound);
    EXPECT_GT(std::sqrt(Norm2(Difference(ConvertSpinorField<double>(mx_f), mx))), 0.0);  // really float
  }
}

// ---------------------------------------------------------------------------------------------------------
// Physics normalisation: tree-level O(a) improvement at c_sw = 1.
//
// In a constant abelian field f in the (x, y) plane (colour 0 has charge 1), the continuum massless Dirac
// operator has exact zero modes (lowest Landau level, sigma_xy F_xy = +|f| on them). The Wilson term
// -(1/2) Delta = -(1/2) (gamma.D)^2 + (1/2) sigma_{mu nu} F_{mu nu} + O(a^2) lifts them to the real
// eigenvalue +|f| / 2; the clover term -(c_sw / 2) sigma F adds -c_sw |f| / 2, so
//     lambda(c_sw) = (1 - c_sw) |f| / 2 + O(f^2)        (docs/conventions.md, "Clover term").
// A wrong sign or factor of the clover normalisation moves the cancellation away from c_sw = 1. We measure
// the smallest singular value s(c_sw) of M restricted to fields constant in (z, t) (periodic, L_z = L_t = 2)
// with colour 0, on L x L lattices with one flux quantum (f = 2 pi / L^2), at L = 8 and 10, and
// Richardson-extrapolate s / (f / 2) to f = 0 (removing the O(f) term): the limit must be |1 - c_sw|.
Eigen::MatrixXcd RestrictedOperator(const GaugeField<double>& u, const CloverParams& params, int length) {
  const Lattice& lat = u.lattice();
  const CloverField<double> clover(u, params);
  const int n = 4 * length * length;
  Eigen::MatrixXcd m(n, n);
  double leak = 0;
  for (int x = 0; x < length; ++x) {
    for (int y = 0; y < length; ++y) {
      for (int spin = 0; spin < 4; ++spin) {
        // Unit vector: 1/2 at the four (z, t) copies of (x, y), colour 0.
        SpinorField<double> in(lat), out(lat);
        for (int z = 0; z < 2; ++z) {
          for (int t = 0; t < 2; ++t) in[lat.Index({x, y, z, t})](spin, 0) = 0.5;
        }
        ApplyWilsonClover(out, u, clover, in, Dagger::kNo);
        for (int site = 0; site < lat.volume(); ++site) {
          const Coordinates c = lat.Coords(site);
          const SiteSpinor<double>& o = out[site];
          // The subspace is invariant (links independent of z, t and diagonal in colour): exact zeros in
          // colours 1, 2, and the same values in every (z, t) copy.
          leak = std::max(leak, MaxAbs(o.rightCols<2>()));
          leak = std::max(leak, MaxAbs(o - out[lat.Index({c[0], c[1], 0, 0})]));
          if (c[2] == 0 && c[3] == 0) {
            for (int s2 = 0; s2 < 4; ++s2) {
              m(4 * (c[0] + length * c[1]) + s2, 4 * (x + length * y) + spin) = 2.0 * o(s2, 0);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(leak, 0.0);
  return m;
}

TEST(CloverImprovementTest, CswOneCancelsTheWilsonShiftOfTheLowestLandauLevel) {
  const int lengths[2] = {8, 10};
  const double c_values[4] = {-1.0, 0.0, 1.0, 2.0};
  double ratio[2][4], flux[2];
  for (int level = 0; level < 2; ++level) {
    const int length = lengths[level];
    const Lattice lat(length, length, 2, 2);
    const GaugeField<double> u = ConstantFluxField(lat, 0, 1, 1);
    flux[level] = 2 * M_PI / (length * length);
    CloverParams params;
    params.mass = 0;
    params.boundary = FermionBoundary::Periodic();
    params.c_sw = 0;
    const Eigen::MatrixXcd m0 = RestrictedOperator(u, params, length);
    params.c_sw = 1;
    const Eigen::MatrixXcd m1 = RestrictedOperator(u, params, length);
    for (int i = 0; i < 4; ++i) {
      // M is affine in c_sw (A is linear in it), so M(c) = M(0) + c (M(1) - M(0)).
      const Eigen::MatrixXcd m = m0 + c_values[i] * (m1 - m0);
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> eigen(m.adjoint() * m, Eigen::EigenvaluesOnly);
      const double s_min = std::sqrt(std::max(0.0, eigen.eigenvalues()(0)));
      ratio[level][i] = s_min / (flux[level] / 2);
      std::printf("L = %2d  f = %.5f  c_sw = %+.1f  s_min = %.6e  s_min / (f/2) = %.5f\n", length, flux[level],
                  c_values[i], s_min, ratio[level][i]);
    }
  }
  for (int i = 0; i < 4; ++i) {
    // Richardson: r(f) = r0 + r1 f + O(f^2)  =>  r0 = (f1 r(f2) - f2 r(f1)) / (f1 - f2) + O(f1 f2).
    const double limit = (flux[0] * ratio[1][i] - flux[1] * ratio[0][i]) / (flux[0] - flux[1]);
    // The remainder is O(f1 f2) = 0.0062 with an O(1) coefficient; the alternatives (a wrong sign or a
    // factor 2 in A) would put the limit at |1 +- c| or |1 - 2c|, 0.5 or more away.
    EXPECT_NEAR(limit, std::abs(1 - c_values[i]), flux[0] * flux[1]) << "c_sw = " << c_values[i];
  }
  // At c_sw = 1 the shift is second order: s_min / (f/2) itself is O(f), tiny next to c_sw = 0's ~1.
  EXPECT_LT(ratio[0][2], 0.05 * ratio[0][1]);
}


// ---------------------------------------------------------------------------------------------------------
// Trace conventions (CloverTrace) and the parameters of other codes (docs/conventions.md, "Clover term").
//
// F_with = (Q - Q^dag) / (8 i) and F_traceless = F_with - (tr F_with / 3) 1. The diagonal of Q - Q^dag is
// 2 i Im q_cc, so tr F_with = Im tr Q / 4 and
//     F_with - F_traceless = (Im tr Q / 12) 1_colour          (per plane, site by site).

// Im tr Q_{mu nu}(n) from the leaves themselves (not through FieldStrength).
double ImTraceOfLeaves(const GaugeField<double>& u, int site, int mu, int nu) {
  return CloverLeaves(u, site, mu, nu).trace().imag();
}

TEST(CloverTraceTest, WithTraceAddsImTrQOverTwelveTimesTheColourIdentity) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 83);
  double largest_trace_term = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        if (mu == nu) continue;
        const ColorMatrix<double> with = FieldStrength(u, site, mu, nu, CloverTrace::kWithTrace);
        const ColorMatrix<double> traceless = FieldStrength(u, site, mu, nu, CloverTrace::kTraceless);
        // The default argument is the traceless convention, bit for bit.
        EXPECT_EQ(MaxAbs(FieldStrength(u, site, mu, nu) - traceless), 0.0);
        const double expected = ImTraceOfLeaves(u, site, mu, nu) / 12;
        largest_trace_term = std::max(largest_trace_term, std::abs(expected));
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) {
            if (i != j) {
              // Removing the trace touches only the diagonal: off-diagonal entries are the same numbers.
              EXPECT_EQ(with(i, j), traceless(i, j));
              continue;
            }
            // Diagonal: with(c, c) = a_c = Im q_cc / 4 exactly (2 Im q_cc times -1/8, exact), |a_c| <= 1
            // (|q_cc| <= 4), imaginary part exactly 0. FieldStrength rounds t = a_1 + a_2 + a_3 (two additions,
            // <= 2u * 3 = 6u, so <= 2u after / 3), s = t / 3 (u) and a_c - s (u |a_c - s| <= 2u); the test rounds
            // the difference (u), Im tr Q (two additions of |Im q_cc| <= 4: 24u, 2u after / 12) and the
            // division (u). Against the exact (Im tr Q) / 12 of these leaves: <= 9u; bound 10u.
            EXPECT_LE(std::abs(with(i, i) - traceless(i, i) - expected), 10 * kU)
                << "site " << site << " plane " << mu << nu << " colour " << i;
          }
        }
      }
    }
  }
  // A hot SU(3) field has leaves with Im tr Q of order 1: the two conventions really differ (a test that ignored
  // the trace option would see with - traceless = 0 and fail above by this much).
  EXPECT_GT(largest_trace_term, 0.05);
}

TEST(CloverTraceTest, WithTraceFieldIsHermitianAntisymmetricAndCarriesImTrQOverFour) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 89);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        const ColorMatrix<double> f = FieldStrength(u, site, mu, nu, CloverTrace::kWithTrace);
        if (mu == nu) {
          EXPECT_EQ(MaxAbs(f), 0.0);
          continue;
        }
        // (Q - Q^dag) * (-i/8): mirror entries are computed by the same operations on conjugate inputs.
        EXPECT_EQ(MaxAbs(f - f.adjoint()), 0.0);
        // tr F = a_1 + a_2 + a_3 with a_c = Im q_cc / 4 exact: two additions (<= 2u * 3) against the test's
        // Im tr Q / 4 (two additions of numbers <= 4, <= 24u, then an exact / 4: 6u): bound 12u.
        EXPECT_LE(std::abs(f.trace() - ImTraceOfLeaves(u, site, mu, nu) / 4), 12 * kU);
        // F_{nu mu} = -F_{mu nu} to rounding, as for the traceless field (FieldStrengthTest): bound 64u.
        EXPECT_LE(MaxAbs(FieldStrength(u, site, nu, mu, CloverTrace::kWithTrace) + f), 64 * kU);
      }
    }
  }
}

// A_with - A_traceless = -(c_sw / 2) sum_{mu<nu} (Im tr Q_{mu nu} / 12) sigma_{mu nu} (x) 1_colour: a colour
// singlet Pauli term.
TEST(CloverTraceTest, WithTraceCloverTermAddsAColourSingletPauliTerm) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 97);
  const double c_sw = 1.7;
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    for (int site = 0; site < lat.volume(); ++site) {
      const SpinColorMatrix<double> with = CloverTermMatrix(u, site, c_sw, basis, CloverTrace::kWithTrace);
      const SpinColorMatrix<double> traceless = CloverTermMatrix(u, site, c_sw, basis, CloverTrace::kTraceless);
      EXPECT_EQ(MaxAbs(CloverTermMatrix(u, site, c_sw, basis) - traceless), 0.0);  // the default, bit for bit
      EXPECT_EQ(MaxAbs(with - with.adjoint()), 0.0);  // exactly Hermitian, like the traceless term
      SpinMatrix pauli = SpinMatrix::Zero();
      for (int mu = 0; mu < kDims; ++mu) {
        for (int nu = mu + 1; nu < kDims; ++nu) pauli += (ImTraceOfLeaves(u, site, mu, nu) / 12) * Sigma(basis, mu, nu);
      }
      // Per entry (in units of c_sw / 2): sigma entries are 0, +-1, +-i (exact products) and at most 6 planes
      // contribute; accumulating them rounds by <= 5u times their sum: <= 30u for F_with (entries <= 1),
      // <= 60u for F_traceless (diagonal entries <= 2). Per plane the F's differ by Im tr Q / 12 to <= 5u
      // (the previous test without its test-side roundings): 30u. The expected Pauli term rounds each
      // Im tr Q / 12 (3u, 18u) and its sum (30u); the scalings by -c_sw / 2 round by u |A| <= 12u each.
      // Total <= (30 + 60 + 30 + 18 + 30 + 24) u = 192u; bound 256u (c_sw / 2).
      EXPECT_LE(MaxAbs(with - traceless - SpinOnly(-0.5 * c_sw * pauli)), 256 * kU * 0.5 * c_sw)
          << ToString(basis) << " site " << site;
    }
  }
}

TEST(CloverTraceTest, ZeroCswIsTheWilsonOperatorInBothConventions) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 101);
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    CloverParams params;
    params.mass = 0.15;
    params.c_sw = 0;
    params.basis = basis;
    const CloverField<double> traceless(u, params);
    params.trace = CloverTrace::kWithTrace;
    const CloverField<double> with(u, params);
    // A = (-0 / 2) x (finite) = +-0 in either convention, so T = 4 + m exactly and both fields hold the same
    // numbers.
    for (int site = 0; site < lat.volume(); ++site) {
      for (int chirality = 0; chirality < 2; ++chirality) {
        EXPECT_EQ(MaxAbs(with.Block(site, chirality) - traceless.Block(site, chirality)), 0.0);
        EXPECT_EQ(MaxAbs(with.Block(site, chirality) - (4 + params.mass) * ChiralBlock<double>::Identity()), 0.0);
      }
    }
    SpinorField<double> x(lat);
    FillGaussian(x, 13);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SpinorField<double> m_with(lat), m_traceless(lat), m_wilson(lat);
      ApplyWilsonClover(m_with, u, with, x, dagger);
      ApplyWilsonClover(m_traceless, u, traceless, x, dagger);
      ApplyWilson(m_wilson, u, x, params.wilson(), dagger);
      EXPECT_EQ(MaxAbsDifference(m_with, m_traceless), 0.0);
      // As in CloverOperatorTest.ZeroCswIsTheWilsonOperator: the scalings differ, bound 64u relative.
      EXPECT_LE(RelativeDeviation(m_with, m_wilson), 64 * kU);
    }
  }
}

// A random rotation R in SO(3), a subgroup of SU(3): R = 1 + sin(theta) K + (1 - cos(theta)) K^2 with K the
// cross-product matrix of a random unit axis (Rodrigues). Real entries, orthogonal to rounding.
ColorMatrix<double> RandomRotation(RandomStream& rng) {
  double axis[3], norm = 0;
  for (double& a : axis) {
    a = rng.Gaussian();
    norm += a * a;
  }
  norm = std::sqrt(norm);
  for (double& a : axis) a /= norm;
  const double theta = 2 * M_PI * rng.Uniform();
  Eigen::Matrix3d k;
  k << 0, -axis[2], axis[1], axis[2], 0, -axis[0], -axis[1], axis[0], 0;
  const Eigen::Matrix3d r = Eigen::Matrix3d::Identity() + std::sin(theta) * k + (1 - std::cos(theta)) * k * k;
  return r.cast<Complex<double>>();
}

// Where every leaf has a real trace, Im tr Q = 0 and the conventions coincide. For real links (SO(3)) every
// leaf is a product of real matrices: its entries are computed with exactly zero imaginary parts, so
// Im tr Q = 0 exactly in floating point too, F has an exactly zero trace, and removing it (subtracting
// (+-0) / 3) changes no bit. (Links in an embedded SU(2), diag(V, 1), also have real traces in exact
// arithmetic, tr = 2 Re v_00 + 1, but rounding breaks V's structure and leaves Im tr Q of order u: the
// conventions then agree only to rounding, so the exact test uses SO(3).)
TEST(CloverTraceTest, ConventionsAgreeExactlyOnRealLinks) {
  const Lattice lat(4, 4, 2, 4);
  GaugeField<double> u(lat);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(103, 4 * site + mu);
      u.Link(site, mu) = RandomRotation(rng);
    }
  }
  double largest = 0;
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        if (mu == nu) continue;
        EXPECT_EQ(ImTraceOfLeaves(u, site, mu, nu), 0.0);
        const ColorMatrix<double> with = FieldStrength(u, site, mu, nu, CloverTrace::kWithTrace);
        EXPECT_EQ(MaxAbs(with - FieldStrength(u, site, mu, nu, CloverTrace::kTraceless)), 0.0);
        largest = std::max(largest, MaxAbs(with));
      }
    }
  }
  EXPECT_GT(largest, 0.3);  // a hot SO(3) field: O(1) field strength, not a trivially vanishing one
  CloverParams params;
  params.mass = 0.3;
  params.c_sw = 1.2;
  const CloverField<double> traceless(u, params);
  params.trace = CloverTrace::kWithTrace;
  const CloverField<double> with(u, params);
  for (int site = 0; site < lat.volume(); ++site) {
    for (int chirality = 0; chirality < 2; ++chirality) {
      EXPECT_EQ(MaxAbs(with.Block(site, chirality) - traceless.Block(site, chirality)), 0.0);
      EXPECT_EQ(MaxAbs(with.InverseBlock(site, chirality) - traceless.InverseBlock(site, chirality)), 0.0);
    }
  }
}

// CloverField honours params.trace: the full operator equals the sparse matrix assembled from
// CloverTermMatrix in the same convention, and differs from the other convention's.
TEST(CloverTraceTest, WithTraceOperatorMatchesTheIndependentlyAssembledSparseMatrix) {
  const Lattice lat(4, 4, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lat, 107, 0.7);
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    CloverParams params;
    params.mass = -0.1;
    params.c_sw = 1.2;
    params.basis = basis;
    const CloverField<double> traceless(u, params);
    params.trace = CloverTrace::kWithTrace;
    const OperatorSetup s{lat, u, CloverField<double>(u, params)};
    SpinorField<double> x(lat);
    FillGaussian(x, 17);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SpinorField<double> mx(lat), mx_traceless(lat);
      ApplyWilsonClover(mx, u, s.clover, x, dagger);
      ApplyWilsonClover(mx_traceless, u, traceless, x, dagger);
      const SparseComplexMatrix m = SparseWilson(u, params.wilson(), dagger, CloverSiteTerms(u, params));
      const double difference = std::sqrt(Norm2(Difference(mx, ApplySparse(m, x, Subset::kFull))));
      // As in CloverOperatorTest.MatchesTheIndependentlyAssembledSparseMatrix: one application each.
      const double bound = 2 * s.apply_bound() * std::sqrt(Norm2(x));
      EXPECT_LE(difference, bound) << ToString(basis);
      // The trace term of a smooth field is O(epsilon^6) per leaf, still far above rounding: a CloverField that
      // ignored params.trace would miss the bound above by this margin.
      EXPECT_GT(std::sqrt(Norm2(Difference(mx, mx_traceless))), 1e3 * bound) << ToString(basis);
    }
  }
}

// MILC's documented clover term (generic_clover/make_clov2.c and f_mu_nu.c of the MILC code): with its
// DeGrand-Rossi gammas (libraries/mb_gamma.c, the same matrices as ours) and sigma_{mu nu} = (i/2) [gamma_mu,
// gamma_nu], listed there as Pauli blocks (1-based XYZT):
//     sigma_23 = diag(s1, s1)   sigma_31 = diag(-s2, -s2)   sigma_12 = diag(s3, s3)
//     sigma_14 = diag(-s1, s1)  sigma_24 = diag(s2, -s2)    sigma_34 = diag(-s3, s3),
// f_mn = (G - G^dag) / 8 over the same four leaves as our Q, F_mn = -i f_mn (no trace removed), and the site
// term R = 1 - CKU0 sum_{mu<nu} sigma_{mu nu} F_{mu nu} with CKU0 = kappa clov_c / u0^3.
SpinMatrix MilcSigma(int mu, int nu) {
  const Eigen::Matrix2cd s1 = (Eigen::Matrix2cd() << 0, 1, 1, 0).finished();
  const Eigen::Matrix2cd s2 = (Eigen::Matrix2cd() << 0, Complex<double>(0, -1), Complex<double>(0, 1), 0).finished();
  const Eigen::Matrix2cd s3 = (Eigen::Matrix2cd() << 1, 0, 0, -1).finished();
  auto blocks = [](const Eigen::Matrix2cd& upper, const Eigen::Matrix2cd& lower) {
    SpinMatrix m = SpinMatrix::Zero();
    m.block<2, 2>(0, 0) = upper;
    m.block<2, 2>(2, 2) = lower;
    return m;
  };
  // 0-based (mu, nu), mu < nu: 01 = XY, 02 = XZ (= -ZX), 03 = XT, 12 = YZ, 13 = YT, 23 = ZT.
  if (mu == 0 && nu == 1) return blocks(s3, s3);
  if (mu == 0 && nu == 2) return blocks(s2, s2);
  if (mu == 0 && nu == 3) return blocks(-s1, s1);
  if (mu == 1 && nu == 2) return blocks(s1, s1);
  if (mu == 1 && nu == 3) return blocks(s2, -s2);
  if (mu == 2 && nu == 3) return blocks(-s3, s3);
  ADD_FAILURE() << "MilcSigma needs mu < nu, got " << mu << nu;
  return SpinMatrix::Zero();
}

TEST(CloverConventionTest, MilcSigmaMatricesAreOurDeGrandRossiSigmas) {
  for (int mu = 0; mu < kDims; ++mu) {
    for (int nu = mu + 1; nu < kDims; ++nu) {
      EXPECT_EQ(MaxAbs(Sigma(GammaBasis::kDeGrandRossi, mu, nu) - MilcSigma(mu, nu)), 0.0) << mu << nu;
    }
  }
}

TEST(CloverConventionTest, MilcSiteTermIsTwoKappaTimesOursWithTraceAtClovCOverU0Cubed) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 109);
  const double kappa = 0.124, clov_c = 1.0, u0 = 0.8678;
  const CloverParams params = CloverParams::FromMilc(kappa, clov_c, u0);
  EXPECT_EQ(params.trace, CloverTrace::kWithTrace);
  const CloverField<double> clover(u, params);
  const double cku0 = kappa * clov_c / (u0 * u0 * u0);  // MILC's coefficient of its clover term
  const double k = kappa * params.c_sw;                  // = cku0 up to rounding
  for (int site = 0; site < lat.volume(); ++site) {
    SpinColorMatrix<double> r = SpinColorMatrix<double>::Identity();
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = mu + 1; nu < kDims; ++nu) {
        const ColorMatrix<double> q = CloverLeaves(u, site, mu, nu);
        const ColorMatrix<double> f_milc = (q - q.adjoint()) * Complex<double>(0, -0.125);  // -i (G - G^dag) / 8
        const SpinMatrix sigma = MilcSigma(mu, nu);
        for (int s = 0; s < 4; ++s) {
          for (int t = 0; t < 4; ++t) r.block<3, 3>(3 * s, 3 * t) -= cku0 * sigma(s, t) * f_milc;
        }
      }
    }
    for (int chirality = 0; chirality < 2; ++chirality) {
      const ChiralBlock<double> ours = 2 * kappa * clover.Block(site, chirality);
      // Per entry <= 4 planes contribute, terms of size <= k (|F| <= 1). R: accumulating onto 1 rounds by
      // <= 4u (1 + 4k), the complex products by 2u x 4k. Ours: the sum of <= 4 terms (3u x 4), the scalings by
      // -c_sw / 2 and by 2 kappa, the addition of 4 + m: <= 2u + 24u k. The coefficients (cku0: 4 roundings;
      // kappa c_sw: 3) agree to 7u relative on terms summing to <= 4k: 28u k. 2 kappa (4 + m) = 1 to 3u.
      // Total <= 9u + 76u k; bound 16u (1 + 5k).
      EXPECT_LE(MaxAbs(ours - r.block<6, 6>(6 * chirality, 6 * chirality)), 16 * kU * (1 + 5 * k)) << site;
      EXPECT_EQ(MaxAbs(r.block<6, 6>(6 * chirality, 6 * (1 - chirality))), 0.0);  // chirally block diagonal
    }
  }
}

// Chroma's documented clover term (lib/actions/ferm/linop/clover_term_qdp_w.h, lib/meas/glue/mesfield.cc):
// kappa-normalised, 1 - (clovCoeff kappa / 4) sum_{mu,nu} [gamma_mu, gamma_nu] (x) Fc_{mu nu} over ordered
// pairs, with Fc = (Q - Q^dag) / 8 (anti-Hermitian, no trace removed) and the DeGrand-Rossi gammas; its
// m-normalised site term is this divided by 2 kappa. [gamma_mu, gamma_nu] = -2i sigma and Fc = i F_with give
// 1 - kappa clovCoeff sum_{mu<nu} sigma F_with = 2 kappa T at c_sw = clovCoeff.
TEST(CloverConventionTest, ChromaSiteTermIsOursWithTraceAtClovCoeff) {
  const Lattice lat(4, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lat, 113);
  const double mass = 0.05, clov_coeff = 1.9;
  const CloverParams params = CloverParams::FromChroma(mass, clov_coeff);
  EXPECT_EQ(params.trace, CloverTrace::kWithTrace);
  EXPECT_EQ(params.c_sw, clov_coeff);
  EXPECT_EQ(params.mass, mass);
  const CloverField<double> clover(u, params);
  const double kappa = params.kappa(), k = kappa * clov_coeff;
  for (int site = 0; site < lat.volume(); ++site) {
    SpinColorMatrix<double> chroma = SpinColorMatrix<double>::Identity();
    for (int mu = 0; mu < kDims; ++mu) {
      for (int nu = 0; nu < kDims; ++nu) {
        if (mu == nu) continue;
        // Fc_{nu mu} = -Fc_{mu nu}: the leaves of (nu, mu) are those of (mu, nu) reversed.
        const int lo = std::min(mu, nu), hi = std::max(mu, nu);
        const ColorMatrix<double> q = CloverLeaves(u, site, lo, hi);
        const ColorMatrix<double> fc = (mu < nu ? 0.125 : -0.125) * (q - q.adjoint());
        const SpinMatrix commutator = Gamma(GammaBasis::kDeGrandRossi, mu) * Gamma(GammaBasis::kDeGrandRossi, nu) -
                                      Gamma(GammaBasis::kDeGrandRossi, nu) * Gamma(GammaBasis::kDeGrandRossi, mu);
        for (int s = 0; s < 4; ++s) {
          for (int t = 0; t < 4; ++t) {
            chroma.block<3, 3>(3 * s, 3 * t) -= (clov_coeff * kappa / 4) * commutator(s, t) * fc;
          }
        }
      }
    }
    for (int chirality = 0; chirality < 2; ++chirality) {
      const ChiralBlock<double> ours = 2 * kappa * clover.Block(site, chirality);
      // The ordered sum has <= 8 terms per entry (commutator entries 0, +-2, +-2i: exact products) of size
      // <= 2 (k / 4): accumulating them onto 1 rounds by <= 8u (1 + 4k), the coefficient and the complex
      // products by 4u x 4k. Ours as in the MILC test, <= 2u + 24u k; both use the same kappa, and
      // 2 kappa (4 + m) = 1 to 2u. Total <= 12u + 72u k; bound 16u (1 + 8k).
      EXPECT_LE(MaxAbs(ours - chroma.block<6, 6>(6 * chirality, 6 * chirality)), 16 * kU * (1 + 8 * k)) << site;
    }
  }
}

TEST(CloverConventionTest, FromMilcDividesClovCByU0Cubed) {
  const FermionBoundary periodic = FermionBoundary::Periodic();
  const CloverParams p = CloverParams::FromMilc(0.125, 1.0, 0.5, GammaBasis::kUkqcd, periodic);
  EXPECT_EQ(p.c_sw, 8.0);  // 1 / 0.5^3, exact in binary
  EXPECT_EQ(p.trace, CloverTrace::kWithTrace);
  EXPECT_EQ(p.mass, CloverParams::FromKappa(0.125, 8.0).mass);
  EXPECT_EQ(p.basis, GammaBasis::kUkqcd);
  EXPECT_EQ(p.boundary.ToString(), periodic.ToString());
  EXPECT_EQ(CloverParams::FromMilc(0.13, 1.2, 1.0).c_sw, 1.2);  // u0 = 1: c_sw = clov_c, untouched
  // u0 = 0.8: c_sw = 1 / 0.512 = 1.953125 exactly in decimals. The double 0.8 is off by <= u relative, tripled
  // by the cube (3u); the two products and the division round by 3u more: 6u relative; bound 8u.
  EXPECT_NEAR(MilcCloverCsw(1.0, 0.8), 1.953125, 8 * kU * 1.953125);
  EXPECT_NEAR(CloverParams::FromMilc(0.13, 1.0, 0.8).c_sw, 1.953125, 8 * kU * 1.953125);
}

TEST(CloverConventionTest, RejectsBadConventionInput) {
  for (double u0 : {0.0, -0.9, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_CONTAINS(ErrorOf([&] { MilcCloverCsw(1.0, u0); }), "tadpole factor u0");
    EXPECT_CONTAINS(ErrorOf([&] { CloverParams::FromMilc(0.12, 1.0, u0); }), "must be finite and > 0");
  }
  for (double clov_c : {std::nan(""), -std::numeric_limits<double>::infinity()}) {
    EXPECT_CONTAINS(ErrorOf([&] { MilcCloverCsw(clov_c, 0.9); }), "clov_c");
    EXPECT_CONTAINS(ErrorOf([&] { CloverParams::FromChroma(0.1, clov_c); }), "clovCoeff");
  }
  EXPECT_CONTAINS(ErrorOf([&] { MilcCloverCsw(1e300, 1e-5); }), "not a finite double");  // 1e315 overflows
  EXPECT_CONTAINS(ErrorOf([&] { CloverParams::FromMilc(0.0, 1.0, 0.9); }), "kappa");
  EXPECT_CONTAINS(ErrorOf([&] { CloverParams::FromChroma(-4.5, 1.0); }), "4 + m");
  // A trace convention that is no enumerator is refused before any work.
  const Lattice lat(4, 4, 2, 2);
  const GaugeField<double> u(lat);
  const CloverTrace bogus = static_cast<CloverTrace>(7);
  EXPECT_CONTAINS(ErrorOf([&] { FieldStrength(u, 0, 0, 1, bogus); }), "neither kTraceless nor kWithTrace");
  EXPECT_CONTAINS(ErrorOf([&] { CloverTermMatrix(u, 0, 1.0, GammaBasis::kDeGrandRossi, bogus); }), "CloverTermMatrix");
  CloverParams params;
  params.trace = bogus;
  EXPECT_CONTAINS(ErrorOf([&] { (void)CloverField<double>(u, params); }), "CloverField");
}

}  // namespace
}  // namespace lqcd
