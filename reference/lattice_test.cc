// lattice_test: indexing, checkerboarding, neighbours and input validation of the lattice geometry.
#include "reference/lattice.h"

#include <gtest/gtest.h>

#include <set>

#include "reference/fermion_boundary.h"

namespace lqcd {
namespace {

TEST(LatticeTest, RejectsZeroOddNegativeAndAbsurdExtents) {
  EXPECT_THROW(Lattice(0, 4, 4, 4), std::invalid_argument);
  EXPECT_THROW(Lattice(4, -2, 4, 4), std::invalid_argument);
  EXPECT_THROW(Lattice(4, 4, 3, 4), std::invalid_argument);
  EXPECT_THROW(Lattice(4, 4, 4, 1600), std::invalid_argument);
  try {
    Lattice(4, 4, 5, 8);
    FAIL() << "odd extent accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Lz = 5 is odd"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(Lattice(2, 2, 2, 2));
}

TEST(LatticeTest, LexicographicIndexIsXFastestAndRoundTrips) {
  const Lattice lat(4, 6, 2, 8);
  EXPECT_EQ(lat.volume(), 4 * 6 * 2 * 8);
  EXPECT_EQ(lat.Index({1, 0, 0, 0}), 1);
  EXPECT_EQ(lat.Index({0, 1, 0, 0}), 4);
  EXPECT_EQ(lat.Index({0, 0, 1, 0}), 24);
  EXPECT_EQ(lat.Index({0, 0, 0, 1}), 48);
  for (int site = 0; site < lat.volume(); ++site) EXPECT_EQ(lat.Index(lat.Coords(site)), site);
  EXPECT_EQ(lat.ToString(), "4x6x2x8");
}

TEST(LatticeTest, OutOfRangeCoordinatesAreRejectedNotWrapped) {
  const Lattice lat(4, 6, 2, 8);
  EXPECT_THROW(lat.Index({4, 0, 0, 0}), std::out_of_range);
  EXPECT_THROW(lat.Index({0, -1, 0, 0}), std::out_of_range);
  EXPECT_THROW(lat.Index({0, 0, 0, 8}), std::out_of_range);
  try {
    lat.Index({0, 0, 2, 0});
    FAIL() << "z = 2 accepted on Lz = 2";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("z = 2 outside [0, 2)"), std::string::npos) << e.what();
  }
}

TEST(LatticeTest, CheckerboardIndexIsABijectionPerParity) {
  const Lattice lat(4, 2, 6, 4);
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    std::set<int> seen;
    for (int cb = 0; cb < lat.half_volume(); ++cb) {
      const int site = lat.FullIndex(p, cb);
      EXPECT_EQ(lat.SiteParity(site), p);
      EXPECT_EQ(Lattice::CheckerboardIndex(site), cb);
      seen.insert(site);
    }
    EXPECT_EQ(static_cast<int>(seen.size()), lat.half_volume());
  }
}

TEST(LatticeTest, NeighboursWrapPeriodicallyAndFlipParity) {
  const Lattice lat(4, 4, 2, 6);
  for (int site = 0; site < lat.volume(); ++site) {
    const Coordinates n = lat.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) {
      Coordinates up = n;
      up[mu] = (n[mu] + 1) % lat.extent(mu);
      EXPECT_EQ(lat.Forward(site, mu), lat.Index(up));
      EXPECT_EQ(lat.Backward(lat.Forward(site, mu), mu), site);
      EXPECT_NE(lat.SiteParity(lat.Forward(site, mu)), lat.SiteParity(site));
      EXPECT_EQ(lat.ForwardCrossesBoundary(site, mu), n[mu] == lat.extent(mu) - 1);
      EXPECT_EQ(lat.BackwardCrossesBoundary(site, mu), n[mu] == 0);
    }
  }
}

TEST(LatticeTest, CopiesShareTablesAndCompareByExtents) {
  const Lattice a(4, 4, 4, 4);
  const Lattice b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.Forward(5, 3), a.Forward(5, 3));
  EXPECT_NE(a, Lattice(4, 4, 4, 8));
}

TEST(FermionBoundaryTest, DefaultIsAntiperiodicInTimeOnly) {
  const FermionBoundary b;
  EXPECT_EQ(b.WrapSign(0), 1.0);
  EXPECT_EQ(b.WrapSign(3), -1.0);
  EXPECT_EQ(b.ToString(), "PPPA");
  EXPECT_EQ(FermionBoundary::Periodic().ToString(), "PPPP");
}

}  // namespace
}  // namespace lqcd
