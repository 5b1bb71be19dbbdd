// The distributed pion correlator: the per-site sums of every rank's pieces (AddPionSiteSums of the 12
// columns' pieces in spin-major order), put together in rank order as an
// AllGather gives them, reproduce reference/observables/propagator.h's PionCorrelator of the global propagator
// bit for bit on five process grids (one to sixteen ranks) and several source time slices. Random Gaussian
// columns make every addition round, so summing the sites in any other order than PionCorrelator's, or putting
// a rank's sums at another rank's sites, changes the bits. The refusals name their problem.
#include "experiments/distributed_propagator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "experiments/correlator_bounds.h"
#include "experiments/propagator_driver.h"
#include "gpu/comm/process_grid.h"
#include "gpu/comm/subdomain.h"
#include "reference/observables/propagator.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/su3_random.h"

namespace lqcd::experiments {
namespace {

const Coordinates kGlobal{4, 4, 4, 8};
const Coordinates kGrids[] = {{1, 1, 1, 1}, {1, 1, 1, 2}, {1, 1, 2, 2}, {2, 1, 1, 2}, {2, 2, 2, 2}};

PointPropagator RandomPropagator(const Lattice& lattice, int source_site) {
  PointPropagator s(lattice, source_site);
  for (int k = 0; k < 12; ++k) {
    SpinorField<double> column(lattice);
    FillGaussian(column, 100 + k);
    s.SetColumn(k / 3, k % 3, std::move(column));
  }
  return s;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

TEST(DistributedPropagatorTest, CorrelatorFromThePiecesIsPionCorrelatorBitForBit) {
  const Lattice global(kGlobal);
  for (const Coordinates& source : {Coordinates{0, 0, 0, 0}, Coordinates{1, 2, 3, 5}, Coordinates{3, 1, 0, 7}}) {
    const int source_site = global.Index(source);
    const PointPropagator s = RandomPropagator(global, source_site);
    const std::vector<double> expected = PionCorrelator(s);
    for (const Coordinates& dims : kGrids) {
      const comm::ProcessGrid grid(dims);
      const comm::SpinorSubdomainMap map(global, Subset::kFull, grid);
      std::vector<double> all;  // every rank's sums, in rank order
      for (int rank = 0; rank < grid.size(); ++rank) {
        std::vector<double> sums(map.local_elements(), 0.0);
        for (int k = 0; k < 12; ++k) AddPionSiteSums(sums, comm::ScatterSpinor(s.Column(k / 3, k % 3), grid, rank));
        all.insert(all.end(), sums.begin(), sums.end());
      }
      const std::vector<double> c = CorrelatorFromSiteSums(global, grid, source_site, all);
      ASSERT_EQ(c.size(), expected.size());
      for (std::size_t t = 0; t < c.size(); ++t) {
        EXPECT_TRUE(SameBits(c[t], expected[t]))
            << "grid " << comm::FormatCoordinates(dims) << " t=" << t << ": " << c[t] << " vs " << expected[t];
      }
    }
  }
}

TEST(DistributedPropagatorTest, SiteSumsAddEachColumnsSquaredNorm) {
  const Lattice lattice(kGlobal);
  const PointPropagator s = RandomPropagator(lattice, 0);
  std::vector<double> sums(lattice.volume(), 0.0);
  for (int k = 0; k < 12; ++k) AddPionSiteSums(sums, s.Column(k / 3, k % 3));
  for (int site : {0, 17, lattice.volume() - 1}) {
    double sum = 0;
    for (int k = 0; k < 12; ++k) sum += s.Column(k / 3, k % 3)[site].squaredNorm();
    EXPECT_TRUE(SameBits(sums[site], sum)) << "site " << site;
  }
}

// AddPionSiteSums returns |column|^2 as Norm2 sums it (the per-site values in site order).
TEST(DistributedPropagatorTest, SiteSumsReturnTheColumnsNorm2BitForBit) {
  const Lattice lattice(kGlobal);
  const PointPropagator s = RandomPropagator(lattice, 0);
  std::vector<double> sums(lattice.volume(), 0.0);
  for (int k = 0; k < 12; ++k) {
    const double norm2 = AddPionSiteSums(sums, s.Column(k / 3, k % 3));
    EXPECT_TRUE(SameBits(norm2, Norm2(s.Column(k / 3, k % 3)))) << "column " << k;
  }
}

// One process with the whole lattice as its one piece (what pion does on one GPU, here on the CPU oracle):
// the same solves, correlator and column norms as the whole propagator's, bit for bit, with 1/4 the fields.
TEST(DistributedPropagatorTest, WholeLatticeAsOnePieceIsTheWholePropagatorBitForBit) {
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 61, 0.3);
  const BackendChoice cpu = ChooseBackend(BackendKind::kCpu, VerifyOn::kAuto);
  const int source = lattice.Index({1, 2, 0, 3});
  for (const FermionAction& action : {FermionAction::WilsonFromKappa(0.12), FermionAction::CloverFromKappa(0.1, 1.0)}) {
    const solvers::SolverSpec spec = solvers::SolverSpec::Parse("bicgstab");
    const PropagatorRun whole = ComputePropagator(u, action, spec, cpu, 1, source);
    const std::unique_ptr<DistributedDiracSolver> solver = MakeWholeLatticeSolver(MakeDiracSolver(cpu, u), lattice);
    EXPECT_EQ(solver->communicator().size(), 1);
    EXPECT_EQ(solver->local_lattice(), lattice);
    const DistributedPropagatorRun pieces = ComputeDistributedPropagator(*solver, lattice, action, spec, source);
    ASSERT_TRUE(pieces.all_converged()) << action.Describe();
    const std::vector<double> c = PionCorrelator(pieces, solver->communicator()), expected = PionCorrelator(whole.propagator);
    for (std::size_t t = 0; t < expected.size(); ++t) {
      EXPECT_TRUE(SameBits(c.at(t), expected[t])) << action.Describe() << " t=" << t;
    }
    const std::vector<double> norms = ColumnNorms(pieces, solver->communicator()), whole_norms = ColumnNorms(whole);
    for (int k = 0; k < 12; ++k) {
      EXPECT_TRUE(SameBits(norms[k], whole_norms[k])) << action.Describe() << " column " << k;
      EXPECT_EQ(pieces.solves[k].result.iterations, whole.solves[k].result.iterations) << k;
      EXPECT_TRUE(SameBits(pieces.solves[k].true_residual, whole.solves[k].true_residual)) << k;
    }
  }
  EXPECT_THROW(MakeWholeLatticeSolver(nullptr, lattice), std::invalid_argument);
}

TEST(DistributedPropagatorTest, RefusesSumsOfAnotherSize) {
  const Lattice lattice(kGlobal);
  std::vector<double> too_few(lattice.volume() - 1, 0.0);
  try {
    AddPionSiteSums(too_few, SpinorField<double>(lattice));
    FAIL() << "sums of the wrong size accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sums for a field of"), std::string::npos) << e.what();
  }
  const comm::ProcessGrid grid({1, 1, 1, 2});
  const std::vector<double> short_sums(lattice.volume() - 1, 1.0);
  EXPECT_THROW(CorrelatorFromSiteSums(lattice, grid, lattice.volume(), std::vector<double>(lattice.volume(), 1.0)),
               std::invalid_argument);  // the source off the lattice
  EXPECT_THROW(CorrelatorFromSiteSums(lattice, comm::ProcessGrid({3, 1, 1, 1}), 0, short_sums),
               std::invalid_argument);  // a grid that does not divide the lattice
  try {
    CorrelatorFromSiteSums(lattice, grid, 0, short_sums);
    FAIL() << "too few site sums accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("site sums"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lqcd::experiments
