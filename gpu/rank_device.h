// rank_device.h: which GPU each MPI rank of a multi-GPU job uses.
//
// Host-only header (no CUDA types).
//
//   PlaceRankOnDevice(comm, share_gpu)
//       Finds this rank's place on its node: its local rank and the number of ranks there, from Open MPI's
//       environment (OMPI_COMM_WORLD_LOCAL_RANK / _LOCAL_SIZE) or, where the launcher does not set it, from
//       MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Device = local rank mod the node's device count, and
//       selects it (gpu/device.h SelectDevice). The rule is one rank per GPU: more ranks on a node than it
//       has GPUs is refused unless share_gpu (then several ranks share a GPU: right for checks, meaningless
//       for timings). A collective: every rank must call it. A refusal on any rank (no GPU, too few GPUs) is
//       made a refusal on every rank (std::invalid_argument; the refusing rank names its reason, the others
//       point to it), so that none goes on alone into later collectives.
//   RankPlacement::Describe()  "rank 1 on host (local rank 1 of 2): GPU 0 (<Describe of the device>);
//       host: 16 of 32 CPU cores usable" and, for a rank bound to one core of several, a warning that its host
//       work (generation, uploads, checks) runs on that core alone, and how to lift it (mpirun --bind-to none).
//   RankPlacement::HostThreads()  the host threads a rank should start: the cores it is bound to when the
//       launcher bound it (its affinity mask is smaller than the node), else the node's hardware threads
//       shared among its ranks. Open MPI binds each rank to one core with one or two ranks per job (to a
//       socket with more): measured, 183 s to fill a 64^3 x 128 random gauge field on one bound core.
//
// Requires a live MPI session (gpu/comm/mpi_communicator.h MpiSession) for the fallback and for `comm`.
// Errors: std::invalid_argument as above; MpiError from MPI; CudaError from CUDA.
#pragma once

#include <string>

#include "gpu/comm/communicator.h"

namespace lqcd::gpu {

struct RankPlacement {
  int rank = 0;
  std::string host;
  int local_rank = 0, local_size = 1;
  int device = 0;          // the CUDA ordinal this rank selected
  std::string device_description;  // gpu/device.h Describe(CurrentDeviceInfo()) after selecting it
  int usable_cores = 1;    // reference/cli/machine_info.h UsableCores(): this rank's affinity mask
  int hardware_threads = 1;  // std::thread::hardware_concurrency()
  std::string Describe() const;
  int HostThreads() const;
};

RankPlacement PlaceRankOnDevice(comm::Communicator& comm, bool share_gpu);

}  // namespace lqcd::gpu
