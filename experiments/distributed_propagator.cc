// distributed_propagator.cc: see distributed_propagator.h.
#include "experiments/distributed_propagator.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "experiments/stopwatch.h"
#include "gpu/device_buffer.h"
#include "reference/spinor_algebra.h"

namespace lqcd::experiments {
namespace {

// The local site of the global `site` on this rank, or -1 when another rank holds it.
int LocalSiteOf(const Lattice& global, const Lattice& local, const Coordinates& offset, int site) {
  Coordinates x = global.Coords(site);
  for (int mu = 0; mu < kDims; ++mu) {
    x[mu] -= offset[mu];
    if (x[mu] < 0 || x[mu] >= local.extent(mu)) return -1;
  }
  return local.Index(x);
}
// x = 0 on every core (a piece is 0.5 GB at 48^3 x 96 on four ranks).
void SetZero(SpinorField<double>& x) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < x.sites(); ++i) x[i].setZero();
}
}  // namespace

bool DistributedPropagatorRun::all_converged() const { return AllConverged(solves); }

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

  DistributedPropagatorRun run{global, source_site, std::vector<double>(static_cast<std::size_t>(local.volume()), 0.0),
                               {}, {}, 0};
  // This rank's pieces of each column's point source and of its solution: two fields for all 12 columns.
  SpinorField<double> b(local), x(local);
  // Page-locked for the whole run: the device reads b and writes x directly, with no host pass per column
  // (device_spinor_field.h).
  const std::size_t bytes = sizeof(SiteSpinor<double>) * static_cast<std::size_t>(local.volume());
  const gpu::HostRegistration pin_b(b.data().data(), bytes), pin_x(x.data().data(), bytes);
  const Stopwatch run_time;
  for (int k = 0; k < 12; ++k) {
    const int spin = k / 3, colour = k % 3;
    if (source_here >= 0) {
      b[source_here].setZero();
      b[source_here](spin, colour) = 1;
    }
    if (k > 0) SetZero(x);  // the initial guess
    const Stopwatch column_time;
    const SolveOutcome outcome = solver.SolveLocal(action, spec, b, x);
    run.solves.push_back(RecordOf(spin, colour, outcome, column_time.Seconds()));
    AddPionSiteSums(run.site_sums, x);
    run.piece_norms2.push_back(Norm2(x));
    if (observer) observer(run.solves.back());
  }
  run.seconds = run_time.Seconds();
  return run;
}

void AddPionSiteSums(std::vector<double>& sums, const SpinorField<double>& column) {
  if (sums.size() != static_cast<std::size_t>(column.sites())) {
    throw std::invalid_argument("AddPionSiteSums: " + std::to_string(sums.size()) + " sums for a field of " +
                                std::to_string(column.sites()) + " sites");
  }
#pragma omp parallel for schedule(static)
  for (int site = 0; site < column.sites(); ++site) sums[site] += column[site].squaredNorm();
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
  const comm::SpinorSubdomainMap map(run.global, Subset::kFull, communicator.grid());
  std::vector<double> all(run.site_sums.size() * communicator.size());
  communicator.AllGather(run.site_sums.data(), run.site_sums.size() * sizeof(double), all.data());
  return CorrelatorFromSiteSums(map, run.source_site, all);
}

std::vector<double> ColumnNorms(const DistributedPropagatorRun& run, comm::Communicator& communicator) {
  std::vector<double> norms = communicator.SumDeterministic(run.piece_norms2);
  for (double& x : norms) x = std::sqrt(x);
  return norms;
}

}  // namespace lqcd::experiments
