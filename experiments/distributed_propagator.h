// distributed_propagator.h: the point-source propagator of propagator_driver.h on a lattice split over several
// GPUs, solved with every rank holding only its own sites, and the pion correlator and column norms the main job
// takes from it.
//
// Why: the global-field path (ComputePropagator through the partitioned DiracSolver) gives every rank the whole
// propagator, so per column every rank scatters the global source and all-gathers and writes the global
// solution: 2 GB per field at 48^3 x 96, whatever the number of ranks. Here each rank builds its piece of the
// point source (zero unless the source site is one of its sites), solves on the pieces
// (DistributedDiracSolver::SolveLocal) into one reused piece, and keeps of each column only what the job needs:
// the column's |S(x)|^2 added into one double per site (the correlator's per-site sums) and the piece's norm.
// The only whole-lattice data that moves is one double per site, once, for the correlator. One GPU runs the same
// driver with the whole lattice as its one piece (dirac_solver.h, MakeWholeLatticeSolver): two reused fields
// instead of the whole propagator's twelve.
//
//   ComputeDistributedPropagator(solver, global, action, spec, source_site, observer)
//       the 12 columns (spin-major, x = 0 guesses), one collective SolveLocal each, records as
//       ComputePropagator's (true residuals recomputed on the devices). source_site is a global site.
//   PionCorrelator(run, communicator)
//       C(t) of reference/observables/propagator.h's PionCorrelator on the global propagator, bit for bit: each
//       rank's per-site sums are PionCorrelator's additions at its sites (AddPionSiteSums, column by column in
//       spin-major order from 0), one AllGather gives every rank all of them, and CorrelatorFromSiteSums adds
//       them into C(t) in the global site order PionCorrelator uses. Every rank returns the same C.
//   ColumnNorms(run, communicator)
//       |column| on the global lattice for each of the 12 columns (correlator_bounds.h's error bound): each
//       rank's |piece|^2, summed over the ranks in rank order (deterministic; it can differ from the global
//       field's Norm2 by the rounding of a different order of additions).
// Pieces: local site n is global site offset + n (gpu/comm/subdomain.h, SpinorSubdomainMap).
// Errors: std::invalid_argument before any solve for a bad action, a spec the backend cannot run or a source
// off the lattice (as ComputePropagator).
#pragma once

#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "experiments/propagator_driver.h"
#include "gpu/comm/communicator.h"
#include "gpu/comm/process_grid.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {

struct DistributedPropagatorRun {
  Lattice global;                              // the whole lattice
  int source_site = 0;                         // global site of the point source
  std::vector<double> site_sums;               // this rank's sites: AddPionSiteSums of the 12 columns' pieces
  std::vector<double> piece_norms2;            // |column k's piece|^2 on this rank, k = 3 spin + colour
  std::vector<PropagatorSolveRecord> solves;   // in column order (spin-major)
  double seconds = 0;                          // wall time of all 12 solves
  bool all_converged() const;
};

DistributedPropagatorRun ComputeDistributedPropagator(DistributedDiracSolver& solver, const Lattice& global,
                                                      const FermionAction& action, const solvers::SolverSpec& spec,
                                                      int source_site, const PropagatorObserver& observer = {});

std::vector<double> PionCorrelator(const DistributedPropagatorRun& run, comm::Communicator& communicator);
std::vector<double> ColumnNorms(const DistributedPropagatorRun& run, comm::Communicator& communicator);

// The pieces of the correlator, for the above and its tests:
// sums[site] += |column(site)|^2 at each of the column's sites: called for the 12 columns in spin-major order on
// sums that start at 0, these are PionCorrelator's additions at each site. sums.size() == column.sites().
// Returns |column|^2, the same per-site values added in site order: Norm2(column) bit for bit, without a
// second pass over the field.
double AddPionSiteSums(std::vector<double>& sums, const SpinorField<double>& column);
// C(t) from every rank's site sums laid out one after another in rank order (what an AllGather gives):
// sums[r * V_local + i] belongs to rank r's local lexicographic site i (the blocks of gpu/comm/subdomain.h).
// std::invalid_argument for a grid that does not divide the lattice, sums of another size, a source off it.
std::vector<double> CorrelatorFromSiteSums(const Lattice& global, const comm::ProcessGrid& grid, int source_site,
                                           const std::vector<double>& sums);

}  // namespace lqcd::experiments
