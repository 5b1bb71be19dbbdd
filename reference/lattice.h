// lattice.h: the 4-d lattice geometry of the CPU oracle.
//
// Computes: site indices, coordinates, parities, nearest neighbours and boundary-crossing flags for an
// Lx x Ly x Lz x Lt lattice with periodic geometry.
//
// Conventions (docs/conventions.md, "Lattice"):
//   - Directions mu = 0..3 are x, y, z, t. Coordinates n = (x, y, z, t).
//   - Lexicographic index, x fastest: i = x + Lx*(y + Ly*(z + Lz*t)). This is also the site order of the
//     NERSC, ILDG/SciDAC and MILC configuration files.
//   - Parity of a site: (x + y + z + t) mod 2; 0 = even, 1 = odd.
//   - Checkerboard (single-parity) index: i_cb = i / 2. Because Lx is even, the two sites x = 2k and 2k+1
//     of each x-row have opposite parities, so i / 2 numbers the sites of each parity 0 .. V/2 - 1 with
//     no gaps, in lexicographic order.
//   - Every extent must be even (for the even-odd split) and at least 2, and the volume must fit in int.
//     Violations throw std::invalid_argument naming the extent.
//   - Neighbours wrap around periodically; CrossesBoundary tells whether the hop from n in direction
//     +mu (or -mu) wraps, which is where fermion boundary phases (fermion_boundary.h) apply.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/types.h"

namespace lqcd {

using Coordinates = std::array<int, kDims>;

enum class Parity { kEven = 0, kOdd = 1 };

inline Parity Opposite(Parity p) { return p == Parity::kEven ? Parity::kOdd : Parity::kEven; }
inline const char* ToString(Parity p) { return p == Parity::kEven ? "even" : "odd"; }

class Lattice {
 public:
  // Largest extent accepted in any direction: far beyond any lattice the oracle can hold in memory,
  // small enough that a typo (e.g. 1600 for 16) is caught.
  static constexpr int kMaxExtent = 512;

  explicit Lattice(const Coordinates& extents);
  // The constructor's checks without building the tables: every extent even, in [2, kMaxExtent], and the
  // volume small enough to index 12 components per site with int. Returns the volume; throws
  // std::invalid_argument naming the problem.
  static std::int64_t CheckExtents(const Coordinates& extents);
  Lattice(int lx, int ly, int lz, int lt) : Lattice(Coordinates{lx, ly, lz, lt}) {}

  const Coordinates& extents() const { return extents_; }
  int extent(int mu) const { return extents_[mu]; }
  int volume() const { return volume_; }
  int half_volume() const { return volume_ / 2; }
  std::string ToString() const;  // "4x4x4x8"

  // Throws std::out_of_range unless 0 <= n[mu] < L_mu for every mu (no silent wrap-around: an
  // out-of-range coordinate would otherwise name a different site). Inner loops use the neighbour tables.
  int Index(const Coordinates& n) const {
    for (int mu = 0; mu < kDims; ++mu) {
      if (n[mu] < 0 || n[mu] >= extents_[mu]) ThrowCoordinateOutOfRange(n, mu);
    }
    return n[0] + extents_[0] * (n[1] + extents_[1] * (n[2] + extents_[2] * n[3]));
  }
  Coordinates Coords(int site) const;
  Parity SiteParity(int site) const { return tables_->parity[site]; }
  static Parity CoordsParity(const Coordinates& n) {
    return ((n[0] + n[1] + n[2] + n[3]) & 1) ? Parity::kOdd : Parity::kEven;
  }

  // Checkerboard maps. CheckerboardIndex(site) = site / 2; FullIndex(parity, cb) is its inverse.
  static int CheckerboardIndex(int site) { return site / 2; }
  int FullIndex(Parity parity, int cb_index) const {
    return tables_->full_index[static_cast<int>(parity)][cb_index];
  }

  // Lexicographic index of n + mu and n - mu (periodic).
  int Forward(int site, int mu) const { return tables_->forward[kDims * site + mu]; }
  int Backward(int site, int mu) const { return tables_->backward[kDims * site + mu]; }
  // Whether the hop site -> site + mu (resp. site - mu) wraps around the lattice in direction mu.
  // (Table lookups: these sit in the innermost loop of every Dirac operator.)
  bool ForwardCrossesBoundary(int site, int mu) const { return (tables_->forward_wraps[site] >> mu) & 1; }
  bool BackwardCrossesBoundary(int site, int mu) const { return (tables_->backward_wraps[site] >> mu) & 1; }

  bool operator==(const Lattice& other) const { return extents_ == other.extents_; }
  bool operator!=(const Lattice& other) const { return !(*this == other); }

 private:
  [[noreturn]] void ThrowCoordinateOutOfRange(const Coordinates& n, int mu) const;

  // Neighbour and parity tables, shared by copies: every field holds a Lattice by value.
  struct Tables {
    std::vector<int> forward, backward;
    std::vector<Parity> parity;
    std::vector<std::uint8_t> forward_wraps, backward_wraps;  // bit mu set: the hop in direction +-mu wraps
    std::array<std::vector<int>, 2> full_index;
  };
  Coordinates extents_;
  int volume_;
  std::shared_ptr<const Tables> tables_;
};

}  // namespace lqcd
