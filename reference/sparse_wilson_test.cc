// sparse_wilson_test: the explicit sparse matrices of sparse_wilson.h against the matrix-free operators
// of wilson.h, and the SparseLU direct solver that the solvers use as ground truth.
//
// What is proved:
//   - for D, D^dag, M, M^dag, D_{p,p'} (both parities, both daggers) and M_pp (both parities, both
//     daggers), the sparse matrix times a random vector equals the matrix-free operator, in both gamma
//     bases and for periodic and antiperiodic conditions, with the float operator checked on the same
//     inputs; on a lattice with an extent of 2, where n + mu = n - mu and Eq. (1)'s two hops add up;
//   - the optional per-site term A enters M as the block diagonal it should, and the generalised Schur
//     complement 2 kappa [T_pp - (1/4) D T^{-1} D] reproduces the full system (M x = b);
//   - DirectWilsonSolver solves M x = b, M^dag x = b and M_pp x_p = b_p on 4^4 and 4^3x8 (hot and smooth
//     fields) with residuals at rounding level, recovers a known solution within a rigorous a-posteriori
//     bound, and the Schur route (PrepareSchurSource, LU of M_ee, ReconstructSolution) agrees with the
//     LU of the full M;
//   - bad input throws std::invalid_argument.
// Bounds: sparse products in double are bounded by ChainRounding below; the matrix-free ones by
// wilson_error_bounds.h; the LU ones are derived next to each assertion.
#include "reference/sparse_wilson.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "reference/wilson_error_bounds.h"

namespace lqcd {
namespace {

namespace tb = testing_bounds;
using tb::ErrorEnvelope;
using tb::UnitRoundoff;

constexpr double kUd = UnitRoundoff<double>();

struct Config {
  GammaBasis basis;
  FermionBoundary boundary;
  std::string name;
};

std::vector<Config> AllConfigs() {
  FermionBoundary all_antiperiodic;
  for (auto& c : all_antiperiodic.condition) c = BoundaryCondition::kAntiperiodic;
  std::vector<Config> configs;
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    for (const FermionBoundary& boundary :
         {FermionBoundary::Periodic(), FermionBoundary::AntiperiodicTime(), all_antiperiodic}) {
      configs.push_back({basis, boundary, std::string(ToString(basis)) + " " + boundary.ToString()});
    }
  }
  return configs;
}

WilsonParams Params(double mass, GammaBasis basis, const FermionBoundary& boundary) {
  WilsonParams p;
  p.mass = mass;
  p.basis = basis;
  p.boundary = boundary;
  return p;
}

double Norm(const SpinorField<double>& x) { return std::sqrt(Norm2(x)); }

// || |A| ||_2 <= sqrt(max row sum * max column sum) of the entry moduli (Schur's test).
double AbsNormBound(const SparseComplexMatrix& a) {
  std::vector<double> rows(a.rows(), 0.0), cols(a.cols(), 0.0);
  for (int k = 0; k < a.outerSize(); ++k) {
    for (SparseComplexMatrix::InnerIterator it(a, k); it; ++it) {
      rows[it.row()] += std::abs(it.value());
      cols[it.col()] += std::abs(it.value());
    }
  }
  return std::sqrt(*std::max_element(rows.begin(), rows.end()) * *std::max_element(cols.begin(), cols.end()));
}

int MaxRowNonZeros(const SparseComplexMatrix& a) {
  std::vector<int> count(a.rows(), 0);
  for (int k = 0; k < a.outerSize(); ++k) {
    for (SparseComplexMatrix::InnerIterator it(a, k); it; ++it) ++count[it.row()];
  }
  return *std::max_element(count.begin(), count.end());
}

// First-order rounding of y = A_1 A_2 ... A_k x in double, in units of u_d ||x||, however the product is
// associated (matrix-matrix products first, as SparseSchur does, or matrix-vector products): every
// elementary step is an inner product of at most nnz_i terms (a complex product, < 3 u, and nnz_i - 1
// additions), bounded relative to |A_i| times the moduli of the rest, so
//     ||fl(y) - y|| <= u sum_i (nnz_i + 3) prod_j || |A_j| || ||x||.
double ChainRounding(std::initializer_list<const SparseComplexMatrix*> chain) {
  double product = 1, steps = 0;
  for (const SparseComplexMatrix* a : chain) {
    product *= AbsNormBound(*a);
    steps += MaxRowNonZeros(*a) + 3;
  }
  return steps * product;
}

// The site-index selection of a parity field: the sparse matrices put site n at checkerboard index n / 2.
SpinorField<double> GaussianField(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  SpinorField<double> x(lattice, subset);
  FillGaussian(x, seed);
  return x;
}

template <typename T>
class SparseWilsonTest : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(SparseWilsonTest, Precisions);

// ---------------------------------------------------------------------------------------------------
// Sparse == matrix-free.

TYPED_TEST(SparseWilsonTest, SparseMatricesEqualTheMatrixFreeOperators) {
  using T = TypeParam;
  const double u = UnitRoundoff<T>();
  // Lz = 2: the forward and backward z-neighbours coincide, and Eq. (1) adds both hops.
  const Lattice lattice(4, 6, 2, 4);
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 1001);
  const GaugeField<T> links_t = ConvertGaugeField<T>(links);
  // The float operator sees the rounded inputs; the sparse (double) product is applied to the same ones.
  const SpinorField<T> x_t = ConvertSpinorField<T>(GaussianField(lattice, Subset::kFull, 5));
  const SpinorField<double> x = ConvertSpinorField<double>(x_t);
  const double nx = Norm(x);
  auto deviation = [](const SpinorField<T>& matrix_free, const SpinorField<double>& sparse) {
    return Norm(Difference(ConvertSpinorField<double>(matrix_free), sparse));
  };
  for (const Config& config : AllConfigs()) {
    const WilsonParams params = Params(-0.2, config.basis, config.boundary);
    const double kappa = params.kappa();
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      SCOPED_TRACE(config.name + (dagger == Dagger::kYes ? " dagger" : ""));
      // D: matrix-free envelope (precision T) + the sparse product in double. The sparse matrix is built
      // from the double links and the float operator from the rounded ones: a perturbation with
      // ||dU||_F <= u ||U||_F changes D by at most 8 hops x ||1 +- gamma|| (= 2) x u sqrt(3) = 16 sqrt(3) u.
      const double link_rounding = std::is_same<T, float>::value ? 16 * std::sqrt(3.0) * u : 0.0;
      const SparseComplexMatrix d = SparseHopping(links, config.basis, config.boundary, dagger);
      SpinorField<T> d_x(lattice);
      ApplyHopping(d_x, links_t, x_t, config.basis, config.boundary, dagger);
      const double d_bound = tb::Hop(tb::Input(), u).error + link_rounding + ChainRounding({&d}) * kUd;
      EXPECT_LE(deviation(d_x, ApplySparse(d, x, Subset::kFull)), d_bound * nx);
      // A wrong sign anywhere would show at order one: check the dagger is not the identity map.
      if (dagger == Dagger::kYes) {
        EXPECT_GT(deviation(d_x, ApplySparse(SparseHopping(links, config.basis, config.boundary), x, Subset::kFull)),
                  0.1 * nx);
      }

      // M (the diagonal adds one entry per row).
      const SparseComplexMatrix m = SparseWilson(links, params, dagger);
      SpinorField<T> m_x(lattice);
      ApplyWilson(m_x, links_t, x_t, params, dagger);
      const double m_bound = tb::Wilson(tb::Input(), kappa, u).error + link_rounding / 2 + ChainRounding({&m}) * kUd;
      EXPECT_LE(deviation(m_x, ApplySparse(m, x, Subset::kFull)), m_bound * nx);

      for (Parity out : {Parity::kEven, Parity::kOdd}) {
        SCOPED_TRACE(ToString(out));
        // D_{p,p'}: cut out of D with 0/1 selections (exact).
        const SparseComplexMatrix d_part = SparseHoppingParity(links, config.basis, config.boundary, out, dagger);
        ASSERT_EQ(d_part.rows(), 12 * lattice.half_volume());
        const SpinorField<T> x_in_t = Extract(x_t, Opposite(out));
        const SpinorField<double> x_in = Extract(x, Opposite(out));
        SpinorField<T> part(lattice, SubsetOf(out));
        ApplyHoppingParity(part, links_t, x_in_t, config.basis, config.boundary, dagger);
        EXPECT_LE(deviation(part, ApplySparse(d_part, x_in, SubsetOf(out))),
                  (tb::Hop(tb::Input(), u).error + link_rounding + ChainRounding({&d_part}) * kUd) * Norm(x_in));

        // M_pp = 1 - kappa^2 D_{p,p'} D_{p',p}, formed by a sparse product: the chain D D, then the
        // scaling and subtraction (3 u relative to 1 + kappa^2 || |D| ||^2) and the product with x.
        const SparseComplexMatrix schur = SparseSchur(links, params, out, dagger);
        const SparseComplexMatrix d_back = SparseHoppingParity(links, config.basis, config.boundary, Opposite(out), dagger);
        const SpinorField<T> xp_t = Extract(x_t, out);
        const SpinorField<double> xp = Extract(x, out);
        SpinorField<T> s_x(lattice, SubsetOf(out));
        ApplySchur(s_x, links_t, xp_t, params, dagger);
        const double schur_sparse = kappa * kappa * ChainRounding({&d_part, &d_back}) +
                                    3 * (1 + kappa * kappa * AbsNormBound(d_part) * AbsNormBound(d_back)) +
                                    ChainRounding({&schur});
        const double schur_bound = tb::Schur(tb::Input(), kappa, u).error +
                                   kappa * kappa * 2 * tb::kHoppingNorm * link_rounding + schur_sparse * kUd;
        EXPECT_LE(deviation(s_x, ApplySparse(schur, xp, SubsetOf(out))), schur_bound * Norm(xp));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The extra per-site term (for the clover helper).

// Random Hermitian 12x12 blocks scaled to spectral norm `size`: T = (4 + m) + A then has eigenvalues in
// [4 + m - size, 4 + m + size].
SiteBlocks RandomHermitianBlocks(const Lattice& lattice, std::uint64_t seed, double size) {
  SiteBlocks blocks(lattice.volume());
  for (int site = 0; site < lattice.volume(); ++site) {
    RandomStream rng(seed, static_cast<std::uint64_t>(site));
    SpinColorMatrix<double> g;
    for (int i = 0; i < 12; ++i) {
      for (int j = 0; j < 12; ++j) g(i, j) = Complex<double>(rng.Gaussian(), rng.Gaussian());
    }
    const SpinColorMatrix<double> h = g + g.adjoint();
    const double norm = Eigen::SelfAdjointEigenSolver<SpinColorMatrix<double>>(h).eigenvalues().cwiseAbs().maxCoeff();
    blocks[site] = (size / norm) * h;
  }
  return blocks;
}

TEST(SparseSiteTermTest, SiteTermEntersMAsABlockDiagonal) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 1101);
  const SiteBlocks blocks = RandomHermitianBlocks(lattice, 1102, 0.5);
  const WilsonParams params = Params(0.1, GammaBasis::kUkqcd, FermionBoundary::AntiperiodicTime());
  const SpinorField<double> x = GaussianField(lattice, Subset::kFull, 6);
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    const SparseComplexMatrix with = SparseWilson(links, params, dagger, blocks);
    const SparseComplexMatrix without = SparseWilson(links, params, dagger);
    // (M_A - M_0) x = A x site by site (A^dag = A for the dagger). The two sparse products round by the
    // chain bounds; A x per site by 12-term inner products: (12 + 3) u ||A|| (||A|| = 0.5).
    SpinorField<double> a_x(lattice);
    for (int site = 0; site < lattice.volume(); ++site) {
      Eigen::Matrix<Complex<double>, 12, 1> v;
      for (int k = 0; k < 12; ++k) v(k) = x[site](k / 3, k % 3);
      const Eigen::Matrix<Complex<double>, 12, 1> w = blocks[site] * v;
      for (int k = 0; k < 12; ++k) a_x[site](k / 3, k % 3) = w(k);
    }
    const SpinorField<double> difference =
        Difference(ApplySparse(with, x, Subset::kFull), ApplySparse(without, x, Subset::kFull));
    const double bound = (ChainRounding({&with}) + ChainRounding({&without}) + 15 * 0.5) * kUd;
    EXPECT_LE(Norm(Difference(difference, a_x)), bound * Norm(x));
  }
}

TEST(SparseSiteTermTest, GeneralisedSchurComplementReproducesTheFullSystem) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 1201);
  const double a_size = 0.5;
  const SiteBlocks blocks = RandomHermitianBlocks(lattice, 1202, a_size);
  const SpinorField<double> x = GaussianField(lattice, Subset::kFull, 7);
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const WilsonParams params = Params(0.1, basis, FermionBoundary::AntiperiodicTime());
    const double kappa = params.kappa();
    const SparseComplexMatrix m = SparseWilson(links, params, Dagger::kNo, blocks);
    const SpinorField<double> b = ApplySparse(m, x, Subset::kFull);
    for (Parity p : {Parity::kEven, Parity::kOdd}) {
      SCOPED_TRACE(std::string(ToString(basis)) + " " + ToString(p));
      // Odd rows of M x = b give x_p' = T^{-1} (b_p' + D x_p / 2); inserting into the p rows,
      //     2 kappa [T_pp - D T^{-1} D / 4] x_p = 2 kappa [b_p + D_{p,p'} T^{-1} b_p' / 2].
      const SparseComplexMatrix schur = SparseSchur(links, params, p, Dagger::kNo, blocks);
      const SparseComplexMatrix d = SparseHoppingParity(links, basis, params.boundary, p);
      const SparseComplexMatrix t_inv = SparseInverseSiteTerm(lattice, params, Opposite(p), blocks);
      const SpinorField<double> xp = Extract(x, p);
      const SpinorField<double> lhs = ApplySparse(schur, xp, SubsetOf(p));
      SpinorField<double> rhs = ApplySparse(d, ApplySparse(t_inv, Extract(b, Opposite(p)), SubsetOf(Opposite(p))), SubsetOf(p));
      Xpay(Extract(b, p), Complex<double>(0.5), rhs);
      Scale(Complex<double>(2 * kappa), rhs);
      // Bound, in units of u_d ||x||:
      //   T^{-1}: 12x12 inverses by full-pivoting LU, ||fl(T^{-1}) - T^{-1}|| <= 3 n^2 cond(T) ||T^{-1}||
      //   with n = 12 (Higham's normwise bound for an LU-based inverse, growth factor <= 2 for full
      //   pivoting absorbed in the factor 3), cond(T) <= (4 + m + a) / (4 + m - a).
      const double t_min = 1 / (2 * kappa) - a_size, t_max = 1 / (2 * kappa) + a_size;
      const double inverse_error = 3 * 144 * (t_max / t_min) / t_min;
      const SparseComplexMatrix d_back = SparseHoppingParity(links, basis, params.boundary, Opposite(p));
      const double nd = AbsNormBound(d), nt = AbsNormBound(t_inv), nm = AbsNormBound(m);
      // lhs: the matrix 2 kappa (T_pp - D T^{-1} D / 4) from the chain D T^{-1} D, the inverse's error,
      // the subtraction and scaling (3 u), then the product with x_p.
      const SparseComplexMatrix t_pp = SparseSiteTerm(lattice, params, SubsetOf(p), blocks);
      const double lhs_error = 2 * kappa * (ChainRounding({&d, &t_inv, &d_back}) / 4 + nd * nd * inverse_error / 4) +
                               3 * 2 * kappa * (AbsNormBound(t_pp) + nd * nt * nd / 4) + ChainRounding({&schur});
      // rhs: b's own rounding (||b|| <= || |M| || ||x||) carried by 2 kappa (1 + ||D|| ||T^{-1}|| / 2),
      // the chain D T^{-1} b, the inverse's error, and the Xpay/Scale rounding (10 u).
      const double rhs_error = ChainRounding({&m}) * 2 * kappa * (1 + nd * nt / 2) +
                               2 * kappa * (ChainRounding({&d, &t_inv}) + nd * inverse_error) * nm / 2 +
                               tb::kCombineRounding * 2 * kappa * (1 + nd * nt / 2) * nm;
      EXPECT_LE(Norm(Difference(lhs, rhs)), (lhs_error + rhs_error) * kUd * Norm(x));
      // Not vacuous: dropping A from the Schur complement breaks the identity at order a_size.
      const SpinorField<double> lhs_wilson = ApplySparse(SparseSchur(links, params, p), xp, SubsetOf(p));
      EXPECT_GT(Norm(Difference(lhs_wilson, rhs)), 0.01 * Norm(xp));
      // A = 0 blocks give the Wilson Schur complement: 2 kappa [(4 + m) - D (4 + m)^{-1} D / 4] is
      // 1 - kappa^2 D D exactly, and to rounding in value. General form: the chain D T^{-1} D (T^{-1} a
      // multiple of 1, its LU inverse within 2 u), subtraction and scaling (3 u), product with x_p.
      // Wilson form: the chain D D, scaling and subtraction (3 u), product with x_p.
      const SiteBlocks zero(lattice.volume(), SpinColorMatrix<double>::Zero());
      const SparseComplexMatrix general = SparseSchur(links, params, p, Dagger::kNo, zero);
      const SparseComplexMatrix t_inv_zero = SparseInverseSiteTerm(lattice, params, Opposite(p), zero);
      const SpinorField<double> general_x = ApplySparse(general, xp, SubsetOf(p));
      const SparseComplexMatrix wilson = SparseSchur(links, params, p);
      const double nt0 = AbsNormBound(t_inv_zero);
      const double zero_bound =
          (2 * kappa * (ChainRounding({&d, &t_inv_zero, &d_back}) / 4 + 2 * nd * nt0 * nd / 4) +
           3 * 2 * kappa * (1 / (2 * kappa) + nd * nt0 * nd / 4) + ChainRounding({&general}) +
           kappa * kappa * ChainRounding({&d, &d_back}) + 3 * (1 + kappa * kappa * nd * nd) + ChainRounding({&wilson})) *
          kUd;
      EXPECT_LE(Norm(Difference(general_x, ApplySparse(wilson, xp, SubsetOf(p)))), zero_bound * Norm(xp));
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Direct solves: the ground truth.
//
// Conditioning: the Hermitian part of M is (4 + m) - (1/2) sum_mu (W_mu + W_mu^dag) (the gamma terms of D
// and D^dag cancel), and ||W + W^dag|| <= 2 for unitary links, so Re <x, M x> >= m |x|^2: for m > 0,
// ||M^{-1}|| <= 1 / m, the same for M^dag, and cond(M) <= ||M|| / m <= (4 + m + 4 sqrt 2) / m.
// For the Schur complement, M_ee^{-1} = (1 / 2 kappa) (M^{-1})_ee, so ||M_ee^{-1}|| <= 1 / (2 kappa m), and
// ||M_ee|| <= 1 + kappa^2 ||D||^2 = 1 + 128 kappa^2.
// LU backward error: SparseLU with partial pivoting returns x^ with (M + dM) x^ = b,
// ||dM|| <= n u ||M|| (n the dimension), taking the growth factor of partial pivoting as O(1), which is
// what it is in practice (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 9). Hence
//     ||b - M x^|| / ||b|| <= n u cond(M),
// an a-priori bound. The error of the computed solution is bounded a posteriori and rigorously:
//     ||x^ - x|| <= ||M^{-1}|| (||r^|| + rounding of r^) for the computed residual r^.

struct SolveCase {
  std::string name;
  Lattice lattice;
  bool hot;  // Haar-random links, otherwise a smooth field exp(i 0.3 H)
  double mass;
  GammaBasis basis;
  FermionBoundary boundary;
  Parity schur_parity;
  Dagger dagger;
};

class DirectSolveTest : public ::testing::TestWithParam<SolveCase> {};

TEST_P(DirectSolveTest, LuSolvesTheFullAndTheSchurSystem) {
  const SolveCase& c = GetParam();
  const Lattice& lattice = c.lattice;
  const GaugeField<double> links =
      c.hot ? RandomGaugeField<double>(lattice, 2001) : RandomNearUnitGaugeField<double>(lattice, 2002, 0.3);
  const WilsonParams params = Params(c.mass, c.basis, c.boundary);
  const double kappa = params.kappa();
  const double inverse_norm = 1 / c.mass;                      // ||M^{-1}||
  const double condition = tb::WilsonNorm(kappa) * inverse_norm;  // cond(M)
  const int n = 12 * lattice.volume();

  // A known solution and its right-hand side b = fl(M x), in double, matrix-free.
  const SpinorField<double> x_true = GaussianField(lattice, Subset::kFull, 3);
  SpinorField<double> b(lattice);
  ApplyWilson(b, links, x_true, params, c.dagger);
  const ErrorEnvelope wilson = tb::Wilson(tb::Input(), kappa, kUd);
  const double nb = Norm(b);

  const auto start = std::chrono::steady_clock::now();
  const DirectWilsonSolver full(links, params, c.dagger);
  const auto factorised = std::chrono::steady_clock::now();
  const SpinorField<double> x = full.Solve(b);

  SpinorField<double> m_x(lattice);
  ApplyWilson(m_x, links, x, params, c.dagger);
  const double residual = Norm(Difference(m_x, b));
  // A priori: n u cond(M) ||b||, plus the rounding of computing M x^ (||x^|| <= ||b|| / m).
  EXPECT_LE(residual, (n * kUd * condition + wilson.error * inverse_norm) * nb);
  // A posteriori: the exact solution of M x = b is within ||M^{-1}|| (rounding of b) of x_true, and x^
  // within ||M^{-1}|| (||r^|| + rounding of r^) of it.
  const double full_error_bound =
      inverse_norm * (residual + wilson.error * Norm(x) + wilson.error * Norm(x_true));
  EXPECT_LE(Norm(Difference(x, x_true)), full_error_bound);

  // The Schur route for M x = b (no dagger here: PrepareSchurSource and ReconstructSolution are for M).
  double schur_seconds = 0;
  if (c.dagger == Dagger::kNo) {
    const Parity p = c.schur_parity;
    const SpinorField<double> b_prime = PrepareSchurSource(links, b, params, p);
    const auto schur_start = std::chrono::steady_clock::now();
    const DirectWilsonSolver schur(links, params, p);
    schur_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - schur_start).count();
    const SpinorField<double> x_p = schur.Solve(b_prime);
    // Its own residual, computed matrix-free: ||M_pp x_p - b'_p|| <= n/2 u cond(M_pp) ||b'_p||.
    SpinorField<double> s_x(lattice, SubsetOf(p));
    ApplySchur(s_x, links, x_p, params, Dagger::kNo);
    const double schur_norm = 1 + 128 * kappa * kappa, schur_inverse_norm = inverse_norm / (2 * kappa);
    const ErrorEnvelope schur_env = tb::Schur(tb::Input(), kappa, kUd);
    EXPECT_LE(Norm(Difference(s_x, b_prime)),
              (n / 2 * kUd * schur_norm * schur_inverse_norm + schur_env.error * schur_inverse_norm) * Norm(b_prime));

    const SpinorField<double> x_schur = ReconstructSolution(links, x_p, b, params);
    SpinorField<double> m_x_schur(lattice);
    ApplyWilson(m_x_schur, links, x_schur, params, Dagger::kNo);
    const double schur_residual = Norm(Difference(m_x_schur, b));
    // A priori, from the block structure (docs/error_bounds.md, "Sparse ground truth: conditioning and the bounds of the LU tests"): the p rows of
    // b - M x equal (1 / 2 kappa) (b'_p - M_pp x_p) up to rounding, the p' rows only the rounding of the
    // reconstruction. b'_p itself carries Combine(2 kappa, b, 2 kappa^2, D b) rounding.
    const ErrorEnvelope b_prime_env = tb::Combine(2 * kappa, tb::Input(), 2 * kappa * kappa, tb::Hop(tb::Input(), kUd), kUd);
    const double x_p_norm = schur_inverse_norm * b_prime_env.norm * nb;
    const ErrorEnvelope reconstruct = tb::Combine(kappa, tb::Hop(tb::Input(), kUd), 2 * kappa, tb::Input(), kUd);
    const double schur_residual_bound =
        (n / 2 * kUd * schur_norm * x_p_norm + b_prime_env.error * nb) / (2 * kappa) +
        tb::WilsonNorm(kappa) * reconstruct.error * (x_p_norm + nb) + wilson.error * Norm(x_schur);
    EXPECT_LE(schur_residual, schur_residual_bound);
    const double schur_error_bound =
        inverse_norm * (schur_residual + wilson.error * Norm(x_schur) + wilson.error * Norm(x_true));
    EXPECT_LE(Norm(Difference(x_schur, x_true)), schur_error_bound);
    // Schur solve equals full solve: both are within their bounds of the same exact solution.
    EXPECT_LE(Norm(Difference(x_schur, x)), full_error_bound + schur_error_bound);
    std::printf("[%s] Schur: M_pp residual %.2e, reconstructed residual %.2e, |x_schur - x_full| / |x| %.2e\n",
                c.name.c_str(), Norm(Difference(s_x, b_prime)) / Norm(b_prime), schur_residual / nb,
                Norm(Difference(x_schur, x)) / Norm(x));
  }
  std::printf("[%s] %s, m = %g, %s %s%s: n = %d, LU of M %.2f s (%ld non-zeros in L+U), LU of M_pp %.2f s; "
              "|Mx-b|/|b| = %.2e (a-priori bound %.2e), |x - x_true|/|x_true| = %.2e\n",
              c.name.c_str(), lattice.ToString().c_str(), c.mass, ToString(c.basis), c.boundary.ToString().c_str(),
              c.dagger == Dagger::kYes ? " dagger" : "", n,
              std::chrono::duration<double>(factorised - start).count(), full.FactorNonZeros(), schur_seconds,
              residual / nb, n * kUd * condition + wilson.error * inverse_norm,
              Norm(Difference(x, x_true)) / Norm(x_true));
}

INSTANTIATE_TEST_SUITE_P(
    Lattices, DirectSolveTest,
    ::testing::Values(
        SolveCase{"Hot4to4", Lattice(4, 4, 4, 4), true, 0.1, GammaBasis::kDeGrandRossi,
                  FermionBoundary::AntiperiodicTime(), Parity::kEven, Dagger::kNo},
        SolveCase{"SmoothDagger4to4", Lattice(4, 4, 4, 4), false, 0.05, GammaBasis::kUkqcd,
                  FermionBoundary::Periodic(), Parity::kOdd, Dagger::kYes},
        // The 4^3x8 factorisations cost about 4 s each (docs/cpu_oracle.md): one case only.
        SolveCase{"Smooth4to3x8", Lattice(4, 4, 4, 8), false, 0.05, GammaBasis::kUkqcd,
                  FermionBoundary::AntiperiodicTime(), Parity::kOdd, Dagger::kNo}),
    [](const auto& info) { return info.param.name; });

TEST(DirectSolveTest, OneShotHelperAndCopiesShareTheFactorisation) {
  const Lattice lattice(2, 2, 2, 4);
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 2101);
  const WilsonParams params = Params(0.3, GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime());
  const SpinorField<double> b = GaussianField(lattice, Subset::kFull, 9);
  const DirectWilsonSolver solver(links, params);
  const DirectWilsonSolver copy = solver;
  // The same factorisation and the same operations: identical results.
  EXPECT_EQ(MaxAbsDifference(DirectSolve(links, params, b), solver.Solve(b)), 0.0);
  EXPECT_EQ(MaxAbsDifference(copy.Solve(b), solver.Solve(b)), 0.0);
  // A single-parity source selects the Schur complement.
  const SpinorField<double> be = Extract(b, Parity::kEven);
  const SpinorField<double> xe = DirectSolve(links, params, be);
  EXPECT_EQ(xe.subset(), Subset::kEven);
  EXPECT_EQ(MaxAbsDifference(xe, DirectWilsonSolver(links, params, Parity::kEven).Solve(be)), 0.0);
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

TEST(SparseBadInputTest, ClearErrors) {
  const Lattice lattice(2, 2, 2, 4), other(2, 2, 4, 4);
  const GaugeField<double> links(lattice);
  WilsonParams params;
  const SpinorField<double> b = GaussianField(lattice, Subset::kFull, 1);
  const SpinorField<double> b_other = GaussianField(other, Subset::kFull, 1);
  ExpectInvalidArgument([&] { SparseWilson(links, params, Dagger::kNo, SiteBlocks(3)); }, "site_terms has 3 blocks");
  ExpectInvalidArgument([&] { ApplySparse(SparseHopping(links, params.basis, params.boundary), Extract(b, Parity::kEven), Subset::kFull); },
                        "columns");
  ExpectInvalidArgument([&] { FromVector(ComplexVector::Zero(5), lattice, Subset::kFull); }, "length 5");
  ExpectInvalidArgument([&] { DirectSolve(links, params, b_other); }, "2x2x4x4");
  const DirectWilsonSolver solver(links, params);
  ExpectInvalidArgument([&] { solver.Solve(Extract(b, Parity::kOdd)); }, "odd");
  ExpectInvalidArgument([&] { solver.Solve(b_other); }, "2x2x4x4");
  params.mass = -4;
  ExpectInvalidArgument([&] { SparseWilson(links, params); }, "4 + m > 0");
  ExpectInvalidArgument([&] { SparseSchur(links, params, Parity::kEven); }, "4 + m > 0");
  ExpectInvalidArgument([&] { DirectSolve(links, params, b); }, "4 + m > 0");
  // A singular site term: T = (4 + m) + A = 0 on every site.
  params.mass = 0;
  const SiteBlocks cancel(lattice.volume(), -4.0 * SpinColorMatrix<double>::Identity());
  ExpectInvalidArgument([&] { SparseSchur(links, params, Parity::kEven, Dagger::kNo, cancel); }, "singular");
}

}  // namespace
}  // namespace lqcd
