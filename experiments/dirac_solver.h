// dirac_solver.h: solve M x = b for one gauge configuration on the CPU oracle or on the GPU, with host
// fields in and out. Every job (the main job's propagator, the solver tables, their spectroscopy) solves
// through this interface, so choosing the backend is one flag (--backend) and nothing else changes.
//
//   ChooseBackend(requested, verify)
//       --backend=auto  the GPU when a usable device exists, else the CPU; the reason is kept for the
//                       program to print
//       --backend=gpu   the GPU, or std::invalid_argument when there is no device (with CUDA's reason)
//       --backend=cpu   the CPU oracle
//       --verify=auto|host|device   where the returned x's true residual |b - M x| / |b| is recomputed in
//                       double: host = the reference operators (reference/wilson.h, clover.h); device = a
//                       double GpuWilson / GpuClover on the original (not gauge-fixed) links, for lattices where the
//                       host recompute would cost more than the solve. auto: device on the GPU, host on
//                       the CPU; device with the CPU backend is an error.
//   MakeDiracSolver(choice, u)   a solver for configuration u (u must outlive it).
//   Domain decomposition (several MPI ranks, one GPU each): a GPU choice with a `communicator` whose grid has
//       more than one rank gives the partitioned solver (partitioned_dirac_solver.cc). Its interface is the
//       same: u, b and x are the GLOBAL host fields, and every rank holds all of them (every rank has the
//       same configuration: generated with the same seed or read from the same file). Per solve it scatters
//       b and the guess (gpu/comm/subdomain.h ScatterSpinor), solves on this rank's sub-lattice through the
//       partitioned Dslash (gpu/spec_solver.h GpuPartitionedLinks) with GLOBAL reductions (it sets the
//       blas reduction communicator for the solve), and gathers x onto every rank (Communicator::AllGather),
//       so every rank returns the same x bit for bit. Every rank must make the same Solve calls together
//       (a collective). Temporal gauge fixing fixes the GLOBAL links on every rank identically, then
//       scatters them. verify=host recomputes |b - M x| / |b| on the global lattice on every rank with the
//       reference operators; verify=device with a double partitioned GpuWilson on the local pieces and
//       global reductions (GpuWilson or GpuClover). Wilson-clover actions build their clover term on the
//       GLOBAL links on every rank (once per action; on the gauge-fixed links for gauge-fixed solves) and
//       upload this rank's piece (gpu/comm/subdomain.h ScatterClover).
//   Distributed fields: MakeDistributedDiracSolver(choice, u) (a partitioned choice with verify=device) gives
//       the same partitioned solver with one more entry point, SolveLocal(action, spec, b, x), whose b and x are
//       THIS RANK's pieces (fields on local_lattice(); local site n is global site offset + n,
//       gpu/comm/subdomain.h) instead of the global fields. No rank then scatters, gathers or holds a global
//       spinor field; the solve, the returned pieces and the device true residual are those Solve gives (Solve
//       itself scatters, calls the same solve on the pieces, and gathers). b must be nonzero globally (a rank's
//       piece may be zero). Collective, as Solve.
//   DiracSolver::Solve(action, spec, b, x)
//       x = M^{-1} b by `spec` (solvers/solver_spec.h), x the initial guess on entry, full-lattice double
//       host fields in the action's gamma basis. The spec is checked against the backend first
//       (RequireSupported: e.g. 12/8-real links need the GPU). For spec.temporal_gauge the system solved is
//       G M G^dag (G x) = G b on the temporal-gauge-fixed links (reference/gauge_transform.h, computed once
//       per solver); x is transformed back, so the result is always the solution of the original system.
//       The GPU uploads each link layout once per solver (gpu/spec_solver.h); per solve it uploads b and
//       the guess, runs the even-odd solve on the device (source preparation, Schur solve,
//       reconstruction) and downloads x.
//   Threads: a DiracSolver is not thread-safe. CPU jobs use one per thread; the GPU one per process.
// Errors: std::invalid_argument for a bad action, spec or field shape (before any work); CudaError
// from the device.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiments/fermion_action.h"
#include "gpu/comm/communicator.h"
#include "gpu/partitioned_dslash.h"

namespace lqcd::gpu {
class DeviceRankSum;  // gpu/device_rank_sum.h
}  // namespace lqcd::gpu
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {

enum class BackendKind { kAuto, kCpu, kGpu };
enum class VerifyOn { kAuto, kHost, kDevice };
const char* ToString(BackendKind b);  // "auto", "cpu", "gpu"
const char* ToString(VerifyOn v);     // "auto", "host", "device"

struct BackendChoice {
  BackendKind kind = BackendKind::kCpu;  // kCpu or kGpu, never kAuto
  VerifyOn verify = VerifyOn::kHost;     // kHost or kDevice, never kAuto
  std::string reason;                    // why this backend, e.g. "--backend=auto: no GPU (...)"
  std::string device;                    // what it runs on: the CPU model and threads, or the GPU's Describe()
  // Domain decomposition (GPU only): this process's communicator (must outlive every solver made from the
  // choice) and how the faces travel. Null, or a one-rank grid: one process on the whole lattice.
  comm::Communicator* communicator = nullptr;
  gpu::HaloTransport transport = gpu::HaloTransport::kHostStaged;
  // With several ranks: the solvers' global sums added on the devices (gpu/device_rank_sum.h; built on
  // `communicator`, owned by the program, must outlive every solver), or null: through the host. Same bits.
  const gpu::DeviceRankSum* device_sums = nullptr;
  bool partitioned() const { return kind == BackendKind::kGpu && communicator != nullptr && communicator->size() > 1; }
};

BackendChoice ChooseBackend(BackendKind requested, VerifyOn verify);
solvers::BackendCapabilities CapabilitiesOf(BackendKind kind);  // kCpu or kGpu
// What `choice` runs: CapabilitiesOf(choice.kind), without the clover operator when partitioned.
solvers::BackendCapabilities CapabilitiesOf(const BackendChoice& choice);

struct SolveOutcome {
  solvers::SolveResult result;  // the solver's record (of the gauge-fixed system for spec.temporal_gauge)
  double true_residual = 0;     // |b - M x| / |b| of the returned x, recomputed in double
  VerifyOn verified_on = VerifyOn::kHost;
  // Where the call's time went besides the solver's own (result.seconds), for the programs to report: moving b,
  // the guess and x between host and device (host conversions, staging and, on several ranks, the scatter and
  // gather included; 0 on the CPU) and recomputing the true residual.
  double transfer_seconds = 0;
  double check_seconds = 0;
};

class DiracSolver {
 public:
  virtual ~DiracSolver() = default;
  virtual SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec,
                             const SpinorField<double>& b, SpinorField<double>& x) = 0;
  // The systems M x[k] = b[k], each with the outcome Solve would report: this default solves them one after
  // another; the GPU solver on one GPU solves Wilson systems (any spec) as ONE lockstep block
  // (gpu/spec_solver.h SolveBlockWithSpecOnGpu: every M_ee application shared, the links read once per site for
  // all unconverged systems; each system converges on its own criterion). b and x of equal length >= 1, x[k] distinct.
  virtual std::vector<SolveOutcome> SolveBlock(const FermionAction& action, const solvers::SolverSpec& spec,
                                               const std::vector<const SpinorField<double>*>& b,
                                               const std::vector<SpinorField<double>*>& x);
  // Whether SolveBlock shares the operator between the systems for this action and spec (else it loops).
  virtual bool SolvesAsBlock(const FermionAction& action, const solvers::SolverSpec& spec) const {
    (void)action;
    (void)spec;
    return false;
  }
  virtual BackendKind backend() const = 0;
};

std::unique_ptr<DiracSolver> MakeDiracSolver(const BackendChoice& choice, const GaugeField<double>& u);

// The partitioned solver's entry point on this rank's pieces (file comment, "Distributed fields").
class DistributedDiracSolver : public DiracSolver {
 public:
  virtual const Lattice& local_lattice() const = 0;
  virtual comm::Communicator& communicator() const = 0;
  // x = M^{-1} b on the global lattice, b and x (the guess on entry) this rank's pieces on local_lattice().
  virtual SolveOutcome SolveLocal(const FermionAction& action, const solvers::SolverSpec& spec,
                                  const SpinorField<double>& b, SpinorField<double>& x) = 0;
};

// std::invalid_argument unless choice.partitioned() and choice.verify is kDevice (the host recompute needs the
// global fields).
std::unique_ptr<DistributedDiracSolver> MakeDistributedDiracSolver(const BackendChoice& choice,
                                                                   const GaugeField<double>& u);

// One process whose piece is the whole lattice (a one-rank grid, comm::SingleProcessCommunicator): `solver`
// behind DistributedDiracSolver's interface, SolveLocal being solver->Solve, so that the drivers written for
// pieces (distributed_propagator.h) serve one GPU or the CPU as well. std::invalid_argument for a null solver.
std::unique_ptr<DistributedDiracSolver> MakeWholeLatticeSolver(std::unique_ptr<DiracSolver> solver,
                                                               const Lattice& lattice);

// |b - M x| / |b| in double on the full lattice with the reference operators (ApplyWilson /
// ApplyWilsonClover) of `action`. std::invalid_argument for b = 0 or fields not on u's full lattice.
double ReferenceResidual(const GaugeField<double>& u, const FermionAction& action, const SpinorField<double>& x,
                         const SpinorField<double>& b);

}  // namespace lqcd::experiments
