// propagator_driver.cc: see propagator_driver.h.
#include "experiments/propagator_driver.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "experiments/stopwatch.h"
#include "gpu/device_spinor_field.h"

namespace lqcd::experiments {

PropagatorSolveRecord RecordOf(int spin, int colour, const SolveOutcome& outcome, double column_seconds) {
  return {spin,           colour, outcome.result, outcome.true_residual, outcome.verified_on, column_seconds,
          outcome.transfer_seconds, outcome.check_seconds};
}

bool AllConverged(const std::vector<PropagatorSolveRecord>& solves) {
  for (const PropagatorSolveRecord& r : solves) {
    if (!r.result.converged()) return false;
  }
  return !solves.empty();
}

bool PropagatorRun::all_converged() const { return AllConverged(solves); }

PropagatorRun ComputePropagator(const GaugeField<double>& u, const FermionAction& action,
                                const solvers::SolverSpec& spec, const BackendChoice& backend, int threads,
                                int source_site, const PropagatorObserver& observer, int rhs_block) {
  action.Validate();
  solvers::RequireSupported(spec, CapabilitiesOf(backend), action.clover());
  if (threads < 1) throw std::invalid_argument("ComputePropagator: threads must be >= 1");
  if (source_site < 0 || source_site >= u.lattice().volume()) {
    throw std::invalid_argument("ComputePropagator: source site " + std::to_string(source_site) + " is not on " +
                                u.lattice().ToString());
  }
  if (rhs_block < 1 || rhs_block > 12) {
    throw std::invalid_argument("ComputePropagator: rhs_block must be in 1..12, got " + std::to_string(rhs_block));
  }
  PointPropagator propagator(u.lattice(), source_site);
  const Stopwatch run_time;
  if (rhs_block > 1) {
    const std::unique_ptr<DiracSolver> solver = MakeDiracSolver(backend, u);
    std::vector<PropagatorSolveRecord> records;
    for (int first = 0; first < 12; first += rhs_block) {
      const int count = std::min(rhs_block, 12 - first);
      std::vector<SpinorField<double>> b;
      std::vector<const SpinorField<double>*> b_pointers;
      std::vector<SpinorField<double>*> x_pointers;  // the propagator's own (zero) columns, solved in place
      for (int k = first; k < first + count; ++k) {
        b.push_back(PointSource<double>(u.lattice(), source_site, k / 3, k % 3));
        x_pointers.push_back(&propagator.MutableColumn(k / 3, k % 3));
      }
      for (const SpinorField<double>& source : b) b_pointers.push_back(&source);
      const Stopwatch block_time;
      const std::vector<SolveOutcome> outcomes = solver->SolveBlock(action, spec, b_pointers, x_pointers);
      const double block_seconds = block_time.Seconds();
      for (int j = 0; j < count; ++j) {
        const int k = first + j;
        records.push_back(RecordOf(k / 3, k % 3, outcomes[j], block_seconds / count));
        if (observer) observer(records.back());
      }
    }
    PropagatorRun run{std::move(propagator), std::move(records), 0};
    run.seconds = run_time.Seconds();
    return run;
  }

  // Columns are handed out in order; records are reported in column order as soon as all earlier ones
  // are done, so the output does not depend on the thread count.
  std::vector<PropagatorSolveRecord> records(12);
  std::vector<bool> done(12, false);
  int next_column = 0, next_report = 0;
  std::exception_ptr failure;
  std::mutex mutex;
  auto work = [&]() {
    try {
      const std::unique_ptr<DiracSolver> solver = MakeDiracSolver(backend, u);
      // The point source of each column, PointSource's field: this worker's one field with the column's entry
      // set (a whole-lattice field is 2 GB at 48^3 x 96; the solvers never write b).
      SpinorField<double> b(u.lattice());
      // On the GPU b is page-locked for all its columns: the device reads it directly (device_spinor_field.h).
      std::optional<gpu::HostRegistration> pin_b;
      if (backend.kind == BackendKind::kGpu) {
        pin_b.emplace(gpu::RegisterHostField(b));
      }
      for (;;) {
        int k;
        {
          const std::lock_guard<std::mutex> lock(mutex);
          if (next_column >= 12 || failure) return;
          k = next_column++;
        }
        const int spin = k / 3, colour = k % 3;
        b[source_site].setZero();
        b[source_site](spin, colour) = 1;
        // Solved in place into the propagator's column (zero: the initial guess); each worker writes its own.
        const Stopwatch column_time;
        const SolveOutcome outcome = solver->Solve(action, spec, b, propagator.MutableColumn(spin, colour));
        const double column_seconds = column_time.Seconds();
        PropagatorSolveRecord record = RecordOf(spin, colour, outcome, column_seconds);
        const std::lock_guard<std::mutex> lock(mutex);
        records[k] = std::move(record);
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
  // One device: its columns run one after the other.
  const int workers = backend.kind == BackendKind::kGpu ? 1 : std::min(threads, 12);
  std::vector<std::thread> pool;
  for (int i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  PropagatorRun run{std::move(propagator), std::move(records), 0};
  run.seconds = run_time.Seconds();
  return run;
}

}  // namespace lqcd::experiments
