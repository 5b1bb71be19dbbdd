// rank_device.cc: see rank_device.h.
#include "gpu/rank_device.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "gpu/comm/mpi_communicator.h"
#include "gpu/device.h"
#include "reference/cli/command_line.h"
#include "reference/cli/machine_info.h"

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
  std::string text = "rank " + std::to_string(rank) + " on " + host + " (local rank " + std::to_string(local_rank) +
                     " of " + std::to_string(local_size) + "): GPU " + std::to_string(device) + " (" +
                     device_description + "); host: " + std::to_string(usable_cores) + " of " +
                     std::to_string(hardware_threads) + " CPU cores usable";
  if (usable_cores == 1 && hardware_threads > 1) {
    text += " (WARNING: the launcher bound this rank to one core, so its host work runs serially there; "
            "launch with mpirun --bind-to none)";
  }
  return text;
}

int RankPlacement::HostThreads() const {
  if (usable_cores < hardware_threads) return usable_cores;
  return std::max(1, hardware_threads / std::max(1, local_size));
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
  p.usable_cores = UsableCores();
  p.hardware_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return p;
}

}  // namespace lqcd::gpu
