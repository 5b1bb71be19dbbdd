// distributed_propagator.cc: see distributed_propagator.h.
#include "experiments/distributed_propagator.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "experiments/stopwatch.h"
#include "gpu/device_spinor_field.h"

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
  const gpu::HostRegistration pin_b = gpu::RegisterHostField(b), pin_x = gpu::RegisterHostField(x);
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
    run.piece_norms2.push_back(AddPionSiteSums(run.site_sums, x));
    if (observer) observer(run.solves.back());
  }
  run.seconds = run_time.Seconds();
  return run;
}

double AddPionSiteSums(std::vector<double>& sums, const SpinorField<double>& column) {
  if (sums.size() != static_cast<std::size_t>(column.sites())) {
    throw std::invalid_argument("AddPionSiteSums: " + std::to_string(sums.size()) + " sums for a field of " +
                                std::to_string(column.sites()) + " sites");
  }
  std::vector<double> site_norms2(sums.size());
#pragma omp parallel for schedule(static)
  for (int site = 0; site < column.sites(); ++site) {
    site_norms2[site] = column[site].squaredNorm();
    sums[site] += site_norms2[site];
  }
  double norm2 = 0;
  for (double n2 : site_norms2) norm2 += n2;  // in site order: Norm2's additions
  return norm2;
}

std::vector<double> CorrelatorFromSiteSums(const Lattice& global, const comm::ProcessGrid& grid, int source_site,
                                           const std::vector<double>& sums) {
  const Coordinates local = grid.LocalExtents(global.extents());  // throws for a grid that does not divide
  const std::size_t n = static_cast<std::size_t>(Lattice(local).volume());
  if (sums.size() != n * grid.size()) {
    throw std::invalid_argument("CorrelatorFromSiteSums: " + std::to_string(sums.size()) +
                                " site sums for a full lattice of " + std::to_string(n * grid.size()) + " sites");
  }
  if (source_site < 0 || source_site >= global.volume()) {
    throw std::invalid_argument("CorrelatorFromSiteSums: source site " + std::to_string(source_site) + " is not on " +
                                global.ToString());
  }
  // Per direction and global coordinate: the owning rank's grid coordinate, and the coordinate's share of the
  // local lexicographic index (local coordinate times the local stride). A global site's sum is at
  // rank * n + local index; the loops visit the global sites in lexicographic order (x fastest), PionCorrelator's
  // order of additions, without a division per site.
  std::array<std::vector<int>, kDims> rank_coord;
  std::array<std::vector<std::size_t>, kDims> local_part;
  std::size_t stride = 1;
  for (int mu = 0; mu < kDims; ++mu) {
    for (int x = 0; x < global.extent(mu); ++x) {
      rank_coord[mu].push_back(x / local[mu]);
      local_part[mu].push_back(stride * static_cast<std::size_t>(x % local[mu]));
    }
    stride *= static_cast<std::size_t>(local[mu]);
  }
  const int lt = global.extent(3);
  const int t0 = global.Coords(source_site)[3];
  std::vector<double> c(lt, 0.0);
  Coordinates g{}, r{};
  for (g[3] = 0; g[3] < global.extent(3); ++g[3]) {
    double& slice = c[((g[3] - t0) % lt + lt) % lt];
    for (g[2] = 0; g[2] < global.extent(2); ++g[2]) {
      for (g[1] = 0; g[1] < global.extent(1); ++g[1]) {
        for (g[0] = 0; g[0] < global.extent(0); ++g[0]) {
          std::size_t i = 0;
          for (int mu = 0; mu < kDims; ++mu) {
            r[mu] = rank_coord[mu][g[mu]];
            i += local_part[mu][g[mu]];
          }
          slice += sums[static_cast<std::size_t>(grid.RankOf(r)) * n + i];
        }
      }
    }
  }
  return c;
}

std::vector<double> PionCorrelator(const DistributedPropagatorRun& run, comm::Communicator& communicator) {
  std::vector<double> all(run.site_sums.size() * communicator.size());
  communicator.AllGather(run.site_sums.data(), run.site_sums.size() * sizeof(double), all.data());
  return CorrelatorFromSiteSums(run.global, communicator.grid(), run.source_site, all);
}

std::vector<double> ColumnNorms(const DistributedPropagatorRun& run, comm::Communicator& communicator) {
  std::vector<double> norms = communicator.SumDeterministic(run.piece_norms2);
  for (double& x : norms) x = std::sqrt(x);
  return norms;
}

}  // namespace lqcd::experiments
