// dirac_solver_test: the backend choice (--backend, --verify) and the DiracSolver contract on the CPU:
// gauge fixing is invisible in the result, the initial guess is used, bad fields are refused.
// (The GPU DiracSolver against the CPU one: backend_agreement_test.)
#include "experiments/dirac_solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "gpu/comm/communicator.h"
#include "gpu/comm/process_grid.h"
#include "gpu/device.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "solvers/testing.h"
#include "reference/error_testing.h"

namespace lqcd::experiments {
namespace {

using solvers::SolverSpec;


TEST(ChooseBackend, FollowsTheFlagsAndSaysWhy) {
  const std::string no_device = gpu::NoDeviceReason();
  const BackendChoice cpu = ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto);
  EXPECT_EQ(cpu.kind, BackendKind::kCpu);
  EXPECT_EQ(cpu.verify, VerifyOn::kHost);
  EXPECT_EQ(cpu.reason, "--backend=cpu");
  EXPECT_FALSE(cpu.device.empty());
  EXPECT_NE(ErrorOf([] { ChooseBackend(BackendKind::kCpu, VerifyOn::kDevice); })
                .find("--verify=device needs the GPU backend"),
            std::string::npos);
  const BackendChoice automatic = ChooseBackend(BackendKind::kAuto, VerifyOn::kAuto);
  if (!no_device.empty()) {
    EXPECT_EQ(automatic.kind, BackendKind::kCpu);
    EXPECT_NE(automatic.reason.find("no usable GPU"), std::string::npos) << automatic.reason;
    EXPECT_NE(ErrorOf([] { ChooseBackend(BackendKind::kGpu, VerifyOn::kAuto); })
                  .find("--backend=gpu, but there is no usable GPU"),
              std::string::npos);
  } else {
    EXPECT_EQ(automatic.kind, BackendKind::kGpu);
    EXPECT_EQ(automatic.verify, VerifyOn::kDevice);
  }
  EXPECT_EQ(CapabilitiesOf(BackendKind::kCpu).name, "cpu");
  EXPECT_EQ(CapabilitiesOf(BackendKind::kGpu).name, "gpu");
  EXPECT_TRUE(CapabilitiesOf(BackendKind::kCpu).clover);
  EXPECT_TRUE(CapabilitiesOf(BackendKind::kGpu).clover);  // Wilson-clover runs on both backends
  EXPECT_THROW(CapabilitiesOf(BackendKind::kAuto), std::invalid_argument);
}

TEST(CpuDiracSolver, GaugeFixingAndInitialGuessDoNotChangeTheSolution) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 21);  // far from temporal gauge
  SpinorField<double> b(lattice);
  FillGaussian(b, 22);
  const FermionAction action = FermionAction::WilsonFromKappa(0.12);  // m = 1/6: ||M^{-1}|| <= 6
  const auto solver = MakeDiracSolver(ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto), u);
  SolverSpec plain = SolverSpec::Parse("bicgstab");
  SolverSpec fixed = SolverSpec::Parse("bicgstab:double/gf");
  plain.tolerance = fixed.tolerance = 1e-12;
  SpinorField<double> x_plain(lattice), x_fixed(lattice);
  const SolveOutcome a = solver->Solve(action, plain, b, x_plain);
  const SolveOutcome f = solver->Solve(action, fixed, b, x_fixed);
  ASSERT_TRUE(a.result.converged());
  ASSERT_TRUE(f.result.converged());
  EXPECT_LE(a.true_residual, 1e-12);
  EXPECT_LE(f.true_residual, 1e-12);  // of the ORIGINAL system: x_fixed was transformed back
  EXPECT_NEAR(f.true_residual, ReferenceResidual(u, action, x_fixed, b), 1e-15);
  // |x_plain - x_fixed| <= ||M^{-1}|| (r_plain + r_fixed) |b| (plus rounding far below).
  const double b_norm = std::sqrt(Norm2(b));
  EXPECT_LE(std::sqrt(Norm2(Difference(x_plain, x_fixed))), 6 * 2.1e-12 * b_norm);
  // An exact solution as the initial guess: nothing left to do.
  SpinorField<double> x_guess = x_plain;
  const SolveOutcome g = solver->Solve(action, plain, b, x_guess);
  EXPECT_TRUE(g.result.converged());
  EXPECT_EQ(g.result.iterations, 0);
}

TEST(CpuDiracSolver, RefusesBadFieldsAndSpecsBeforeWork) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 31);
  const auto solver = MakeDiracSolver(ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto), u);
  const FermionAction action = FermionAction::WilsonFromKappa(0.12);
  SpinorField<double> b(lattice), x(lattice);
  EXPECT_NE(ErrorOf([&] { solver->Solve(action, SolverSpec::Parse("bicgstab"), b, x); }).find("the source b is zero"),
            std::string::npos);
  FillGaussian(b, 1);
  SpinorField<double> even(lattice, Subset::kEven);
  EXPECT_NE(ErrorOf([&] { solver->Solve(action, SolverSpec::Parse("bicgstab"), b, even); }).find("full-lattice"),
            std::string::npos);
  SpinorField<double> other(Lattice(4, 4, 4, 8));
  EXPECT_NE(ErrorOf([&] { solver->Solve(action, SolverSpec::Parse("bicgstab"), other, x); }).find("4x4x4x4"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { solver->Solve(action, SolverSpec::Parse("bicgstab:double/8"), b, x); })
                .find("the cpu backend does not store 8 reals per link"),
            std::string::npos);
  FermionAction bad = action;
  bad.mass = -5;
  EXPECT_THROW(solver->Solve(bad, SolverSpec::Parse("bicgstab"), b, x), std::invalid_argument);
  EXPECT_EQ(Norm2(x), 0.0);  // untouched
}

// A communicator of `ranks` ranks that is never used for communication: the refusals below come first.
class UnusedCommunicator final : public comm::Communicator {
 public:
  explicit UnusedCommunicator(const comm::ProcessGrid& grid) : grid_(grid) {}
  int rank() const override { return 0; }
  int size() const override { return grid_.size(); }
  const comm::ProcessGrid& grid() const override { return grid_; }
  void Exchange(int, comm::Side, const void*, void*, std::size_t) override { ADD_FAILURE() << "Exchange called"; }
  std::vector<double> SumDeterministic(const std::vector<double>& local) override {
    ADD_FAILURE() << "SumDeterministic called";
    return local;
  }
  using Communicator::SumDeterministic;
  void AllGather(const void*, std::size_t, void*) override { ADD_FAILURE() << "AllGather called"; }
  void Barrier() override { ADD_FAILURE() << "Barrier called"; }

 private:
  comm::ProcessGrid grid_;
};

// The solver on this rank's pieces exists only for the GPU on several ranks with the residuals recomputed on the
// devices: every other choice is refused, with the reason, before anything is built.
TEST(DistributedDiracSolver, IsRefusedUnlessPartitionedWithDeviceResiduals) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 32);
  BackendChoice cpu;
  cpu.kind = BackendKind::kCpu;
  EXPECT_NE(ErrorOf([&] { MakeDistributedDiracSolver(cpu, u); }).find("several ranks"), std::string::npos);
  BackendChoice one_gpu;  // no communicator: one process on the whole lattice
  one_gpu.kind = BackendKind::kGpu;
  one_gpu.verify = VerifyOn::kDevice;
  EXPECT_NE(ErrorOf([&] { MakeDistributedDiracSolver(one_gpu, u); }).find("several ranks"), std::string::npos);
  UnusedCommunicator two(comm::ProcessGrid({1, 1, 1, 2}));
  BackendChoice host_residuals = one_gpu;
  host_residuals.communicator = &two;
  host_residuals.verify = VerifyOn::kHost;
  EXPECT_NE(ErrorOf([&] { MakeDistributedDiracSolver(host_residuals, u); }).find("--verify=device"),
            std::string::npos);
}

}  // namespace
}  // namespace lqcd::experiments
