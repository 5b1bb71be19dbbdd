// Scatter and gather of oracle fields over a process grid: scatter then gather is the identity bit for bit
// (full, even and odd spinor fields, five grids); every local site and link equals the global one at the
// offset coordinates, by direct enumeration of coordinates; the blocks tile the global lattice (links tagged
// with small integers, each found on exactly one rank); every local clover block (T and T^{-1}) is the
// global one at the offset coordinates, and the pieces carry the global field's parameters and bounds;
// InsertSpinor writes only its rank's sites; every refusal names its problem and leaves the output untouched.
#include "gpu/comm/subdomain.h"

#include <gtest/gtest.h>

#include <cstring>

#include "reference/error_testing.h"
#include "reference/su3_random.h"

namespace lqcd::comm {
namespace {

const Coordinates kGlobal{4, 4, 4, 8};
const Coordinates kGrids[] = {{1, 1, 1, 1}, {1, 1, 1, 2}, {1, 1, 2, 2}, {2, 1, 1, 2}, {2, 2, 2, 2}};
const Subset kSubsets[] = {Subset::kFull, Subset::kEven, Subset::kOdd};

bool BitIdentical(const SiteSpinor<double>& a, const SiteSpinor<double>& b) {
  return std::memcmp(a.data(), b.data(), sizeof(Complex<double>) * 12) == 0;
}

bool BitIdentical(const ColorMatrix<double>& a, const ColorMatrix<double>& b) {
  return std::memcmp(a.data(), b.data(), sizeof(Complex<double>) * 9) == 0;
}

bool BitIdentical(const ChiralBlock<double>& a, const ChiralBlock<double>& b) {
  return std::memcmp(a.data(), b.data(), sizeof(Complex<double>) * 36) == 0;
}

SpinorField<double> RandomSpinor(const Lattice& lattice, Subset subset, std::uint64_t seed) {
  SpinorField<double> field(lattice, subset);
  FillGaussian(field, seed);
  return field;
}

// The rank's origin in global coordinates, written out from the grid coordinates rather than through
// ProcessGrid::Offset, which ScatterGauge and friends use.
Coordinates Origin(const ProcessGrid& grid, int rank) {
  const Coordinates c = grid.CoordsOf(rank);
  Coordinates origin{};
  for (int mu = 0; mu < kDims; ++mu) origin[mu] = c[mu] * (kGlobal[mu] / grid.dim(mu));
  return origin;
}

// Calls f(local coordinates, global coordinates) for every site of the rank's block.
template <typename F>
void ForEachSite(const ProcessGrid& grid, int rank, F f) {
  const Coordinates origin = Origin(grid, rank);
  Coordinates n{};
  for (n[3] = 0; n[3] < kGlobal[3] / grid.dim(3); ++n[3]) {
    for (n[2] = 0; n[2] < kGlobal[2] / grid.dim(2); ++n[2]) {
      for (n[1] = 0; n[1] < kGlobal[1] / grid.dim(1); ++n[1]) {
        for (n[0] = 0; n[0] < kGlobal[0] / grid.dim(0); ++n[0]) {
          Coordinates g{};
          for (int mu = 0; mu < kDims; ++mu) g[mu] = origin[mu] + n[mu];
          f(n, g);
        }
      }
    }
  }
}

TEST(SubdomainTest, ScatterThenGatherIsTheIdentity) {
  const Lattice global(kGlobal);
  for (const Coordinates& dims : kGrids) {
    const ProcessGrid grid(dims);
    for (const Subset subset : kSubsets) {
      SCOPED_TRACE("grid " + grid.ToString() + ", " + ToString(subset));
      const SpinorField<double> field = RandomSpinor(global, subset, 17);
      std::vector<SpinorField<double>> pieces;
      for (int rank = 0; rank < grid.size(); ++rank) {
        pieces.push_back(ScatterSpinor(field, grid, rank));
        EXPECT_EQ(pieces.back().lattice().extents(), grid.LocalExtents(kGlobal));
        EXPECT_EQ(pieces.back().subset(), subset);
      }
      const SpinorField<double> gathered = GatherSpinor(pieces, grid, global);
      ASSERT_TRUE(gathered.Compatible(field));
      int differing = 0;
      for (int i = 0; i < field.sites(); ++i) differing += !BitIdentical(gathered[i], field[i]);
      EXPECT_EQ(differing, 0);
    }
  }
}

// SpinorSubdomainMap moves the same elements as ScatterSpinor and GatherSpinor: its scatter into a poisoned
// local field equals ScatterSpinor bit for bit, and its gather of the pieces laid out in rank order into a
// poisoned global field equals the original field; fields of another lattice or subset, and a rank outside
// the grid, are refused.
TEST(SubdomainTest, TheReusableMapMovesWhatScatterAndGatherMove) {
  const Lattice global(kGlobal);
  for (const Coordinates& dims : kGrids) {
    const ProcessGrid grid(dims);
    for (const Subset subset : kSubsets) {
      SCOPED_TRACE("grid " + grid.ToString() + ", " + ToString(subset));
      const SpinorField<double> field = RandomSpinor(global, subset, 19);
      const SpinorSubdomainMap map(global, subset, grid);
      ASSERT_EQ(map.local().extents(), grid.LocalExtents(kGlobal));
      std::vector<SiteSpinor<double>> pieces;
      int differing = 0;
      for (int rank = 0; rank < grid.size(); ++rank) {
        SpinorField<double> local = RandomSpinor(map.local(), subset, 23);  // poison
        map.ScatterInto(field, rank, local);
        const SpinorField<double> expected = ScatterSpinor(field, grid, rank);
        ASSERT_EQ(local.sites(), map.local_elements());
        for (int i = 0; i < local.sites(); ++i) differing += !BitIdentical(local[i], expected[i]);
        pieces.insert(pieces.end(), local.data().begin(), local.data().end());
      }
      EXPECT_EQ(differing, 0);
      SpinorField<double> gathered = RandomSpinor(global, subset, 29);  // poison
      map.GatherInto(pieces.data(), gathered);
      int gather_differing = 0;
      for (int i = 0; i < field.sites(); ++i) gather_differing += !BitIdentical(gathered[i], field[i]);
      EXPECT_EQ(gather_differing, 0);
      SpinorField<double> wrong_subset(global, subset == Subset::kFull ? Subset::kEven : Subset::kFull);
      SpinorField<double> local(map.local(), subset);
      EXPECT_THROW(map.ScatterInto(wrong_subset, 0, local), std::invalid_argument);
      EXPECT_THROW(map.ScatterInto(field, grid.size(), local), std::invalid_argument);
      EXPECT_THROW(map.GatherInto(pieces.data(), wrong_subset), std::invalid_argument);
      if (grid.size() > 1) {
        SpinorField<double> global_sized(global, subset);
        EXPECT_THROW(map.ScatterInto(field, 0, global_sized), std::invalid_argument);
      }
    }
  }
}

TEST(SubdomainTest, EveryLocalSiteIsTheGlobalSiteAtTheOffset) {
  const Lattice global(kGlobal);
  const GaugeField<double> links = RandomGaugeField<double>(global, 5);
  const SpinorField<double> full = RandomSpinor(global, Subset::kFull, 6);
  const SpinorField<double> parts[2] = {RandomSpinor(global, Subset::kEven, 7),
                                        RandomSpinor(global, Subset::kOdd, 8)};
  for (const Coordinates& dims : kGrids) {
    const ProcessGrid grid(dims);
    for (int rank = 0; rank < grid.size(); ++rank) {
      SCOPED_TRACE("grid " + grid.ToString() + ", rank " + std::to_string(rank));
      const GaugeField<double> local_links = ScatterGauge(links, grid, rank);
      const SpinorField<double> local_full = ScatterSpinor(full, grid, rank);
      const SpinorField<double> local_parts[2] = {ScatterSpinor(parts[0], grid, rank),
                                                  ScatterSpinor(parts[1], grid, rank)};
      const Lattice& local = local_full.lattice();
      int sites = 0, differing = 0;
      ForEachSite(grid, rank, [&](const Coordinates& n, const Coordinates& g) {
        ++sites;
        const int l = local.Index(n), s = global.Index(g);
        for (int mu = 0; mu < kDims; ++mu) differing += !BitIdentical(local_links.Link(l, mu), links.Link(s, mu));
        differing += !BitIdentical(local_full[l], full[s]);
        // Local parity is global parity: the site sits in the local field of its own parity.
        const int p = static_cast<int>(Lattice::CoordsParity(n));
        EXPECT_EQ(Lattice::CoordsParity(g), Lattice::CoordsParity(n));
        differing += !BitIdentical(local_parts[p][l / 2], parts[p][s / 2]);
      });
      EXPECT_EQ(sites, local.volume());
      EXPECT_EQ(differing, 0);
    }
  }
}

TEST(SubdomainTest, EveryLocalCloverBlockIsTheGlobalOneAtTheOffset) {
  const Lattice global(kGlobal);
  CloverParams params;
  params.mass = 0.1;
  params.c_sw = 1.5;
  params.trace = CloverTrace::kWithTrace;
  const CloverField<double> clover(RandomGaugeField<double>(global, 9), params);
  for (const Coordinates& dims : kGrids) {
    const ProcessGrid grid(dims);
    for (int rank = 0; rank < grid.size(); ++rank) {
      SCOPED_TRACE("grid " + grid.ToString() + ", rank " + std::to_string(rank));
      const CloverField<double> local = ScatterClover(clover, grid, rank);
      EXPECT_EQ(local.lattice().extents(), grid.LocalExtents(kGlobal));
      EXPECT_EQ(local.params().mass, params.mass);
      EXPECT_EQ(local.params().c_sw, params.c_sw);
      EXPECT_EQ(local.params().trace, params.trace);
      EXPECT_EQ(local.min_eigenvalue(), clover.min_eigenvalue());
      EXPECT_EQ(local.max_eigenvalue(), clover.max_eigenvalue());
      EXPECT_EQ(local.max_condition(), clover.max_condition());
      int sites = 0, differing = 0;
      ForEachSite(grid, rank, [&](const Coordinates& n, const Coordinates& g) {
        ++sites;
        const int l = local.lattice().Index(n), s = global.Index(g);
        for (int chirality = 0; chirality < 2; ++chirality) {
          differing += !BitIdentical(local.Block(l, chirality), clover.Block(s, chirality));
          differing += !BitIdentical(local.InverseBlock(l, chirality), clover.InverseBlock(s, chirality));
        }
      });
      EXPECT_EQ(sites, local.lattice().volume());
      EXPECT_EQ(differing, 0);
    }
  }
  EXPECT_CONTAINS(ErrorOf([&] { ScatterClover(clover, ProcessGrid({1, 1, 1, 3}), 0); }),
                  "ScatterClover: lattice 4x4x4x8 over process grid 1x1x1x3: 3 ranks do not divide the extent 8");
  EXPECT_CONTAINS(ErrorOf([&] { ScatterClover(clover, ProcessGrid({1, 1, 2, 2}), 4); }),
                  "ScatterClover: rank 4 is not in the process grid 1x1x2x2 (ranks 0..3)");
}

TEST(SubdomainTest, BlocksTileTheGlobalLattice) {
  // Link (site, mu) tagged with the small integer 4 site + mu: each must turn up on exactly one rank, at
  // the local site whose global coordinates are that site's.
  const Lattice global(kGlobal);
  GaugeField<double> tagged(global);
  for (int site = 0; site < global.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) tagged.Link(site, mu)(0, 0) = kDims * site + mu;
  }
  for (const Coordinates& dims : kGrids) {
    const ProcessGrid grid(dims);
    SCOPED_TRACE("grid " + grid.ToString());
    std::vector<int> seen(kDims * global.volume(), 0);
    for (int rank = 0; rank < grid.size(); ++rank) {
      const GaugeField<double> local = ScatterGauge(tagged, grid, rank);
      const Coordinates origin = Origin(grid, rank);
      for (int site = 0; site < local.lattice().volume(); ++site) {
        Coordinates g = local.lattice().Coords(site);
        for (int nu = 0; nu < kDims; ++nu) g[nu] += origin[nu];
        for (int mu = 0; mu < kDims; ++mu) {
          const int tag = static_cast<int>(local.Link(site, mu)(0, 0).real());
          ASSERT_EQ(tag, kDims * global.Index(g) + mu);
          ++seen[tag];
        }
      }
    }
    for (std::size_t tag = 0; tag < seen.size(); ++tag) ASSERT_EQ(seen[tag], 1) << "link tag " << tag;
  }
}

TEST(SubdomainTest, InsertWritesOnlyItsRanksSites) {
  const Lattice global(kGlobal);
  const ProcessGrid grid({2, 1, 1, 2});
  for (const Subset subset : kSubsets) {
    SCOPED_TRACE(ToString(subset));
    const SpinorField<double> field = RandomSpinor(global, subset, 9);
    const int rank = 3;
    SpinorField<double> out(global, subset);  // zero
    InsertSpinor(out, ScatterSpinor(field, grid, rank), grid, rank);
    std::vector<bool> mine(global.volume(), false);
    ForEachSite(grid, rank, [&](const Coordinates&, const Coordinates& g) { mine[global.Index(g)] = true; });
    int wrong = 0;
    for (int i = 0; i < out.sites(); ++i) {
      const bool inserted = mine[out.SiteIndex(i)];
      wrong += !BitIdentical(out[i], inserted ? field[i] : SiteSpinor<double>::Zero());
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(SubdomainTest, RefusesBadInputBeforeWriting) {
  const Lattice global(kGlobal);
  const ProcessGrid grid({1, 1, 2, 2});
  const GaugeField<double> links(global);
  const SpinorField<double> field = RandomSpinor(global, Subset::kFull, 3);

  // Grids that do not split the lattice: a non-dividing count, an odd local extent.
  EXPECT_CONTAINS(ErrorOf([&] { ScatterGauge(links, ProcessGrid({1, 1, 1, 3}), 0); }),
                  "ScatterGauge: lattice 4x4x4x8 over process grid 1x1x1x3: 3 ranks do not divide the extent 8");
  EXPECT_CONTAINS(ErrorOf([&] { ScatterSpinor(field, ProcessGrid({1, 1, 1, 8}), 0); }),
                  "ScatterSpinor: lattice 4x4x4x8 over process grid 1x1x1x8: the local extent 1 in direction 3 is odd");
  // Ranks outside the grid.
  for (const int rank : {-1, 4}) {
    const std::string expected = "rank " + std::to_string(rank) + " is not in the process grid 1x1x2x2 (ranks 0..3)";
    EXPECT_CONTAINS(ErrorOf([&] { ScatterGauge(links, grid, rank); }), "ScatterGauge: " + expected);
    EXPECT_CONTAINS(ErrorOf([&] { ScatterSpinor(field, grid, rank); }), "ScatterSpinor: " + expected);
  }

  // InsertSpinor: a bad rank, a piece on the wrong lattice or of the wrong subset leave the field untouched.
  const SpinorField<double> piece = ScatterSpinor(field, grid, 1);
  SpinorField<double> out(global);
  EXPECT_CONTAINS(ErrorOf([&] { InsertSpinor(out, piece, grid, 4); }),
                  "InsertSpinor: rank 4 is not in the process grid 1x1x2x2");
  EXPECT_CONTAINS(ErrorOf([&] { InsertSpinor(out, piece, ProcessGrid({1, 1, 1, 3}), 0); }),
                  "3 ranks do not divide the extent 8");
  EXPECT_CONTAINS(ErrorOf([&] { InsertSpinor(out, ScatterSpinor(field, ProcessGrid({1, 1, 1, 2}), 0), grid, 1); }),
                  "InsertSpinor: rank 1's field is on a 4x4x4x4 lattice, but its block of 4x4x4x8 over process grid "
                  "1x1x2x2 is 4x4x2x4");
  EXPECT_CONTAINS(ErrorOf([&] { InsertSpinor(out, Extract(piece, Parity::kEven), grid, 1); }),
                  "InsertSpinor: rank 1's field is even, the global field full");
  int touched = 0;
  for (int i = 0; i < out.sites(); ++i) touched += !BitIdentical(out[i], SiteSpinor<double>::Zero());
  EXPECT_EQ(touched, 0);

  // GatherSpinor: one piece per rank, each on the rank's block, all of one subset.
  std::vector<SpinorField<double>> pieces;
  for (int rank = 0; rank < grid.size(); ++rank) pieces.push_back(ScatterSpinor(field, grid, rank));
  EXPECT_CONTAINS(ErrorOf([&] { GatherSpinor({pieces.begin(), pieces.end() - 1}, grid, global); }),
                  "GatherSpinor: 3 pieces for the process grid 1x1x2x2 of 4 ranks");
  EXPECT_CONTAINS(ErrorOf([&] { GatherSpinor({}, grid, global); }), "GatherSpinor: 0 pieces");
  EXPECT_CONTAINS(ErrorOf([&] { GatherSpinor(pieces, grid, Lattice(4, 4, 6, 8)); }),
                  "GatherSpinor: lattice 4x4x6x8 over process grid 1x1x2x2: the local extent 3 in direction 2 is odd");
  std::vector<SpinorField<double>> wrong_subset = pieces;
  wrong_subset[2] = Extract(pieces[2], Parity::kOdd);
  EXPECT_CONTAINS(ErrorOf([&] { GatherSpinor(wrong_subset, grid, global); }),
                  "GatherSpinor: rank 2's field is odd, the global field full");
  std::vector<SpinorField<double>> wrong_lattice = pieces;
  wrong_lattice[3] = SpinorField<double>(Lattice(4, 4, 4, 4));
  EXPECT_CONTAINS(ErrorOf([&] { GatherSpinor(wrong_lattice, grid, global); }),
                  "GatherSpinor: rank 3's field is on a 4x4x4x4 lattice");
}

}  // namespace
}  // namespace lqcd::comm
