// nccl_communicator.h: NCCL, loaded at run time, over the ranks of a comm::Communicator: stream-ordered
// all-gathers and point-to-point exchanges between the GPUs, queued without the host waiting.
//
// Host-only header (no CUDA or NCCL types: streams are passed as void*, a cudaStream_t; 0 = the default stream).
//
// NCCL is loaded with dlopen, so nothing else in the project needs it to build or run: the library named by the
// environment variable LQCD_NCCL_LIBRARY, else libnccl.so.2 on the loader's path, else in $CUDA_HOME/lib64 or
// /usr/local/cuda/lib64. Unavailable() says why it cannot be used here ("" when it can).
//
// Construction is collective: every rank of `communicator` constructs it at the same point, after selecting its
// GPU (rank_device.h); rank 0's NCCL id reaches every rank through Communicator::AllGather, and the NCCL rank is
// the communicator's rank. NCCL needs a different GPU on every rank (runs with --share-gpu cannot use it). Every
// operation is a collective of the ranks named in it, queued on the given stream; every rank must queue the
// same sequence. A rank that cannot load NCCL makes every rank refuse (std::runtime_error), so none waits alone.
//
// Errors: std::runtime_error naming the cause when NCCL cannot be loaded or initialised, or a call fails.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu/comm/communicator.h"

namespace lqcd::gpu {

class NcclCommunicator {
 public:
  explicit NcclCommunicator(comm::Communicator& communicator);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // `count` doubles from every rank into all[rank * count ...] (device memory), on `stream`.
  void AllGatherDoubles(const double* mine, double* all, std::size_t count, void* stream) const;

  // Point-to-point messages in one NCCL group, on `stream`: each send's bytes go to rank `peer`, each receive's
  // come from its `peer` (a peer may be this rank). Between two ranks, the k-th send of one to the other
  // arrives in the other's k-th receive from it: order the lists accordingly.
  struct Message {
    int peer;
    void* data;  // read by a send, written by a receive (device memory)
    std::size_t bytes;
  };
  void Exchange(const std::vector<Message>& sends, const std::vector<Message>& receives, void* stream) const;

  comm::Communicator& communicator() const { return communicator_; }
  int rank() const;
  int size() const;

  // Why NCCL cannot be used in this process ("" when it can be loaded): tries to load it.
  static std::string Unavailable();

 private:
  struct State;
  comm::Communicator& communicator_;
  std::unique_ptr<State> state_;
};

}  // namespace lqcd::gpu
