// The distributed pion correlator: the per-site sums of every rank's pieces (AddPionSiteSums of the 12
// columns' pieces in spin-major order), put together in rank order as an
// AllGather gives them, reproduce reference/observables/propagator.h's PionCorrelator of the global propagator
// bit for bit on five process grids (one to sixteen ranks) and several source time slices. Random Gaussian
// columns make every addition round, so summing the sites in any other order than PionCorrelator's, or putting
// a rank's sums at another rank's sites, changes the bits. The refusals name their problem.
#include "experiments/distributed_propagator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu/comm/process_grid.h"
#include "gpu/comm/subdomain.h"
#include "reference/observables/propagator.h"
#include "reference/spinor_field.h"

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
      const std::vector<double> c = CorrelatorFromSiteSums(map, source_site, all);
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
  const comm::SpinorSubdomainMap map(lattice, Subset::kFull, grid);
  const std::vector<double> short_sums(lattice.volume() - 1, 1.0);
  try {
    CorrelatorFromSiteSums(map, 0, short_sums);
    FAIL() << "too few site sums accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("site sums"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lqcd::experiments
