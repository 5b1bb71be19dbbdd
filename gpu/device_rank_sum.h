// device_rank_sum.h: the global sum of a reduction's per-rank partials, done on the devices (no host round
// trip), with the bits of the host's rank-order sum.
//
// Host-only header (no CUDA or NCCL types).
//
// A global reduction (blas.h, SetReductionCommunicator) first reduces each rank's sites on its own GPU into a
// ScalarSlot (device_scalar.h), then adds the ranks' partials. The host way (Communicator::SumDeterministic)
// waits for the local kernel, gathers the partials to rank 0 over MPI, adds them there in rank order and
// writes the sum back into the slot: the device idles from the end of the local kernel until the host has
// queued the next one, once per reduction (four per BiCGstab iteration). DeviceRankSum queues the same sum
// behind the local kernel instead:
//
//   1. NCCL all-gathers the `count` partial doubles of every rank into a [ranks x count] device buffer
//      (stream ordered: the host does not wait);
//   2. one kernel adds them in rank order, rank 0's value first, then + rank 1's, ... (the loop of
//      comm::SumInRankOrder, one double addition after another, no fused operations), and writes the sums
//      into both copies of the slot.
//
// Same inputs, same order of additions: the same bits as the host way on every rank, and so the same solves
// (multi_gpu_check compares the two bit for bit). The scalars computed from the sums (alpha, beta, omega)
// then stay on the device as on one GPU, and the host reads only what it tests.
//
// NCCL is loaded at run time (nccl_communicator.h says where from, and NcclCommunicator::Unavailable() why it
// cannot be used here), so nothing else in the project needs it to build or run.
//
// One communicator per object, built collectively: every rank of `communicator` constructs it at the same
// point (rank 0's NCCL id goes to every rank through Communicator::AllGather), after selecting its GPU
// (rank_device.h); NCCL needs a different GPU on every rank (--share-gpu runs keep the host way). Sum() is a
// collective too: every rank must queue the same sequence of sums (the solvers do: every rank sees the same
// global scalars). Not thread safe; queued on the default stream, where the reductions run.
//
// Errors: std::runtime_error naming the cause when NCCL cannot be loaded or initialised (constructor) or a
// call fails; std::invalid_argument for a count outside 1..kScalarSlotDoubles or null pointers (before any work).
#pragma once

#include <memory>
#include <string>

#include "gpu/comm/communicator.h"
#include "gpu/scalar_program.h"

namespace lqcd::gpu {

class DeviceRankSum {
 public:
  explicit DeviceRankSum(comm::Communicator& communicator);
  ~DeviceRankSum();
  DeviceRankSum(const DeviceRankSum&) = delete;
  DeviceRankSum& operator=(const DeviceRankSum&) = delete;

  // Replaces values[0..count) (device memory, this rank's partials) by the rank-order sum of every rank's,
  // in device memory and in `host_copy` (the device's address of pinned host memory; may be null). Queued on
  // the default stream after everything queued before; returns without waiting.
  void Sum(double* values, double* host_copy, int count) const;

  const comm::Communicator& communicator() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The programs' --global-sums choice: "device" -> true, "host" -> false, "" (not given) -> device unless
// share_gpu (NCCL needs one GPU per rank). std::invalid_argument for another word, or "device" with share_gpu.
bool GlobalSumsOnDevices(const std::string& flag, bool share_gpu);

}  // namespace lqcd::gpu
