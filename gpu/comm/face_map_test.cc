// FaceMap against a direct enumeration of every site: counts, membership, no duplicates, canonical order,
// and the exchange contract (my face's ghost = the neighbour's opposite face, opposite parity, same
// transverse coordinates at the same position), including across a decomposed global lattice.
#include "gpu/comm/face_map.h"

#include <gtest/gtest.h>

#include <set>

#include "reference/error_testing.h"

namespace lqcd::comm {
namespace {

const Coordinates kLocalLattices[] = {{2, 2, 2, 2}, {4, 2, 6, 4}, {2, 4, 4, 8}, {6, 4, 2, 2}};

Coordinates Transverse(const Coordinates& n, int mu) {
  Coordinates t = n;
  t[mu] = 0;
  return t;
}

TEST(FaceMapTest, EveryFaceMatchesADirectEnumeration) {
  for (const Coordinates& extents : kLocalLattices) {
    const Lattice lattice(extents);
    for (int mu = 0; mu < kDims; ++mu) {
      const FaceMap faces(extents, mu);
      const int expected_count = lattice.volume() / extents[mu] / 2;
      EXPECT_EQ(faces.sites_per_parity(), expected_count);
      for (const Side side : {Side::kBackward, Side::kForward}) {
        const int face_coordinate = side == Side::kForward ? extents[mu] - 1 : 0;
        for (const Parity parity : {Parity::kEven, Parity::kOdd}) {
          const std::vector<int>& face = faces.Face(side, parity);
          // Direct enumeration: every site with x_mu on the face and this parity, in lexicographic order.
          std::vector<int> expected;
          for (int site = 0; site < lattice.volume(); ++site) {
            if (lattice.Coords(site)[mu] == face_coordinate && lattice.SiteParity(site) == parity) {
              expected.push_back(Lattice::CheckerboardIndex(site));
            }
          }
          ASSERT_EQ(static_cast<int>(face.size()), expected_count) << lattice.ToString() << " mu " << mu;
          EXPECT_EQ(face, expected) << lattice.ToString() << " mu " << mu << " " << ToString(side);
          EXPECT_EQ(std::set<int>(face.begin(), face.end()).size(), face.size()) << "duplicates";
          for (int k = 0; k < expected_count; ++k) {
            const Coordinates n = lattice.Coords(lattice.FullIndex(parity, face[k]));
            EXPECT_EQ(n[mu], face_coordinate);
            EXPECT_EQ(faces.FacePosition(side, parity, face[k]), k);
          }
          // Sites off the face have no position.
          int off_face = 0;
          for (int cb = 0; cb < lattice.half_volume(); ++cb) off_face += faces.FacePosition(side, parity, cb) < 0;
          EXPECT_EQ(off_face, lattice.half_volume() - expected_count);
        }
      }
    }
  }
}

// The ghost of my face (side, p) at position k is filled from the neighbour's face (Opposite(side),
// Opposite(p)) at position k: the two sites must share their transverse coordinates.
TEST(FaceMapTest, OppositeFacesOfOppositeParityAlignByTransverseCoordinates) {
  for (const Coordinates& extents : kLocalLattices) {
    const Lattice lattice(extents);
    for (int mu = 0; mu < kDims; ++mu) {
      const FaceMap faces(extents, mu);
      for (const Side side : {Side::kBackward, Side::kForward}) {
        for (const Parity p : {Parity::kEven, Parity::kOdd}) {
          const Parity source_parity = FaceMap::SourceParity(p);
          EXPECT_EQ(source_parity, Opposite(p));
          const std::vector<int>& mine = faces.Face(side, p);
          const std::vector<int>& theirs = faces.Face(Opposite(side), source_parity);
          ASSERT_EQ(mine.size(), theirs.size());
          for (std::size_t k = 0; k < mine.size(); ++k) {
            const Coordinates a = lattice.Coords(lattice.FullIndex(p, mine[k]));
            const Coordinates b = lattice.Coords(lattice.FullIndex(source_parity, theirs[k]));
            EXPECT_EQ(Transverse(a, mu), Transverse(b, mu)) << lattice.ToString() << " mu " << mu << " k " << k;
          }
        }
      }
    }
  }
}

// On one rank (or any grid dim of 1) the neighbour is the lattice itself: the ghost of site x on face
// (side, p) must be the lattice's own periodic neighbour x -+ mu, the site Lattice::Backward/Forward names.
TEST(FaceMapTest, SelfExchangeGhostsAreTheLatticesOwnNeighbours) {
  for (const Coordinates& extents : kLocalLattices) {
    const Lattice lattice(extents);
    for (int mu = 0; mu < kDims; ++mu) {
      const FaceMap faces(extents, mu);
      for (const Side side : {Side::kBackward, Side::kForward}) {
        for (const Parity p : {Parity::kEven, Parity::kOdd}) {
          const std::vector<int>& mine = faces.Face(side, p);
          const std::vector<int>& sent = faces.Face(Opposite(side), FaceMap::SourceParity(p));
          for (std::size_t k = 0; k < mine.size(); ++k) {
            const int site = lattice.FullIndex(p, mine[k]);
            const int neighbour = side == Side::kForward ? lattice.Forward(site, mu) : lattice.Backward(site, mu);
            EXPECT_EQ(lattice.FullIndex(Opposite(p), sent[k]), neighbour);
          }
        }
      }
    }
  }
}

// Across a decomposed lattice: with the offsets ProcessGrid gives, local parity is global parity, and the
// site that fills each ghost is the global neighbour of the face site.
TEST(FaceMapTest, DecomposedGhostsAreGlobalNeighboursWithGlobalParity) {
  const Coordinates global{4, 4, 8, 8};
  for (const Coordinates& dims : {Coordinates{1, 1, 2, 2}, Coordinates{2, 1, 1, 2}, Coordinates{2, 2, 4, 4}}) {
    const ProcessGrid grid(dims);
    const Coordinates local = grid.LocalExtents(global);
    const Lattice local_lattice(local), global_lattice(global);
    for (int rank = 0; rank < grid.size(); ++rank) {
      const Coordinates offset = grid.Offset(rank, global);
      const auto global_site = [&](int r, Parity p, int cb) {
        const Coordinates n = local_lattice.Coords(local_lattice.FullIndex(p, cb));
        const Coordinates o = grid.Offset(r, global);
        return global_lattice.Index({n[0] + o[0], n[1] + o[1], n[2] + o[2], n[3] + o[3]});
      };
      for (int cb = 0; cb < local_lattice.half_volume(); ++cb) {
        for (const Parity p : {Parity::kEven, Parity::kOdd}) {
          const Coordinates n = local_lattice.Coords(local_lattice.FullIndex(p, cb));
          EXPECT_EQ(GlobalParity(n, offset), p) << "local parity differs from global on rank " << rank;
        }
      }
      for (int mu = 0; mu < kDims; ++mu) {
        const FaceMap faces(local, mu);
        for (const Side side : {Side::kBackward, Side::kForward}) {
          const int sender = grid.Neighbour(rank, mu, side);  // the rank beyond my face `side`
          for (const Parity p : {Parity::kEven, Parity::kOdd}) {
            const std::vector<int>& mine = faces.Face(side, p);
            const std::vector<int>& sent = faces.Face(Opposite(side), FaceMap::SourceParity(p));
            for (std::size_t k = 0; k < mine.size(); ++k) {
              const int site = global_site(rank, p, mine[k]);
              const int expected = side == Side::kForward ? global_lattice.Forward(site, mu)
                                                          : global_lattice.Backward(site, mu);
              EXPECT_EQ(global_site(sender, Opposite(p), sent[k]), expected)
                  << "grid " << grid.ToString() << " rank " << rank << " mu " << mu << " k " << k;
            }
          }
        }
      }
    }
  }
}

// What the parity statement guards against: with an odd offset sum the local and global parities swap.
TEST(FaceMapTest, AnOddOffsetSumWouldSwapParities) {
  EXPECT_EQ(GlobalParity({0, 0, 0, 0}, {0, 0, 0, 4}), Parity::kEven);
  EXPECT_EQ(GlobalParity({0, 0, 0, 0}, {0, 0, 0, 3}), Parity::kOdd);
}

TEST(FaceMapTest, RefusesBadInput) {
  EXPECT_CONTAINS(ErrorOf([] { FaceMap({4, 4, 4, 4}, 4); }), "direction 4 is not in 0..3");
  EXPECT_CONTAINS(ErrorOf([] { FaceMap({4, 3, 4, 4}, 0); }), "face map of local lattice 4x3x4x4");
  EXPECT_THROW(FaceMap({2, 2, 2, 2}, 0).FacePosition(Side::kForward, Parity::kEven, 8), std::out_of_range);
}

}  // namespace
}  // namespace lqcd::comm
