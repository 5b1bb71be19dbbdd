// Tests of the mixed-precision solvers (reliable updates, defect correction) with float and emulated
// half inner precision: they reach 1e-12 in the true double residual, their solutions agree with the
// double solution within the rigorous error bound, and every exit status is produced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "reference/spinor_algebra.h"
#include "solvers/bicgstab.h"
#include "solvers/cpu_backend.h"
#include "solvers/defect_correction.h"
#include "solvers/even_odd.h"
#include "solvers/normal_equations.h"
#include "solvers/reliable_update.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

using testing::WilsonProblem;
using testing::WilsonResidual;

SolverParams Params(double tol = 1e-12) {
  SolverParams p;
  p.tolerance = tol;
  return p;
}

// The double BiCGstab solution and the bound |x - x_double| <= |M^{-1}| (|r| + |r_double|).
struct Reference {
  SpinorField<double> x;
  double residual;
};
Reference DoubleSolution(const WilsonProblem& pr) {
  Reference ref{SpinorField<double>(pr.lattice), 0};
  const SolveResult r = BiCGstab(pr.m, ref.x, pr.b, Params());
  EXPECT_TRUE(r.converged()) << r.Summary();
  ref.residual = r.true_residual;
  return ref;
}

void ExpectSolves(const WilsonProblem& pr, const Reference& ref, const SolveResult& r, const SpinorField<double>& x) {
  std::cout << pr.lattice.ToString() << " kappa " << pr.kappa << ": " << r.Summary() << "\n";
  ASSERT_TRUE(r.converged()) << r.Summary();
  const double residual = WilsonResidual(pr.u, pr.params, x, pr.b);
  EXPECT_LE(residual, 1e-12);
  EXPECT_EQ(r.true_residual, residual);
  const double bound =
      testing::WilsonInverseNormBound(pr.kappa) * (residual + ref.residual) * std::sqrt(Norm2(pr.b));
  EXPECT_LE(std::sqrt(Norm2(Difference(x, ref.x))), bound);
  EXPECT_GT(r.low_precision_applications, 0);
}

template <typename Low>
class MixedPrecision : public ::testing::Test {};
using LowPrecisions = ::testing::Types<float, Half>;
TYPED_TEST_SUITE(MixedPrecision, LowPrecisions);

TYPED_TEST(MixedPrecision, ReliableBiCGstabOnTheFullMatrix) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.124, 11);
  const Reference ref = DoubleSolution(pr);
  const CpuWilson<TypeParam> m_low(pr.u, pr.params);
  SpinorField<double> x(pr.lattice);
  const SolveResult r = ReliableBiCGstab(pr.m, m_low, x, pr.b, Params());
  ExpectSolves(pr, ref, r, x);
  EXPECT_GE(r.high_precision_updates, 1);
  EXPECT_EQ(r.iterations, r.krylov_iterations + r.high_precision_updates);  // the paper's k + l
  EXPECT_EQ(static_cast<int>(r.updates.size()), r.high_precision_updates);
  // Every low-precision iteration applies the low operator twice (no half-step exits in this run or one).
  EXPECT_GE(r.low_precision_applications, 2 * r.krylov_iterations - 1);
  EXPECT_EQ(r.operator_applications - r.low_precision_applications, 1 + r.high_precision_updates);
}

TYPED_TEST(MixedPrecision, ReliableBiCGstabOnTheSchurComplement) {
  // The paper's production solver: even-odd, reliable updates, delta = 0.1.
  const WilsonProblem pr(Lattice(4, 4, 4, 8), 0.124, 12);
  const Reference ref = DoubleSolution(pr);
  const CpuWilsonSchur<TypeParam> schur_low(pr.u, pr.params, Parity::kEven);
  SpinorField<double> x(pr.lattice);
  const SolveResult r = SolveEvenOdd(pr.schur, pr.m, x, pr.b, Params(),
                                     [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                                       return ReliableBiCGstab(pr.schur, schur_low, xp, bp, p);
                                     });
  ExpectSolves(pr, ref, r, x);
  EXPECT_GE(r.high_precision_updates, 1);
}

TYPED_TEST(MixedPrecision, DefectCorrectionBiCGstabOnTheSchurComplement) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.124, 13);
  const Reference ref = DoubleSolution(pr);
  const CpuWilsonSchur<TypeParam> schur_low(pr.u, pr.params, Parity::kEven);
  for (double eps_in : {1e-1, 1e-3}) {
    SolverParams p = Params();
    p.inner_tolerance = eps_in;
    SpinorField<double> x(pr.lattice);
    const SolveResult r = SolveEvenOdd(pr.schur, pr.m, x, pr.b, p,
                                       [&](SpinorField<double>& xp, const SpinorField<double>& bp,
                                           const SolverParams& q) {
                                         return DefectCorrection(InnerSolver::kBiCGstab, pr.schur, schur_low, xp, bp, q);
                                       });
    ExpectSolves(pr, ref, r, x);
    // Each correction reduces the residual by about eps_in (at least by the measured factor), so reaching
    // 1e-12 from 1 takes at least one correction per... we only assert the structure of the record:
    EXPECT_GE(r.restarts, 2);
    EXPECT_EQ(static_cast<int>(r.updates.size()), r.restarts);
    EXPECT_EQ(r.iterations, r.krylov_iterations);
  }
}

TYPED_TEST(MixedPrecision, ReliableAndDefectCorrectionCgOnTheNormalEquations) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.12, 14);
  const Reference ref = DoubleSolution(pr);
  const CpuWilson<TypeParam> m_low(pr.u, pr.params);
  const NormalOperator<CpuWilson<double>> a(pr.m);
  const NormalOperator<CpuWilson<TypeParam>> a_low(m_low);
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = SolveCgnr(pr.m, x, pr.b, Params(), "ReliableCG",
                                    [&](SpinorField<double>& xx, const SpinorField<double>& bn, const SolverParams& p) {
                                      return ReliableCg(a, a_low, xx, bn, p);
                                    });
    ExpectSolves(pr, ref, r, x);
    EXPECT_GE(r.high_precision_updates, 1);
  }
  {
    SpinorField<double> x(pr.lattice);
    SolverParams p = Params();
    p.inner_tolerance = 1e-2;
    const SolveResult r = SolveCgnr(pr.m, x, pr.b, p, "DefectCorrectionCG",
                                    [&](SpinorField<double>& xx, const SpinorField<double>& bn, const SolverParams& q) {
                                      return DefectCorrection(InnerSolver::kCg, a, a_low, xx, bn, q);
                                    });
    ExpectSolves(pr, ref, r, x);
  }
}

TYPED_TEST(MixedPrecision, ToleranceBelowTheDoubleFloorStagnates) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.12, 15);
  const CpuWilson<TypeParam> m_low(pr.u, pr.params);
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = ReliableBiCGstab(pr.m, m_low, x, pr.b, Params(1e-18));
    EXPECT_EQ(r.status, SolveStatus::kStagnation) << r.Summary();
    EXPECT_LT(r.true_residual, 1e-13);
    EXPECT_EQ(r.true_residual, WilsonResidual(pr.u, pr.params, x, pr.b));
  }
  {
    SpinorField<double> x(pr.lattice);
    const SolveResult r = DefectCorrection(InnerSolver::kBiCGstab, pr.m, m_low, x, pr.b, Params(1e-18));
    EXPECT_EQ(r.status, SolveStatus::kStagnation) << r.Summary();
    EXPECT_LT(r.true_residual, 1e-13);
  }
}

// Near the critical kappa of a hot 4^4 field (found by a scan over seeds and kappa), half-precision
// BiCGstab converges erratically: its iterated residual climbs above the best true residual and stays
// there for many updates, and at each of those updates the true residual confirms it (iterated = true
// to a few digits). That is the Krylov method's own non-monotone convergence, not a precision floor, so
// it must not be called stagnation (before the fix it was, at the third such update); the solve
// converges. The same record shows the scenario is really exercised.
TEST(ReliableUpdates, NonMonotoneConvergenceIsNotStagnation) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.25, 16);
  SpinorField<double> b = pr.schur.NewField();
  FillGaussian(b, 216);
  SolverParams p = Params(1e-10);
  p.max_iterations = 4000;
  {
    SpinorField<double> x = pr.schur.NewField();
    const SolveResult r = BiCGstab(pr.schur, x, b, p);
    ASSERT_TRUE(r.converged()) << "the system is solvable: " << r.Summary();
  }
  const CpuWilsonSchur<Half> schur_low(pr.u, pr.params, Parity::kEven);
  SpinorField<double> x = pr.schur.NewField();
  const SolveResult r = ReliableBiCGstab(pr.schur, schur_low, x, b, p);
  std::cout << r.Summary() << "\n";
  ASSERT_TRUE(r.converged()) << r.Summary();
  SpinorField<double> ax = pr.schur.NewField();
  pr.schur.Apply(ax, x);
  EXPECT_LE(std::sqrt(Norm2(Difference(b, ax)) / Norm2(b)), 1e-10);
  // The longest run of updates without progress, and whether the iterated residual claimed progress.
  double best = std::numeric_limits<double>::infinity();
  int run = 0, longest = 0, claims_in_runs = 0;
  for (const ResidualUpdate& u : r.updates) {
    if (u.true_residual < best) {
      best = u.true_residual;
      run = 0;
      continue;
    }
    longest = std::max(longest, ++run);
    if (u.iterated_residual < best) ++claims_in_runs;
    EXPECT_NEAR(u.iterated_residual / u.true_residual, 1.0, 0.01) << "iterated and true residual agree";
  }
  EXPECT_GE(longest, 3 * p.max_stagnant_updates) << "the record must contain a long non-monotone stretch";
  EXPECT_LT(claims_in_runs, p.max_stagnant_updates);
}

TYPED_TEST(MixedPrecision, MaxIterationsFoldsTheLowPrecisionSolutionIn) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.12, 16);
  const CpuWilson<TypeParam> m_low(pr.u, pr.params);
  SolverParams p = Params();
  p.max_iterations = 4;
  SpinorField<double> x(pr.lattice);
  const SolveResult r = ReliableBiCGstab(pr.m, m_low, x, pr.b, p);
  EXPECT_EQ(r.status, SolveStatus::kMaxIterations) << r.Summary();
  EXPECT_EQ(r.iterations, 4);
  // x contains x_acc + x^: its true residual is the record's and well below the start (1).
  EXPECT_EQ(r.true_residual, WilsonResidual(pr.u, pr.params, x, pr.b));
  EXPECT_LT(r.true_residual, 0.5);
  SpinorField<double> y(pr.lattice);
  const SolveResult d = DefectCorrection(InnerSolver::kBiCGstab, pr.m, m_low, y, pr.b, p);
  EXPECT_EQ(d.status, SolveStatus::kMaxIterations) << d.Summary();
  EXPECT_EQ(d.true_residual, WilsonResidual(pr.u, pr.params, y, pr.b));
}

TYPED_TEST(MixedPrecision, BreakdownCurvatureAndNaNAreReported) {
  const Lattice lattice(4, 4, 4, 4);
  // omega breakdown (solvers/testing.h derives it): G = [[1, -1], [1, 0]] per spin pair, b = (1, 0).
  const SpinMatrix g = testing::OmegaBreakdownSpinMatrix();
  const SpinorField<double> b = testing::OmegaBreakdownSource(lattice);
  const testing::SpinMatrixOperator<double> a(lattice, Subset::kFull, g);
  const testing::SpinMatrixOperator<TypeParam> a_low(lattice, Subset::kFull, g);
  SpinorField<double> x(lattice);
  EXPECT_EQ(ReliableBiCGstab(a, a_low, x, b, Params()).status, SolveStatus::kBreakdown);
  CpuBackend::Zero(x);
  EXPECT_EQ(DefectCorrection(InnerSolver::kBiCGstab, a, a_low, x, b, Params()).status, SolveStatus::kBreakdown);
  // Indefinite G = diag(1, -1, 1, -1), b = 1: p^dag G p = 0 at the first step.
  SpinMatrix d = SpinMatrix::Zero();
  d.diagonal() << 1, -1, 1, -1;
  const testing::SpinMatrixOperator<double> ind(lattice, Subset::kFull, d);
  const testing::SpinMatrixOperator<TypeParam> ind_low(lattice, Subset::kFull, d);
  const SpinorField<double> ones = testing::UniformField(lattice, Subset::kFull, SiteSpinor<double>::Ones());
  CpuBackend::Zero(x);
  EXPECT_EQ(ReliableCg(ind, ind_low, x, ones, Params()).status, SolveStatus::kNonPositiveCurvature);
  CpuBackend::Zero(x);
  EXPECT_EQ(DefectCorrection(InnerSolver::kCg, ind, ind_low, x, ones, Params()).status,
            SolveStatus::kNonPositiveCurvature);
  // NaN in the low-precision operator's gauge field.
  const WilsonProblem pr(lattice, 0.12, 17);
  GaugeField<double> bad = pr.u;
  bad.Link(5, 3)(2, 2) = std::numeric_limits<double>::quiet_NaN();
  const CpuWilson<TypeParam> m_bad(bad, pr.params);
  SpinorField<double> y(lattice);
  const SolveResult r = ReliableBiCGstab(pr.m, m_bad, y, pr.b, Params());
  EXPECT_EQ(r.status, SolveStatus::kNotFinite) << r.Summary();
  EXPECT_FALSE(r.converged());
}

TYPED_TEST(MixedPrecision, BadParametersThrowAndZeroSourceIsTrivial) {
  const WilsonProblem pr(Lattice(4, 4, 4, 4), 0.12, 18);
  const CpuWilson<TypeParam> m_low(pr.u, pr.params);
  SpinorField<double> x(pr.lattice), zero(pr.lattice);
  SolverParams p = Params();
  p.delta = PrecisionTraits<TypeParam>::kUnitRoundoff / 2;  // below ulp_in: the paper's lower limit
  EXPECT_THROW(ReliableBiCGstab(pr.m, m_low, x, pr.b, p), std::invalid_argument);
  p = Params();
  p.inner_tolerance = 1.5;
  EXPECT_THROW(DefectCorrection(InnerSolver::kBiCGstab, pr.m, m_low, x, pr.b, p), std::invalid_argument);
  const CpuWilsonSchur<TypeParam> schur_low(pr.u, pr.params);
  EXPECT_THROW(ReliableBiCGstab(pr.m, schur_low, x, pr.b, Params()), std::invalid_argument);
  FillGaussian(x, 1);
  const SolveResult r = ReliableBiCGstab(pr.m, m_low, x, zero, Params());
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(Norm2(x), 0.0);
}

}  // namespace
}  // namespace lqcd::solvers
