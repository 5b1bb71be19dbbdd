// Tests of the multi-mass driver (multi_mass.h) and its initial guesses (initial_guess.h): Lagrange
// weights and the regularised Gram least-squares solve as pure functions, then the driver with even-odd
// BiCGstab on M(m) and with CG on M^dag M + sigma on a 4^4 random SU(3) field: every guessing strategy
// gives the same solutions as zero guesses (to a rigorous bound) in strictly fewer total iterations.
//
// Bounds: for the Wilson matrix at mass m > 0 and any gauge field, |M(m)^{-1}| <= 1 / m (testing.h), so two
// solutions of M(m) x = b with relative residuals <= tol differ by at most 2 tol |b| / m; for
// M^dag M + sigma, by 2 tol |b| / (m^2 + sigma).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <iostream>
#include <limits>
#include <vector>

#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/cpu_backend.h"
#include "solvers/even_odd.h"
#include "solvers/initial_guess.h"
#include "solvers/multi_mass.h"
#include "solvers/operators.h"
#include "solvers/shifted_operator.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

constexpr double kUDouble = 0x1p-53;
using B = CpuBackend;

// ---------- Lagrange weights ----------

TEST(LagrangeWeights, SumToOneAndReproducePolynomialsOfLowerDegree) {
  const std::vector<double> nodes = {0.5, 0.3, 0.2, 0.12};
  const double m = 0.05;  // extrapolation below the nodes, as in the driver
  const std::vector<double> w = LagrangeWeights(nodes, m);
  double sum = 0, sum_abs = 0;
  for (double wj : w) {
    sum += wj;
    sum_abs += std::fabs(wj);
  }
  // Each weight is a product of 3 quotients (a few ulp each); the sum of 4 of them is exact to ~ u sum|w|.
  EXPECT_NEAR(sum, 1.0, 16 * kUDouble * sum_abs);
  // A cubic through 4 nodes is reproduced exactly up to rounding ~ u sum |w_j p(m_j)|.
  auto p = [](double x) { return 2.0 - 3.0 * x + 0.5 * x * x + 7.0 * x * x * x; };
  double value = 0, scale = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    value += w[j] * p(nodes[j]);
    scale += std::fabs(w[j] * p(nodes[j]));
  }
  EXPECT_NEAR(value, p(m), 16 * kUDouble * scale);
  // A quartic is NOT reproduced by 4 nodes (so the test above would notice a wrong degree).
  auto q = [](double x) { return x * x * x * x; };
  double qv = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) qv += w[j] * q(nodes[j]);
  EXPECT_GT(std::fabs(qv - q(m)), 1e-4);
  EXPECT_EQ(LagrangeWeights({0.4}, 0.1), std::vector<double>{1.0});
  EXPECT_THROW(LagrangeWeights({0.4, 0.4}, 0.1), std::invalid_argument);
  EXPECT_THROW(LagrangeWeights({}, 0.1), std::invalid_argument);
  EXPECT_THROW(LagrangeWeights({0.4, 0.2}, std::nan("")), std::invalid_argument);
}

TEST(PolynomialGuess, ExtrapolatesAFieldQuadraticInTheMassExactly) {
  // x(m) = c0 + m c1 + m^2 c2 with Gaussian fields c_k: three samples determine it.
  const Lattice lattice(4, 4, 4, 4);
  SpinorField<double> c0(lattice), c1(lattice), c2(lattice);
  FillGaussian(c0, 1);
  FillGaussian(c1, 2);
  FillGaussian(c2, 3);
  auto at = [&](double m) {
    SpinorField<double> x = c0;
    Axpy(Complex<double>(m), c1, x);
    Axpy(Complex<double>(m * m), c2, x);
    return x;
  };
  const std::vector<double> masses = {0.4, 0.25, 0.15};
  const std::vector<SpinorField<double>> samples = {at(masses[0]), at(masses[1]), at(masses[2])};
  const std::vector<const SpinorField<double>*> ptrs = {&samples[0], &samples[1], &samples[2]};
  SpinorField<double> guess(lattice);
  PolynomialGuess<B>(guess, ptrs, masses, 0.05);
  const SpinorField<double> exact = at(0.05);
  // Rounding: sum_j |w_j| |x_j| u times a few operations per component.
  const std::vector<double> w = LagrangeWeights(masses, 0.05);
  double scale = 0;
  for (std::size_t j = 0; j < 3; ++j) scale += std::fabs(w[j]) * std::sqrt(Norm2(samples[j]));
  EXPECT_LE(std::sqrt(Norm2(Difference(guess, exact))), 8 * kUDouble * scale);
}

// ---------- the regularised Gram solve ----------

TEST(SolveGramLeastSquares, MatchesAQrLeastSquaresSolveForIndependentColumns) {
  Eigen::MatrixXcd d = Eigen::MatrixXcd::Zero(40, 3);
  Eigen::VectorXcd b(40);
  for (int i = 0; i < 40; ++i) {
    b(i) = {std::sin(1.0 + i), std::cos(2.0 * i)};
    for (int j = 0; j < 3; ++j) d(i, j) = {std::sin(0.3 * i * (j + 1) + j), std::cos(0.7 * i - j)};
  }
  const Eigen::MatrixXcd g = d.adjoint() * d;
  const Eigen::VectorXcd h = d.adjoint() * b;
  const GramSolution sol = SolveGramLeastSquares(g, h, 80, b.squaredNorm());
  EXPECT_EQ(sol.rank, 3);
  const Eigen::VectorXcd qr = d.colPivHouseholderQr().solve(b);
  // The columns are well conditioned (checked: cond(D) < 10 below), so the normal equations lose at most
  // cond^2 u ~ 1e2 u relative.
  const Eigen::JacobiSVD<Eigen::MatrixXcd> svd(d);
  const double cond = svd.singularValues()(0) / svd.singularValues()(2);
  ASSERT_LT(cond, 10.0);
  for (int j = 0; j < 3; ++j) EXPECT_LE(std::abs(sol.c[j] - qr(j)), 1e3 * kUDouble * qr.norm());
  // The predicted residual is the actual one.
  Eigen::VectorXcd c(3);
  for (int j = 0; j < 3; ++j) c(j) = sol.c[j];
  EXPECT_NEAR(sol.predicted_residual2, (b - d * c).squaredNorm() / b.squaredNorm(), 1e3 * kUDouble);
}

TEST(SolveGramLeastSquares, DropsExactlyDependentAndZeroColumns) {
  // Columns: v, 2 v (dependent), 0 (zero), w. Rank 2; the fit equals the least-squares fit on {v, w}.
  Eigen::MatrixXcd d = Eigen::MatrixXcd::Zero(30, 4);
  Eigen::VectorXcd b(30);
  for (int i = 0; i < 30; ++i) {
    d(i, 0) = {std::sin(0.5 * i), 1.0};
    d(i, 1) = 2.0 * d(i, 0);
    d(i, 3) = {std::cos(0.9 * i), std::sin(0.2 * i * i)};
    b(i) = {1.0 + 0.1 * i, -0.5};
  }
  const GramSolution sol = SolveGramLeastSquares(d.adjoint() * d, d.adjoint() * b, 60, b.squaredNorm());
  EXPECT_EQ(sol.rank, 2);
  EXPECT_EQ(sol.c[2], std::complex<double>(0));
  Eigen::MatrixXcd vw(30, 2);
  vw << d.col(0), d.col(3);
  const double best = (b - vw * vw.colPivHouseholderQr().solve(b)).squaredNorm() / b.squaredNorm();
  Eigen::VectorXcd c(4);
  for (int j = 0; j < 4; ++j) c(j) = sol.c[j];
  // The dependent pair's eigenvalue is rounding (~1e-16 relative), far below tau = 4 * 60 * u ~ 3e-14.
  EXPECT_NEAR((b - d * c).squaredNorm() / b.squaredNorm(), best, 1e-12);
  EXPECT_NEAR(sol.threshold, 4 * 60 * kUDouble, 1e-30);
  EXPECT_THROW(SolveGramLeastSquares(Eigen::MatrixXcd::Identity(2, 2), Eigen::VectorXcd::Zero(3), 6, 1),
               std::invalid_argument);
}

// ---------- the driver on Wilson systems ----------

struct Problem {
  Lattice lattice = Lattice(4, 4, 4, 4);
  GaugeField<double> u = testing::RandomSu3Gauge(lattice, 21);
  SpinorField<double> b{lattice};
  Problem() { FillGaussian(b, 121); }
  WilsonParams At(double m) const {
    WilsonParams p;
    p.mass = m;
    return p;
  }
};

SolverParams Tolerance(double tol) {
  SolverParams p;
  p.tolerance = tol;
  return p;
}

// Runs the driver with even-odd BiCGstab (the paper's single-mass solver) and checks it against the
// zero-guess baseline.
MultiMassResult RunEvenOdd(const Problem& pr, const std::vector<double>& masses, const MultiMassOptions& options,
                           std::vector<SpinorField<double>>& x) {
  x.assign(masses.size(), SpinorField<double>(pr.lattice));
  return SolveMultiMass(
      masses, x, pr.b, Tolerance(1e-12), options, [&](double m) { return CpuWilson<double>(pr.u, pr.At(m)); },
      [&](double m, SpinorField<double>& xm, const SpinorField<double>& bm, const SolverParams& p) {
        const CpuWilson<double> full(pr.u, pr.At(m));
        const CpuWilsonSchur<double> schur(pr.u, pr.At(m), Parity::kEven);
        return EvenOddBiCGstab(schur, full, xm, bm, p);
      });
}

TEST(MultiMass, EveryGuessSavesIterationsAndGivesTheSameSolutions) {
  const Problem pr;
  // A narrow and a wide set of masses (in lattice units, above the bound m > 0 that makes M invertible for
  // any field), cf. Table 2 of arXiv:1103.5103 relative to their critical mass.
  const std::vector<std::vector<double>> sets = {{0.06, 0.07, 0.08, 0.09, 0.10, 0.11},
                                                 {0.05, 0.1, 0.2, 0.4, 0.8}};
  for (const auto& masses : sets) {
    MultiMassOptions zero;
    zero.guess = GuessStrategy::kZero;
    std::vector<SpinorField<double>> reference;
    const MultiMassResult base = RunEvenOdd(pr, masses, zero, reference);
    ASSERT_TRUE(base.all_converged()) << base.Summary();
    // Ground truth for the lightest (hardest, last-solved) mass: the sparse LU solve of M(m) (one
    // factorisation, ~1 s). With e_lu its own residual (oracle), |x - x_lu| <= (1e-12 + e_lu) |b| / m.
    const std::size_t lightest = 0;  // masses are listed lightest first
    const SpinorField<double> direct = DirectSolve(pr.u, pr.At(masses[lightest]), pr.b);
    const double lu_residual = testing::WilsonResidual(pr.u, pr.At(masses[lightest]), direct, pr.b);
    ASSERT_LT(lu_residual, 1e-13);
    const double direct_bound = (1e-12 + lu_residual) * std::sqrt(Norm2(pr.b)) / masses[lightest];
    std::vector<MultiMassOptions> strategies(5);
    strategies[0].guess = GuessStrategy::kPolynomial;  // highest order
    strategies[1].guess = GuessStrategy::kPolynomial;
    strategies[1].polynomial_order = 1;
    strategies[2].guess = GuessStrategy::kPolynomial;
    strategies[2].polynomial_order = 0;
    strategies[3].guess = GuessStrategy::kMinimalResidual;
    strategies[4].guess = GuessStrategy::kMinimalResidual;
    strategies[4].shifted_family = true;
    for (MultiMassOptions options : strategies) {
      options.measure_baseline = true;
      std::vector<SpinorField<double>> x;
      const MultiMassResult r = RunEvenOdd(pr, masses, options, x);
      std::cout << r.Summary() << "\n";
      SCOPED_TRACE(r.Summary());
      ASSERT_TRUE(r.all_converged());
      // The baseline inside the driver is the zero-guess run above (deterministic).
      EXPECT_EQ(r.baseline_iterations, base.total_iterations);
      EXPECT_LT(r.total_iterations, r.baseline_iterations);  // the point of the guesses
      EXPECT_LT(r.gain(), 1.0);
      // Heaviest first; the first solve starts from zero, every later guess is better than zero.
      for (std::size_t s = 0; s + 1 < r.solve_order.size(); ++s) {
        EXPECT_GT(masses[r.solve_order[s]], masses[r.solve_order[s + 1]]);
      }
      EXPECT_EQ(r.guess_residuals[r.solve_order[0]], 1.0);
      for (std::size_t s = 1; s < r.solve_order.size(); ++s) EXPECT_LT(r.guess_residuals[r.solve_order[s]], 1.0);
      for (std::size_t i = 0; i < masses.size(); ++i) {
        // Same solutions as from zero guesses: |x - x'| <= 2 tol |b| / m (rigorous, file comment).
        EXPECT_LE(std::sqrt(Norm2(Difference(x[i], reference[i]))), 2e-12 * std::sqrt(Norm2(pr.b)) / masses[i]);
        if (i == lightest) {
          EXPECT_LE(std::sqrt(Norm2(Difference(x[i], direct))), direct_bound);
        }
        EXPECT_LE(testing::WilsonResidual(pr.u, pr.At(masses[i]), x[i], pr.b), 1e-12 + 1e3 * kUDouble);
      }
      // Cost bookkeeping of the guesses (n masses, n - 1 nonzero guesses, one residual each):
      const long long n = static_cast<long long>(masses.size());
      if (options.guess == GuessStrategy::kPolynomial) {
        EXPECT_EQ(r.guess_applications, n - 1);
        const int q = options.polynomial_order == MultiMassOptions::kHighestOrder ? 1 << 20 : options.polynomial_order + 1;
        for (std::size_t s = 1; s < r.solve_order.size(); ++s) {
          EXPECT_EQ(r.guess_basis[r.solve_order[s]], std::min<int>(q, static_cast<int>(s)));
        }
      } else if (options.shifted_family) {
        EXPECT_EQ(r.guess_applications, 2 * (n - 1));  // A(m_j) x_j once per solution + guess residuals
      } else {
        EXPECT_EQ(r.guess_applications, n * (n - 1) / 2 + (n - 1));  // k applications for the k-th guess
      }
    }
  }
}

TEST(MultiMass, HighestOrderExtrapolationBeatsTheConstantGuessOnTheNarrowSet) {
  // The paper's finding (Fig. 6): the highest available order is best; at least it beats order 0.
  const Problem pr;
  const std::vector<double> masses = {0.06, 0.07, 0.08, 0.09, 0.10, 0.11};
  MultiMassOptions high, constant;
  constant.polynomial_order = 0;
  std::vector<SpinorField<double>> x;
  const int high_iterations = RunEvenOdd(pr, masses, high, x).total_iterations;
  const int constant_iterations = RunEvenOdd(pr, masses, constant, x).total_iterations;
  EXPECT_LT(high_iterations, constant_iterations);
}

TEST(MultiMass, WorksWithCgOnTheShiftedNormalOperator) {
  // A(sigma) = M^dag M + sigma: a shifted family in sigma, larger sigma = "heavier".
  const Problem pr;
  const CpuWilson<double> m(pr.u, pr.At(0.1));
  const NormalOperator<CpuWilson<double>> normal(m);
  const std::vector<double> sigmas = {0.0, 0.002, 0.005, 0.01, 0.02};
  for (GuessStrategy g : {GuessStrategy::kPolynomial, GuessStrategy::kMinimalResidual}) {
    MultiMassOptions options;
    options.guess = g;
    options.shifted_family = true;
    options.measure_baseline = true;
    std::vector<SpinorField<double>> x(sigmas.size(), SpinorField<double>(pr.lattice));
    const MultiMassResult r = SolveMultiMass(
        sigmas, x, pr.b, Tolerance(1e-12), options,
        [&](double s) { return ShiftedOperator<NormalOperator<CpuWilson<double>>>(normal, s); },
        [&](double s, SpinorField<double>& xs, const SpinorField<double>& bs, const SolverParams& p) {
          return ConjugateGradient(ShiftedOperator<NormalOperator<CpuWilson<double>>>(normal, s), xs, bs, p);
        });
    std::cout << r.Summary() << "\n";
    ASSERT_TRUE(r.all_converged()) << r.Summary();
    EXPECT_LT(r.total_iterations, r.baseline_iterations) << r.Summary();
  }
}

TEST(MinimalResidualGuess, FindsTheExactSolutionInTheSpan) {
  // Span {x*, noise} with A x* = b: the minimising combination is (1, 0) and the guess residual vanishes
  // to the accuracy of x* (solved to 1e-13) and of the Gram solve.
  const Problem pr;
  const CpuWilson<double> m(pr.u, pr.At(0.1));
  SpinorField<double> exact(pr.lattice), noise(pr.lattice), guess(pr.lattice);
  ASSERT_TRUE(BiCGstab(m, exact, pr.b, Tolerance(1e-13)).converged());
  FillGaussian(noise, 77);
  SpinorField<double> m_exact(pr.lattice), m_noise(pr.lattice);
  m.Apply(m_exact, exact);
  m.Apply(m_noise, noise);
  double flops = 0;
  const GramSolution g = MinimalResidualGuess<B>(guess, {&noise, &exact}, {&m_noise, &m_exact}, pr.b, flops);
  EXPECT_EQ(g.rank, 2);
  EXPECT_GT(flops, 0);
  EXPECT_NEAR(std::abs(g.c[1] - 1.0), 0.0, 1e-11);
  EXPECT_NEAR(std::abs(g.c[0]), 0.0, 1e-11);
  EXPECT_LE(testing::WilsonResidual(pr.u, pr.At(0.1), guess, pr.b), 1e-12);
  // The prediction |b|^2 - 2 Re(c^dag h) + c^dag G c cancels terms of size |b|^2, each with the Gram
  // entries' rounding (<= n u relative, n = real components): it is only good to the threshold k n u.
  EXPECT_LE(g.predicted_residual2, g.threshold);
}

TEST(MultiMass, BadInputThrows) {
  const Problem pr;
  std::vector<SpinorField<double>> x(2, SpinorField<double>(pr.lattice));
  auto make = [&](double m) { return CpuWilson<double>(pr.u, pr.At(m)); };
  auto solve = [&](double m, SpinorField<double>& xm, const SpinorField<double>& bm, const SolverParams& p) {
    return BiCGstab(CpuWilson<double>(pr.u, pr.At(m)), xm, bm, p);
  };
  MultiMassOptions options;
  EXPECT_THROW(SolveMultiMass({0.1, 0.1}, x, pr.b, SolverParams{}, options, make, solve), std::invalid_argument);
  EXPECT_THROW(SolveMultiMass({0.1}, x, pr.b, SolverParams{}, options, make, solve), std::invalid_argument);
  EXPECT_THROW(SolveMultiMass({}, x, pr.b, SolverParams{}, options, make, solve), std::invalid_argument);
  EXPECT_THROW(SolveMultiMass({0.1, std::nan("")}, x, pr.b, SolverParams{}, options, make, solve),
               std::invalid_argument);
  SpinorField<double> nan_source = pr.b;
  nan_source[0](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(SolveMultiMass({0.1, 0.2}, x, nan_source, SolverParams{}, options, make, solve), std::invalid_argument);
  options.polynomial_order = -2;
  EXPECT_THROW(SolveMultiMass({0.1, 0.2}, x, pr.b, SolverParams{}, options, make, solve), std::invalid_argument);
  MultiMassResult no_baseline;
  EXPECT_THROW(no_baseline.gain(), std::logic_error);
}

TEST(MultiMass, FailedSolvesAreReportedNotHidden) {
  // A budget of 3 iterations: every solve reports kMaxIterations, the driver still returns every record.
  const Problem pr;
  std::vector<SpinorField<double>> x(3, SpinorField<double>(pr.lattice));
  SolverParams p = Tolerance(1e-12);
  p.max_iterations = 3;
  const MultiMassResult r = SolveMultiMass(
      {0.1, 0.2, 0.4}, x, pr.b, p, MultiMassOptions{}, [&](double m) { return CpuWilson<double>(pr.u, pr.At(m)); },
      [&](double m, SpinorField<double>& xm, const SpinorField<double>& bm, const SolverParams& pp) {
        return BiCGstab(CpuWilson<double>(pr.u, pr.At(m)), xm, bm, pp);
      });
  EXPECT_FALSE(r.all_converged());
  for (const SolveResult& s : r.solves) {
    EXPECT_EQ(s.status, SolveStatus::kMaxIterations) << s.Summary();
    EXPECT_EQ(s.iterations, 3);
  }
  EXPECT_EQ(r.total_iterations, 9);
}

}  // namespace
}  // namespace lqcd::solvers
