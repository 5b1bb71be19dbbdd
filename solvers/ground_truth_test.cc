// Every solver against the sparse LU ground truth of the oracle (reference/sparse_wilson.h), on
// moderately conditioned problems: Haar-random SU(3) links (4^4 and 4^3x8, kappa = 0.2, where double
// BiCGstab needs ~60 iterations) and a quenched heatbath configuration (4^4, beta = 5.8, kappa = 0.15).
//
// What is asserted for each solve:
//   1. the record says converged and its true residual is <= 1e-12;
//   2. the residual recomputed with the SPARSE matrix (assembled independently of wilson.cc) is <= 1e-12
//      up to the difference of the two roundings: each row of M x is a sum of <= 49 terms, so the two
//      computations differ by <= 49 u |M| |x| component-wise in norm, |M| <= 8 + m (|D| <= 8, testing.h);
//   3. the forward error against the LU solution x* is below |M^{-1}| (|r| + |r*|), with |M^{-1}| =
//      1 / sigma_min(M) estimated by 20 steps of inverse iteration on M^dag M with the LU factors of M
//      (M^{-dag} = g5 M^{-1} g5); the estimate approaches 1 / sigma_min from below, so it is doubled.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>

#include "reference/gamma.h"
#include "reference/ensemble/heatbath.h"
#include "reference/sparse_wilson.h"
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

constexpr double kUDouble = 0x1p-53;

SpinorField<double> TimesGamma5(const SpinorField<double>& v, GammaBasis basis) {
  SpinorField<double> out(v.lattice(), v.subset());
  const SpinMatrix& g5 = Gamma5(basis);
  for (int i = 0; i < v.sites(); ++i) out[i] = g5 * v[i];
  return out;
}

// 1 / sigma_min(M) by inverse iteration on (M^dag M)^{-1} = M^{-1} M^{-dag}, with M^{-dag} = g5 M^{-1} g5
// (gamma5-hermiticity M^dag = g5 M g5, asserted in the fixture), so one factorisation serves both.
double InverseNormEstimate(const DirectWilsonSolver& m_inv, const Lattice& lattice, GammaBasis basis) {
  SpinorField<double> v(lattice);
  FillGaussian(v, 999);
  double lambda = 0;
  for (int k = 0; k < 20; ++k) {
    const double nv = std::sqrt(Norm2(v));
    Scale(1.0 / nv, v);
    v = m_inv.Solve(TimesGamma5(m_inv.Solve(TimesGamma5(v, basis)), basis));
    lambda = std::sqrt(Norm2(v));  // |(M^dag M)^{-1} v| for |v| = 1
  }
  return std::sqrt(lambda);
}

struct GroundTruth {
  testing::WilsonProblem pr;
  SparseComplexMatrix sparse_m;
  SpinorField<double> x_star;
  double r_star;       // |b - M x*| / |b|
  double inverse_norm;  // estimate of |M^{-1}|, doubled

  explicit GroundTruth(testing::WilsonProblem p) : pr(std::move(p)), x_star(pr.lattice) {
    detail::Stopwatch clock;
    const DirectWilsonSolver m_inv(pr.u, pr.params);
    sparse_m = m_inv.matrix();
    {  // gamma5-hermiticity, which InverseNormEstimate relies on: M^dag v = g5 M g5 v (to rounding).
      SpinorField<double> v(pr.lattice), mdag_v(pr.lattice);
      FillGaussian(v, 7);
      ApplyWilson(mdag_v, pr.u, v, pr.params, Dagger::kYes);
      const SpinorField<double> g5mg5 =
          TimesGamma5(ApplySparse(sparse_m, TimesGamma5(v, pr.params.basis), Subset::kFull), pr.params.basis);
      EXPECT_LE(RelativeDeviation(g5mg5, mdag_v), 64 * kUDouble * (8 + pr.params.mass));
    }
    x_star = m_inv.Solve(pr.b);
    r_star = SparseResidual(x_star);
    const double factorise = clock.Seconds();
    inverse_norm = 2 * InverseNormEstimate(m_inv, pr.lattice, pr.params.basis);
    std::cout << pr.lattice.ToString() << " kappa " << pr.kappa << ": LU factorisations " << factorise
              << " s, |M^{-1}| estimate (doubled) " << inverse_norm << " in " << clock.Seconds() - factorise
              << " s\n";
  }
  double SparseResidual(const SpinorField<double>& x) const {
    const SpinorField<double> mx = ApplySparse(sparse_m, x, Subset::kFull);
    return std::sqrt(Norm2(Difference(pr.b, mx)) / Norm2(pr.b));
  }
  void Check(const std::string& name, const SolveResult& r, const SpinorField<double>& x) const {
    SCOPED_TRACE(name + ": " + r.Summary());
    std::cout << pr.lattice.ToString() << " kappa " << pr.kappa << " " << name << ": " << r.Summary() << "\n";
    ASSERT_TRUE(r.converged());
    EXPECT_LE(r.true_residual, 1e-12);
    const double nb = std::sqrt(Norm2(pr.b)), nx = std::sqrt(Norm2(x));
    const double rounding = 49 * kUDouble * (8 + pr.params.mass) * nx / nb;
    const double residual = SparseResidual(x);
    EXPECT_LE(residual, 1e-12 + rounding);
    EXPECT_LE(std::sqrt(Norm2(Difference(x, x_star))), inverse_norm * (residual + r_star) * nb);
  }
};

using Solve = std::function<SolveResult(SpinorField<double>&)>;

SolverParams Params() {
  SolverParams params;
  params.tolerance = 1e-12;
  params.max_iterations = 20000;
  return params;
}

void RunAll(const GroundTruth& gt, const std::vector<std::pair<std::string, Solve>>& solvers) {
  for (const auto& [name, solve] : solvers) {
    SpinorField<double> x(gt.pr.lattice);
    const SolveResult r = solve(x);
    gt.Check(name, r, x);
  }
}

// The double solvers: BiCGstab on M and M_ee, CGNR, CGNE.
void DoubleSolvers(const GroundTruth& gt, bool normal_equations) {
  const testing::WilsonProblem& pr = gt.pr;
  const SolverParams params = Params();
  std::vector<std::pair<std::string, Solve>> solvers = {
      {"BiCGstab M", [&](SpinorField<double>& x) { return BiCGstab(pr.m, x, pr.b, params); }},
      {"BiCGstab M_ee", [&](SpinorField<double>& x) { return EvenOddBiCGstab(pr.schur, pr.m, x, pr.b, params); }},
  };
  if (normal_equations) {
    solvers.push_back({"CGNR", [&](SpinorField<double>& x) { return Cgnr(pr.m, x, pr.b, params); }});
    solvers.push_back({"CGNE", [&](SpinorField<double>& x) { return Cgne(pr.m, x, pr.b, params); }});
  }
  RunAll(gt, solvers);
}

// The mixed-precision solvers with inner precision Low.
template <typename Low>
void MixedSolvers(const GroundTruth& gt, bool normal_equations) {
  const testing::WilsonProblem& pr = gt.pr;
  const SolverParams params = Params();
  const CpuWilson<Low> m_low(pr.u, pr.params);
  const CpuWilsonSchur<Low> schur_low(pr.u, pr.params);
  const NormalOperator<CpuWilson<double>> normal(pr.m);
  const NormalOperator<CpuWilson<Low>> normal_low(m_low);
  const std::string inner = std::string(" (") + PrecisionTraits<Low>::kName + " inner)";
  std::vector<std::pair<std::string, Solve>> solvers = {
      {"reliable BiCGstab M_ee" + inner,
       [&](SpinorField<double>& x) {
         return SolveEvenOdd(pr.schur, pr.m, x, pr.b, params,
                             [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                               return ReliableBiCGstab(pr.schur, schur_low, xp, bp, p);
                             });
       }},
      {"defect-correction BiCGstab M_ee" + inner,
       [&](SpinorField<double>& x) {
         return SolveEvenOdd(pr.schur, pr.m, x, pr.b, params,
                             [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                               return DefectCorrection(InnerSolver::kBiCGstab, pr.schur, schur_low, xp, bp, p);
                             });
       }},
      {"reliable BiCGstab M" + inner,
       [&](SpinorField<double>& x) { return ReliableBiCGstab(pr.m, m_low, x, pr.b, params); }},
  };
  if (normal_equations) {
    solvers.push_back({"reliable CGNR" + inner, [&](SpinorField<double>& x) {
                         return SolveCgnr(
                             pr.m, x, pr.b, params, "ReliableCG",
                             [&](SpinorField<double>& xx, const SpinorField<double>& bn, const SolverParams& p) {
                               return ReliableCg(normal, normal_low, xx, bn, p);
                             });
                       }});
  }
  RunAll(gt, solvers);
}

TEST(GroundTruth, RandomField4To4) {
  const GroundTruth gt(testing::WilsonProblem(Lattice(4, 4, 4, 4), 0.2, 51));
  DoubleSolvers(gt, /*normal_equations=*/true);
  MixedSolvers<float>(gt, true);
  MixedSolvers<Half>(gt, true);
}

TEST(GroundTruth, RandomField4Cubed8) {
  const GroundTruth gt(testing::WilsonProblem(Lattice(4, 4, 4, 8), 0.2, 52));
  DoubleSolvers(gt, false);
  MixedSolvers<Half>(gt, false);
}

TEST(GroundTruth, HeatbathField4To4) {
  const Lattice lattice(4, 4, 4, 4);
  GaugeField<double> u(lattice);
  HotStart(u, 61);
  for (int sweep = 0; sweep < 20; ++sweep) {
    HeatbathSweep(u, 5.8, 61, sweep);
    OverrelaxationSweep(u);
  }
  const GroundTruth gt(testing::WilsonProblem(u, 0.15, 62));
  DoubleSolvers(gt, false);
  MixedSolvers<Half>(gt, false);
}

}  // namespace
}  // namespace lqcd::solvers
