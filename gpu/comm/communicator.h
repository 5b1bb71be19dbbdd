// communicator.h: what the multi-GPU code asks of the ranks around it: who am I, swap a face with a
// neighbour, and a global sum that gives the same bits on every run.
//
// Exports:
//   Communicator                 the interface (below); host buffers only.
//   SingleProcessCommunicator    one rank; every neighbour is itself, so an exchange is a copy.
//   SumInRankOrder(partials)     the one summation both implementations use: partials[0] + partials[1] + ...
//                                left to right (the determinism contract, in one place).
//   CheckAllGatherArguments      the argument checks every AllGather makes before any communication.
// MpiCommunicator (mpi_communicator.h) implements the same interface over MPI_COMM_WORLD.
//
// Determinism: SumDeterministic never reduces in a tree or in arrival order. Each rank's partial is
// gathered and added in rank order, so the result depends only on the partials and the rank count: bit
// identical run to run, independent of message timing, and the same on every rank. (A size-1 sum returns
// the partial itself, -0.0 included.)
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/comm/process_grid.h"

namespace lqcd::comm {

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const ProcessGrid& grid() const = 0;

  // Sends `bytes` bytes at `send` (my face `side` of direction mu) to the neighbour in direction (mu, side)
  // and receives as many bytes into `receive` from the opposite neighbour (its face `side`, which is the
  // ghost of my face Opposite(side): face_map.h). Every rank must call it with the same (mu, side, bytes).
  // The buffers may not overlap. Throws std::invalid_argument for a bad mu, a null buffer with bytes > 0 or
  // overlapping buffers (before any communication); std::runtime_error if the transfer fails.
  virtual void Exchange(int mu, Side side, const void* send, void* receive, std::size_t bytes) = 0;

  // Every rank's `local` values summed element-wise in rank order (SumInRankOrder), returned on every rank.
  // Every rank must pass the same length; a mismatch throws std::invalid_argument on every rank.
  virtual std::vector<double> SumDeterministic(const std::vector<double>& local) = 0;
  double SumDeterministic(double local) { return SumDeterministic(std::vector<double>{local})[0]; }

  // Every rank's `bytes` bytes at `local`, concatenated in rank order into `all` (size() * bytes bytes), on
  // every rank: all[r * bytes, (r + 1) * bytes) is rank r's `local`. Used to assemble a global field from the
  // ranks' pieces (gpu/comm/subdomain.h GatherSpinor) where every rank needs all of it. Every rank must pass
  // the same `bytes` (a mismatch throws std::invalid_argument on every rank). `all` may not overlap `local`.
  // Throws std::invalid_argument for a null buffer with bytes > 0 or overlapping buffers (before any
  // communication); std::runtime_error if the transfer fails.
  virtual void AllGather(const void* local, std::size_t bytes, void* all) = 0;

  virtual void Barrier() = 0;
};

// partials[r][i] summed over r = 0, 1, ... in that order, for each i. All rows have one length.
std::vector<double> SumInRankOrder(const std::vector<std::vector<double>>& partials);

// The argument checks every Exchange makes before touching the network.
void CheckExchangeArguments(int mu, const void* send, const void* receive, std::size_t bytes);
// The argument checks of AllGather on `ranks` ranks: non-null buffers for bytes > 0, `all` (ranks * bytes
// bytes) not overlapping `local`, and ranks * bytes representable.
void CheckAllGatherArguments(const void* local, std::size_t bytes, const void* all, int ranks);

class SingleProcessCommunicator final : public Communicator {
 public:
  // The grid must have one rank (throws std::invalid_argument otherwise).
  explicit SingleProcessCommunicator(const ProcessGrid& grid = ProcessGrid({1, 1, 1, 1}));

  int rank() const override { return 0; }
  int size() const override { return 1; }
  const ProcessGrid& grid() const override { return grid_; }
  // My neighbour in every direction is me: the face I send is the ghost I receive (a copy).
  void Exchange(int mu, Side side, const void* send, void* receive, std::size_t bytes) override;
  std::vector<double> SumDeterministic(const std::vector<double>& local) override;
  using Communicator::SumDeterministic;
  // One rank: `all` is a copy of `local`.
  void AllGather(const void* local, std::size_t bytes, void* all) override;
  void Barrier() override {}

 private:
  ProcessGrid grid_;
};

}  // namespace lqcd::comm
