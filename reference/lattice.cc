// lattice.cc: geometry tables (see lattice.h).
#include "reference/lattice.h"

#include <sstream>
#include <stdexcept>

namespace lqcd {

std::int64_t Lattice::CheckExtents(const Coordinates& extents) {
  static const char* kNames[kDims] = {"Lx", "Ly", "Lz", "Lt"};
  std::int64_t volume = 1;
  for (int mu = 0; mu < kDims; ++mu) {
    const int l = extents[mu];
    if (l <= 0) {
      throw std::invalid_argument("Lattice: extent " + std::string(kNames[mu]) + " = " + std::to_string(l) +
                                  " must be positive");
    }
    if (l % 2 != 0) {
      throw std::invalid_argument("Lattice: extent " + std::string(kNames[mu]) + " = " + std::to_string(l) +
                                  " is odd; every extent must be even for the even-odd (checkerboard) split");
    }
    if (l > kMaxExtent) {
      throw std::invalid_argument("Lattice: extent " + std::string(kNames[mu]) + " = " + std::to_string(l) +
                                  " exceeds the maximum " + std::to_string(kMaxExtent));
    }
    volume *= l;
  }
  // 12 complex components per site must still be indexable by int in the sparse matrix.
  if (volume * 12 > INT32_MAX) throw std::invalid_argument("Lattice: volume " + std::to_string(volume) + " too large");
  return volume;
}

Lattice::Lattice(const Coordinates& extents) : extents_(extents) {
  const std::int64_t volume = CheckExtents(extents);
  volume_ = static_cast<int>(volume);

  auto tables = std::make_shared<Tables>();
  tables->forward.resize(kDims * volume_);
  tables->backward.resize(kDims * volume_);
  tables->parity.resize(volume_);
  tables->forward_wraps.resize(volume_);
  tables->backward_wraps.resize(volume_);
  tables->full_index[0].resize(volume_ / 2);
  tables->full_index[1].resize(volume_ / 2);
  for (int site = 0; site < volume_; ++site) {
    const Coordinates n = Coords(site);
    for (int mu = 0; mu < kDims; ++mu) {
      Coordinates up = n, down = n;
      up[mu] = (n[mu] + 1) % extents_[mu];
      down[mu] = (n[mu] - 1 + extents_[mu]) % extents_[mu];
      tables->forward[kDims * site + mu] = Index(up);
      tables->backward[kDims * site + mu] = Index(down);
      if (n[mu] == extents_[mu] - 1) tables->forward_wraps[site] |= static_cast<std::uint8_t>(1u << mu);
      if (n[mu] == 0) tables->backward_wraps[site] |= static_cast<std::uint8_t>(1u << mu);
    }
    tables->parity[site] = CoordsParity(n);
    tables->full_index[static_cast<int>(tables->parity[site])][CheckerboardIndex(site)] = site;
  }
  tables_ = std::move(tables);
}

Coordinates Lattice::Coords(int site) const {
  Coordinates n;
  for (int mu = 0; mu < kDims; ++mu) {
    n[mu] = site % extents_[mu];
    site /= extents_[mu];
  }
  return n;
}

void Lattice::ThrowCoordinateOutOfRange(const Coordinates& n, int mu) const {
  static const char* kNames[kDims] = {"x", "y", "z", "t"};
  throw std::out_of_range("Lattice::Index: coordinate " + std::string(kNames[mu]) + " = " + std::to_string(n[mu]) +
                          " outside [0, " + std::to_string(extents_[mu]) + ") on " + ToString());
}

std::string Lattice::ToString() const {
  std::ostringstream out;
  out << extents_[0] << "x" << extents_[1] << "x" << extents_[2] << "x" << extents_[3];
  return out.str();
}

}  // namespace lqcd
