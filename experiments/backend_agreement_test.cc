// backend_agreement_test (GPU; skipped without a device): the CPU oracle and the GPU give the same
// propagator and pion correlator, through the same solver factory and driver the main job uses.
//
// Configurations: quenched SU(3) at beta = 6.0 on 4^4 and 8^3 x 16 (the generator, a few sweeps from a cold
// start: rough, realistic fields). Actions: Wilson at kappa = 0.12 (m = 1/6 > 0); on 4^4 also Wilson-clover
// (c_sw = 1, kappa = 0.09) in both even-odd forms.
// Solvers: every spec the GPU offers: 6 solvers x {single, half} inner (double for cg/bicgstab) x 18/12/8
// reals per link x with and without temporal gauge fixing. Each is compared with the CPU solve of the same
// spec with 18-real links (the CPU stores no compressed links; the compressed forms represent the same
// matrix up to rounding, which the solver's tolerance covers).
//
// Bound (derived in propagator_bounds.h): with m > 0, ||M^{-1}|| <= 1 / m on any unitary field: the condition
// factor. Each column with host-recomputed residual r is within (1/m)(r + rho) of M^{-1} b, so
// |C_gpu(t) - C_cpu(t)| <= B(C_gpu(t), eps_gpu) + B(C_cpu(t), eps_cpu), B(c, eps) = eps (2 sqrt(c) + eps)
// + gamma_{12V} c, eps = sqrt(sum_col ((1/m)(r_col + rho_col))^2). With r <= tol = 1e-10 that is a relative
// difference of at most ~ 4 sqrt(12) tol / m / sqrt(C) per time slice.
// The records are verified on the host here (rho is the host recompute's rounding); a second run checks that
// the device recompute of the same columns agrees with the host one to 2 rho.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/propagator_bounds.h"
#include "experiments/propagator_driver.h"
#include "gpu/device.h"
#include "reference/ensemble/quenched_generator.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {
namespace {

using solvers::SolverSpec;
using testing::ActionNorms;
using testing::ExpectSameCorrelator;
using testing::Norms;
using testing::PropagatorError;
using testing::ResidualRounding;

GaugeField<double> Quenched(const Coordinates& extents, int sweeps) {
  QuenchedOptions g;
  g.extents = extents;
  g.beta = 6.0;
  g.seed = 7;
  g.thermalisation_sweeps = sweeps - 1;
  g.separation_sweeps = 1;
  g.configurations = 1;
  g.overrelaxation_steps = 2;
  g.progress_every = 0;
  GaugeField<double> u{Lattice(extents)};
  std::ostringstream quiet;
  GenerateQuenched(g, quiet, [&](const GaugeField<double>& field, int, long) { u = field; });
  return u;
}

// Every spec text the GPU runs.
std::vector<std::string> GpuSpecTexts() {
  std::vector<std::string> texts;
  for (const char* links : {"", "/12", "/8"}) {
    for (const char* gf : {"", "/gf"}) {
      const std::string op = std::string(links) + gf;
      texts.push_back("bicgstab:double" + op);
      texts.push_back("cg:double" + op);
      for (const char* solver : {"bicgstab-reliable", "cg-reliable", "bicgstab-dc", "cg-dc"}) {
        for (const char* precision : {"single", "half"}) {
          texts.push_back(std::string(solver) + ":" + precision + op + ":0.1");
        }
      }
    }
  }
  return texts;
}

SolverSpec WithTolerance(SolverSpec spec) {
  spec.tolerance = 1e-10;
  spec.max_iterations = 20000;
  return spec;
}

class BackendAgreement : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = gpu::NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

void CompareEverySpec(const GaugeField<double>& u, const FermionAction& action, int source) {
  const Lattice& lattice = u.lattice();
  const Norms norms = ActionNorms(u, action);  // Wilson: ||M^{-1}|| <= 1 / m; clover: 1 / (lambda_min(T) - 4)
  const BackendChoice cpu = ChooseBackend(BackendKind::kCpu, VerifyOn::kHost);
  const BackendChoice gpu = ChooseBackend(BackendKind::kGpu, VerifyOn::kHost);
  const BackendChoice gpu_device_verify = ChooseBackend(BackendKind::kGpu, VerifyOn::kDevice);
  ASSERT_EQ(gpu.kind, BackendKind::kGpu);
  std::vector<std::string> cpu_done;
  std::vector<std::pair<std::vector<double>, double>> cpu_results;  // by CPU spec name
  int compared = 0;
  for (const std::string& text : GpuSpecTexts()) {
    const SolverSpec spec = WithTolerance(SolverSpec::Parse(text));
    SolverSpec on_cpu = spec;
    on_cpu.inner.link_reals = 18;
    const std::string what = lattice.ToString() + " " + action.Describe() + " " + spec.Name();
    const PropagatorRun g = ComputePropagator(u, action, spec, gpu, 1, source);
    ASSERT_TRUE(g.all_converged()) << what << ": " << g.solves.front().result.Summary();
    for (const PropagatorSolveRecord& r : g.solves) {
      EXPECT_LE(r.true_residual, spec.tolerance) << what;
      EXPECT_EQ(r.verified_on, VerifyOn::kHost) << what;
      EXPECT_EQ(r.result.iterations > 0, true) << what;
    }
    // The CPU side of the same spec (18-real links), solved once per CPU spec.
    std::size_t k = 0;
    while (k < cpu_done.size() && cpu_done[k] != on_cpu.Name()) ++k;
    if (k == cpu_done.size()) {
      const PropagatorRun c = ComputePropagator(u, action, on_cpu, cpu, 12, source);
      ASSERT_TRUE(c.all_converged()) << what << " (cpu)";
      cpu_done.push_back(on_cpu.Name());
      cpu_results.push_back({PionCorrelator(c.propagator), PropagatorError(c, norms)});
    }
    ExpectSameCorrelator(PionCorrelator(g.propagator), PropagatorError(g, norms), cpu_results[k].first,
                         cpu_results[k].second, lattice, what);
    ++compared;
  }
  EXPECT_EQ(compared, 3 * 2 * 10);
  // The device recompute of the true residual agrees with the host one (both within rho of the exact norm).
  for (const char* text : {"bicgstab:double", "bicgstab-reliable:half/12/gf:0.1"}) {
    const SolverSpec spec = WithTolerance(SolverSpec::Parse(text));
    const PropagatorRun host = ComputePropagator(u, action, spec, gpu, 1, source);
    const PropagatorRun device = ComputePropagator(u, action, spec, gpu_device_verify, 1, source);
    for (int c = 0; c < 12; ++c) {
      const double x_norm = std::sqrt(Norm2(host.propagator.Column(c / 3, c % 3)));
      EXPECT_EQ(device.solves[c].verified_on, VerifyOn::kDevice);
      // Same deterministic solve on both runs: the same x, only the recompute differs.
      EXPECT_EQ(MaxAbsDifference(host.propagator.Column(c / 3, c % 3), device.propagator.Column(c / 3, c % 3)), 0);
      EXPECT_NEAR(device.solves[c].true_residual, host.solves[c].true_residual,
                  2 * ResidualRounding(norms.t_norm, x_norm))
          << text << " column " << c;
    }
  }
}

TEST_F(BackendAgreement, EverySolverGivesTheCpuCorrelatorOn4x4x4x4) {
  const GaugeField<double> u = Quenched({4, 4, 4, 4}, 10);
  CompareEverySpec(u, FermionAction::WilsonFromKappa(0.12), u.lattice().Index({1, 2, 3, 1}));
}

TEST_F(BackendAgreement, EverySolverGivesTheCpuCorrelatorOn8x8x8x16) {
  const GaugeField<double> u = Quenched({8, 8, 8, 16}, 20);
  CompareEverySpec(u, FermionAction::WilsonFromKappa(0.12), 0);
}

// Wilson-clover (c_sw = 1, both even-odd forms): every GPU spec gives the CPU correlator. kappa = 0.09
// (m = 1.56) keeps lambda_min(T) > 4 on this field (at m = 1 it is 3.99), which the bound
// ||M^{-1}|| <= 1 / (lambda_min - 4) needs.
TEST_F(BackendAgreement, EverySolverGivesTheCpuCloverCorrelatorOn4x4x4x4) {
  const GaugeField<double> u = Quenched({4, 4, 4, 4}, 10);
  FermionAction clover = FermionAction::CloverFromKappa(0.09, 1.0);
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    clover.schur_form = form;
    CompareEverySpec(u, clover, u.lattice().Index({1, 2, 3, 1}));
  }
}

// The propagator's columns as lockstep blocks (rhs_block 12, 5: blocks of 5, 5, 2; with and without gauge
// fixing, 18 and 12 reals): every column converged with its host-verified residual, and the correlator within
// the same bound of the one-column-at-a-time GPU run; the block form of every kind of spec (BiCGstab and CGNR,
// plain, defect correction, reliable updates). Clover blocks go through the same call (their block solves are
// checked in gpu/clover_dslash_test.cc).
TEST_F(BackendAgreement, BlockSolvedColumnsGiveTheSameCorrelator) {
  const GaugeField<double> u = Quenched({8, 8, 8, 16}, 20);
  const FermionAction action = FermionAction::WilsonFromKappa(0.12);
  const Norms norms = ActionNorms(u, action);
  const BackendChoice gpu = ChooseBackend(BackendKind::kGpu, VerifyOn::kHost);
  for (const char* text :
       {"bicgstab:double", "bicgstab:double/12/gf", "cg:double", "bicgstab-reliable:half/12:0.1",
        "cg-reliable:half/12:0.1", "bicgstab-dc:single/12:0.1"}) {
    const SolverSpec spec = WithTolerance(SolverSpec::Parse(text));
    const PropagatorRun single = ComputePropagator(u, action, spec, gpu, 1, 0);
    ASSERT_TRUE(single.all_converged()) << text;
    for (int rhs_block : {12, 5}) {
      const std::string what = std::string(text) + ", blocks of " + std::to_string(rhs_block);
      std::vector<int> reported;
      const PropagatorRun block = ComputePropagator(
          u, action, spec, gpu, 1, 0, [&](const PropagatorSolveRecord& r) { reported.push_back(3 * r.spin + r.colour); },
          rhs_block);
      ASSERT_TRUE(block.all_converged()) << what;
      EXPECT_EQ(reported, std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})) << what;
      for (const PropagatorSolveRecord& r : block.solves) EXPECT_LE(r.true_residual, spec.tolerance) << what;
      ExpectSameCorrelator(PionCorrelator(block.propagator), PropagatorError(block, norms),
                           PionCorrelator(single.propagator), PropagatorError(single, norms), u.lattice(), what);
    }
  }
  EXPECT_THROW(ComputePropagator(u, action, WithTolerance(SolverSpec::Parse("bicgstab")), gpu, 1, 0, {}, 13),
               std::invalid_argument);
}

// auto picks the GPU when there is one (for Wilson and clover alike), and verifies on it.
TEST_F(BackendAgreement, AutoChoosesTheGpu) {
  EXPECT_EQ(ChooseBackend(BackendKind::kAuto, VerifyOn::kAuto).kind, BackendKind::kGpu);
  EXPECT_EQ(ChooseBackend(BackendKind::kAuto, VerifyOn::kAuto).verify, VerifyOn::kDevice);
}

}  // namespace
}  // namespace lqcd::experiments
