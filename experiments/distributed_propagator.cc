// distributed_propagator.cc: see distributed_propagator.h.
#include "experiments/distributed_propagator.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/spinor_algebra.h"

namespace lqcd::experiments {
namespace {
double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The local site of the global `site` on this rank, or -1 when another rank holds it.
int LocalSiteOf(const Lattice& global, const Lattice& local, const Coordinates& offset, int site) {
  Coordinates x = global.Coords(site);
  for (int mu = 0; mu < kDims; ++mu) {
    x[mu] -= offset[mu];
    if (x[mu] < 0 || x[mu] >= local.extent(mu)) return -1;
  }
  return local.Index(x);
}
}  // namespace

bool DistributedPropagatorRun::all_converged() const {
  for (const PropagatorSolveRecord& r : solves) {
    if (!r.result.converged()) return false;
  }
  return !solves.empty();
}

DistributedPropagatorRun ComputeDistributedPropagator(DistributedDiracSolver& solver, const Lattice& global,
                                                      const FermionAction& action, const solvers::SolverSpec& spec,
                                                      int source_site, const PropagatorObserver& observer) {
  action.Validate();
  if (source_site < 0 || source_site >= global.volume()) {
    throw std::invalid_argument("ComputeDistributedPropagator: source site " + std::to_string(source_site) +
                                " is not on " + global.ToString());
  }
  comm::Communicator& communicator = solver.communicator();
  const Lattice& local = solver.local_lattice();
  const Coordinates offset = communicator.grid().Offset(communicator.rank(), global.extents());
  const int source_here = LocalSiteOf(global, local, offset, source_site);

  DistributedPropagatorRun run{global, source_site, {}, {}, 0};
  const auto start = std::chrono::steady_clock::now();
  SpinorField<double> b(local);  // this rank's piece of each column's point source (one field, reused)
  for (int k = 0; k < 12; ++k) {
    const int spin = k / 3, colour = k % 3;
    if (source_here >= 0) {
      b[source_here].setZero();
      b[source_here](spin, colour) = 1;
    }
    run.pieces.emplace_back(local);  // zero: the initial guess; solved in place
    const auto column_start = std::chrono::steady_clock::now();
    const SolveOutcome outcome = solver.SolveLocal(action, spec, b, run.pieces.back());
    run.solves.push_back(
        {spin, colour, outcome.result, outcome.true_residual, outcome.verified_on, SecondsSince(column_start)});
    if (observer) observer(run.solves.back());
  }
  run.seconds = SecondsSince(start);
  return run;
}

std::vector<double> PionSiteSums(const std::vector<SpinorField<double>>& columns) {
  if (columns.size() != 12) {
    throw std::invalid_argument("PionSiteSums: 12 columns, got " + std::to_string(columns.size()));
  }
  const int sites = columns[0].sites();
  std::vector<double> sums(static_cast<std::size_t>(sites));
#pragma omp parallel for schedule(static)
  for (int site = 0; site < sites; ++site) {
    // PionCorrelator's additions: spin-major over the columns, from 0.
    double sum = 0;
    for (const SpinorField<double>& column : columns) sum += column[site].squaredNorm();
    sums[site] = sum;
  }
  return sums;
}

std::vector<double> CorrelatorFromSiteSums(const comm::SpinorSubdomainMap& map, int source_site,
                                           const std::vector<double>& sums) {
  const Lattice& global = map.global();
  const std::size_t n = static_cast<std::size_t>(map.local_elements());
  if (map.subset() != Subset::kFull || sums.size() != n * map.ranks()) {
    throw std::invalid_argument("CorrelatorFromSiteSums: " + std::to_string(sums.size()) +
                                " site sums for a full-lattice map of " + std::to_string(n * map.ranks()) + " sites");
  }
  // Where each global site's sum is, then the additions in global site order (PionCorrelator's).
  std::vector<long long> position(static_cast<std::size_t>(global.volume()));
  for (int r = 0; r < map.ranks(); ++r) {
    for (std::size_t i = 0; i < n; ++i) position[map.GlobalElement(r, static_cast<int>(i))] = r * n + i;
  }
  const int lt = global.extent(3);
  const int t0 = global.Coords(source_site)[3];
  std::vector<double> c(lt, 0.0);
  for (int site = 0; site < global.volume(); ++site) {
    c[((global.Coords(site)[3] - t0) % lt + lt) % lt] += sums[position[site]];
  }
  return c;
}

std::vector<double> PionCorrelator(const DistributedPropagatorRun& run, comm::Communicator& communicator) {
  const std::vector<double> mine = PionSiteSums(run.pieces);
  const comm::SpinorSubdomainMap map(run.global, Subset::kFull, communicator.grid());
  std::vector<double> all(mine.size() * communicator.size());
  communicator.AllGather(mine.data(), mine.size() * sizeof(double), all.data());
  return CorrelatorFromSiteSums(map, run.source_site, all);
}

std::vector<double> ColumnNorms(const DistributedPropagatorRun& run, comm::Communicator& communicator) {
  std::vector<double> norm2;
  for (const SpinorField<double>& piece : run.pieces) norm2.push_back(Norm2(piece));
  std::vector<double> norms = communicator.SumDeterministic(norm2);
  for (double& x : norms) x = std::sqrt(x);
  return norms;
}

}  // namespace lqcd::experiments
