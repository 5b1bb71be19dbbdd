// Tests of the double-precision solvers of M x = b: BiCGstab on M, BiCGstab on M_ee with reconstruction,
// CGNR and CGNE; every BiCGstab exit status.
//
// Error bounds are rigorous: for kappa < 1/8, |M^{-1}| <= 2 kappa / (1 - 8 kappa) for any gauge field
// (testing.h), so |x - x*| <= |M^{-1}| |b - M x| with the residual recomputed independently by the
// oracle's ApplyWilson.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>

#include "reference/spinor_algebra.h"
#include "solvers/bicgstab.h"
#include "solvers/cpu_backend.h"
#include "solvers/even_odd.h"
#include "solvers/normal_equations.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

using testing::WilsonResidual;

struct Problem {
  Lattice lattice;
  double kappa;
  GaugeField<double> u;
  WilsonParams params;
  CpuWilson<double> m;
  CpuWilsonSchur<double> schur;
  SpinorField<double> b;
  Problem(const Lattice& l, double k, std::uint64_t seed)
      : lattice(l),
        kappa(k),
        u(testing::RandomSu3Gauge(l, seed)),
        params(WilsonParams::FromKappa(k)),
        m(u, params),
        schur(u, params, Parity::kEven),
        b(l) {
    FillGaussian(b, seed + 100);
  }
};

SolverParams Tolerance(double tol) {
  SolverParams p;
  p.tolerance = tol;
  return p;
}

// Runs every double solver on one problem and checks each against the residual and against each other.
void SolveWithEverySolver(const Problem& pr) {
  const SolverParams params = Tolerance(1e-12);
  std::vector<std::pair<std::string, SpinorField<double>>> solutions;
  auto check = [&](const std::string& name, const SolveResult& r, const SpinorField<double>& x) {
    SCOPED_TRACE(name + ": " + r.Summary());
    std::cout << pr.lattice.ToString() << " kappa " << pr.kappa << ": " << r.Summary() << "\n";
    ASSERT_TRUE(r.converged());
    const double residual = WilsonResidual(pr.u, pr.params, x, pr.b);
    EXPECT_LE(residual, 1e-12);
    // The record's residual is the same number (same arithmetic).
    EXPECT_EQ(r.true_residual, residual);
    EXPECT_GT(r.iterations, 0);
    EXPECT_GT(r.flops, r.iterations * pr.m.FlopsPerApply());
    solutions.emplace_back(name, x);
  };
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = BiCGstab(pr.m, x, pr.b, params);
    check("BiCGstab on M", r, x);
  }
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = EvenOddBiCGstab(pr.schur, pr.m, x, pr.b, params);
    check("BiCGstab on M_ee", r, x);
  }
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = Cgnr(pr.m, x, pr.b, params);
    check("CGNR", r, x);
  }
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = Cgne(pr.m, x, pr.b, params);
    check("CGNE", r, x);
  }
  // Any two solutions differ by at most |M^{-1}| (|r_1| + |r_2|) <= |M^{-1}| 2e-12 |b|.
  const double bound = testing::WilsonInverseNormBound(pr.kappa) * 2e-12 * std::sqrt(Norm2(pr.b));
  for (std::size_t i = 1; i < solutions.size(); ++i) {
    EXPECT_LE(std::sqrt(Norm2(Difference(solutions[i].second, solutions[0].second))), bound)
        << solutions[i].first << " vs " << solutions[0].first;
  }
}

TEST(DoubleSolvers, ReachTheToleranceOn4To4) { SolveWithEverySolver(Problem(Lattice(4, 4, 4, 4), 0.12, 1)); }

TEST(DoubleSolvers, ReachTheToleranceOn4Cubed8) { SolveWithEverySolver(Problem(Lattice(4, 4, 4, 8), 0.124, 2)); }

TEST(DoubleSolvers, EvenOddNeedsFewerOperatorFlopsThanTheFullSystem) {
  // The paper's reason for even-odd preconditioning: the Schur complement is better conditioned.
  const Problem pr(Lattice(4, 4, 4, 4), 0.124, 3);
  SpinorField<double> x1(pr.lattice), x2(pr.lattice);
  const SolveResult full = BiCGstab(pr.m, x1, pr.b, Tolerance(1e-12));
  const SolveResult eo = EvenOddBiCGstab(pr.schur, pr.m, x2, pr.b, Tolerance(1e-12));
  ASSERT_TRUE(full.converged() && eo.converged());
  EXPECT_LT(eo.iterations, full.iterations) << full.Summary() << "\n" << eo.Summary();
}

TEST(BiCGstab, InitialGuessIsUsed) {
  const Problem pr(Lattice(4, 4, 4, 4), 0.12, 4);
  SpinorField<double> x(pr.lattice);
  ASSERT_TRUE(BiCGstab(pr.m, x, pr.b, Tolerance(1e-6)).converged());
  const SolveResult from_guess = BiCGstab(pr.m, x, pr.b, Tolerance(1e-12));
  SpinorField<double> x0(pr.lattice);
  const SolveResult from_zero = BiCGstab(pr.m, x0, pr.b, Tolerance(1e-12));
  ASSERT_TRUE(from_guess.converged() && from_zero.converged());
  EXPECT_LT(from_guess.iterations, from_zero.iterations);
}

TEST(BiCGstab, ZeroSourceGivesZero) {
  const Problem pr(Lattice(4, 4, 4, 4), 0.12, 5);
  SpinorField<double> x(pr.lattice), zero(pr.lattice);
  FillGaussian(x, 3);
  const SolveResult r = EvenOddBiCGstab(pr.schur, pr.m, x, zero, SolverParams{});
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(Norm2(x), 0.0);
}

// J = [[0, -1], [1, 0]] on spin pairs (0,1), (2,3): (v, J v) = 0 for every real v, so with a real source
// (r0, A p) = (b, J b) = 0 at the first step although J is invertible (J^{-1} = -J).
TEST(BiCGstab, LanczosBreakdownIsReported) {
  const Lattice lattice(4, 4, 4, 4);
  SpinMatrix j = SpinMatrix::Zero();
  j(0, 1) = -1;
  j(1, 0) = 1;
  j(2, 3) = -1;
  j(3, 2) = 1;
  const testing::SpinMatrixOperator<> a(lattice, Subset::kFull, j);
  const SpinorField<double> b = testing::UniformField(lattice, Subset::kFull, SiteSpinor<double>::Ones());
  SpinorField<double> x(lattice);
  const SolveResult r = BiCGstab(a, x, b, SolverParams{});
  EXPECT_EQ(r.status, SolveStatus::kBreakdown) << r.Summary();
  EXPECT_NE(r.reason.find("(r0, A p)"), std::string::npos) << r.reason;
  EXPECT_GT(r.true_residual, 0.5);
}

// The exact omega = 0 problem of testing::OmegaBreakdownSpinMatrix (derived in solvers/testing.h).
TEST(BiCGstab, OmegaBreakdownIsReported) {
  const Lattice lattice(4, 4, 4, 4);
  const SpinMatrix g = testing::OmegaBreakdownSpinMatrix();
  const testing::SpinMatrixOperator<> a(lattice, Subset::kFull, g);
  const SpinorField<double> b = testing::OmegaBreakdownSource(lattice);
  SpinorField<double> x(lattice);
  const SolveResult r = BiCGstab(a, x, b, SolverParams{});
  EXPECT_EQ(r.status, SolveStatus::kBreakdown) << r.Summary();
  EXPECT_NE(r.reason.find("omega"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.converged());
}

TEST(BiCGstab, MaxIterationsNotFiniteAndStagnation) {
  const Problem pr(Lattice(4, 4, 4, 4), 0.12, 6);
  {
    SpinorField<double> x(pr.lattice);
    SolverParams p;
    p.max_iterations = 2;
    const SolveResult r = BiCGstab(pr.m, x, pr.b, p);
    EXPECT_EQ(r.status, SolveStatus::kMaxIterations) << r.Summary();
    EXPECT_EQ(r.iterations, 2);
    EXPECT_EQ(r.true_residual, WilsonResidual(pr.u, pr.params, x, pr.b));
  }
  {
    GaugeField<double> bad = pr.u;
    bad.Link(11, 0)(0, 2) = std::numeric_limits<double>::infinity();
    const CpuWilson<double> m(bad, pr.params);
    SpinorField<double> x(pr.lattice);
    const SolveResult r = BiCGstab(m, x, pr.b, SolverParams{});
    EXPECT_EQ(r.status, SolveStatus::kNotFinite) << r.Summary();
  }
  {
    // 1e-18 is below what |b - M x| computed in double can show (~u |M| |x|).
    SpinorField<double> x(pr.lattice);
    const SolveResult r = BiCGstab(pr.m, x, pr.b, Tolerance(1e-18));
    EXPECT_EQ(r.status, SolveStatus::kStagnation) << r.Summary();
    EXPECT_LT(r.true_residual, 1e-13);
  }
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = Cgnr(pr.m, x, pr.b, Tolerance(1e-18));
    EXPECT_EQ(r.status, SolveStatus::kStagnation) << r.Summary();
  }
}

TEST(Drivers, BadInputThrows) {
  const Problem pr(Lattice(4, 4, 4, 4), 0.12, 7);
  SpinorField<double> x(pr.lattice), even(pr.lattice, Subset::kEven);
  EXPECT_THROW(BiCGstab(pr.m, x, even, SolverParams{}), std::invalid_argument);
  EXPECT_THROW(EvenOddBiCGstab(pr.schur, pr.m, even, pr.b, SolverParams{}), std::invalid_argument);
  EXPECT_THROW(Cgne(pr.m, x, even, SolverParams{}), std::invalid_argument);
  SpinorField<double> nan_source = pr.b;
  nan_source[0](1, 1) = Complex<double>(0, std::numeric_limits<double>::quiet_NaN());
  EXPECT_THROW(Cgnr(pr.m, x, nan_source, SolverParams{}), std::invalid_argument);
  EXPECT_THROW(BiCGstab(pr.m, x, nan_source, SolverParams{}), std::invalid_argument);
  SolverParams bad;
  bad.max_iterations = -1;
  EXPECT_THROW(BiCGstab(pr.m, x, pr.b, bad), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::solvers
