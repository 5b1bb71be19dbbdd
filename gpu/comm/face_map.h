// face_map.h: which sites of a local sub-lattice lie on its faces in one direction, in the order the halo
// exchange sends them, and where each received site lands.
//
// Exports:
//   FaceMap(local_extents, mu)  the two faces of direction mu of a local lattice (extents as LocalExtents
//                               gives them: even, >= 2; throws std::invalid_argument otherwise).
//   Face(side, parity)          local checkerboard indices (reference/lattice.h: lexicographic / 2 within a
//                               parity) of the sites on that face: forward = local x_mu == L_mu - 1,
//                               backward = x_mu == 0. Canonical order: increasing lexicographic site index,
//                               which is lexicographic order of the three transverse coordinates.
//   sites_per_parity()          V_local / L_mu / 2: the length of each list.
//   FacePosition(side, parity, cb)  the position of checkerboard site cb in Face(side, parity), or -1.
//   SourceParity(parity)        the parity of the neighbour's face that fills the ghost of my face `parity`.
//
// The exchange contract (communicator.h's Exchange(mu, side, ...) sends my face `side` to the neighbour in
// direction (mu, side)):
//   The ghost of my face (side, p) holds the sites one step beyond it, x -+ mu, which sit on the
//   neighbour's face (Opposite(side), Opposite(p)) with the same transverse coordinates. Parity flips because
//   the two sites differ by L_mu - 1 in x_mu (odd, since L_mu is even) and agree elsewhere. Both faces list
//   their sites in transverse lexicographic order, and the transverse sets agree (a site with transverse
//   coordinates T is on my face p exactly when it is on the neighbour's face Opposite(p)), so element k of the
//   neighbour's send buffer is the ghost of element k of Face(side, p): no index translation on receipt.
//
// Local versus global parity: a site's global parity is (local parity) + (offset sum) mod 2. ProcessGrid
// makes every local extent even, so every offset (a multiple of a local extent) is even and local parity
// IS global parity on every rank; the face lists above are therefore also the global-parity lists.
// (Were the offset sum odd, a rank's local even sites would be globally odd and the lists would swap.)
#pragma once

#include <array>
#include <vector>

#include "gpu/comm/process_grid.h"
#include "reference/lattice.h"

namespace lqcd::comm {

class FaceMap {
 public:
  FaceMap(const Coordinates& local_extents, int mu);

  int mu() const { return mu_; }
  int sites_per_parity() const { return sites_per_parity_; }
  const std::vector<int>& Face(Side side, Parity parity) const {
    return faces_[static_cast<int>(side)][static_cast<int>(parity)];
  }
  // -1 when cb is not on that face; throws std::out_of_range for cb outside [0, V_local / 2).
  int FacePosition(Side side, Parity parity, int cb_index) const;
  static Parity SourceParity(Parity receiving_parity) { return Opposite(receiving_parity); }

 private:
  int mu_;
  int sites_per_parity_;
  std::array<std::array<std::vector<int>, 2>, 2> faces_;      // [side][parity] -> checkerboard indices
  std::array<std::array<std::vector<int>, 2>, 2> positions_;  // [side][parity][cb] -> position or -1
};

// Global parity of a local site on a rank whose local origin sits at `offset` (see the file comment).
inline Parity GlobalParity(const Coordinates& local, const Coordinates& offset) {
  return ((local[0] + local[1] + local[2] + local[3] + offset[0] + offset[1] + offset[2] + offset[3]) & 1)
             ? Parity::kOdd
             : Parity::kEven;
}

}  // namespace lqcd::comm
