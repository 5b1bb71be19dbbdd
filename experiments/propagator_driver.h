// propagator_driver.h: the point-source quark propagator S(x; x0) (reference/observables/propagator.h) of a Wilson or
// Wilson-clover action, its 12 columns solved by a SolverSpec on the CPU oracle or the GPU (dirac_solver.h).
//
// What is solved: M psi = eta_{s,c} for the 12 point sources at x0, with the oracle's m-normalised matrix
//     Wilson:  M = (4 + m) - D/2            clover:  M = (4 + m) + A - D/2
// so the propagator is M^{-1}; the kappa-normalised one is M^{-1} / (2 kappa) (reference/observables/propagator.h).
// Every column is solved from x = 0 through the even-odd system by `spec` (solvers/solver_spec.h) and
// recorded with the solver's SolveResult and the true residual |b - M x| / |b| of the returned column,
// recomputed in double where backend.verify says (the reference operators on the host, or a double
// operator on the device), not taken from the solver's bookkeeping.
// Backends: CPU columns are solved `threads` at a time, one DiracSolver per thread; the GPU solves them one
// after the other on the device, with the links uploaded once. Results and the order of the records do not
// depend on the thread count (every solve is deterministic and independent).
// Errors: std::invalid_argument before any solve for a bad action, a spec the backend cannot run, a source
// off the lattice or threads < 1; std::runtime_error never (an unconverged column is in its record).
#pragma once

#include <functional>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "reference/gauge_field.h"
#include "reference/observables/propagator.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {

struct PropagatorSolveRecord {
  int spin = 0, colour = 0;
  solvers::SolveResult result;  // the solver's record
  double true_residual = 0;     // |b - M x| / |b| of the column, recomputed in double (verified_on)
  VerifyOn verified_on = VerifyOn::kHost;
  double column_seconds = 0;    // wall time of the column's DiracSolver call: the solve, transfers and checks
  double transfer_seconds = 0;  // of which host <-> device moves (SolveOutcome)
  double check_seconds = 0;     // and the true residual's recompute (SolveOutcome)
};

// The record of column (spin, colour) from its solve's outcome and the column's wall time.
PropagatorSolveRecord RecordOf(int spin, int colour, const SolveOutcome& outcome, double column_seconds);
// Every record converged (and there is at least one).
bool AllConverged(const std::vector<PropagatorSolveRecord>& solves);

struct PropagatorRun {
  PointPropagator propagator;
  std::vector<PropagatorSolveRecord> solves;  // in column order (spin-major)
  double seconds = 0;                         // wall time of all 12 solves
  bool all_converged() const;
};

// Called for each of the 12 solves in column order, as soon as it and all earlier columns are done (from the
// solving threads, one call at a time).
using PropagatorObserver = std::function<void(const PropagatorSolveRecord&)>;

// rhs_block > 1: the columns in blocks of rhs_block, in column order, each block by DiracSolver::SolveBlock on
// one solver (one lockstep block solve where the solver SolvesAsBlock, else one column after another; threads
// is then unused). 1 <= rhs_block <= 12.
PropagatorRun ComputePropagator(const GaugeField<double>& u, const FermionAction& action,
                                const solvers::SolverSpec& spec, const BackendChoice& backend, int threads,
                                int source_site, const PropagatorObserver& observer = {}, int rhs_block = 1);

}  // namespace lqcd::experiments
