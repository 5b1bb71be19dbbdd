// ProcessGrid: rank <-> coordinates, periodic neighbours, partitioned directions, local extents and offsets,
// and every refusal (message names the problem).
#include "gpu/comm/process_grid.h"

#include <gtest/gtest.h>

#include <set>

#include "reference/error_testing.h"

namespace lqcd::comm {
namespace {

TEST(ProcessGridTest, RankAndCoordinatesAreLexicographicXFastest) {
  const ProcessGrid grid({2, 1, 3, 2});
  EXPECT_EQ(grid.size(), 12);
  EXPECT_EQ(grid.CoordsOf(0), (Coordinates{0, 0, 0, 0}));
  EXPECT_EQ(grid.CoordsOf(1), (Coordinates{1, 0, 0, 0}));
  EXPECT_EQ(grid.CoordsOf(2), (Coordinates{0, 0, 1, 0}));
  EXPECT_EQ(grid.CoordsOf(6), (Coordinates{0, 0, 0, 1}));
  EXPECT_EQ(grid.CoordsOf(11), (Coordinates{1, 0, 2, 1}));
  for (int r = 0; r < grid.size(); ++r) {
    const Coordinates c = grid.CoordsOf(r);
    EXPECT_EQ(grid.RankOf(c), r);
    EXPECT_EQ(r, c[0] + 2 * (c[1] + 1 * (c[2] + 3 * c[3])));
  }
  EXPECT_THROW(grid.CoordsOf(12), std::out_of_range);
  EXPECT_THROW(grid.CoordsOf(-1), std::out_of_range);
  EXPECT_THROW(grid.RankOf({2, 0, 0, 0}), std::out_of_range);
}

TEST(ProcessGridTest, NeighboursArePeriodicAndReversible) {
  const ProcessGrid grid({2, 1, 3, 2});
  for (int r = 0; r < grid.size(); ++r) {
    for (int mu = 0; mu < kDims; ++mu) {
      const int forward = grid.Neighbour(r, mu, Side::kForward);
      const int backward = grid.Neighbour(r, mu, Side::kBackward);
      Coordinates f = grid.CoordsOf(r), b = grid.CoordsOf(r);
      f[mu] = (f[mu] + 1) % grid.dim(mu);
      b[mu] = (b[mu] + grid.dim(mu) - 1) % grid.dim(mu);
      EXPECT_EQ(grid.CoordsOf(forward), f);
      EXPECT_EQ(grid.CoordsOf(backward), b);
      EXPECT_EQ(grid.Neighbour(forward, mu, Side::kBackward), r);
      if (grid.dim(mu) == 1) {
        EXPECT_EQ(forward, r);  // unpartitioned: my own neighbour
      }
    }
  }
  // z has three ranks: one step forward from z = 2 wraps to z = 0.
  EXPECT_EQ(grid.CoordsOf(grid.Neighbour(grid.RankOf({0, 0, 2, 0}), 2, Side::kForward)), (Coordinates{0, 0, 0, 0}));
  EXPECT_THROW(grid.Neighbour(0, 4, Side::kForward), std::out_of_range);
}

TEST(ProcessGridTest, PartitionedDirectionsAreThoseWithMoreThanOneRank) {
  const ProcessGrid grid({1, 1, 2, 2});
  EXPECT_FALSE(grid.IsPartitioned(0));
  EXPECT_FALSE(grid.IsPartitioned(1));
  EXPECT_TRUE(grid.IsPartitioned(2));
  EXPECT_TRUE(grid.IsPartitioned(3));
}

TEST(ProcessGridTest, LocalExtentsAndOffsetsTileTheLattice) {
  const ProcessGrid grid({2, 1, 2, 4});
  const Coordinates global{8, 4, 4, 16};
  EXPECT_EQ(grid.LocalExtents(global), (Coordinates{4, 4, 2, 4}));
  // Every global site belongs to exactly one rank: the offsets are the corners of disjoint blocks.
  std::set<Coordinates> corners;
  for (int r = 0; r < grid.size(); ++r) {
    const Coordinates offset = grid.Offset(r, global);
    const Coordinates c = grid.CoordsOf(r);
    for (int mu = 0; mu < kDims; ++mu) EXPECT_EQ(offset[mu], c[mu] * grid.LocalExtents(global)[mu]);
    // Even local extents make every offset sum even: local parity is global parity (process_grid.h).
    EXPECT_EQ((offset[0] + offset[1] + offset[2] + offset[3]) % 2, 0) << "rank " << r;
    corners.insert(offset);
  }
  EXPECT_EQ(static_cast<int>(corners.size()), grid.size());
}

TEST(ProcessGridTest, ParsesTheCommandLineForm) {
  EXPECT_EQ(ProcessGrid::Parse("grid", "1x1x2x2").dims(), (Coordinates{1, 1, 2, 2}));
  EXPECT_EQ(ProcessGrid::Parse("grid", "2x1x1x2").ToString(), "2x1x1x2");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid::Parse("grid", "1x2x2"); }), "--grid needs 4 integers");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid::Parse("grid", "1x1x2xa"); }), "--grid");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid::Parse("grid", "1x0x2x2"); }), "--grid=1x0x2x2");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid::Parse("grid", "1x0x2x2"); }), "must be in [1, 4096], got 0");
}

TEST(ProcessGridTest, RefusesNonPositiveDims) {
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({1, 1, 0, 1}); }), "direction 2 must be in [1, 4096], got 0");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({-2, 1, 1, 1}); }), "direction 0 must be in [1, 4096], got -2");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({4096, 4096, 4096, 1}); }), "more ranks than fit in int");
}

TEST(ProcessGridTest, RefusesAGridThatDoesNotDivideTheLattice) {
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({1, 1, 1, 3}).LocalExtents({4, 4, 4, 8}); }),
                  "3 ranks do not divide the extent 8 in direction 3");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({1, 1, 1, 3}).Offset(0, {4, 4, 4, 8}); }), "do not divide");
}

TEST(ProcessGridTest, RefusesAnOddLocalExtentAndSaysWhy) {
  const std::string message = ErrorOf([] { ProcessGrid({1, 1, 4, 1}).LocalExtents({4, 4, 4, 8}); });
  EXPECT_CONTAINS(message, "local extent 1 in direction 2 is odd");
  EXPECT_CONTAINS(message, "even-odd split needs even local extents");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({2, 1, 1, 1}).LocalExtents({6, 4, 4, 4}); }),
                  "local extent 3 in direction 0 is odd");
  EXPECT_CONTAINS(ErrorOf([] { ProcessGrid({1, 1, 1, 1}).LocalExtents({4, 0, 4, 4}); }), "is not positive");
}

TEST(ProcessGridTest, RefusesARankCountOtherThanTheGridSize) {
  const ProcessGrid grid({1, 1, 1, 4});
  EXPECT_NO_THROW(grid.CheckRankCount(4));
  const std::string message = ErrorOf([&] { grid.CheckRankCount(2); });
  EXPECT_CONTAINS(message, "process grid 1x1x1x4 has 4 ranks, but the job runs 2");
}

}  // namespace
}  // namespace lqcd::comm
