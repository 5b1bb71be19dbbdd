// rank_device.cc: see rank_device.h.
#include "gpu/rank_device.h"

#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "gpu/comm/mpi_communicator.h"
#include "gpu/device.h"
#include "reference/cli/command_line.h"

namespace lqcd::gpu {
namespace {

void MpiCheck(int code, const char* call) {
  if (code != MPI_SUCCESS) throw comm::MpiError(call, code);
}

// The rank's place on its node: Open MPI's environment, else the ranks sharing memory with it.
void FindLocalRank(RankPlacement& p) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  const char* size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (rank != nullptr && size != nullptr) {
    p.local_rank = static_cast<int>(command_line::ParseLong("OMPI_COMM_WORLD_LOCAL_RANK", rank, 0, 1 << 20));
    p.local_size = static_cast<int>(command_line::ParseLong("OMPI_COMM_WORLD_LOCAL_SIZE", size, 1, 1 << 20));
    return;
  }
  MPI_Comm node;
  MpiCheck(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MpiCheck(MPI_Comm_rank(node, &p.local_rank), "MPI_Comm_rank");
  MpiCheck(MPI_Comm_size(node, &p.local_size), "MPI_Comm_size");
  MpiCheck(MPI_Comm_free(&node), "MPI_Comm_free");
}

}  // namespace

std::string RankPlacement::Describe() const {
  return "rank " + std::to_string(rank) + " on " + host + " (local rank " + std::to_string(local_rank) + " of " +
         std::to_string(local_size) + "): GPU " + std::to_string(device) + " (" + device_description + ")";
}

RankPlacement PlaceRankOnDevice(comm::Communicator& comm, bool share_gpu) {
  RankPlacement p;
  p.rank = comm.rank();
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  p.host = host;
  FindLocalRank(p);
  const int devices = DeviceCount();
  std::string refusal;
  if (devices == 0) {
    refusal = NoDeviceReason();
  } else if (p.local_size > devices && !share_gpu) {
    refusal = std::to_string(p.local_size) + " ranks run on host " + p.host + " but it has " +
              std::to_string(devices) + " CUDA device(s); the rule is one rank per GPU: pass --share-gpu to let " +
              "ranks share them (device = local rank mod " + std::to_string(devices) + ")";
  }
  if (comm.SumDeterministic(refusal.empty() ? 0.0 : 1.0) > 0) {
    throw std::invalid_argument(refusal.empty() ? "another rank refused its device set-up (see its message)"
                                                : refusal);
  }
  p.device = p.local_rank % devices;
  SelectDevice(p.device);
  p.device_description = gpu::Describe(CurrentDeviceInfo());
  return p;
}

}  // namespace lqcd::gpu
