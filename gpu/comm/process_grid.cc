#include "gpu/comm/process_grid.h"

#include <stdexcept>
#include <vector>

#include "reference/cli/command_line.h"

namespace lqcd::comm {
namespace {

void CheckDirection(int mu) {
  if (mu < 0 || mu >= kDims) throw std::out_of_range("direction " + std::to_string(mu) + " is not in 0..3");
}

}  // namespace

std::string FormatCoordinates(const Coordinates& c) {
  std::string s;
  for (int mu = 0; mu < kDims; ++mu) s += (mu ? "x" : "") + std::to_string(c[mu]);
  return s;
}

ProcessGrid::ProcessGrid(const Coordinates& dims) : dims_(dims), size_(1) {
  std::int64_t size = 1;
  for (int mu = 0; mu < kDims; ++mu) {
    if (dims[mu] < 1 || dims[mu] > kMaxDim) {
      throw std::invalid_argument("process grid " + FormatCoordinates(dims) + ": the number of ranks in direction " +
                                  std::to_string(mu) + " must be in [1, " + std::to_string(kMaxDim) + "], got " +
                                  std::to_string(dims[mu]));
    }
    size *= dims[mu];
  }
  if (size > INT32_MAX) {
    throw std::invalid_argument("process grid " + FormatCoordinates(dims) + " has more ranks than fit in int");
  }
  size_ = static_cast<int>(size);
}

ProcessGrid ProcessGrid::Parse(const std::string& key, const std::string& text) {
  // The range is [0, kMaxDim] rather than [1, ...] so that a 0 reaches the constructor's message, which
  // says what a grid dimension is; the list syntax errors come from the shared parser.
  const std::vector<long> d = command_line::ParseLongList(key, text, 'x', kDims, -kMaxDim, kMaxDim);
  Coordinates dims{};
  for (int mu = 0; mu < kDims; ++mu) dims[mu] = static_cast<int>(d[mu]);
  try {
    return ProcessGrid(dims);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--" + key + "=" + text + ": " + e.what());
  }
}

std::string ProcessGrid::ToString() const { return FormatCoordinates(dims_); }

Coordinates ProcessGrid::CoordsOf(int rank) const {
  if (rank < 0 || rank >= size_) {
    throw std::out_of_range("rank " + std::to_string(rank) + " is not in the process grid " + ToString() + " (0.." +
                            std::to_string(size_ - 1) + ")");
  }
  Coordinates c{};
  for (int mu = 0; mu < kDims; ++mu) {
    c[mu] = rank % dims_[mu];
    rank /= dims_[mu];
  }
  return c;
}

int ProcessGrid::RankOf(const Coordinates& coords) const {
  int rank = 0;
  for (int mu = kDims - 1; mu >= 0; --mu) {
    if (coords[mu] < 0 || coords[mu] >= dims_[mu]) {
      throw std::out_of_range("grid coordinates " + FormatCoordinates(coords) + " are outside the process grid " +
                              ToString());
    }
    rank = rank * dims_[mu] + coords[mu];
  }
  return rank;
}

int ProcessGrid::Neighbour(int rank, int mu, Side side) const {
  CheckDirection(mu);
  Coordinates c = CoordsOf(rank);
  const int step = side == Side::kForward ? 1 : -1;
  c[mu] = (c[mu] + step + dims_[mu]) % dims_[mu];
  return RankOf(c);
}

void ProcessGrid::CheckRankCount(int ranks) const {
  if (ranks != size_) {
    throw std::invalid_argument("process grid " + ToString() + " has " + std::to_string(size_) +
                                " ranks, but the job runs " + std::to_string(ranks) +
                                " (the grid's product must equal the number of MPI ranks)");
  }
}

Coordinates ProcessGrid::LocalExtents(const Coordinates& global) const {
  const std::string what = "lattice " + FormatCoordinates(global) + " over process grid " + ToString() + ": ";
  Coordinates local{};
  for (int mu = 0; mu < kDims; ++mu) {
    if (global[mu] < 1) {
      throw std::invalid_argument(what + "extent " + std::to_string(global[mu]) + " in direction " +
                                  std::to_string(mu) + " is not positive");
    }
    if (global[mu] % dims_[mu] != 0) {
      throw std::invalid_argument(what + std::to_string(dims_[mu]) + " ranks do not divide the extent " +
                                  std::to_string(global[mu]) + " in direction " + std::to_string(mu));
    }
    local[mu] = global[mu] / dims_[mu];
    if (local[mu] % 2 != 0) {
      throw std::invalid_argument(
          what + "the local extent " + std::to_string(local[mu]) + " in direction " + std::to_string(mu) +
          " is odd; the even-odd split needs even local extents (checkerboard index = lexicographic / 2, and "
          "local parity = global parity only when every offset is even)");
    }
  }
  try {
    Lattice::CheckExtents(local);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(what + "local lattice " + FormatCoordinates(local) + ": " + e.what());
  }
  return local;
}

Coordinates ProcessGrid::Offset(int rank, const Coordinates& global) const {
  const Coordinates local = LocalExtents(global);
  const Coordinates c = CoordsOf(rank);
  Coordinates offset{};
  for (int mu = 0; mu < kDims; ++mu) offset[mu] = c[mu] * local[mu];
  return offset;
}

}  // namespace lqcd::comm
