// Tests of solvers/propagator.h (the Krylov-solved point-source propagator) and solvers/cpu_clover.h.
//
// Error bounds (derived; the same reasoning as reference/propagator_test.cc). A column x with recomputed
// full residual r = |b - M x| (|b| = 1) is within ||M^{-1}|| (r + rho) of M^{-1} b, rho = rounding of the
// recomputation: hop 400 u / 2 (reference/wilson_error_bounds.h), the combinations 10 u (4 + m + 4 sqrt 2),
// for clover the 12-term block products 144 u ||T|| plus 10 u ||T||, and the subtraction 2 u (|b| + |M x|):
//   rho <= [200 + 10 (||T|| + 4 sqrt 2) + 144 ||T|| + 2 (||T|| + 4 sqrt 2)] u |x| + 2 u |b|,   ||T|| = 4 + m (Wilson).
// ||M^{-1}|| <= 1 / m for Wilson on any unitary field (m > 0), 1 / (lambda_min(T) - 4) for clover, and exactly
// max_p den(p)^{-1/2} on the free field (reference/free_wilson.h). With eps = sqrt(sum_col delta_col^2),
// |C(t) - C*(t)| <= eps (2 sqrt(C(t)) + eps) + gamma_{12 V} C(t), and two computations of the same
// correlator differ by at most the sum of their two bounds.
#include "solvers/propagator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference/clover.h"
#include "reference/free_wilson.h"
#include "reference/gauge_transform.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "solvers/cpu_clover.h"
#include "solvers/even_odd.h"

namespace lqcd::solvers {
namespace {

constexpr double kU = 0x1p-53;

double GammaN(double n) { return n * kU / (1 - n * kU); }

// ||T|| for the rounding bound and ||M^{-1}|| for the error bound of an action on a field.
struct Norms {
  double t_norm = 0;
  double inverse = 0;
};

Norms ActionNorms(const GaugeField<double>& u, const FermionAction& a) {
  if (a.kind == FermionKind::kWilson) return {4 + a.mass, 1 / a.mass};
  CloverParams p;
  p.mass = a.mass;
  p.c_sw = a.c_sw;
  p.basis = a.basis;
  p.boundary = a.boundary;
  const CloverField<double> clover(u, p);
  if (!(clover.min_eigenvalue() > 4)) {
    throw std::logic_error("test setup: ||M^{-1}|| <= 1 / (lambda_min - 4) needs lambda_min(T) > 4, got " +
                           std::to_string(clover.min_eigenvalue()));
  }
  return {std::max(std::fabs(clover.min_eigenvalue()), std::fabs(clover.max_eigenvalue())),
          1 / (clover.min_eigenvalue() - 4)};
}

double ResidualRounding(double t_norm, double x_norm) {
  const double hop = 4 * std::sqrt(2.0);
  return (200 + 10 * (t_norm + hop) + 154 * t_norm + 2 * (t_norm + hop)) * kU * x_norm + 2 * kU;
}

// eps of a Krylov propagator: sqrt(sum_col (||M^{-1}|| (r_col + rho_col))^2).
double PropagatorError(const PropagatorRun& run, const Norms& n) {
  double e2 = 0;
  for (const PropagatorSolveRecord& r : run.solves) {
    const double x_norm = std::sqrt(Norm2(run.propagator.Column(r.spin, r.colour)));
    const double delta = n.inverse * (r.true_residual + ResidualRounding(n.t_norm, x_norm));
    e2 += delta * delta;
  }
  return std::sqrt(e2);
}

double CorrelatorBound(double c, double eps, const Lattice& lattice) {
  return eps * (2 * std::sqrt(c) + eps) + GammaN(12.0 * lattice.volume()) * c;
}

// Checks |a(t) - b(t)| <= bound_a(t) + bound_b(t) for every t, and that the correlators are positive.
void ExpectSameCorrelator(const std::vector<double>& a, double eps_a, const std::vector<double>& b, double eps_b,
                          const Lattice& lattice, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_GT(a[t], 0) << what << " t=" << t;
    EXPECT_LE(std::abs(a[t] - b[t]), CorrelatorBound(a[t], eps_a, lattice) + CorrelatorBound(b[t], eps_b, lattice))
        << what << " t=" << t << ": " << a[t] << " vs " << b[t];
  }
}

PropagatorSolverOptions Options(PropagatorSolver solver, LowPrecision low = LowPrecision::kSingle,
                                double tolerance = 1e-11) {
  PropagatorSolverOptions o;
  o.solver = solver;
  o.low_precision = low;
  o.params.tolerance = tolerance;
  o.params.max_iterations = 5000;
  return o;
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
    // The driver's own full residual (same quantity, computed through the backend) agrees to rounding:
    // both are ~tol, each off by rho ~ 1e-13 relative to |b| = 1.
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
    WilsonParams wp;
    wp.mass = action.mass;
    const DirectWilsonSolver direct(u, wp, Dagger::kNo, terms);
    // The LU columns: |x - x*| <= ||M^{-1}|| (|r| + rho) as above (sparse products of <= 61 terms).
    double lu_e2 = 0;
    const PointPropagator lu = ComputePointPropagator(lattice, source, [&](const SpinorField<double>& b, int, int) {
      SpinorField<double> x = direct.Solve(b);
      const double r = FullResidual(u, action, x, b);
      const double delta = norms.inverse * (r + ResidualRounding(norms.t_norm, std::sqrt(Norm2(x))));
      lu_e2 += delta * delta;
      return x;
    });
    const std::vector<double> c_lu = PionCorrelator(lu);
    for (PropagatorSolver solver : {PropagatorSolver::kBiCGstab, PropagatorSolver::kCg,
                                    PropagatorSolver::kReliableBiCGstab, PropagatorSolver::kReliableCg}) {
      for (LowPrecision low : {LowPrecision::kSingle, LowPrecision::kHalf}) {
        const bool mixed = solver == PropagatorSolver::kReliableBiCGstab || solver == PropagatorSolver::kReliableCg;
        if (!mixed && low == LowPrecision::kHalf) continue;
        const PropagatorSolverOptions options = Options(solver, low);
        const std::string what = action.Describe() + " / " + options.Describe();
        int observed = 0;
        const PropagatorRun run =
            ComputePropagator(u, action, options, source, [&](const PropagatorSolveRecord&) { ++observed; });
        EXPECT_EQ(observed, 12) << what;
        ExpectConvergedRecords(run, options.params.tolerance, what);
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
}

// ---- Symmetries of the correlator, through the main job's path (BiCGstab on the even sites) ----

TEST(PropagatorTest, CorrelatorIsGaugeInvariant) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 41);  // Haar-random: far from any gauge
  const GaugeField<double> gu = ApplyGaugeTransformation(RandomGaugeTransformation<double>(lattice, 42), u);
  const int source = lattice.Index({2, 1, 3, 1});
  for (const FermionAction& action : {FermionAction::WilsonFromKappa(0.115), FermionAction::CloverFromKappa(0.09, 0.4)}) {
    const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
    const PropagatorRun a = ComputePropagator(u, action, options, source);
    const PropagatorRun b = ComputePropagator(gu, action, options, source);
    ExpectConvergedRecords(a, options.params.tolerance, "u");
    ExpectConvergedRecords(b, options.params.tolerance, "g u");
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
    const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
    action.basis = GammaBasis::kDeGrandRossi;
    const PropagatorRun dr = ComputePropagator(u, action, options, 0);
    action.basis = GammaBasis::kUkqcd;
    const PropagatorRun uk = ComputePropagator(u, action, options, 0);
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
  const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
  const PropagatorRun w = ComputePropagator(u, wilson, options, 5);
  const double eps_w = PropagatorError(w, ActionNorms(u, wilson));
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    FermionAction clover = FermionAction::CloverFromKappa(0.115, 0.0);
    clover.schur_form = form;
    const PropagatorRun c = ComputePropagator(u, clover, options, 5);
    ExpectConvergedRecords(c, options.params.tolerance, clover.Describe());
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
    const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
    const PropagatorRun run = ComputePropagator(u, action, options, source);
    ExpectConvergedRecords(run, options.params.tolerance, action.Describe());
    const double eps = PropagatorError(run, ActionNorms(u, action));
    const std::vector<double> c = PionCorrelator(run.propagator);
    std::vector<double> reflected(c.size());
    for (std::size_t t = 0; t < c.size(); ++t) reflected[t] = c[(c.size() - t) % c.size()];
    ExpectSameCorrelator(c, eps, reflected, eps, lattice, action.Describe());
    // Not trivially symmetric: on the unsymmetrised field the same check fails at t = 1.
    const PropagatorRun plain =
        ComputePropagator(RandomNearUnitGaugeField<double>(lattice, 71, 0.3), action, options, source);
    const std::vector<double> cp = PionCorrelator(plain.propagator);
    EXPECT_GT(std::abs(cp[1] - cp[7]), 1e-3 * cp[1]) << action.Describe();
  }
}

TEST(PropagatorTest, FreeFieldMatchesTheMomentumSum) {
  const Lattice lattice(4, 4, 2, 8);
  const GaugeField<double> u(lattice);
  FermionAction action = FermionAction::WilsonFromKappa(0.122);  // m = 0.098: light, still no zero mode
  const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab, LowPrecision::kSingle, 1e-12);
  const PropagatorRun run = ComputePropagator(u, action, options, lattice.Index({0, 0, 0, 5}));
  ExpectConvergedRecords(run, options.params.tolerance, "free");
  Norms norms{4 + action.mass, FreeWilsonInverseNorm(lattice, action.mass, action.boundary)};
  const double eps = PropagatorError(run, norms);
  const std::vector<double> expected = FreeWilsonPionCorrelator(lattice, action.mass, action.boundary);
  // Momentum-sum rounding as in reference/propagator_test.cc: 120 (gamma_{L_t+6} + u) N^2 + gamma_{V_s} C
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
    PropagatorSolverOptions options = Options(PropagatorSolver::kReliableBiCGstab, LowPrecision::kHalf);
    std::vector<int> order_1, order_3;
    const PropagatorRun one = ComputePropagator(u, action, options, 7, [&](const PropagatorSolveRecord& r) {
      order_1.push_back(3 * r.spin + r.colour);
    });
    options.threads = 3;
    const PropagatorRun three = ComputePropagator(u, action, options, 7, [&](const PropagatorSolveRecord& r) {
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
  PropagatorSolverOptions bad = Options(PropagatorSolver::kBiCGstab);
  bad.threads = 0;
  EXPECT_THROW(ComputePropagator(u, FermionAction::WilsonFromKappa(0.12), bad, 0), std::invalid_argument);
}

// ---- The clover solver operators ----

TEST(CpuCloverTest, SchurOperatorsSolveTheFullSystemThroughTheEvenOddDriver) {
  // The even-odd driver's contract: |b - M x| <= c |b'_p - M_pp x_p| with c = FullResidualPerSchurResidual().
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 81, 0.4);
  CloverParams p;
  p.mass = 0.1;
  p.c_sw = 1.2;
  SpinorField<double> b(lattice);
  FillGaussian(b, 3);
  const CpuClover<double> m(u, p);
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    const CpuCloverSchur<double> schur(u, p, form);
    SpinorField<double> x(lattice);
    FillGaussian(x, 4);  // any x_p: the relation holds for every x_p, not only solutions
    SpinorField<double> bp = schur.NewField(), xp = schur.NewField(), r = schur.NewField();
    schur.PrepareSource(bp, b);
    schur.RestrictGuess(xp, x);
    schur.Apply(r, xp);
    const double schur_residual = std::sqrt(Norm2(Difference(bp, r)));
    schur.Reconstruct(x, xp, b);
    SpinorField<double> mx(lattice);
    m.Apply(mx, x);
    const double full_residual = std::sqrt(Norm2(Difference(b, mx)));
    const double c = schur.FullResidualPerSchurResidual();
    // O(1) quantities, a few hundred roundings each.
    if (form == CloverSchurForm::kComplement) {
      EXPECT_NEAR(full_residual, schur_residual, 1e-12 * full_residual) << ToString(form);
    } else {
      EXPECT_LE(full_residual, c * schur_residual * (1 + 1e-12)) << ToString(form);
      EXPECT_GT(c, 4 + p.mass - 1);  // ||T|| is about 4 + m
    }
    EXPECT_GT(schur_residual, 1);  // a random x_p is far from the solution
  }
  // The float and half operators are the oracle's float clover Schur operator, bit for bit: float on float
  // links; half on 16-bit fixed-point links, applied to the dequantised input and quantised on output.
  const CpuCloverSchur<double> sd(u, p, CloverSchurForm::kComplement);
  const CpuCloverSchur<float> sf(u, p, CloverSchurForm::kComplement);
  const CpuCloverSchur<Half> sh(u, p, CloverSchurForm::kComplement);
  SpinorField<double> in = sd.NewField(), out = sd.NewField();
  FillGaussian(in, 9);
  SpinorField<float> in_f = sf.NewField(), out_f = sf.NewField(), expect_f = sf.NewField();
  CpuBackend::Convert(in_f, in);
  sf.Apply(out_f, in_f);
  const GaugeField<float> u_f = ConvertGaugeField<float>(u);
  ApplyCloverSchur(expect_f, u_f, CloverField<float>(u_f, p), in_f, CloverSchurForm::kComplement, Dagger::kNo);
  EXPECT_EQ(MaxAbsDifference(out_f, expect_f), 0);
  HalfSpinorField in_h = sh.NewField(), out_h = sh.NewField(), expect_h = sh.NewField();
  CpuBackend::Convert(in_h, in);
  sh.Apply(out_h, in_h);
  const GaugeField<float> u_h = cpu_detail::GaugeIn<Half>(u);
  SpinorField<float> dequantised = sf.NewField(), applied = sf.NewField();
  for (int i = 0; i < in_h.sites(); ++i) dequantised[i] = in_h.Load(i);
  ApplyCloverSchur(applied, u_h, CloverField<float>(u_h, p), dequantised, CloverSchurForm::kComplement, Dagger::kNo);
  for (int i = 0; i < applied.sites(); ++i) expect_h.Store(i, applied[i]);
  float half_vs_float = 0;
  for (int i = 0; i < out_h.sites(); ++i) {
    ASSERT_EQ(out_h.Load(i), expect_h.Load(i)) << i;
    half_vs_float = std::max(half_vs_float, (out_h.Load(i) - out_f[i]).cwiseAbs().maxCoeff());
  }
  EXPECT_GT(half_vs_float, 0);  // the half operator is really quantised
  EXPECT_THROW(sd.Apply(out, out), std::invalid_argument);
  SpinorField<double> odd(lattice, Subset::kOdd);
  EXPECT_THROW(sd.Apply(odd, in), std::invalid_argument);
}

// ---- Bad input ----

TEST(PropagatorTest, RejectsBadInput) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u(lattice);
  FermionAction wilson = FermionAction::WilsonFromKappa(0.12);
  const PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
  EXPECT_THROW(ComputePropagator(u, wilson, options, lattice.volume()), std::invalid_argument);
  EXPECT_THROW(ComputePropagator(u, wilson, options, -1), std::invalid_argument);
  FermionAction bad = wilson;
  bad.c_sw = 1.0;  // a clover coefficient on the Wilson action
  EXPECT_THROW(ComputePropagator(u, bad, options, 0), std::invalid_argument);
  bad = wilson;
  bad.mass = -4.5;  // 4 + m <= 0
  EXPECT_THROW(ComputePropagator(u, bad, options, 0), std::invalid_argument);
  PropagatorSolverOptions bad_options = options;
  bad_options.params.tolerance = 0;
  EXPECT_THROW(ComputePropagator(u, wilson, bad_options, 0), std::invalid_argument);
  bad_options = Options(PropagatorSolver::kReliableBiCGstab, LowPrecision::kHalf);
  bad_options.params.delta = 1e-6;  // below the half-precision roundoff
  EXPECT_THROW(ComputePropagator(u, wilson, bad_options, 0), std::invalid_argument);
  SpinorField<double> zero(lattice);
  EXPECT_THROW(FullResidual(u, wilson, zero, zero), std::invalid_argument);
}

TEST(PropagatorTest, UnconvergedSolvesAreReportedNotHidden) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 91);
  PropagatorSolverOptions options = Options(PropagatorSolver::kBiCGstab);
  options.params.max_iterations = 2;
  const PropagatorRun run = ComputePropagator(u, FermionAction::WilsonFromKappa(0.12), options, 0);
  EXPECT_FALSE(run.all_converged());
  for (const PropagatorSolveRecord& r : run.solves) {
    EXPECT_EQ(r.result.status, SolveStatus::kMaxIterations);
    EXPECT_GT(r.true_residual, options.params.tolerance);
  }
}

}  // namespace
}  // namespace lqcd::solvers
