// propagator_driver_test: the point-source propagator through the solver factory on the CPU backend
// (experiments/propagator_driver.h): every CPU spec against the sparse LU ground truth for Wilson and both
// clover forms, the clover trace convention reaching the solves, the symmetries of the pion correlator,
// thread independence, bad input. The error bounds are derived in propagator_bounds.h.
#include "experiments/propagator_driver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/propagator_bounds.h"
#include "reference/clover.h"
#include "reference/observables/free_wilson.h"
#include "reference/gauge_transform.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {
namespace {

using solvers::SolverSpec;
using testing::ActionNorms;
using testing::CorrelatorBound;
using testing::ExpectSameCorrelator;
using testing::GammaN;
using testing::kU;
using testing::Norms;
using testing::PropagatorError;
using testing::ResidualRounding;

// A spec with the tests' tolerance and budget.
SolverSpec Spec(const std::string& text, double tolerance = 1e-11) {
  SolverSpec spec = SolverSpec::Parse(text);
  spec.tolerance = tolerance;
  spec.max_iterations = 5000;
  return spec;
}

BackendChoice Cpu() { return ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto); }

// Every spec the CPU runs (18-real links), with and without temporal gauge fixing.
std::vector<std::string> CpuSpecTexts() {
  std::vector<std::string> texts;
  for (const char* gf : {"", "/gf"}) {
    texts.push_back(std::string("bicgstab:double") + gf);
    texts.push_back(std::string("cg:double") + gf);
    for (const char* solver : {"bicgstab-reliable", "cg-reliable", "bicgstab-dc", "cg-dc"}) {
      for (const char* precision : {"single", "half"}) texts.push_back(std::string(solver) + ":" + precision + gf + ":0.1");
    }
  }
  return texts;
}

void ExpectConvergedRecords(const PropagatorRun& run, double tolerance, const std::string& what) {
  ASSERT_EQ(run.solves.size(), 12u) << what;
  EXPECT_TRUE(run.all_converged()) << what;
  for (int k = 0; k < 12; ++k) {
    const PropagatorSolveRecord& r = run.solves[k];
    EXPECT_EQ(3 * r.spin + r.colour, k) << what;
    EXPECT_TRUE(r.result.converged()) << what << ": " << r.result.Summary();
    EXPECT_GT(r.result.iterations, 0) << what;
    EXPECT_LE(r.true_residual, tolerance) << what;
    EXPECT_EQ(r.verified_on, VerifyOn::kHost) << what;
    // The solver's own full residual (same quantity, computed through the backend; of the gauge-fixed system
    // for /gf, which has the same norm) agrees to rounding: both are ~tol, each off by rho ~ 1e-13 relative to
    // |b| = 1.
    EXPECT_NEAR(r.true_residual, r.result.true_residual, 1e-12) << what;
  }
}

// ---- Against the sparse LU ground truth, every solver, Wilson and clover ----

TEST(PropagatorTest, EverySolverMatchesTheDirectSolutionForWilsonAndClover) {
  const Lattice lattice(2, 4, 2, 4);  // small: the LU is the expensive part
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 5, 0.25);
  const int source = lattice.Index({1, 2, 0, 1});
  FermionAction wilson = FermionAction::WilsonFromKappa(0.118);  // m = 0.237
  FermionAction clover_c = FermionAction::CloverFromKappa(0.1, 1.0);  // m = 1
  FermionAction clover_u = clover_c;
  clover_u.schur_form = CloverSchurForm::kUnitDiagonal;
  for (const FermionAction& action : {wilson, clover_c, clover_u}) {
    const Norms norms = ActionNorms(u, action);
    SiteBlocks terms;
    if (action.kind == FermionKind::kClover) {
      terms.resize(lattice.volume());
      for (int site = 0; site < lattice.volume(); ++site) terms[site] = CloverTermMatrix(u, site, action.c_sw, action.basis);
    }
    const DirectWilsonSolver direct(u, action.wilson(), Dagger::kNo, terms);
    // The LU columns: |x - x*| <= ||M^{-1}|| (|r| + rho) as above (sparse products of <= 61 terms).
    double lu_e2 = 0;
    const PointPropagator lu = ComputePointPropagator(lattice, source, [&](const SpinorField<double>& b, int, int) {
      SpinorField<double> x = direct.Solve(b);
      const double r = ReferenceResidual(u, action, x, b);
      const double delta = norms.inverse * (r + ResidualRounding(norms.t_norm, std::sqrt(Norm2(x))));
      lu_e2 += delta * delta;
      return x;
    });
    const std::vector<double> c_lu = PionCorrelator(lu);
    for (const std::string& text : CpuSpecTexts()) {
      const SolverSpec spec = Spec(text);
      const std::string what = action.Describe() + " / " + spec.Describe();
      int observed = 0;
      const PropagatorRun run =
          ComputePropagator(u, action, spec, Cpu(), 1, source, [&](const PropagatorSolveRecord&) { ++observed; });
      EXPECT_EQ(observed, 12) << what;
      ExpectConvergedRecords(run, spec.tolerance, what);
      const double eps = PropagatorError(run, norms);
      // Column by column: |x_krylov - x_lu| <= eps + eps_lu (Frobenius over all columns, so per entry too).
      double max_dev = 0;
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 3; ++c) {
          max_dev = std::max(max_dev, MaxAbsDifference(run.propagator.Column(s, c), lu.Column(s, c)));
        }
      }
      EXPECT_LE(max_dev, eps + std::sqrt(lu_e2)) << what;
      ExpectSameCorrelator(PionCorrelator(run.propagator), eps, c_lu, std::sqrt(lu_e2), lattice, what);
    }
  }
}

// The clover trace convention (FermionAction::clover_trace) reaches the solves: the with-trace propagator
// matches the LU solution of the with-trace matrix and misses that of the traceless one.
TEST(PropagatorTest, CloverTraceConventionReachesTheSolves) {
  const Lattice lattice(2, 4, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 7, 0.4);
  const int source = lattice.Index({0, 1, 1, 2});
  FermionAction action = FermionAction::CloverFromKappa(0.1, 1.0);  // m = 1
  action.clover_trace = CloverTrace::kWithTrace;
  const Norms norms = ActionNorms(u, action);
  auto lu_propagator = [&](CloverTrace trace, double* lu_e2) {
    SiteBlocks terms(lattice.volume());
    for (int site = 0; site < lattice.volume(); ++site) {
      terms[site] = CloverTermMatrix(u, site, action.c_sw, action.basis, trace);
    }
    const DirectWilsonSolver direct(u, action.wilson(), Dagger::kNo, terms);
    return ComputePointPropagator(lattice, source, [&](const SpinorField<double>& b, int, int) {
      SpinorField<double> x = direct.Solve(b);
      // As in the test above: |x - x*| <= ||M^{-1}|| (|r| + rho), r measured with the action's (with-trace) M.
      const double r = ReferenceResidual(u, action, x, b);
      const double delta = norms.inverse * (r + ResidualRounding(norms.t_norm, std::sqrt(Norm2(x))));
      *lu_e2 += delta * delta;
      return x;
    });
  };
  double lu_e2 = 0, unused = 0;
  const PointPropagator lu = lu_propagator(CloverTrace::kWithTrace, &lu_e2);
  const PointPropagator lu_traceless = lu_propagator(CloverTrace::kTraceless, &unused);
  const SolverSpec spec = Spec("bicgstab:double");
  const PropagatorRun run = ComputePropagator(u, action, spec, Cpu(), 1, source);
  ExpectConvergedRecords(run, spec.tolerance, action.Describe());
  const double eps = PropagatorError(run, norms);
  double dev = 0, dev_traceless = 0;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) {
      dev = std::max(dev, MaxAbsDifference(run.propagator.Column(s, c), lu.Column(s, c)));
      dev_traceless =
          std::max(dev_traceless, MaxAbsDifference(run.propagator.Column(s, c), lu_traceless.Column(s, c)));
    }
  }
  EXPECT_LE(dev, eps + std::sqrt(lu_e2));
  // The trace term of this field (leaves exp(i X), |X| ~ 0.4 x 4 links) is far above the solves' accuracy: a
  // FermionAction whose clover_trace never reached CloverParams would sit on the traceless solution instead.
  EXPECT_GT(dev_traceless, 1e3 * (eps + std::sqrt(lu_e2)));
}

// ---- Symmetries of the correlator, through the main job's path (BiCGstab on the even sites) ----

TEST(PropagatorTest, CorrelatorIsGaugeInvariant) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 41);  // Haar-random: far from any gauge
  const GaugeField<double> gu = ApplyGaugeTransformation(RandomGaugeTransformation<double>(lattice, 42), u);
  const int source = lattice.Index({2, 1, 3, 1});
  for (const FermionAction& action : {FermionAction::WilsonFromKappa(0.115), FermionAction::CloverFromKappa(0.09, 0.4)}) {
    const SolverSpec spec = Spec("bicgstab");
    const PropagatorRun a = ComputePropagator(u, action, spec, Cpu(), 1, source);
    const PropagatorRun b = ComputePropagator(gu, action, spec, Cpu(), 1, source);
    ExpectConvergedRecords(a, spec.tolerance, "u");
    ExpectConvergedRecords(b, spec.tolerance, "g u");
    ExpectSameCorrelator(PionCorrelator(a.propagator), PropagatorError(a, ActionNorms(u, action)),
                         PionCorrelator(b.propagator), PropagatorError(b, ActionNorms(gu, action)), lattice,
                         action.Describe());
    // The propagator itself is NOT invariant (S -> g(x) S g(x0)^dag): the test compares a non-trivial thing.
    EXPECT_GT(MaxAbsDifference(a.propagator.Column(0, 0), b.propagator.Column(0, 0)), 1e-3);
  }
}

TEST(PropagatorTest, CorrelatorIsIndependentOfTheGammaBasis) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 51, 0.3);
  for (FermionAction action : {FermionAction::WilsonFromKappa(0.12), FermionAction::CloverFromKappa(0.1, 1.0)}) {
    const SolverSpec spec = Spec("bicgstab");
    action.basis = GammaBasis::kDeGrandRossi;
    const PropagatorRun dr = ComputePropagator(u, action, spec, Cpu(), 1, 0);
    action.basis = GammaBasis::kUkqcd;
    const PropagatorRun uk = ComputePropagator(u, action, spec, Cpu(), 1, 0);
    ExpectSameCorrelator(PionCorrelator(dr.propagator), PropagatorError(dr, ActionNorms(u, action)),
                         PionCorrelator(uk.propagator), PropagatorError(uk, ActionNorms(u, action)), lattice,
                         action.Describe());
    EXPECT_GT(MaxAbsDifference(dr.propagator.Column(0, 0), uk.propagator.Column(0, 0)), 1e-3);
  }
}

TEST(PropagatorTest, CloverWithZeroCswIsWilson) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 61);
  const FermionAction wilson = FermionAction::WilsonFromKappa(0.115);
  const SolverSpec spec = Spec("bicgstab");
  const PropagatorRun w = ComputePropagator(u, wilson, spec, Cpu(), 1, 5);
  const double eps_w = PropagatorError(w, ActionNorms(u, wilson));
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    FermionAction clover = FermionAction::CloverFromKappa(0.115, 0.0);
    clover.schur_form = form;
    const PropagatorRun c = ComputePropagator(u, clover, spec, Cpu(), 1, 5);
    ExpectConvergedRecords(c, spec.tolerance, clover.Describe());
    const double eps_c = PropagatorError(c, ActionNorms(u, clover));
    for (int s = 0; s < 4; ++s) {
      for (int col = 0; col < 3; ++col) {
        EXPECT_LE(MaxAbsDifference(w.propagator.Column(s, col), c.propagator.Column(s, col)), eps_w + eps_c);
      }
    }
    ExpectSameCorrelator(PionCorrelator(w.propagator), eps_w, PionCorrelator(c.propagator), eps_c, lattice,
                         clover.Describe());
  }
}

// A field symmetric under t -> -t (mod L_t): U_i(x, L_t - t) = U_i(x, t), U_t(x, L_t - 1 - t) = U_t(x, t)^dag.
GaugeField<double> TimeReflectionSymmetric(const GaugeField<double>& u) {
  const Lattice& lattice = u.lattice();
  const int lt = lattice.extent(3);
  GaugeField<double> out = u;
  for (int site = 0; site < lattice.volume(); ++site) {
    Coordinates n = lattice.Coords(site);
    const int t = n[3];
    if (t >= 1 && t < lt / 2) {  // spatial links of slices L_t - t mirror slices t (0 and L_t / 2 are fixed)
      Coordinates m = n;
      m[3] = lt - t;
      for (int mu = 0; mu < 3; ++mu) out.Link(lattice.Index(m), mu) = u.Link(site, mu);
    }
    if (t < lt / 2) {  // time links (t, t+1) -> (L_t - 1 - t, L_t - t) reversed
      Coordinates m = n;
      m[3] = lt - 1 - t;
      out.Link(lattice.Index(m), 3) = u.Link(site, 3).adjoint();
    }
  }
  return out;
}

TEST(PropagatorTest, CorrelatorIsTimeReflectionSymmetricOnASymmetricField) {
  // The reflection maps the Wilson and clover operators to gamma_4 gamma_5-conjugates of themselves on the
  // reflected field; the antiperiodic sign moves to the other side of the source slice, which flips the sign
  // of S on some slices and leaves |S|^2 alone (docs/conventions.md). A random gauge transformation on top
  // hides the symmetry from the links themselves.
  const Lattice lattice(2, 4, 2, 8);
  const GaugeField<double> sym = TimeReflectionSymmetric(RandomNearUnitGaugeField<double>(lattice, 71, 0.3));
  const GaugeField<double> u = ApplyGaugeTransformation(RandomGaugeTransformation<double>(lattice, 72), sym);
  const int source = lattice.Index({1, 3, 1, 0});  // every coordinate inside 2x4x2x8
  for (const FermionAction& action : {FermionAction::WilsonFromKappa(0.12), FermionAction::CloverFromKappa(0.1, 1.0)}) {
    const SolverSpec spec = Spec("bicgstab");
    const PropagatorRun run = ComputePropagator(u, action, spec, Cpu(), 1, source);
    ExpectConvergedRecords(run, spec.tolerance, action.Describe());
    const double eps = PropagatorError(run, ActionNorms(u, action));
    const std::vector<double> c = PionCorrelator(run.propagator);
    std::vector<double> reflected(c.size());
    for (std::size_t t = 0; t < c.size(); ++t) reflected[t] = c[(c.size() - t) % c.size()];
    ExpectSameCorrelator(c, eps, reflected, eps, lattice, action.Describe());
    // Not trivially symmetric: on the unsymmetrised field the same check fails at t = 1.
    const PropagatorRun plain =
        ComputePropagator(RandomNearUnitGaugeField<double>(lattice, 71, 0.3), action, spec, Cpu(), 1, source);
    const std::vector<double> cp = PionCorrelator(plain.propagator);
    EXPECT_GT(std::abs(cp[1] - cp[7]), 1e-3 * cp[1]) << action.Describe();
  }
}

TEST(PropagatorTest, FreeFieldMatchesTheMomentumSum) {
  const Lattice lattice(4, 4, 2, 8);
  const GaugeField<double> u(lattice);
  FermionAction action = FermionAction::WilsonFromKappa(0.122);  // m = 0.098: light, still no zero mode
  const SolverSpec spec = Spec("bicgstab", 1e-12);
  const PropagatorRun run = ComputePropagator(u, action, spec, Cpu(), 1, lattice.Index({0, 0, 0, 5}));
  ExpectConvergedRecords(run, spec.tolerance, "free");
  Norms norms{4 + action.mass, FreeWilsonInverseNorm(lattice, action.mass, action.boundary)};
  const double eps = PropagatorError(run, norms);
  const std::vector<double> expected = FreeWilsonPionCorrelator(lattice, action.mass, action.boundary);
  // Momentum-sum rounding as in reference/observables/propagator_test.cc: 120 (gamma_{L_t+6} + u) N^2 + gamma_{V_s} C
  // (V_s = 32 here; gamma_64 is larger, hence also a bound).
  const double n2 = norms.inverse * norms.inverse;
  const std::vector<double> c = PionCorrelator(run.propagator);
  for (int t = 0; t < 8; ++t) {
    EXPECT_LE(std::abs(c[t] - expected[t]),
              CorrelatorBound(c[t], eps, lattice) + 120 * (GammaN(14) + kU) * n2 + GammaN(64) * expected[t])
        << t;
    EXPECT_LE(std::abs(c[t] - c[(8 - t) % 8]), 2 * CorrelatorBound(c[t], eps, lattice) + 2 * GammaN(64) * c[t]);
  }
}

TEST(PropagatorTest, ThreadsDoNotChangeResultsOrReportOrder) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 95, 0.5);
  for (const FermionAction& action : {FermionAction::WilsonFromKappa(0.12), FermionAction::CloverFromKappa(0.1, 1.0)}) {
    const SolverSpec spec = Spec("bicgstab-reliable:half:0.1");
    std::vector<int> order_1, order_3;
    const PropagatorRun one = ComputePropagator(u, action, spec, Cpu(), 1, 7, [&](const PropagatorSolveRecord& r) {
      order_1.push_back(3 * r.spin + r.colour);
    });
    const PropagatorRun three = ComputePropagator(u, action, spec, Cpu(), 3, 7, [&](const PropagatorSolveRecord& r) {
      order_3.push_back(3 * r.spin + r.colour);
    });
    const std::vector<int> in_order{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    EXPECT_EQ(order_1, in_order);
    EXPECT_EQ(order_3, in_order);
    for (int k = 0; k < 12; ++k) {
      // Each solve is deterministic: bit-identical whichever thread ran it.
      EXPECT_EQ(MaxAbsDifference(one.propagator.Column(k / 3, k % 3), three.propagator.Column(k / 3, k % 3)), 0);
      EXPECT_EQ(one.solves[k].result.iterations, three.solves[k].result.iterations);
      EXPECT_EQ(one.solves[k].true_residual, three.solves[k].true_residual);
    }
  }
  EXPECT_THROW(ComputePropagator(u, FermionAction::WilsonFromKappa(0.12), Spec("bicgstab"), Cpu(), 0, 0),
               std::invalid_argument);
}

// ---- Bad input ----

TEST(PropagatorTest, RejectsBadInput) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u(lattice);
  FermionAction wilson = FermionAction::WilsonFromKappa(0.12);
  const SolverSpec spec = Spec("bicgstab");
  EXPECT_THROW(ComputePropagator(u, wilson, spec, Cpu(), 1, lattice.volume()), std::invalid_argument);
  EXPECT_THROW(ComputePropagator(u, wilson, spec, Cpu(), 1, -1), std::invalid_argument);
  FermionAction bad = wilson;
  bad.c_sw = 1.0;  // a clover coefficient on the Wilson action
  EXPECT_THROW(ComputePropagator(u, bad, spec, Cpu(), 1, 0), std::invalid_argument);
  bad = wilson;
  bad.clover_trace = CloverTrace::kWithTrace;  // a clover convention on the Wilson action
  EXPECT_THROW(ComputePropagator(u, bad, spec, Cpu(), 1, 0), std::invalid_argument);
  bad = FermionAction::CloverFromKappa(0.1, 1.0);
  bad.clover_trace = static_cast<CloverTrace>(5);  // no enumerator
  EXPECT_THROW(ComputePropagator(u, bad, spec, Cpu(), 1, 0), std::invalid_argument);
  bad = wilson;
  bad.mass = -4.5;  // 4 + m <= 0
  EXPECT_THROW(ComputePropagator(u, bad, spec, Cpu(), 1, 0), std::invalid_argument);
  SolverSpec bad_spec = spec;
  bad_spec.tolerance = 0;
  EXPECT_THROW(ComputePropagator(u, wilson, bad_spec, Cpu(), 1, 0), std::invalid_argument);
  // Compressed links are a GPU storage form: refused on the CPU before any solve.
  EXPECT_THROW(ComputePropagator(u, wilson, Spec("bicgstab-reliable:half/12:0.1"), Cpu(), 1, 0), std::invalid_argument);
  // A bad action is refused before any device work on the GPU backend too (no device needed to see it).
  BackendChoice gpu;
  gpu.kind = BackendKind::kGpu;
  gpu.verify = VerifyOn::kDevice;
  FermionAction bad_clover = FermionAction::CloverFromKappa(0.1, 1.0);
  bad_clover.mass = -4.5;
  EXPECT_THROW(ComputePropagator(u, bad_clover, spec, gpu, 1, 0), std::invalid_argument);
  SpinorField<double> zero(lattice);
  EXPECT_THROW(ReferenceResidual(u, wilson, zero, zero), std::invalid_argument);
}

TEST(PropagatorTest, UnconvergedSolvesAreReportedNotHidden) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 91);
  SolverSpec spec = Spec("bicgstab");
  spec.max_iterations = 2;
  const PropagatorRun run = ComputePropagator(u, FermionAction::WilsonFromKappa(0.12), spec, Cpu(), 1, 0);
  EXPECT_FALSE(run.all_converged());
  for (const PropagatorSolveRecord& r : run.solves) {
    EXPECT_EQ(r.result.status, solvers::SolveStatus::kMaxIterations);
    EXPECT_GT(r.true_residual, spec.tolerance);
  }
}

}  // namespace
}  // namespace lqcd::experiments
