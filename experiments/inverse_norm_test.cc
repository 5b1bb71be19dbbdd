// inverse_norm_test: the inverse-iteration estimate of ||M^{-1}|| is a lower estimate that converges to the
// exact value on the free field (where ||M^{-1}|| = max_p den(p)^{-1/2} is known, reference/observables/free_wilson.h),
// including at a negative mass, and stays below the a-priori bound 1 / m on a random field.
#include "experiments/inverse_norm.h"

#include <gtest/gtest.h>

#include <cmath>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include "reference/observables/free_wilson.h"
#include "reference/sparse_wilson.h"
#include "reference/su3_random.h"

namespace lqcd::experiments {
namespace {

solvers::SolverSpec Spec() {
  solvers::SolverSpec spec = solvers::SolverSpec::Parse("bicgstab");
  spec.tolerance = 1e-12;
  return spec;
}

TEST(EstimateInverseNorm, ConvergesFromBelowToTheFreeFieldValue) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u(lattice);  // unit links
  const BackendChoice cpu = ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto);
  for (const double mass : {0.1, -0.05}) {  // antiperiodic in t: no zero mode at m = -0.05 on 4^3 x 8
    FermionAction action;
    action.mass = mass;
    const double exact = FreeWilsonInverseNorm(lattice, mass, action.boundary);
    const auto solver = MakeDiracSolver(cpu, u);
    const InverseNormEstimate e = EstimateInverseNorm(*solver, action, Spec(), lattice, 30, 5);
    ASSERT_EQ(e.history.size(), 30u);
    // The Rayleigh quotient of a Hermitian positive matrix under power iteration never decreases; the solves
    // are accurate to 1e-12 relative, so allow that much.
    for (std::size_t k = 1; k < e.history.size(); ++k) EXPECT_GE(e.history[k], e.history[k - 1] * (1 - 1e-10)) << k;
    EXPECT_LE(e.norm, exact * (1 + 1e-10)) << mass;
    EXPECT_GE(e.norm, exact * (1 - 1e-6)) << mass << ": " << e.norm << " vs " << exact;
    EXPECT_LT(e.last_relative_change, 1e-6);
    EXPECT_GT(e.iterations, 0);
  }
}

TEST(EstimateInverseNorm, ConvergesToOneOverTheSmallestSingularValueOfANonNormalMatrix) {
  const Lattice lattice(2, 2, 2, 2);  // 192 x 192: dense SVD and eigenvalues in milliseconds
  // Haar-random (M far from normal); seed 6 has the widest gap between its two smallest distinct singular
  // values among seeds 1-50 (r = 0.94), so the step count below stays near 240.
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 6);
  FermionAction action;
  action.mass = -0.4;
  const Eigen::MatrixXcd m = Eigen::MatrixXcd(SparseWilson(u, action.wilson()));
  const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXcd>(m).singularValues();  // descending
  const double s1 = sigma(sigma.size() - 1);
  double s2 = s1;  // the next DISTINCT singular value (a degenerate smallest one converges as one)
  for (int j = static_cast<int>(sigma.size()) - 2; j >= 0 && s2 <= s1 * (1 + 1e-8); --j) s2 = sigma(j);
  const double exact = 1 / s1;
  // An iteration with M^{-1} twice (no gamma_5) would converge to 1 / |lambda|_min instead: far below here.
  const double by_eigenvalue = 1 / m.eigenvalues().cwiseAbs().minCoeff();
  ASSERT_LT(by_eigenvalue, exact * (1 - 1e-2)) << "M too close to normal on this field";
  // Power iteration on (M^dag M)^{-1}: the Rayleigh quotient's relative error is at most C r^(2k), r =
  // (s1 / s2)^2, C = (1 - c^2) / c^2 for the start vector's overlap c with the top eigenvector (~1/192 in
  // c^2 for a random start: C ~ 200). k with r^(2k) <= 1e-13 leaves C r^(2k) below 1e-10.
  const double r = (s1 / s2) * (s1 / s2);
  const int steps = static_cast<int>(std::ceil(std::log(1e-13) / (2 * std::log(r))));
  ASSERT_LE(steps, 400) << "r = " << r;
  const auto solver = MakeDiracSolver(ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto), u);
  const InverseNormEstimate e = EstimateInverseNorm(*solver, action, Spec(), lattice, steps, 3);
  EXPECT_LE(e.norm, exact * (1 + 1e-10));
  EXPECT_GE(e.norm, exact * (1 - 1e-10)) << e.norm << " vs " << exact << " after " << steps << " steps (r = " << r
                                         << ", 1/|lambda|_min = " << by_eigenvalue << ")";
}

TEST(EstimateInverseNorm, StaysBelowTheAPrioriBound) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 3);
  const FermionAction action = FermionAction::WilsonFromKappa(0.12);  // m = 1/6: ||M^{-1}|| <= 6
  const auto solver = MakeDiracSolver(ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto), u);
  const InverseNormEstimate e = EstimateInverseNorm(*solver, action, Spec(), lattice, 10, 1);
  EXPECT_LE(e.norm, 1 / action.mass);
  EXPECT_GT(e.norm, 1 / (4 + action.mass + 4));  // >= 1 / ||M|| >= 1 / (4 + m + 4)
  EXPECT_THROW(EstimateInverseNorm(*solver, action, Spec(), lattice, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::experiments
