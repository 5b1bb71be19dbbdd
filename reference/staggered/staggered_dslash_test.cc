// staggered_dslash_test: property tests of the staggered operators (staggered_dslash.h) against the sparse
// assembly (sparse_staggered.h) and against closed forms.
//
// What is asserted (every tolerance derived from the unit roundoff u next to the assertion, never tuned):
//   - MatchesSparseAssembly: D, D_{p,p'} (both parities), M, M^dag and the Schur operator equal the
//     independently assembled sparse matrices applied to random fields, naive and improved, with periodic,
//     antiperiodic-time and antiperiodic-x boundaries (an extent-2 direction for naive);
//   - AntiHermitian (double and float): <x, D y> = -<D x, y>, the same for the parity blocks, and the
//     dagger is -D bit for bit;
//   - GaugeCovariance: D(F^V, L^V)(V psi) = V D(F, L) psi with F^V = V(n) F V(n+mu)^dag,
//     L^V = V(n) L V(n+3mu)^dag, random SU(3) V and general complex links;
//   - FreePlaneWave: on unit links (naive) and on F = 9/8, L = -1/24 (tree-level asqtad/HISQ), with
//     antiperiodic time momenta, (D psi)(n) = 2i sum_mu eta_mu(n) s(p_mu) psi(n) and D^2 psi = -4 sum s^2 psi;
//   - ImprovementOrder: s(p) - p scales as p^3 (ratio 8 from p/2 to p) for naive, p^5 (ratio 32) for the
//     improved coefficients, with leading coefficients -1/6 and -3/40;
//   - EvenOddOperator: the Schur operator equals 2m times the Schur complement of the p' block of the dense
//     M and the p block of M^dag M; it is Hermitian with smallest eigenvalue >= 4 m^2 (SelfAdjointEigenSolver);
//     PrepareStaggeredSchurSource / ReconstructStaggeredSolution reproduce x from b = M x;
//   - BadInput: mismatched lattices, wrong subsets, long links on an extent-2 lattice, aliasing, non-finite
//     or zero mass throw std::invalid_argument with a message naming the problem.
//
// Rounding model (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3): a complex sum of n
// products sum_i a_i b_i evaluated in any order has real and imaginary parts that are real sums of 2n
// products, each within gamma_{2n} sum (|Re a Re b| + |Im a Im b|) <= gamma_{2n} sum |a_i||b_i|, so
//     |fl - exact| <= DotConstant(n) u sum |a_i| |b_i|,   DotConstant(n) = sqrt(2) * 2n / (1 - 2n u).
// Signs eta s = +-1 are exact. One Dslash output component is a sum of at most 16 hops x 3 colours = 48
// products, so fl(D x) = D x + e with |e| <= DotConstant(48) u (|D| |x|) componentwise, where |D| |x| uses
// the moduli of the link entries term by term (AbsDslash below).
#include "reference/staggered/staggered_dslash.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "reference/error_testing.h"
#include "reference/gauge_transform.h"
#include "reference/random.h"
#include "reference/staggered/sparse_staggered.h"
#include "reference/staggered/staggered_phases.h"
#include "reference/su3_random.h"

namespace lqcd {
namespace {

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}
constexpr double kUd = UnitRoundoff<double>();

double DotConstant(int n, double u) { return std::sqrt(2.0) * 2 * n / (1 - 2 * n * u); }

// General complex links (entries standard complex normals times `scale`): the operator is defined for any
// matrices, and non-unitary links catch a missing or misplaced dagger that unitary ones would not.
template <typename T>
GaugeField<T> GaussianLinks(const Lattice& lattice, std::uint64_t seed, double scale) {
  GaugeField<T> u(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      RandomStream rng(seed, kDims * static_cast<std::uint64_t>(site) + mu);
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) u.Link(site, mu)(a, b) = static_cast<T>(scale) * ComplexGaussian<T>(rng);
      }
    }
  }
  return u;
}

template <typename T>
StaggeredLinks<T> RandomLinks(const Lattice& lattice, bool improved, std::uint64_t seed) {
  StaggeredLinks<T> links{GaussianLinks<T>(lattice, seed, 1.0), std::nullopt};
  if (improved) links.long_links = GaussianLinks<T>(lattice, seed + 1, 0.5);
  return links;
}

template <typename T>
ColourVectorField<T> Gaussian(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  ColourVectorField<T> x(lattice, subset);
  FillGaussian(x, seed);
  return x;
}

// The site n + steps mu (steps may be negative), walking the neighbour tables.
int Walk(const Lattice& lat, int site, int mu, int steps) {
  for (int k = 0; k < std::abs(steps); ++k) site = steps > 0 ? lat.Forward(site, mu) : lat.Backward(site, mu);
  return site;
}

// (|D| |x|) on the full lattice, term by term: sum over hops of |X| |x(neighbour)| (moduli entrywise). A
// parity field x is treated as the full field that is zero on the other parity.
ColourVectorField<double> AbsDslash(const StaggeredLinks<double>& links, const ColourVectorField<double>& x) {
  const Lattice& lat = links.lattice();
  ColourVectorField<double> full(lat);
  for (int i = 0; i < x.sites(); ++i) full[x.SiteIndex(i)] = x[i].cwiseAbs().cast<Complex<double>>();
  ColourVectorField<double> out(lat);
  for (int site = 0; site < lat.volume(); ++site) {
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (int mu = 0; mu < kDims; ++mu) {
      for (int k : {1, 3}) {
        if (k == 3 && !links.long_links) continue;
        const GaugeField<double>& l = k == 1 ? links.fat : *links.long_links;
        const int up = Walk(lat, site, mu, k), down = Walk(lat, site, mu, -k);
        sum += l.Link(site, mu).cwiseAbs() * full[up].real();
        sum += l.Link(down, mu).cwiseAbs().transpose() * full[down].real();
      }
    }
    out[site] = sum.cast<Complex<double>>();
  }
  return out;
}

// Componentwise |a - b| <= bound (bound a full field of non-negative reals; a, b on `bound`'s sites via
// SiteIndex). Returns the number of violations, printing the first.
int CountViolations(const ColourVectorField<double>& a, const ColourVectorField<double>& b,
                    const ColourVectorField<double>& bound, double factor) {
  int bad = 0;
  for (int i = 0; i < a.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const double diff = std::abs(a[i](c) - b[i](c));
      const double limit = factor * bound[a.SiteIndex(i)](c).real();
      if (!(diff <= limit)) {
        if (bad == 0) ADD_FAILURE() << "component " << i << "," << c << ": |diff| = " << diff << " > " << limit;
        ++bad;
      }
    }
  }
  return bad;
}

double Norm(const ColourVectorField<double>& x) { return std::sqrt(Norm2(x)); }

FermionBoundary AntiperiodicX() {
  FermionBoundary b = FermionBoundary::Periodic();
  b.condition[0] = BoundaryCondition::kAntiperiodic;
  return b;
}

// ---------------------------------------------------------------------------------------------------

TEST(StaggeredDslashTest, MatchesSparseAssembly) {
  struct Case {
    Lattice lattice;
    bool improved;
  };
  const Case cases[] = {{Lattice(4, 2, 6, 4), false}, {Lattice(4, 4, 6, 4), true}};
  for (const Case& test_case : cases) {
    for (const FermionBoundary& boundary :
         {FermionBoundary::Periodic(), FermionBoundary::AntiperiodicTime(), AntiperiodicX()}) {
      SCOPED_TRACE(test_case.lattice.ToString() + (test_case.improved ? " improved " : " naive ") + boundary.ToString());
      const Lattice& lattice = test_case.lattice;
      const StaggeredLinks<double> links = RandomLinks<double>(lattice, test_case.improved, 11);
      const StaggeredParams params{0.3, boundary};
      const ColourVectorField<double> x = Gaussian<double>(lattice, Subset::kFull, 5);
      const ColourVectorField<double> abs_dx = AbsDslash(links, x);
      // Both sides are within DotConstant(48) u |D||x| of D x.
      const double c_d = 2 * DotConstant(48, kUd);

      ColourVectorField<double> dx(lattice);
      ApplyStaggeredDslash(dx, links, x, boundary);
      EXPECT_EQ(CountViolations(dx, ApplySparse(SparseStaggeredDslash(links, boundary), x, Subset::kFull), abs_dx, c_d), 0);

      // M x = 2m x + D x: one more term per component, of size 2m |x|.
      ColourVectorField<double> abs_mx = abs_dx;
      for (int i = 0; i < x.sites(); ++i) abs_mx[i] = abs_dx[i] + 2 * params.mass * x[i].cwiseAbs().cast<Complex<double>>();
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        ColourVectorField<double> mx(lattice);
        ApplyStaggered(mx, links, x, params, dagger);
        EXPECT_EQ(CountViolations(mx, ApplySparse(SparseStaggered(links, params, dagger), x, Subset::kFull), abs_mx,
                                  2 * DotConstant(49, kUd)),
                  0);
      }

      for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
        const ColourVectorField<double> in = Extract(x, Opposite(out_parity));
        ColourVectorField<double> d_in(lattice, SubsetOf(out_parity));
        ApplyStaggeredDslashParity(d_in, links, in, boundary);
        EXPECT_EQ(d_in.subset(), SubsetOf(out_parity));
        EXPECT_EQ(CountViolations(d_in, ApplySparse(SparseStaggeredDslashParity(links, boundary, out_parity), in,
                                                    SubsetOf(out_parity)),
                                  AbsDslash(links, in), c_d),
                  0);

        // Schur: matrix-free fl(D fl(D x)) is within 2 DotConstant(48) u (1 + DotConstant(48) u) |D||D||x|
        // of D D x; the sparse product's entries within DotConstant(48) u (|D||D|), then K + 1 <= 3V/2 + 1
        // terms per row within DotConstant(K + 1) u; the 4m^2 term adds two roundings of its size.
        const ColourVectorField<double> x_p = Extract(x, out_parity);
        ColourVectorField<double> schur(lattice, x_p.subset());
        ApplyStaggeredSchur(schur, links, x_p, params);
        ColourVectorField<double> bound = AbsDslash(links, AbsDslash(links, x_p));
        for (int i = 0; i < x_p.sites(); ++i) {
          bound[x_p.SiteIndex(i)] += 4 * params.mass * params.mass * x_p[i].cwiseAbs().cast<Complex<double>>();
        }
        const int k = 3 * lattice.half_volume();
        const double c = 2 * DotConstant(48, kUd) * (1 + DotConstant(48, kUd) * kUd) + DotConstant(48, kUd) +
                         DotConstant(k + 1, kUd) + 2;
        EXPECT_EQ(CountViolations(schur, ApplySparse(SparseStaggeredSchur(links, params, out_parity), x_p, x_p.subset()),
                                  bound, c * kUd),
                  0);
      }
    }
  }
}

template <typename T>
class StaggeredPrecisionTest : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(StaggeredPrecisionTest, Precisions);

TYPED_TEST(StaggeredPrecisionTest, AntiHermitian) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  const Lattice lattice(4, 4, 6, 4);
  for (bool improved : {false, true}) {
    SCOPED_TRACE(improved ? "improved" : "naive");
    const StaggeredLinks<double> links_d = RandomLinks<double>(lattice, improved, 21);
    const StaggeredLinks<T> links{ConvertGaugeField<T>(links_d.fat),
                                  improved ? std::optional<GaugeField<T>>(ConvertGaugeField<T>(*links_d.long_links))
                                           : std::nullopt};
    // The bound is evaluated with the double links and fields: the T values are these rounded, so
    // |X_T| <= (1 + u)|X| and |x_T| <= (1 + u)|x|; the (1 + u)^2 is absorbed by the factor 2 below.
    const ColourVectorField<double> xd = Gaussian<double>(lattice, Subset::kFull, 1);
    const ColourVectorField<double> yd = Gaussian<double>(lattice, Subset::kFull, 2);
    const ColourVectorField<T> x = ConvertColourVectorField<T>(xd), y = ConvertColourVectorField<T>(yd);
    const FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
    ColourVectorField<T> dx(lattice), dy(lattice), dagger_x(lattice);
    ApplyStaggeredDslash(dx, links, x, boundary);
    ApplyStaggeredDslash(dy, links, y, boundary);
    ApplyStaggeredDslash(dagger_x, links, x, boundary, Dagger::kYes);
    for (int i = 0; i < x.sites(); ++i) EXPECT_EQ(dagger_x[i], (-dx[i]).eval()) << i;  // bit for bit

    // |<x, fl(Dy)> + <fl(Dx), y>| <= |x| |e_y| + |e_x| |y| + dot rounding of both products (accumulated in
    // double over 3V components: (3V + 3) u_d |a| |b| each, testing_bounds::DotRounding).
    const double ax = Norm(AbsDslash(links_d, xd)), ay = Norm(AbsDslash(links_d, yd));
    const double n_components = 3.0 * lattice.volume();
    const double tolerance = 2 * DotConstant(48, u) * u * (Norm(xd) * ay + ax * Norm(yd)) +
                             2 * (n_components + 3) * kUd * (Norm(xd) * ay + ax * Norm(yd));
    const Complex<double> sum = Dot(x, dy) + Dot(dx, y);
    EXPECT_LE(std::abs(sum), tolerance) << "<x,Dy> = " << Dot(x, dy) << ", <Dx,y> = " << Dot(dx, y);

    // Parity blocks: <x_e, D_eo y_o> = -<D_oe x_e, y_o>.
    const ColourVectorField<T> x_e = Extract(x, Parity::kEven), y_o = Extract(y, Parity::kOdd);
    ColourVectorField<T> d_eo_y(lattice, Subset::kEven), d_oe_x(lattice, Subset::kOdd);
    ApplyStaggeredDslashParity(d_eo_y, links, y_o, boundary);
    ApplyStaggeredDslashParity(d_oe_x, links, x_e, boundary);
    EXPECT_LE(std::abs(Dot(x_e, d_eo_y) + Dot(d_oe_x, y_o)), tolerance);
  }
}

TEST(StaggeredDslashTest, GaugeCovariance) {
  const Lattice lattice(4, 6, 4, 4);
  for (bool improved : {false, true}) {
    SCOPED_TRACE(improved ? "improved" : "naive");
    const StaggeredLinks<double> links = RandomLinks<double>(lattice, improved, 31);
    const GaugeTransformation<double> v = RandomGaugeTransformation<double>(lattice, 999);
    StaggeredLinks<double> transformed = links;
    for (int site = 0; site < lattice.volume(); ++site) {
      for (int mu = 0; mu < kDims; ++mu) {
        transformed.fat.Link(site, mu) = v[site] * links.fat.Link(site, mu) * v[Walk(lattice, site, mu, 1)].adjoint();
        if (improved) {
          transformed.long_links->Link(site, mu) =
              v[site] * links.long_links->Link(site, mu) * v[Walk(lattice, site, mu, 3)].adjoint();
        }
      }
    }
    const ColourVectorField<double> psi = Gaussian<double>(lattice, Subset::kFull, 3);
    ColourVectorField<double> psi_v(lattice);
    for (int i = 0; i < psi.sites(); ++i) psi_v[i] = v[i] * psi[i];
    for (const FermionBoundary& boundary : {FermionBoundary::AntiperiodicTime(), AntiperiodicX()}) {
      ColourVectorField<double> d_psi(lattice), d_v_psi_v(lattice);
      ApplyStaggeredDslash(d_psi, links, psi, boundary);
      ApplyStaggeredDslash(d_v_psi_v, transformed, psi_v, boundary);
      ColourVectorField<double> v_d_psi(lattice);
      for (int i = 0; i < psi.sites(); ++i) v_d_psi[i] = v[i] * d_psi[i];
      // Error terms, each bounded with || |V| ||_2 <= ||V||_F = sqrt(3) per factor of |V| (at most four
      // such factors: |V||X||V^dag||V||psi|, hence 9) times S = || |D| |psi| ||:
      //   transformed links (two 3x3 products): 2 DotConstant(3) u; V psi and V (D psi): DotConstant(3) u each;
      //   the two Dslash applications: DotConstant(48) u each.
      const double s = Norm(AbsDslash(links, psi));
      const double tolerance = 9 * (2 * DotConstant(48, kUd) + 4 * DotConstant(3, kUd)) * kUd * s;
      EXPECT_LE(Norm(Difference(d_v_psi_v, v_d_psi)), tolerance) << boundary.ToString();
      EXPECT_GT(Norm(d_psi), 1.0);  // the identity is not vacuous
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Free field.

// psi(n) = exp(i p.n) chi, p_mu = pi (2 k_mu + a_mu) / L_mu, a_mu = 1 for antiperiodic directions; the phase
// is reduced exactly in integers, so each factor has <= 3 roundings and the product of four adds 3 more:
// the wave is within 16 u_d of the exact one, relative.
ColourVectorField<double> PlaneWave(const Lattice& lattice, const std::array<int, kDims>& k,
                                    const FermionBoundary& boundary, const ColorVector<double>& chi) {
  ColourVectorField<double> wave(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    Complex<double> phase = 1;
    for (int mu = 0; mu < kDims; ++mu) {
      const int a = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 1 : 0;
      const int two_l = 2 * lattice.extent(mu);
      const int j = ((2 * k[mu] + a) * n[mu]) % two_l;
      phase *= std::polar(1.0, M_PI * j / lattice.extent(mu));
    }
    wave[site] = phase * chi;
  }
  return wave;
}

double Momentum(const Lattice& lattice, const FermionBoundary& boundary, const std::array<int, kDims>& k, int mu) {
  const int a = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 1 : 0;
  return M_PI * (2 * k[mu] + a) / lattice.extent(mu);
}

StaggeredLinks<double> FreeLinks(const Lattice& lattice, double c1, double c3) {
  StaggeredLinks<double> links{GaugeField<double>(lattice), std::nullopt};
  for (auto& link : links.fat.links()) link *= c1;
  if (c3 != 0) {
    links.long_links = GaugeField<double>(lattice);
    for (auto& link : links.long_links->links()) link *= c3;
  }
  return links;
}

TEST(StaggeredDslashTest, FreePlaneWave) {
  const Lattice lattice(4, 6, 4, 8);
  const FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  ColorVector<double> chi;
  chi << Complex<double>(0.6, 0), Complex<double>(0, 0.8), Complex<double>(0, 0);
  struct Coefficients {
    double c1, c3;
  };
  for (const Coefficients& c : {Coefficients{1.0, 0.0}, Coefficients{9.0 / 8, -1.0 / 24}}) {
    SCOPED_TRACE(c.c3 == 0 ? "naive" : "improved");
    const StaggeredLinks<double> links = FreeLinks(lattice, c.c1, c.c3);
    for (const std::array<int, kDims>& k : {std::array<int, kDims>{0, 0, 0, 0}, std::array<int, kDims>{1, 2, 3, 1},
                                            std::array<int, kDims>{3, 5, 1, 6}}) {
      const ColourVectorField<double> psi = PlaneWave(lattice, k, boundary, chi);
      std::array<double, kDims> s{};
      double s2 = 0;
      for (int mu = 0; mu < kDims; ++mu) {
        const double p = Momentum(lattice, boundary, k, mu);
        s[mu] = c.c1 * std::sin(p) + c.c3 * std::sin(3 * p);
        s2 += s[mu] * s[mu];
      }
      ColourVectorField<double> d_psi(lattice), dd_psi(lattice);
      ApplyStaggeredDslash(d_psi, links, psi, boundary);
      ApplyStaggeredDslash(dd_psi, links, d_psi, boundary);
      // |D| |psi| <= 8 (|c1| + |c3|) |chi| per component (|psi| = |chi|). Errors: the Dslash DotConstant(48) u,
      // the wave's 16 u on every input, and the expected value: each s_mu from p rounded (u), sin of
      // arguments up to 3 pi (a few u, and the argument's relative error times 3 pi): < 4 (3 pi + 3) u per
      // direction; the products and sums of the expected value add < 8 u.
      const double scale = 8 * (std::abs(c.c1) + std::abs(c.c3));
      const double c_err = DotConstant(48, kUd) + 16 + 4 * (3 * M_PI + 3) + 8;
      const double tolerance = c_err * kUd * scale;
      const double tolerance2 = 2 * c_err * kUd * scale * scale;  // error of D^2: |D| e + e', each <= that
      for (int site = 0; site < lattice.volume(); ++site) {
        const Coordinates n = lattice.Coords(site);
        Complex<double> factor = 0;
        for (int mu = 0; mu < kDims; ++mu) factor += Complex<double>(0, 2 * StaggeredEta(n, mu) * s[mu]);
        const ColorVector<double> expected = factor * psi[site];
        ASSERT_LE((d_psi[site] - expected).cwiseAbs().maxCoeff(), tolerance) << "site " << site;
        ASSERT_LE((dd_psi[site] + 4 * s2 * psi[site]).cwiseAbs().maxCoeff(), tolerance2) << "site " << site;
      }
    }
  }
}

// s(p) - p at p = 2 pi k / L in x only (other momenta zero, periodic), read off at the origin where
// psi = 1 and every eta = 1: (D psi)(0) = 2i s(p) psi(0).
double Deviation(const StaggeredLinks<double>& links, int k) {
  const Lattice& lattice = links.lattice();
  const FermionBoundary periodic = FermionBoundary::Periodic();
  ColorVector<double> chi(1, 0, 0);
  const ColourVectorField<double> psi = PlaneWave(lattice, {k, 0, 0, 0}, periodic, chi);
  ColourVectorField<double> d_psi(lattice);
  ApplyStaggeredDslash(d_psi, links, psi, periodic);
  const double s = d_psi[0](0).imag() / 2;
  return s - Momentum(lattice, periodic, {k, 0, 0, 0}, 0);
}

TEST(StaggeredDslashTest, ImprovementOrder) {
  const Lattice lattice(128, 4, 4, 4);
  const double p = 2 * M_PI * 2 / 128;  // k = 2; k = 1 gives p / 2
  struct Case {
    double c1, c3;
    double order;       // s(p) - p = a p^order + O(p^(order + 2))
    double leading;     // a
  };
  for (const Case& c : {Case{1.0, 0.0, 3, -1.0 / 6}, Case{9.0 / 8, -1.0 / 24, 5, -3.0 / 40}}) {
    SCOPED_TRACE(c.c3 == 0 ? "naive" : "improved");
    const StaggeredLinks<double> links = FreeLinks(lattice, c.c1, c.c3);
    const double d_full = Deviation(links, 2), d_half = Deviation(links, 1);
    // Rounding of s at the origin: four (or two) neighbours, each within 16 u_d of the exact wave, times
    // |c|, plus the sums: <= 20 u_d (|c1| + |c3|); p itself is within 2 u_d p.
    const double eps = 20 * kUd * (std::abs(c.c1) + std::abs(c.c3)) + 2 * kUd * p;
    // Truncation: the next term of the series is relatively 3 p^2 / 80 (naive) or 5 p^2 / 28 (improved) of
    // the leading one; p^2 / 4 bounds both, with room for the O(p^4) remainder at p ~ 0.1.
    const double truncation = p * p / 4;
    const double ratio = d_full / d_half;
    const double expected_ratio = std::pow(2.0, c.order);
    const double ratio_rounding = expected_ratio * (eps / std::abs(d_full) + eps / std::abs(d_half));
    EXPECT_NEAR(ratio, expected_ratio, expected_ratio * truncation + ratio_rounding);
    EXPECT_NEAR(d_full / std::pow(p, c.order), c.leading,
                std::abs(c.leading) * truncation + eps / std::pow(p, c.order));
  }
}

// ---------------------------------------------------------------------------------------------------
// Even-odd operator.

using DenseMatrix = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic>;

// The matrix of the matrix-free Schur operator, column by column from unit vectors.
DenseMatrix SchurMatrix(const StaggeredLinks<double>& links, const StaggeredParams& params, Parity parity) {
  const Lattice& lattice = links.lattice();
  const int n = 3 * lattice.half_volume();
  DenseMatrix a(n, n);
  for (int j = 0; j < n; ++j) {
    ColourVectorField<double> e(lattice, SubsetOf(parity)), out(lattice, SubsetOf(parity));
    e[j / 3](j % 3) = 1;
    ApplyStaggeredSchur(out, links, e, params);
    a.col(j) = ToVector(out);
  }
  return a;
}

TEST(StaggeredDslashTest, EvenOddOperator) {
  const Lattice lattice(4, 4, 4, 4);
  const StaggeredLinks<double> links = RandomLinks<double>(lattice, true, 41);
  const StaggeredParams params{0.1, FermionBoundary::AntiperiodicTime()};
  const double two_m = 2 * params.mass;
  const DenseMatrix m_full = DenseMatrix(SparseStaggered(links, params));
  const DenseMatrix normal = DenseMatrix(SparseStaggered(links, params, Dagger::kYes)) * m_full;
  // ||D||_2 <= max row sum of |D| (|D| is symmetric because D is anti-Hermitian).
  const SparseComplexMatrix d = SparseStaggeredDslash(links, params.boundary);
  double norm_d = 0;
  for (int r = 0; r < d.rows(); ++r) norm_d = std::max(norm_d, DenseMatrix(d.row(r)).cwiseAbs().sum());
  const double norm_m = two_m + norm_d;

  for (Parity parity : {Parity::kEven, Parity::kOdd}) {
    SCOPED_TRACE(ToString(parity));
    // Row/column indices of the two parities inside the full vector (3 site + c, p sites in cb order).
    std::vector<int> p_index, q_index;
    for (int cb = 0; cb < lattice.half_volume(); ++cb) {
      for (int c = 0; c < 3; ++c) {
        p_index.push_back(3 * lattice.FullIndex(parity, cb) + c);
        q_index.push_back(3 * lattice.FullIndex(Opposite(parity), cb) + c);
      }
    }
    const int n = static_cast<int>(p_index.size());
    auto block = [&](const DenseMatrix& a, const std::vector<int>& rows, const std::vector<int>& cols) {
      DenseMatrix b(rows.size(), cols.size());
      for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        for (int j = 0; j < static_cast<int>(cols.size()); ++j) b(i, j) = a(rows[i], cols[j]);
      }
      return b;
    };
    const DenseMatrix a = SchurMatrix(links, params, parity);
    // 2m times the Schur complement of the p' block: 2m [M_pp - M_pp' M_p'p'^{-1} M_p'p].
    const DenseMatrix m_qq = block(m_full, q_index, q_index);
    const DenseMatrix schur_complement =
        two_m * (block(m_full, p_index, p_index) -
                 block(m_full, p_index, q_index) * m_qq.partialPivLu().solve(block(m_full, q_index, p_index)));
    // Entry errors (Frobenius, relative to ||M||^2 n): the matrix-free and the dense products are sums of
    // <= 3V terms, each within DotConstant(3V) u of exact; the LU solve of the diagonal block 2m (exact
    // scaling) adds nothing beyond that; both are compared with the exact matrix.
    const double entry_bound = 2 * DotConstant(3 * lattice.volume(), kUd) * kUd * norm_m * norm_m * n;
    EXPECT_LE((a - schur_complement).norm(), entry_bound);
    EXPECT_LE((a - block(normal, p_index, p_index)).norm(), entry_bound);
    EXPECT_LE((a - DenseMatrix(SparseStaggeredSchur(links, params, parity))).norm(), entry_bound);
    // Hermitian, and every eigenvalue >= 4 m^2: Weyl's inequality with the Hermitian part's distance to the
    // exact matrix (entry_bound) and the eigensolver's backward error (<= n u ||A||_F, generous for
    // Householder tridiagonalisation + QR).
    EXPECT_LE((a - a.adjoint()).norm(), entry_bound);
    const DenseMatrix hermitian = (a + a.adjoint()) / 2.0;
    const Eigen::SelfAdjointEigenSolver<DenseMatrix> solver(hermitian, Eigen::EigenvaluesOnly);
    ASSERT_EQ(solver.info(), Eigen::Success);
    const double smallest = solver.eigenvalues().minCoeff();
    EXPECT_GE(smallest, 4 * params.mass * params.mass - entry_bound - n * kUd * hermitian.norm());
    EXPECT_LT(smallest, solver.eigenvalues().maxCoeff());

    // The even-odd solve: b = M x, then M_pp x_p = b'_p and x_{p'} = (b_{p'} - D_{p',p} x_p) / 2m.
    const ColourVectorField<double> x = Gaussian<double>(lattice, Subset::kFull, 7);
    ColourVectorField<double> b(lattice);
    ApplyStaggered(b, links, x, params);
    const ColourVectorField<double> x_p = Extract(x, parity);
    ColourVectorField<double> schur_x(lattice, x_p.subset());
    ApplyStaggeredSchur(schur_x, links, x_p, params);
    // Norm-wise: every product is within DotConstant(49) u of exact, at most four in sequence, each
    // bounded by ||M|| <= 2m + ||D||; the division by 2m amplifies the reconstruction's by 1 / 2m.
    const double c = 4 * DotConstant(49, kUd) * kUd;
    EXPECT_LE(Norm(Difference(PrepareStaggeredSchurSource(links, b, params, parity), schur_x)),
              c * norm_m * norm_m * Norm(x));
    const ColourVectorField<double> rebuilt = ReconstructStaggeredSolution(links, x_p, b, params);
    EXPECT_LE(Norm(Difference(rebuilt, x)), c * norm_m * Norm(x) / two_m);
  }
}

// ---------------------------------------------------------------------------------------------------

// The loops over output sites run on every OpenMP thread; each site is one thread's, in a fixed order, so D and
// its parity form give the same bits with 1, 2, 3 and 5 threads (5 does not divide the sites evenly).
TEST(StaggeredDslashTest, ThreadsChangeNoBit) {
  const Lattice lattice(4, 4, 6, 4);
  const StaggeredLinks<double> links = RandomLinks<double>(lattice, true, 29);
  const ColourVectorField<double> x = Gaussian<double>(lattice, Subset::kFull, 31);
  const ColourVectorField<double> x_odd = Gaussian<double>(lattice, Subset::kOdd, 32);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  ColourVectorField<double> d(lattice), d_parity(lattice, Subset::kEven);
  ApplyStaggeredDslash(d, links, x, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
  ApplyStaggeredDslashParity(d_parity, links, x_odd, FermionBoundary::AntiperiodicTime(), Dagger::kYes);
  for (const int threads : {2, 3, 5}) {
    omp_set_num_threads(threads);
    ColourVectorField<double> d_t(lattice), d_parity_t(lattice, Subset::kEven);
    ApplyStaggeredDslash(d_t, links, x, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
    ApplyStaggeredDslashParity(d_parity_t, links, x_odd, FermionBoundary::AntiperiodicTime(), Dagger::kYes);
    for (int i = 0; i < d.sites(); ++i) ASSERT_EQ(d_t[i], d[i]) << threads << " threads, site " << i;
    for (int i = 0; i < d_parity.sites(); ++i) {
      ASSERT_EQ(d_parity_t[i], d_parity[i]) << threads << " threads, even site " << i;
    }
  }
  omp_set_num_threads(saved);
}

TEST(StaggeredDslashTest, BadInput) {
  const Lattice lattice(4, 4, 4, 4), other(4, 4, 4, 6), thin(4, 2, 4, 4);
  const StaggeredLinks<double> links = RandomLinks<double>(lattice, true, 1);
  const StaggeredParams params{0.1, FermionBoundary::AntiperiodicTime()};
  const FermionBoundary boundary = params.boundary;
  ColourVectorField<double> x(lattice), out(lattice), y(other), x_e(lattice, Subset::kEven);

  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredDslash(out, links, y, boundary); }), "links on 4x4x4x4 but field on 4x4x4x6");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredDslash(out, links, x_e, boundary); }), "must be a full-lattice field");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredDslashParity(out, links, x, boundary); }), "must be a single-parity field");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredSchur(out, links, x, params); }), "must be a single-parity field");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredDslash(x, links, x, boundary); }), "must be different fields");
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggered(x, links, x, params); }), "must be different fields");

  StaggeredLinks<double> mixed = links;
  mixed.long_links = GaugeField<double>(other);
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggeredDslash(out, mixed, x, boundary); }), "but long links on 4x4x4x6");
  EXPECT_CONTAINS(ErrorOf([&] { SparseStaggeredDslash(mixed, boundary); }), "but long links on 4x4x4x6");

  // Long links on an extent-2 lattice are refused; the naive operator there is fine.
  const StaggeredLinks<double> thin_links = RandomLinks<double>(thin, true, 2);
  ColourVectorField<double> thin_x(thin), thin_out(thin);
  const std::string message = ErrorOf([&] { ApplyStaggeredDslash(thin_out, thin_links, thin_x, boundary); });
  EXPECT_CONTAINS(message, "long links need every extent >= 3");
  EXPECT_CONTAINS(message, "extent 2 in direction 1");
  EXPECT_CONTAINS(ErrorOf([&] { SparseStaggeredDslash(thin_links, boundary); }), "long links need every extent >= 3");
  EXPECT_EQ(ErrorOf([&] { ApplyStaggeredDslash(thin_out, StaggeredLinks<double>::Naive(thin_links.fat), thin_x, boundary); }),
            "");

  StaggeredParams bad = params;
  bad.mass = std::numeric_limits<double>::quiet_NaN();
  EXPECT_CONTAINS(ErrorOf([&] { ApplyStaggered(out, links, x, bad); }), "mass must be finite");
  bad.mass = 0;
  EXPECT_CONTAINS(ErrorOf([&] { ReconstructStaggeredSolution(links, x_e, x, bad); }), "needs m != 0");
  EXPECT_CONTAINS(ErrorOf([&] { ReconstructStaggeredSolution(links, x, x, params); }), "single-parity solution");
  EXPECT_CONTAINS(ErrorOf([&] { PrepareStaggeredSchurSource(links, x_e, params, Parity::kEven); }),
                  "must be a full-lattice field");
  EXPECT_CONTAINS(ErrorOf([&] { ApplySparse(SparseStaggeredDslash(links, boundary), x_e, Subset::kFull); }), "columns");
}

}  // namespace
}  // namespace lqcd
