// Tests of ConjugateGradient on a Hermitian positive definite Wilson operator (M^dag M) and every exit
// status of the CG family.
#include "solvers/cg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/spinor_algebra.h"
#include "solvers/cpu_backend.h"
#include "solvers/operators.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

constexpr double kUDouble = 0x1p-53;
const Lattice kLattice(4, 4, 4, 4);

struct Fixture {
  GaugeField<double> u = testing::RandomSu3Gauge(kLattice, 31);
  WilsonParams params = WilsonParams::FromKappa(0.12);
  CpuWilson<double> m{u, params};
  NormalOperator<CpuWilson<double>> a{m};
  SpinorField<double> b{kLattice};
  Fixture() { FillGaussian(b, 41); }
};

TEST(ConjugateGradient, SolvesTheNormalEquationsToTolerance) {
  Fixture f;
  SpinorField<double> x(kLattice);
  SolverParams p;
  p.tolerance = 1e-12;
  const SolveResult r = ConjugateGradient(f.a, x, f.b, p);
  ASSERT_TRUE(r.converged()) << r.Summary();
  // Independent check with the oracle's M^dag M: the record's true residual is this number to rounding
  // (a sum of 1320-flop stencils: 1e3 u relative to |M^dag M x| ~ |b|).
  SpinorField<double> ax(kLattice);
  ApplyWilsonNormal(ax, f.u, x, f.params);
  const double residual = std::sqrt(Norm2(Difference(f.b, ax)) / Norm2(f.b));
  EXPECT_LE(residual, 1e-12);
  EXPECT_NEAR(residual, r.true_residual, 1e3 * kUDouble);
  EXPECT_EQ(r.iterations, r.krylov_iterations);
  EXPECT_EQ(static_cast<int>(r.residual_history.size()), r.iterations);
  EXPECT_LE(r.iterated_residual, 1e-12);
  // One application per iteration, the initial true residual and one verification per pass.
  EXPECT_EQ(r.operator_applications, r.iterations + 2 + r.restarts);
  EXPECT_GE(r.flops, r.operator_applications * f.a.FlopsPerApply());
  // The CG residual of an HPD system is not monotone in general but ends 12 orders below the start.
  EXPECT_GT(r.residual_history.front(), 1e-3);
}

TEST(ConjugateGradient, StartingFromTheSolutionTakesNoIterations) {
  Fixture f;
  SpinorField<double> x(kLattice);
  SolverParams p;
  ASSERT_TRUE(ConjugateGradient(f.a, x, f.b, p).converged());
  const SpinorField<double> solution = x;
  const SolveResult again = ConjugateGradient(f.a, x, f.b, p);
  EXPECT_TRUE(again.converged());
  EXPECT_EQ(again.iterations, 0);
  EXPECT_EQ(MaxAbsDifference(x, solution), 0.0);
}

TEST(ConjugateGradient, ZeroSourceGivesZeroSolution) {
  Fixture f;
  SpinorField<double> x(kLattice), zero(kLattice);
  FillGaussian(x, 5);
  const SolveResult r = ConjugateGradient(f.a, x, zero, SolverParams{});
  EXPECT_TRUE(r.converged());
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(Norm2(x), 0.0);
}

TEST(ConjugateGradient, MaxIterationsIsReportedWithTheHonestResidual) {
  Fixture f;
  SpinorField<double> x(kLattice);
  SolverParams p;
  p.max_iterations = 3;
  const SolveResult r = ConjugateGradient(f.a, x, f.b, p);
  EXPECT_EQ(r.status, SolveStatus::kMaxIterations);
  EXPECT_EQ(r.iterations, 3);
  SpinorField<double> ax(kLattice);
  ApplyWilsonNormal(ax, f.u, x, f.params);
  EXPECT_NEAR(r.true_residual, std::sqrt(Norm2(Difference(f.b, ax)) / Norm2(f.b)), 1e3 * kUDouble);
  EXPECT_GT(r.true_residual, 1e-3);
}

TEST(ConjugateGradient, IndefiniteOperatorGivesNonPositiveCurvature) {
  // G = diag(1, -1, 1, -1) in spin, b = 1 in every component: p^dag G p = 0 exactly at the first step.
  SpinMatrix g = SpinMatrix::Zero();
  g.diagonal() << 1, -1, 1, -1;
  const testing::SpinMatrixOperator<> a(kLattice, Subset::kFull, g);
  const SpinorField<double> b = testing::UniformField(kLattice, Subset::kFull, SiteSpinor<double>::Ones());
  SpinorField<double> x(kLattice);
  const SolveResult r = ConjugateGradient(a, x, b, SolverParams{});
  EXPECT_EQ(r.status, SolveStatus::kNonPositiveCurvature) << r.Summary();
  EXPECT_GT(r.true_residual, 0.5);
  // Negative definite: p^dag A p < 0.
  const testing::SpinMatrixOperator<> neg(kLattice, Subset::kFull, -SpinMatrix::Identity());
  EXPECT_EQ(ConjugateGradient(neg, x, b, SolverParams{}).status, SolveStatus::kNonPositiveCurvature);
}

TEST(ConjugateGradient, NaNInTheOperatorIsReported) {
  Fixture f;
  f.u.Link(7, 2)(1, 1) = std::numeric_limits<double>::quiet_NaN();
  const CpuWilson<double> m(f.u, f.params);
  const NormalOperator<CpuWilson<double>> a(m);
  SpinorField<double> x(kLattice);
  const SolveResult r = ConjugateGradient(a, x, f.b, SolverParams{});
  EXPECT_EQ(r.status, SolveStatus::kNotFinite) << r.Summary();
  EXPECT_FALSE(r.converged());
}

TEST(ConjugateGradient, ToleranceBelowThePrecisionFloorStagnates) {
  // |b - A x| computed in double cannot go below ~u |A| |x| ~ 1e-16 |b|: 1e-18 is unreachable.
  Fixture f;
  SpinorField<double> x(kLattice);
  SolverParams p;
  p.tolerance = 1e-18;
  const SolveResult r = ConjugateGradient(f.a, x, f.b, p);
  EXPECT_EQ(r.status, SolveStatus::kStagnation) << r.Summary();
  EXPECT_LT(r.true_residual, 1e-13);  // it did get to the floor
  EXPECT_GE(r.restarts, 1);
}

// A CPU Wilson operator with the optional fused forms written out of the plain backend calls, to check the solver's
// wiring of them: WithDotNorm gives NormalOperator its ApplyCurvature (|M p|^2 from ApplyDotNorm), WithFusedStep
// also ApplyDaggerAxpyNorm, so CG takes NormalOperator::ApplyCurvatureUpdate. Both compute the same numbers in the
// same order (M p and its norm, alpha = rr / |M p|^2, M^dag (M p), r -= alpha of it), so the two solves must agree
// bit for bit, with the same counts of iterations, applications and flops.
struct WithDotNorm : CpuWilson<double> {
  using CpuWilson<double>::CpuWilson;
  CpuBackend::DotAndNorm ApplyDotNorm(Field& out, const Field& in, const Field& w) const {
    Apply(out, in);
    return CpuBackend::DeferredDotNorm(out, w);
  }
};
struct WithFusedStep : WithDotNorm {
  using WithDotNorm::WithDotNorm;
  double ApplyDaggerAxpyNorm(Field& r, double c, const Field& in) const {
    Field q = NewField();
    ApplyDagger(q, in);
    return CpuBackend::DeferredAxpyNorm(c, q, r);
  }
};

TEST(ConjugateGradient, TheFusedStepFormSolvesBitForBitAsTheSeparateOne) {
  Fixture f;
  const WithDotNorm m_separate(f.u, f.params);
  const WithFusedStep m_fused(f.u, f.params);
  const NormalOperator<WithDotNorm> separate(m_separate);
  const NormalOperator<WithFusedStep> fused(m_fused);
  static_assert(!detail::HasApplyCurvatureUpdate<NormalOperator<WithDotNorm>>::value);
  static_assert(detail::HasApplyCurvatureUpdate<NormalOperator<WithFusedStep>>::value);
  static_assert(!detail::HasApplyCurvatureUpdate<NormalOperator<CpuWilson<double>>>::value);
  SolverParams p;
  p.tolerance = 1e-11;
  SpinorField<double> x_separate(kLattice), x_fused(kLattice);
  const SolveResult a = ConjugateGradient(separate, x_separate, f.b, p);
  const SolveResult b = ConjugateGradient(fused, x_fused, f.b, p);
  ASSERT_TRUE(a.converged()) << a.Summary();
  ASSERT_TRUE(b.converged()) << b.Summary();
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.operator_applications, b.operator_applications);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.residual_history, b.residual_history);
  int differing = 0;
  for (int i = 0; i < x_fused.sites(); ++i) differing += x_fused[i] == x_separate[i] ? 0 : 1;
  EXPECT_EQ(differing, 0);
}

TEST(ConjugateGradient, BadInputThrows) {
  Fixture f;
  SpinorField<double> x(kLattice), even(kLattice, Subset::kEven);
  EXPECT_THROW(ConjugateGradient(f.a, even, f.b, SolverParams{}), std::invalid_argument);
  EXPECT_THROW(ConjugateGradient(f.a, x, even, SolverParams{}), std::invalid_argument);
  SpinorField<double> nan_source = f.b;
  nan_source[3](0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(ConjugateGradient(f.a, x, nan_source, SolverParams{}), std::invalid_argument);
  SolverParams bad;
  bad.tolerance = 0;
  EXPECT_THROW(ConjugateGradient(f.a, x, f.b, bad), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::solvers
