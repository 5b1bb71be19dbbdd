#include "gpu/comm/face_map.h"

#include <stdexcept>
#include <string>

namespace lqcd::comm {

FaceMap::FaceMap(const Coordinates& local_extents, int mu) : mu_(mu), sites_per_parity_(0) {
  if (mu < 0 || mu >= kDims) {
    throw std::invalid_argument("face map: direction " + std::to_string(mu) + " is not in 0..3");
  }
  std::int64_t volume = 0;
  try {
    volume = Lattice::CheckExtents(local_extents);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("face map of local lattice " + FormatCoordinates(local_extents) + ": " + e.what());
  }
  sites_per_parity_ = static_cast<int>(volume / local_extents[mu] / 2);
  const int half_volume = static_cast<int>(volume / 2);
  for (auto& per_side : positions_) {
    for (auto& per_parity : per_side) per_parity.assign(half_volume, -1);
  }
  // Walking sites in lexicographic order gives each face its transverse lexicographic order (x_mu is
  // fixed on a face, so the remaining coordinates vary in their own lexicographic order).
  const Coordinates& L = local_extents;
  Coordinates n{};
  for (n[3] = 0; n[3] < L[3]; ++n[3]) {
    for (n[2] = 0; n[2] < L[2]; ++n[2]) {
      for (n[1] = 0; n[1] < L[1]; ++n[1]) {
        for (n[0] = 0; n[0] < L[0]; ++n[0]) {
          const bool backward = n[mu] == 0, forward = n[mu] == L[mu] - 1;
          if (!backward && !forward) continue;
          const int site = n[0] + L[0] * (n[1] + L[1] * (n[2] + L[2] * n[3]));
          const int cb = Lattice::CheckerboardIndex(site);
          const int parity = static_cast<int>(Lattice::CoordsParity(n));
          for (const Side side : {Side::kBackward, Side::kForward}) {
            if ((side == Side::kBackward) ? !backward : !forward) continue;
            auto& list = faces_[static_cast<int>(side)][parity];
            positions_[static_cast<int>(side)][parity][cb] = static_cast<int>(list.size());
            list.push_back(cb);
          }
        }
      }
    }
  }
}

int FaceMap::FacePosition(Side side, Parity parity, int cb_index) const {
  const auto& positions = positions_[static_cast<int>(side)][static_cast<int>(parity)];
  if (cb_index < 0 || cb_index >= static_cast<int>(positions.size())) {
    throw std::out_of_range("face map: checkerboard index " + std::to_string(cb_index) + " is not in [0, " +
                            std::to_string(positions.size()) + ")");
  }
  return positions[cb_index];
}

}  // namespace lqcd::comm
