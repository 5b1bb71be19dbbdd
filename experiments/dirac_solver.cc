// dirac_solver.cc: backend choice, the CPU DiracSolver and the reference residual (dirac_solver.h).
#include "experiments/dirac_solver.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "experiments/dirac_solver_internal.h"
#include "gpu/device.h"
#include "gpu/spec_solver.h"
#include "reference/clover.h"
#include "reference/cli/machine_info.h"
#include "reference/spinor_algebra.h"
#include "reference/wilson.h"
#include "solvers/cpu_spec_solver.h"

namespace lqcd::experiments {

const char* ToString(BackendKind b) {
  switch (b) {
    case BackendKind::kAuto: return "auto";
    case BackendKind::kCpu: return "cpu";
    case BackendKind::kGpu: return "gpu";
  }
  return "unknown";
}

const char* ToString(VerifyOn v) {
  switch (v) {
    case VerifyOn::kAuto: return "auto";
    case VerifyOn::kHost: return "host";
    case VerifyOn::kDevice: return "device";
  }
  return "unknown";
}

BackendChoice ChooseBackend(BackendKind requested, VerifyOn verify) {
  BackendChoice choice;
  const std::string no_device = requested == BackendKind::kCpu ? std::string() : gpu::NoDeviceReason();
  switch (requested) {
    case BackendKind::kCpu:
      choice.kind = BackendKind::kCpu;
      choice.reason = "--backend=cpu";
      break;
    case BackendKind::kGpu:
      if (!no_device.empty()) throw std::invalid_argument("--backend=gpu, but there is no usable GPU: " + no_device);
      choice.kind = BackendKind::kGpu;
      choice.reason = "--backend=gpu";
      break;
    case BackendKind::kAuto:
      if (!no_device.empty()) {
        choice.kind = BackendKind::kCpu;
        choice.reason = "--backend=auto: no usable GPU (" + no_device + "), so the CPU oracle";
      } else {
        choice.kind = BackendKind::kGpu;
        choice.reason = "--backend=auto: a GPU is present";
      }
      break;
  }
  if (verify == VerifyOn::kDevice && choice.kind == BackendKind::kCpu) {
    throw std::invalid_argument("--verify=device needs the GPU backend (this run uses the CPU: " + choice.reason + ")");
  }
  choice.verify = verify != VerifyOn::kAuto ? verify
                                            : (choice.kind == BackendKind::kGpu ? VerifyOn::kDevice : VerifyOn::kHost);
  choice.device = choice.kind == BackendKind::kGpu ? gpu::Describe(gpu::CurrentDeviceInfo()) : DescribeMachine();
  return choice;
}

solvers::BackendCapabilities CapabilitiesOf(BackendKind kind) {
  if (kind == BackendKind::kGpu) return gpu::GpuCapabilities();
  if (kind == BackendKind::kCpu) return solvers::CpuCapabilities();
  throw std::invalid_argument("CapabilitiesOf: resolve --backend=auto first (ChooseBackend)");
}

solvers::BackendCapabilities CapabilitiesOf(const BackendChoice& choice) {
  return choice.partitioned() ? gpu::GpuPartitionedCapabilities() : CapabilitiesOf(choice.kind);
}

double ReferenceResidual(const GaugeField<double>& u, const FermionAction& action, const SpinorField<double>& x,
                         const SpinorField<double>& b) {
  action.Validate();
  internal::RequireSystemShapes(u, b, x);
  const double b_norm2 = Norm2(b);
  if (!(b_norm2 > 0)) throw std::invalid_argument("ReferenceResidual: the source b is zero");
  SpinorField<double> mx(u.lattice());
  if (action.clover()) {
    const CloverField<double> clover(u, action.clover_params());
    ApplyWilsonClover(mx, u, clover, x, Dagger::kNo);
  } else {
    ApplyWilson(mx, u, x, action.wilson(), Dagger::kNo);
  }
  return std::sqrt(Norm2(Difference(b, mx)) / b_norm2);
}

namespace internal {

namespace {
GaugeTransformation<double> Adjoint(const GaugeTransformation<double>& g) {
  GaugeTransformation<double> a(g.lattice());
  for (int site = 0; site < g.lattice().volume(); ++site) a[site] = g[site].adjoint();
  return a;
}
}  // namespace

TemporalGaugeCopy::TemporalGaugeCopy(const GaugeField<double>& u)
    : fixed_(TemporalGaugeFix(u)), inverse_(Adjoint(fixed_.transformation)) {}

SpinorField<double> TemporalGaugeCopy::ToFixed(const SpinorField<double>& psi) const {
  return ApplyGaugeTransformation(fixed_.transformation, psi);
}

SpinorField<double> TemporalGaugeCopy::FromFixed(const SpinorField<double>& psi) const {
  return ApplyGaugeTransformation(inverse_, psi);
}

// Both scans run on every core (OpenMP): a whole-lattice field is 2 GB at 48^3 x 96, and the GPU jobs call
// them once per column.
bool IsZero(const SpinorField<double>& x) {
  bool nonzero = false;
#pragma omp parallel for schedule(static) reduction(|| : nonzero)
  for (int i = 0; i < x.sites(); ++i) nonzero = nonzero || !x[i].isZero(0);
  return !nonzero;
}

namespace {
// |b|^2 summed in any order: only compared with 0.
double UnorderedNorm2(const SpinorField<double>& b) {
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (int i = 0; i < b.sites(); ++i) sum += b[i].squaredNorm();
  return sum;
}
}  // namespace

void RequireSystemShapes(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x) {
  for (const SpinorField<double>* f : {&b, &x}) {
    if (f->subset() != Subset::kFull || f->lattice() != u.lattice()) {
      throw std::invalid_argument("DiracSolver: b and x must be full-lattice fields on " + u.lattice().ToString() +
                                  " (the configuration's lattice)");
    }
  }
}

void RequireBlockShapes(const std::vector<const SpinorField<double>*>& b, const std::vector<SpinorField<double>*>& x) {
  if (b.empty() || b.size() != x.size()) {
    throw std::invalid_argument("DiracSolver::SolveBlock: " + std::to_string(x.size()) + " solutions for " +
                                std::to_string(b.size()) + " sources (at least one)");
  }
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (b[k] == nullptr || x[k] == nullptr) throw std::invalid_argument("DiracSolver::SolveBlock: a null field");
    for (std::size_t j = 0; j < k; ++j) {
      if (x[j] == x[k]) throw std::invalid_argument("DiracSolver::SolveBlock: solutions " + std::to_string(j) +
                                                    " and " + std::to_string(k) + " are the same field");
    }
  }
}

void RequireSystemFields(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x) {
  RequireSystemShapes(u, b, x);
  if (!(UnorderedNorm2(b) > 0)) throw std::invalid_argument("DiracSolver: the source b is zero");
}

namespace {

class CpuDiracSolver : public DiracSolver {
 public:
  explicit CpuDiracSolver(const GaugeField<double>& u) : u_(u) {}

  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, solvers::CpuCapabilities(), action.clover());
    RequireSystemFields(u_, b, x);
    SolveOutcome out;
    if (spec.temporal_gauge) {
      if (!fixed_) fixed_ = std::make_unique<TemporalGaugeCopy>(u_);
      const SpinorField<double> b_fixed = fixed_->ToFixed(b);
      SpinorField<double> x_fixed = fixed_->ToFixed(x);
      out.result = SolveOn(fixed_->links(), action, spec, b_fixed, x_fixed);
      x = fixed_->FromFixed(x_fixed);
    } else {
      out.result = SolveOn(u_, action, spec, b, x);
    }
    const Stopwatch check;
    out.true_residual = ReferenceResidual(u_, action, x, b);
    out.check_seconds = check.Seconds();
    out.verified_on = VerifyOn::kHost;
    return out;
  }
  BackendKind backend() const override { return BackendKind::kCpu; }

 private:
  static solvers::SolveResult SolveOn(const GaugeField<double>& links, const FermionAction& action,
                                      const solvers::SolverSpec& spec, const SpinorField<double>& b,
                                      SpinorField<double>& x) {
    if (action.clover()) {
      return solvers::SolveWithSpecOnCpu(spec, links, action.clover_params(), action.schur_form, x, b);
    }
    return solvers::SolveWithSpecOnCpu(spec, links, action.wilson(), x, b);
  }

  const GaugeField<double>& u_;
  std::unique_ptr<TemporalGaugeCopy> fixed_;
};

}  // namespace
}  // namespace internal

std::vector<SolveOutcome> DiracSolver::SolveBlock(const FermionAction& action, const solvers::SolverSpec& spec,
                                                  const std::vector<const SpinorField<double>*>& b,
                                                  const std::vector<SpinorField<double>*>& x) {
  internal::RequireBlockShapes(b, x);
  std::vector<SolveOutcome> out;
  for (std::size_t k = 0; k < b.size(); ++k) out.push_back(Solve(action, spec, *b[k], *x[k]));
  return out;
}

std::unique_ptr<DiracSolver> MakeDiracSolver(const BackendChoice& choice, const GaugeField<double>& u) {
  switch (choice.kind) {
    case BackendKind::kCpu:
      if (choice.verify == VerifyOn::kDevice) throw std::invalid_argument("--verify=device needs the GPU backend");
      return std::make_unique<internal::CpuDiracSolver>(u);
    case BackendKind::kGpu:
      if (choice.partitioned()) {
        return internal::MakePartitionedDiracSolver(u, choice.verify, *choice.communicator, choice.transport,
                                               choice.device_sums);
      }
      return internal::MakeGpuDiracSolver(u, choice.verify);
    case BackendKind::kAuto:
      break;
  }
  throw std::invalid_argument("MakeDiracSolver: resolve --backend=auto first (ChooseBackend)");
}

std::unique_ptr<DistributedDiracSolver> MakeDistributedDiracSolver(const BackendChoice& choice,
                                                                   const GaugeField<double>& u) {
  if (!choice.partitioned()) {
    throw std::invalid_argument("MakeDistributedDiracSolver: needs the GPU backend on a grid of several ranks");
  }
  if (choice.verify != VerifyOn::kDevice) {
    throw std::invalid_argument(
        "MakeDistributedDiracSolver: needs --verify=device (the host recompute of the true residual needs the "
        "global fields)");
  }
  return internal::MakePartitionedDiracSolver(u, choice.verify, *choice.communicator, choice.transport,
                                               choice.device_sums);
}

namespace {

// One process whose piece is the whole lattice: every call goes to the wrapped solver.
class WholeLatticeSolver final : public DistributedDiracSolver {
 public:
  WholeLatticeSolver(std::unique_ptr<DiracSolver> solver, const Lattice& lattice)
      : solver_(std::move(solver)), lattice_(lattice) {}

  const Lattice& local_lattice() const override { return lattice_; }
  comm::Communicator& communicator() const override { return communicator_; }
  SolveOutcome SolveLocal(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                          SpinorField<double>& x) override {
    return solver_->Solve(action, spec, b, x);
  }
  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    return solver_->Solve(action, spec, b, x);
  }
  std::vector<SolveOutcome> SolveBlock(const FermionAction& action, const solvers::SolverSpec& spec,
                                       const std::vector<const SpinorField<double>*>& b,
                                       const std::vector<SpinorField<double>*>& x) override {
    return solver_->SolveBlock(action, spec, b, x);
  }
  bool SolvesAsBlock(const FermionAction& action, const solvers::SolverSpec& spec) const override {
    return solver_->SolvesAsBlock(action, spec);
  }
  BackendKind backend() const override { return solver_->backend(); }

 private:
  std::unique_ptr<DiracSolver> solver_;
  Lattice lattice_;
  mutable comm::SingleProcessCommunicator communicator_;  // stateless; communicator() hands it out non-const
};

}  // namespace

std::unique_ptr<DistributedDiracSolver> MakeWholeLatticeSolver(std::unique_ptr<DiracSolver> solver,
                                                               const Lattice& lattice) {
  if (!solver) throw std::invalid_argument("MakeWholeLatticeSolver: no solver");
  return std::make_unique<WholeLatticeSolver>(std::move(solver), lattice);
}

}  // namespace lqcd::experiments
