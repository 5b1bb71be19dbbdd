#include "solvers/propagator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "reference/spinor_algebra.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/cpu_clover.h"
#include "solvers/even_odd.h"
#include "solvers/normal_equations.h"
#include "solvers/operators.h"
#include "solvers/reliable_update.h"

namespace lqcd::solvers {

FermionAction FermionAction::WilsonFromKappa(double kappa) {
  FermionAction a;
  a.mass = WilsonParams::FromKappa(kappa).mass;
  return a;
}

FermionAction FermionAction::CloverFromKappa(double kappa, double c_sw) {
  FermionAction a = WilsonFromKappa(kappa);
  a.kind = FermionKind::kClover;
  a.c_sw = c_sw;
  return a;
}

double FermionAction::kappa() const {
  WilsonParams p;
  p.mass = mass;
  return p.kappa();
}

void FermionAction::Validate() const {
  kappa();  // 4 + m > 0 and finite
  if (!std::isfinite(c_sw)) throw std::invalid_argument("fermion action: c_sw must be finite");
  if (kind == FermionKind::kWilson && c_sw != 0) {
    throw std::invalid_argument("fermion action: c_sw = " + std::to_string(c_sw) +
                                " needs the clover action (the Wilson action has no clover term)");
  }
}

std::string FermionAction::Describe() const {
  std::ostringstream s;
  s.precision(10);
  if (kind == FermionKind::kWilson) {
    s << "Wilson";
  } else {
    s << "Wilson-clover, c_sw = " << c_sw << ", even-odd form " << ToString(schur_form);
  }
  s << "; m = " << mass << ", kappa = " << kappa() << "; gamma basis " << ToString(basis)
    << "; fermion boundary (x,y,z,t) = " << boundary.ToString() << " (P periodic, A antiperiodic)";
  return s.str();
}

const char* ToString(PropagatorSolver s) {
  switch (s) {
    case PropagatorSolver::kBiCGstab: return "bicgstab";
    case PropagatorSolver::kCg: return "cg";
    case PropagatorSolver::kReliableBiCGstab: return "bicgstab-reliable";
    case PropagatorSolver::kReliableCg: return "cg-reliable";
  }
  return "unknown";
}

const char* ToString(LowPrecision p) { return p == LowPrecision::kSingle ? "single" : "half"; }

std::string PropagatorSolverOptions::Describe() const {
  std::ostringstream s;
  switch (solver) {
    case PropagatorSolver::kBiCGstab: s << "even-odd BiCGstab in double"; break;
    case PropagatorSolver::kCg: s << "even-odd CGNR (CG on the Schur normal equations) in double"; break;
    case PropagatorSolver::kReliableBiCGstab:
      s << "even-odd reliable-update BiCGstab, double outer / " << ToString(low_precision) << " inner, delta = "
        << params.delta;
      break;
    case PropagatorSolver::kReliableCg:
      s << "even-odd reliable-update CGNR, double outer / " << ToString(low_precision) << " inner, delta = "
        << params.delta;
      break;
  }
  s << "; tolerance |b - M x| / |b| <= " << params.tolerance << ", max iterations " << params.max_iterations;
  return s.str();
}

bool PropagatorRun::all_converged() const {
  for (const PropagatorSolveRecord& r : solves) {
    if (!r.result.converged()) return false;
  }
  return !solves.empty();
}

namespace {

WilsonParams ToWilson(const FermionAction& a) {
  WilsonParams p;
  p.mass = a.mass;
  p.basis = a.basis;
  p.boundary = a.boundary;
  return p;
}

CloverParams ToClover(const FermionAction& a) {
  CloverParams p;
  p.mass = a.mass;
  p.c_sw = a.c_sw;
  p.basis = a.basis;
  p.boundary = a.boundary;
  return p;
}

// |b - M x| / |b| with the reference operator; `clover` is non-null for the clover action.
double ResidualWith(const GaugeField<double>& u, const FermionAction& action, const CloverField<double>* clover,
                    const SpinorField<double>& x, const SpinorField<double>& b) {
  if (!x.Compatible(b) || x.subset() != Subset::kFull || x.lattice() != u.lattice()) {
    throw std::invalid_argument("FullResidual: x and b must be full-lattice fields on " + u.lattice().ToString());
  }
  const double b_norm2 = Norm2(b);
  if (!(b_norm2 > 0)) throw std::invalid_argument("FullResidual: the source b is zero");
  SpinorField<double> mx(u.lattice());
  if (clover != nullptr) {
    ApplyWilsonClover(mx, u, *clover, x, Dagger::kNo);
  } else {
    ApplyWilson(mx, u, x, ToWilson(action), Dagger::kNo);
  }
  return std::sqrt(Norm2(Difference(b, mx)) / b_norm2);
}

// One column: x = M^{-1} b through the even-odd driver with the chosen solver. Full/Schur are the double
// operators, SchurSingle/SchurHalf the low-precision Schur operators (built only when needed).
template <typename Full, typename Schur, typename SchurSingle, typename SchurHalf>
class ColumnSolver {
 public:
  ColumnSolver(const Full& m, const Schur& schur, const SchurSingle* single, const SchurHalf* half,
               const PropagatorSolverOptions& options)
      : m_(m), schur_(schur), single_(single), half_(half), options_(options) {}

  SolveResult Solve(SpinorField<double>& x, const SpinorField<double>& b) const {
    const SolverParams& params = options_.params;
    switch (options_.solver) {
      case PropagatorSolver::kBiCGstab:
        return EvenOddBiCGstab(schur_, m_, x, b, params);
      case PropagatorSolver::kCg:
        return SolveEvenOdd(schur_, m_, x, b, params, [&](SpinorField<double>& xp, const SpinorField<double>& bp,
                                                          const SolverParams& p) { return Cgnr(schur_, xp, bp, p); });
      case PropagatorSolver::kReliableBiCGstab:
        if (options_.low_precision == LowPrecision::kSingle) return ReliableBicg(*single_, x, b);
        return ReliableBicg(*half_, x, b);
      case PropagatorSolver::kReliableCg:
        if (options_.low_precision == LowPrecision::kSingle) return ReliableCgnr(*single_, x, b);
        return ReliableCgnr(*half_, x, b);
    }
    throw std::invalid_argument("ComputePropagator: unknown solver");
  }

 private:
  template <typename Low>
  SolveResult ReliableBicg(const Low& low, SpinorField<double>& x, const SpinorField<double>& b) const {
    return SolveEvenOdd(schur_, m_, x, b, options_.params,
                        [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                          return ReliableBiCGstab(schur_, low, xp, bp, p);
                        });
  }
  template <typename Low>
  SolveResult ReliableCgnr(const Low& low, SpinorField<double>& x, const SpinorField<double>& b) const {
    const NormalOperator<Schur> a(schur_);
    const NormalOperator<Low> a_low(low);
    const std::string name = std::string("ReliableCG<double,") + PrecisionTraits<typename Low::Precision>::kName +
                             "> delta=" + std::to_string(options_.params.delta);
    return SolveEvenOdd(schur_, m_, x, b, options_.params,
                        [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                          return SolveCgnr(schur_, xp, bp, p, name,
                                           [&](SpinorField<double>& xx, const SpinorField<double>& bn,
                                               const SolverParams& pp) { return ReliableCg(a, a_low, xx, bn, pp); });
                        });
  }

  const Full& m_;
  const Schur& schur_;
  const SchurSingle* single_;
  const SchurHalf* half_;
  const PropagatorSolverOptions& options_;
};

bool NeedsLow(const PropagatorSolverOptions& o, LowPrecision p) {
  return (o.solver == PropagatorSolver::kReliableBiCGstab || o.solver == PropagatorSolver::kReliableCg) &&
         o.low_precision == p;
}

// One thread's solver: its own operators (they keep mutable scratch fields) and a ColumnSolver over them.
class ColumnSolverBase {
 public:
  virtual ~ColumnSolverBase() = default;
  virtual SolveResult Solve(SpinorField<double>& x, const SpinorField<double>& b) const = 0;
};

template <typename Full, typename Schur, typename SchurSingle, typename SchurHalf, typename Params,
          typename... SchurArgs>
class OwningColumnSolver : public ColumnSolverBase {
 public:
  OwningColumnSolver(const GaugeField<double>& u, const PropagatorSolverOptions& options, const Params& params,
                     SchurArgs... schur_args)
      : m_(u, params),
        schur_(u, params, schur_args...),
        single_(NeedsLow(options, LowPrecision::kSingle) ? std::make_unique<SchurSingle>(u, params, schur_args...)
                                                          : nullptr),
        half_(NeedsLow(options, LowPrecision::kHalf) ? std::make_unique<SchurHalf>(u, params, schur_args...)
                                                      : nullptr),
        solver_(m_, schur_, single_.get(), half_.get(), options) {}
  SolveResult Solve(SpinorField<double>& x, const SpinorField<double>& b) const override { return solver_.Solve(x, b); }

 private:
  Full m_;
  Schur schur_;
  std::unique_ptr<SchurSingle> single_;
  std::unique_ptr<SchurHalf> half_;
  ColumnSolver<Full, Schur, SchurSingle, SchurHalf> solver_;
};

std::unique_ptr<ColumnSolverBase> MakeColumnSolver(const GaugeField<double>& u, const FermionAction& action,
                                                   const PropagatorSolverOptions& options) {
  if (action.kind == FermionKind::kWilson) {
    return std::make_unique<OwningColumnSolver<CpuWilson<double>, CpuWilsonSchur<double>, CpuWilsonSchur<float>,
                                               CpuWilsonSchur<Half>, WilsonParams, Parity>>(u, options, ToWilson(action),
                                                                                            Parity::kEven);
  }
  return std::make_unique<OwningColumnSolver<CpuClover<double>, CpuCloverSchur<double>, CpuCloverSchur<float>,
                                             CpuCloverSchur<Half>, CloverParams, CloverSchurForm, Parity>>(
      u, options, ToClover(action), action.schur_form, Parity::kEven);
}

}  // namespace

PropagatorRun ComputePropagator(const GaugeField<double>& u, const FermionAction& action,
                                const PropagatorSolverOptions& options, int source_site,
                                const PropagatorObserver& observer) {
  action.Validate();
  options.params.Validate("ComputePropagator");
  if (options.threads < 1) throw std::invalid_argument("ComputePropagator: threads must be >= 1");
  if (source_site < 0 || source_site >= u.lattice().volume()) {
    throw std::invalid_argument("ComputePropagator: source site " + std::to_string(source_site) + " is not on " +
                                u.lattice().ToString());
  }
  PointPropagator propagator(u.lattice(), source_site);
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CloverField<double>> clover;  // for the residual check; read-only, shared by the threads
  if (action.kind == FermionKind::kClover) clover = std::make_unique<CloverField<double>>(u, ToClover(action));

  // Columns are handed out in order; records are reported in column order as soon as all earlier ones
  // are done, so the output does not depend on the thread count (and neither do the results: each solve
  // is deterministic and independent of the others).
  std::vector<PropagatorSolveRecord> records(12);
  std::vector<std::unique_ptr<SpinorField<double>>> solutions(12);
  std::vector<bool> done(12, false);
  int next_column = 0, next_report = 0;
  std::exception_ptr failure;
  std::mutex mutex;
  auto work = [&]() {
    try {
      const std::unique_ptr<ColumnSolverBase> solver = MakeColumnSolver(u, action, options);
      for (;;) {
        int k;
        {
          const std::lock_guard<std::mutex> lock(mutex);
          if (next_column >= 12 || failure) return;
          k = next_column++;
        }
        const int spin = k / 3, colour = k % 3;
        const SpinorField<double> b = PointSource<double>(u.lattice(), source_site, spin, colour);
        auto x = std::make_unique<SpinorField<double>>(u.lattice());
        PropagatorSolveRecord record;
        record.spin = spin;
        record.colour = colour;
        record.result = solver->Solve(*x, b);
        record.true_residual = ResidualWith(u, action, clover.get(), *x, b);
        const std::lock_guard<std::mutex> lock(mutex);
        records[k] = record;
        solutions[k] = std::move(x);
        done[k] = true;
        while (next_report < 12 && done[next_report]) {
          if (observer) observer(records[next_report]);
          ++next_report;
        }
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  const int threads = std::min(options.threads, 12);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  for (int k = 0; k < 12; ++k) propagator.SetColumn(k / 3, k % 3, std::move(*solutions[k]));
  PropagatorRun run{std::move(propagator), std::move(records), 0};
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

double FullResidual(const GaugeField<double>& u, const FermionAction& action, const SpinorField<double>& x,
                    const SpinorField<double>& b) {
  action.Validate();
  if (action.kind == FermionKind::kClover) {
    const CloverField<double> clover(u, ToClover(action));
    return ResidualWith(u, action, &clover, x, b);
  }
  return ResidualWith(u, action, nullptr, x, b);
}

}  // namespace lqcd::solvers
