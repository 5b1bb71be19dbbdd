// process_grid.h: the 4-d grid of MPI ranks a lattice is split over, and what each rank owns.
//
// Exports:
//   Side                       backward (-mu) or forward (+mu); Opposite(side); ToString(side).
//   ProcessGrid(dims)          a grid of dims[0] x dims[1] x dims[2] x dims[3] ranks, every dim >= 1.
//   ProcessGrid::Parse(k, s)   the same from "1x1x2x2" (reference/cli's list syntax; `k` names the flag).
//   CoordsOf(rank), RankOf(c)  rank <-> grid coordinates, lexicographic with x fastest, exactly like
//                              lattice sites: rank = c0 + P0 (c1 + P1 (c2 + P2 c3)).
//   Neighbour(rank, mu, side)  the rank one step along +-mu, periodic (a dim of 1 is its own neighbour).
//   IsPartitioned(mu)          dims[mu] > 1: only those directions need halo exchange between ranks.
//   CheckRankCount(n)          throws unless the grid has exactly n ranks.
//   LocalExtents(global)       the extents of each rank's sub-lattice; throws (see below).
//   Offset(rank, global)       global coordinates of that rank's local site (0, 0, 0, 0).
//
// Decomposition rules (checked by LocalExtents and Offset, std::invalid_argument naming the direction):
//   - dims[mu] divides L_mu: every rank holds the same local lattice, so face sizes and the canonical face
//     order (face_map.h) are the same on both sides of every exchange.
//   - every local extent is even (and so >= 2). Why: the even-odd (checkerboard) split numbers the sites of
//     one parity by lexicographic index / 2, which needs an even local Lx; and an even local extent makes
//     every offset a multiple of an even number, so the offset sum is even and a site's local parity
//     (x+y+z+t of local coordinates) equals its global parity. With an odd local extent some ranks would
//     have odd offset sums, their local "even" sites would be globally odd, and a single-parity field
//     could not be split into per-rank single-parity pieces.
//   - the local volume fits the oracle's int indexing (reference/lattice.h's limit).
#pragma once

#include <cstdint>
#include <string>

#include "reference/lattice.h"

namespace lqcd::comm {

enum class Side { kBackward = 0, kForward = 1 };

inline Side Opposite(Side side) { return side == Side::kForward ? Side::kBackward : Side::kForward; }
inline const char* ToString(Side side) { return side == Side::kForward ? "forward" : "backward"; }

class ProcessGrid {
 public:
  // Largest number of ranks along one direction: far beyond any machine, small enough that the rank count
  // of a 4-d grid fits in int and a typo is caught.
  static constexpr int kMaxDim = 4096;

  // Throws std::invalid_argument unless 1 <= dims[mu] <= kMaxDim for every mu and the product fits in int.
  explicit ProcessGrid(const Coordinates& dims);
  // "PXxPYxPZxPT"; errors name --key and the text, like reference/cli's ParseExtents.
  static ProcessGrid Parse(const std::string& key, const std::string& text);

  const Coordinates& dims() const { return dims_; }
  int dim(int mu) const { return dims_[mu]; }
  int size() const { return size_; }
  bool IsPartitioned(int mu) const { return dims_[mu] > 1; }
  std::string ToString() const;  // "1x1x2x2"

  // Throws std::out_of_range for a rank outside [0, size) or a coordinate outside [0, dims[mu]).
  Coordinates CoordsOf(int rank) const;
  int RankOf(const Coordinates& coords) const;
  // Throws std::out_of_range for a bad rank or mu.
  int Neighbour(int rank, int mu, Side side) const;

  // Throws std::invalid_argument, naming both counts, unless size() == ranks.
  void CheckRankCount(int ranks) const;
  // See the decomposition rules in the file comment.
  Coordinates LocalExtents(const Coordinates& global) const;
  Coordinates Offset(int rank, const Coordinates& global) const;

  bool operator==(const ProcessGrid& other) const { return dims_ == other.dims_; }
  bool operator!=(const ProcessGrid& other) const { return !(*this == other); }

 private:
  Coordinates dims_;
  int size_;
};

// "4x4x4x8" for extents (messages and logs).
std::string FormatCoordinates(const Coordinates& c);

}  // namespace lqcd::comm
