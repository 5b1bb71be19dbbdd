// gpu_backend_test: the GPU operators of gpu_backend.h against the CPU oracle, and the solvers of solvers/
// running unchanged on GpuBackend: double even-odd BiCGstab and mixed-precision reliable-update BiCGstab
// (single/12 and half/12 inner, and half/12 with temporal gauge fixing) reach 1e-12 on an 8^4 Haar-random
// field, checked on the HOST with the oracle's ApplyWilson on the full lattice; iteration counts next to
// the CPU backend's on the same problem; a whole solve is deterministic; refusals.
//
// Expected iteration differences (GPU vs CPU backend, same algorithm, same problem):
//   double: both iterate in double; the two differ only in rounding (summation order of the Dslash and of
//     the reductions, fused multiply-adds), relative ~1e-16 per step. The count changes only if the last
//     iterated residual lies within that relative distance of the tolerance: |difference| <= 1.
//   mixed: the inner iterations run in single or half, where the two backends round differently at the
//     level of the low precision (the GPU's 12-real links rebuilt in float vs the CPU's 18 rounded reals,
//     different half quantisation arithmetic). Between two reliable updates the iteration runs until
//     |r^| < delta max|r^|; perturbing the residuals by the low precision's roundoff moves that first
//     crossing by at most one iteration per cycle (when the residual lies that close to delta max|r^|),
//     and the last cycle likewise: |difference| <= (number of updates) + 1.
#include "gpu/gpu_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/oracle_comparison.h"
#include "reference/gauge_transform.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/cpu_backend.h"
#include "solvers/even_odd.h"
#include "solvers/operators.h"
#include "solvers/reliable_update.h"
#include "solvers/testing.h"

namespace lqcd::gpu {
namespace {

using solvers::CpuBackend;
using solvers::CpuWilson;
using solvers::CpuWilsonSchur;
using solvers::Half;
using solvers::SolveResult;
using solvers::SolverParams;
using solvers::SolveStatus;
using testing::Comparison;
using testing::DslashBoundInputs;

constexpr double kUd = 0x1p-53;

class GpuBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

// ---- the operators against the oracle (bounds: oracle_comparison.h) ----

// |D x| magnitudes per site from the oracle (D x on the full lattice holds D_{p,p'} x_{p'} on each p).
SpinorField<double> OracleHopping(const GaugeField<double>& u, const SpinorField<double>& x_full, const WilsonParams& w,
                                  Dagger dagger) {
  SpinorField<double> d(x_full.lattice());
  ApplyHopping(d, u, x_full, w.basis, w.boundary, dagger);
  return d;
}

std::vector<double> Sum(std::vector<double> a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// out_p = a x_p + b D in_{p'} on the sites of out_parity: the per-site bound of oracle_comparison.h.
std::vector<double> XpayBound(const Lattice& lat, Precision precision, Parity out_parity,
                              const std::vector<double>& link_error, const SpinorField<double>& in,
                              const SpinorField<double>& x, const SpinorField<double>& d_oracle,
                              const SpinorField<double>& out_oracle, double a, double b) {
  DslashBoundInputs in_bound;
  in_bound.precision = precision;
  in_bound.out_parity = out_parity;
  in_bound.in_magnitude = testing::Magnitudes(in);
  in_bound.in_error = testing::UploadErrors(in, precision);
  in_bound.link_error = link_error;
  in_bound.d_magnitude = testing::Magnitudes(d_oracle);
  in_bound.out_magnitude = testing::Magnitudes(out_oracle);
  in_bound.xpay = true;
  in_bound.a = a;
  in_bound.b = b;
  in_bound.x_magnitude = testing::Magnitudes(x);
  in_bound.x_error = testing::UploadErrors(x, precision);
  return testing::DslashErrorBound(lat, in_bound);
}

template <typename P>
void CheckOperatorsAgainstTheOracle() {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const Lattice lat(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 701, false);
  const WilsonParams w = WilsonParams::FromKappa(0.15);
  const double kappa = w.kappa();
  const GpuOperatorLayout layout{Reconstruct::k12, false, 0};
  const auto gauge = UploadGauge<P>(u, layout);
  const GpuWilson<P> m(gauge, w);
  const GpuWilsonSchur<P> schur(gauge, w, Parity::kEven);
  const std::vector<double> link_error = testing::LinkErrorBounds(u, {precision, Reconstruct::k12, false, 0});
  const std::string name = m.Name();

  SpinorField<double> x(lat), b(lat), x_e(lat, Subset::kEven);
  FillGaussian(x, 702);
  FillGaussian(b, 703);
  FillGaussian(x_e, 704);
  GpuSpinorField<P> x_dev(lat, Subset::kFull), b_dev(lat, Subset::kFull), xe_dev(lat, Subset::kEven);
  x_dev.Upload(x);
  b_dev.Upload(b);
  xe_dev.Upload(x_e);

  // M and M^dag: out_p = (4 + m) x_p - (1/2) D x_{p'} on each parity.
  for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
    GpuSpinorField<P> out = m.NewField();
    if (dagger == Dagger::kNo) {
      m.Apply(out, x_dev);
    } else {
      m.ApplyDagger(out, x_dev);
    }
    SpinorField<double> oracle(lat);
    ApplyWilson(oracle, u, x, w, dagger);
    const SpinorField<double> d = OracleHopping(u, x, w, dagger);
    std::vector<double> bound(lat.volume(), 0.0);
    for (Parity p : {Parity::kEven, Parity::kOdd}) {
      bound = Sum(bound, XpayBound(lat, precision, p, link_error, x, x, d, oracle, 4 + w.mass, -0.5));
    }
    const Comparison r = testing::CompareWithBound(out.Download(), oracle, bound, testing::Magnitudes(oracle));
    std::printf("%-22s %-8s max |error| %.2e  max error/bound %.3f\n", name.c_str(),
                dagger == Dagger::kNo ? "M" : "M^dag", r.max_error, r.max_ratio);
    EXPECT_EQ(r.violations, 0) << name << ": " << r.first_violation;
  }

  // PrepareSource: b'_e = 2 kappa b_e + 2 kappa^2 D_eo b_o.
  {
    GpuSpinorField<P> bp = schur.NewField();
    schur.PrepareSource(bp, b_dev);
    const SpinorField<double> oracle = PrepareSchurSource(u, b, w, Parity::kEven);
    const SpinorField<double> d = OracleHopping(u, b, w, Dagger::kNo);
    const std::vector<double> bound =
        XpayBound(lat, precision, Parity::kEven, link_error, b, b, d, oracle, 2 * kappa, 2 * kappa * kappa);
    const Comparison r = testing::CompareWithBound(bp.Download(), oracle, bound, testing::Magnitudes(oracle));
    std::printf("%-22s %-8s max |error| %.2e  max error/bound %.3f\n", schur.Name().c_str(), "source", r.max_error,
                r.max_ratio);
    EXPECT_EQ(r.violations, 0) << schur.Name() << " PrepareSource: " << r.first_violation;
  }

  // Reconstruct: x_e copied, x_o = 2 kappa b_o + kappa D_oe x_e.
  {
    GpuSpinorField<P> x_full(lat, Subset::kFull);
    schur.Reconstruct(x_full, xe_dev, b_dev);
    const SpinorField<double> oracle = ReconstructSolution(u, x_e, b, w);
    SpinorField<double> xe_full(lat);
    Insert(xe_full, x_e);
    const SpinorField<double> d = OracleHopping(u, xe_full, w, Dagger::kNo);
    const std::vector<double> odd_bound =
        XpayBound(lat, precision, Parity::kOdd, link_error, xe_full, b, d, oracle, 2 * kappa, kappa);
    // Even sites: the uploaded x_e itself (the copy is exact).
    const std::vector<double> bound = Sum(odd_bound, testing::UploadErrors(xe_full, precision));
    const Comparison r = testing::CompareWithBound(x_full.Download(), oracle, bound, testing::Magnitudes(oracle));
    std::printf("%-22s %-8s max |error| %.2e  max error/bound %.3f\n", schur.Name().c_str(), "rebuild", r.max_error,
                r.max_ratio);
    EXPECT_EQ(r.violations, 0) << schur.Name() << " Reconstruct: " << r.first_violation;
  }

  // RestrictGuess: the even block, bit for bit.
  {
    GpuSpinorField<P> restricted = schur.NewField();
    schur.RestrictGuess(restricted, x_dev);
    EXPECT_EQ(MaxAbsDifference(restricted.Download(), Extract(x_dev.Download(), Parity::kEven)), 0.0) << name;
  }
}

TEST_F(GpuBackendTest, OperatorsSourceAndReconstructionMatchTheOracle) {
  CheckOperatorsAgainstTheOracle<double>();
  CheckOperatorsAgainstTheOracle<float>();
  CheckOperatorsAgainstTheOracle<Half>();
}

// ---- solves ----

constexpr double kKappa = 0.22;
constexpr double kTolerance = 1e-12;

SolverParams Params() {
  SolverParams p;
  p.tolerance = kTolerance;
  p.delta = 0.1;
  p.max_iterations = 2000;
  return p;
}

// |b - M x| / |b| recomputed on the host with the oracle, and the largest value it may take when the GPU's
// own full residual (in double, on the device) met the tolerance: both computations of b - M x are within
// gamma_21 < 22 u_d of the exact one per component, relative to the sum of |terms| b + (4 + m) x + D x / 2,
// whose norm is at most |b| + (|4 + m| + 8 sqrt 3) |x| (each of the 8 hops is |U| |1 -+ gamma| with row
// sums sqrt 3 and 2); the download's basis change adds 3 sqrt 2 u_d per real of x, times |M| <= 4 + |m| + 4.
struct HostCheck {
  double residual;
  double allowed;
};
HostCheck CheckOnTheHost(const GaugeField<double>& u, const WilsonParams& w, const SpinorField<double>& x,
                         const SpinorField<double>& b) {
  const double nb = std::sqrt(Norm2(b)), nx = std::sqrt(Norm2(x));
  const double terms = nb + (std::abs(4 + w.mass) + 8 * std::sqrt(3.0)) * nx;
  const double download = 3 * std::sqrt(2.0) * kUd * (std::abs(4 + w.mass) + 4) * nx;
  return {solvers::testing::WilsonResidual(u, w, x, b), kTolerance + (2 * 22 * kUd * terms + download) / nb};
}

struct Problem {
  Lattice lattice{8, 8, 8, 8};
  GaugeField<double> u;
  WilsonParams w;
  SpinorField<double> b;
  explicit Problem(std::uint64_t seed, bool gauge_fixed = false)
      : u(solvers::testing::RandomSu3Gauge(lattice, seed)), w(WilsonParams::FromKappa(kKappa)), b(lattice) {
    if (gauge_fixed) u = TemporalGaugeFix(u).field;
    FillGaussian(b, seed + 1);
  }
};

void Report(const char* what, const SolveResult& r) {
  std::printf("%-34s %-11s iterations %4d (updates %2d)  true residual %.3e  %.3f s  %s\n", what,
              solvers::ToString(r.status), r.iterations, r.high_precision_updates, r.true_residual, r.seconds,
              r.solver.c_str());
}

TEST_F(GpuBackendTest, DoubleEvenOddBiCGstabReachesTheToleranceOnTheHost) {
  const Problem pr(801);
  const auto gauge = UploadGauge<double>(pr.u, {});
  const GpuWilson<double> m(gauge, pr.w);
  const GpuWilsonSchur<double> schur(gauge, pr.w);
  GpuSpinorField<double> x = m.NewField(), b = m.NewField();
  b.Upload(pr.b);
  const SolveResult r = solvers::EvenOddBiCGstab(schur, m, x, b, Params());
  Report("gpu  BiCGstab M_ee double", r);
  ASSERT_TRUE(r.converged()) << r.reason;
  const HostCheck host = CheckOnTheHost(pr.u, pr.w, x.Download(), pr.b);
  std::printf("host |b - M x| / |b| = %.3e (allowed %.3e)\n", host.residual, host.allowed);
  EXPECT_LE(host.residual, host.allowed);

  const CpuWilson<double> m_cpu(pr.u, pr.w);
  const CpuWilsonSchur<double> schur_cpu(pr.u, pr.w);
  SpinorField<double> x_cpu(pr.lattice);
  const SolveResult c = solvers::EvenOddBiCGstab(schur_cpu, m_cpu, x_cpu, pr.b, Params());
  Report("cpu  BiCGstab M_ee double", c);
  EXPECT_LE(std::abs(r.iterations - c.iterations), 1) << "see the file comment";
}

template <typename Low>
SolveResult MixedGpu(const Problem& pr, const GpuOperatorLayout& low_layout, SpinorField<double>& x_host,
                     bool outer_gauge_fixed = false) {
  const auto gauge = UploadGauge<double>(pr.u, {Reconstruct::k18, outer_gauge_fixed, 0});
  const GpuWilson<double> m(gauge, pr.w);
  const GpuWilsonSchur<double> schur(gauge, pr.w);
  const GpuWilsonSchur<Low> schur_low(pr.u, pr.w, Parity::kEven, low_layout);
  GpuSpinorField<double> x = m.NewField(), b = m.NewField();
  b.Upload(pr.b);
  const SolveResult r = solvers::SolveEvenOdd(
      schur, m, x, b, Params(), [&](GpuSpinorField<double>& xp, const GpuSpinorField<double>& bp, const SolverParams& p) {
        return solvers::ReliableBiCGstab(schur, schur_low, xp, bp, p);
      });
  x_host = x.Download();
  return r;
}

template <typename Low>
SolveResult MixedCpu(const Problem& pr) {
  const CpuWilson<double> m(pr.u, pr.w);
  const CpuWilsonSchur<double> schur(pr.u, pr.w);
  const CpuWilsonSchur<Low> schur_low(pr.u, pr.w);
  SpinorField<double> x(pr.lattice);
  return solvers::SolveEvenOdd(schur, m, x, pr.b, Params(),
                               [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                                 return solvers::ReliableBiCGstab(schur, schur_low, xp, bp, p);
                               });
}

template <typename Low>
void CheckMixed(const char* name) {
  const Problem pr(811);
  SpinorField<double> x(pr.lattice);
  const SolveResult g = MixedGpu<Low>(pr, {Reconstruct::k12, false, 0}, x);
  Report((std::string("gpu  reliable BiCGstab ") + name).c_str(), g);
  ASSERT_TRUE(g.converged()) << g.reason;
  const HostCheck host = CheckOnTheHost(pr.u, pr.w, x, pr.b);
  std::printf("host |b - M x| / |b| = %.3e (allowed %.3e)\n", host.residual, host.allowed);
  EXPECT_LE(host.residual, host.allowed);

  const SolveResult c = MixedCpu<Low>(pr);
  Report((std::string("cpu  reliable BiCGstab ") + name).c_str(), c);
  ASSERT_TRUE(c.converged()) << c.reason;
  const int difference = std::abs(g.iterations - c.iterations);
  std::printf("iterations gpu %d, cpu %d: difference %d = %.1f%% (bound: cpu updates + 1 = %d)\n", g.iterations,
              c.iterations, difference, 100.0 * difference / c.iterations, c.high_precision_updates + 1);
  EXPECT_LE(difference, c.high_precision_updates + 1) << "see the file comment";
}

TEST_F(GpuBackendTest, ReliableBiCGstabSingle12MatchesTheCpuBackend) { CheckMixed<float>("double/single12"); }
TEST_F(GpuBackendTest, ReliableBiCGstabHalf12MatchesTheCpuBackend) { CheckMixed<Half>("double/half12"); }

// The low-precision operator may use temporal gauge fixing (on a field in temporal gauge).
TEST_F(GpuBackendTest, ReliableBiCGstabWithAGaugeFixedHalfInnerOperator) {
  const Problem pr(821, /*gauge_fixed=*/true);
  SpinorField<double> x(pr.lattice);
  const SolveResult g = MixedGpu<Half>(pr, {Reconstruct::k12, true, 0}, x, /*outer_gauge_fixed=*/true);
  Report("gpu  reliable BiCGstab half12/gf", g);
  ASSERT_TRUE(g.converged()) << g.reason;
  const HostCheck host = CheckOnTheHost(pr.u, pr.w, x, pr.b);
  std::printf("host |b - M x| / |b| = %.3e (allowed %.3e)\n", host.residual, host.allowed);
  EXPECT_LE(host.residual, host.allowed);
}

// The same solve twice: the same iterations, the same bits.
TEST_F(GpuBackendTest, AWholeMixedSolveIsDeterministic) {
  const Problem pr(831);
  SpinorField<double> x1(pr.lattice), x2(pr.lattice);
  const SolveResult a = MixedGpu<Half>(pr, {Reconstruct::k8, false, 0}, x1);
  const SolveResult b = MixedGpu<Half>(pr, {Reconstruct::k8, false, 0}, x2);
  Report("gpu  reliable BiCGstab half8 (1)", a);
  Report("gpu  reliable BiCGstab half8 (2)", b);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.residual_history, b.residual_history);
  EXPECT_EQ(MaxAbsDifference(x1, x2), 0.0);
}

// CG runs unchanged too: CG on M_ee^dag M_ee (NormalOperator) in double, checked with the oracle's
// ApplySchurNormal. The GPU's own final check met 1e-10 in double; the host recomputation differs by
// rounding far below that (|M_ee| <= 1 + 64 kappa^2, a few dozen roundings).
TEST_F(GpuBackendTest, ConjugateGradientOnTheNormalSchurOperator) {
  const Problem pr(841);
  const GpuWilsonSchur<double> schur(pr.u, pr.w);
  const solvers::NormalOperator<GpuWilsonSchur<double>> a(schur);
  SpinorField<double> b_e(pr.lattice, Subset::kEven);
  FillGaussian(b_e, 842);
  GpuSpinorField<double> x = a.NewField(), b = a.NewField();
  b.Upload(b_e);
  SolverParams p = Params();
  p.tolerance = 1e-10;
  const SolveResult r = solvers::ConjugateGradient(a, x, b, p);
  Report("gpu  CG M_ee^dag M_ee double", r);
  ASSERT_TRUE(r.converged()) << r.reason;
  SpinorField<double> ax(pr.lattice, Subset::kEven);
  ApplySchurNormal(ax, pr.u, x.Download(), pr.w);
  const double residual = std::sqrt(Norm2(Difference(b_e, ax)) / Norm2(b_e));
  const double m_bound = 1 + 64 * kKappa * kKappa;
  // Rounding of both computations: 2 x gamma_40 (two M_ee applications of ~20 roundings each) times
  // |M_ee|^2 |x| / |b|, plus the tolerance.
  const double allowed = p.tolerance + 2 * 41 * kUd * (1 + m_bound * m_bound * std::sqrt(Norm2(x.Download()) / Norm2(b_e)));
  std::printf("host |b - A x| / |b| = %.3e (allowed %.3e)\n", residual, allowed);
  EXPECT_LE(residual, allowed);
}

// The fused CG step (NormalOperator::ApplyCurvatureUpdate: r -= alpha M^dag M p inside M^dag's kernel) against
// the same solve with every fused form off (set_fused_dot_products(false): Apply, DotNorm, AxpyNorm), in double and
// with the half/12 inner operator of reliable-update CG: both converge, and the fused one's solution meets the
// host's recomputed residual bound of the test above. (Iteration counts are printed, not compared: the two
// paths round differently, and CG's count is not a continuous function of its roundings.)
TEST_F(GpuBackendTest, FusedCgStepSolvesAsTheUnfusedOne) {
  const Problem pr(843);
  SpinorField<double> b_e(pr.lattice, Subset::kEven);
  FillGaussian(b_e, 844);
  SolverParams p = Params();
  p.tolerance = 1e-10;
  int iterations[2] = {0, 0};
  for (bool fused : {true, false}) {
    GpuWilsonSchur<double> schur(pr.u, pr.w);
    schur.set_fused_dot_products(fused);
    const solvers::NormalOperator<GpuWilsonSchur<double>> a(schur);
    GpuSpinorField<double> x = a.NewField(), b = a.NewField();
    b.Upload(b_e);
    const SolveResult r = solvers::ConjugateGradient(a, x, b, p);
    Report(fused ? "gpu  CG fused step" : "gpu  CG unfused", r);
    ASSERT_TRUE(r.converged()) << r.reason;
    iterations[fused ? 0 : 1] = r.iterations;
    SpinorField<double> ax(pr.lattice, Subset::kEven);
    ApplySchurNormal(ax, pr.u, x.Download(), pr.w);
    const double residual = std::sqrt(Norm2(Difference(b_e, ax)) / Norm2(b_e));
    const double m_bound = 1 + 64 * kKappa * kKappa;
    const double allowed =
        p.tolerance + 2 * 41 * kUd * (1 + m_bound * m_bound * std::sqrt(Norm2(x.Download()) / Norm2(b_e)));
    EXPECT_LE(residual, allowed);
  }
  std::printf("CG iterations: fused step %d, unfused %d\n", iterations[0], iterations[1]);
}

// ---- refusals ----

TEST_F(GpuBackendTest, BadArgumentsThrow) {
  const Lattice lat(4, 4, 4, 4);
  const GaugeField<double> u = testing::RandomLinks(lat, 851, false);
  const WilsonParams w = WilsonParams::FromKappa(0.12);
  const GpuWilsonSchur<float> schur(u, w);
  const GpuWilson<float> m(u, w);
  GpuSpinorField<float> e = schur.NewField(), full = m.NewField(), full2 = m.NewField();
  EXPECT_THROW(schur.Apply(e, e), std::invalid_argument);                 // out must differ from in
  EXPECT_THROW(schur.Apply(full, full2), std::invalid_argument);          // wrong subset
  EXPECT_THROW(m.Apply(full, full), std::invalid_argument);
  EXPECT_THROW(m.Apply(full, e), std::invalid_argument);
  EXPECT_THROW(schur.PrepareSource(e, e), std::invalid_argument);         // the source must be full
  EXPECT_THROW(schur.Reconstruct(full, e, full), std::invalid_argument);  // x_full and b_full must differ
  EXPECT_THROW(GpuWilson<float>(UploadGauge<double>(u, {}), w), std::invalid_argument);  // links in double
  // Temporal gauge fixing of links that are not in temporal gauge: refused by the device field.
  EXPECT_THROW(GpuWilsonSchur<Half>(u, w, Parity::kEven, {Reconstruct::k12, true, 0}), std::invalid_argument);
  // Mixed operators on different lattices.
  const GpuWilsonSchur<Half> other(testing::RandomLinks(Lattice(4, 4, 4, 8), 852, false), w);
  GpuSpinorField<float> x = schur.NewField(), b = schur.NewField();
  EXPECT_THROW(solvers::ReliableBiCGstab(schur, other, x, b, Params()), std::invalid_argument);
  // The solvers see a NaN in the source through AllFinite.
  SpinorField<double> bad(lat, Subset::kEven);
  bad[3](1, 1) = Complex<double>(std::nan(""), 0);
  b.Upload(bad);
  EXPECT_THROW(solvers::BiCGstab(schur, x, b, Params()), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
