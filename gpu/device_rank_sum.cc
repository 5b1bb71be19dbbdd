// device_rank_sum.cc: NCCL loaded at run time, the all-gather and the rank-order sum (device_rank_sum.h).
#include "gpu/device_rank_sum.h"

#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/rank_sum_launch.h"

namespace lqcd::gpu {
namespace {

// The few NCCL entry points used here, looked up by name in the loaded library (their declarations in nccl.h
// give the types; nothing links against NCCL).
struct NcclLibrary {
  void* handle = nullptr;
  std::string error;  // why it could not be loaded; "" when loaded
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
};

template <typename F>
bool Resolve(NcclLibrary& nccl, const char* name, F* function) {
  *function = reinterpret_cast<F>(dlsym(nccl.handle, name));
  if (*function == nullptr) nccl.error = std::string("the NCCL library has no ") + name;
  return *function != nullptr;
}

NcclLibrary Load() {
  NcclLibrary nccl;
  std::vector<std::string> candidates;
  if (const char* named = std::getenv("LQCD_NCCL_LIBRARY"); named != nullptr && *named != '\0') {
    candidates.emplace_back(named);  // only this one: a named library that fails is an error, not a fallback
  } else {
    candidates.emplace_back("libnccl.so.2");
    if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && *cuda != '\0') {
      candidates.push_back(std::string(cuda) + "/lib64/libnccl.so.2");
    }
    candidates.emplace_back("/usr/local/cuda/lib64/libnccl.so.2");
  }
  std::string tried;
  for (const std::string& path : candidates) {
    nccl.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (nccl.handle != nullptr) break;
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + path + ": " + (why != nullptr ? why : "not loaded");
  }
  if (nccl.handle == nullptr) {
    nccl.error = "NCCL could not be loaded (" + tried + "); set LQCD_NCCL_LIBRARY to its libnccl.so.2";
    return nccl;
  }
  if (Resolve(nccl, "ncclGetUniqueId", &nccl.get_unique_id) &&
      Resolve(nccl, "ncclCommInitRank", &nccl.comm_init_rank) &&
      Resolve(nccl, "ncclCommDestroy", &nccl.comm_destroy) && Resolve(nccl, "ncclAllGather", &nccl.all_gather) &&
      Resolve(nccl, "ncclGetErrorString", &nccl.error_string)) {
    return nccl;
  }
  dlclose(nccl.handle);
  nccl.handle = nullptr;
  return nccl;
}

// Loaded once per process, on first use; never unloaded (NCCL's threads may outlive a communicator).
const NcclLibrary& Nccl() {
  static const NcclLibrary* nccl = new NcclLibrary(Load());
  return *nccl;
}

void Check(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return;
  throw std::runtime_error(std::string("DeviceRankSum: ") + what + " failed: " + Nccl().error_string(result));
}

}  // namespace

struct DeviceRankSum::State {
  ncclComm_t comm = nullptr;
  int ranks = 1;
  DeviceBuffer gathered;  // [ranks x kMaxCount] doubles
};

std::string DeviceRankSum::Unavailable() { return Nccl().error; }

DeviceRankSum::DeviceRankSum(comm::Communicator& communicator)
    : communicator_(communicator), state_(std::make_unique<State>()) {
  // A rank that cannot load NCCL must not leave the others waiting in the id exchange or in NCCL's setup:
  // every rank learns whether all could, and all refuse together.
  const std::string unavailable = Unavailable();
  if (communicator.SumDeterministic(unavailable.empty() ? 0.0 : 1.0) > 0) {
    throw std::runtime_error(unavailable.empty() ? "DeviceRankSum: another rank could not load NCCL"
                                                 : "DeviceRankSum: " + unavailable);
  }
  const NcclLibrary& nccl = Nccl();
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (communicator.rank() == 0) Check(nccl.get_unique_id(&id), "ncclGetUniqueId");
  std::vector<ncclUniqueId> ids(communicator.size());
  communicator.AllGather(&id, sizeof(id), ids.data());
  state_->ranks = communicator.size();
  Check(nccl.comm_init_rank(&state_->comm, state_->ranks, ids[0], communicator.rank()), "ncclCommInitRank");
  state_->gathered = DeviceBuffer(sizeof(double) * kMaxCount * state_->ranks);
}

DeviceRankSum::~DeviceRankSum() {
  if (state_ != nullptr && state_->comm != nullptr) Nccl().comm_destroy(state_->comm);
}

void DeviceRankSum::Sum(double* values, double* host_copy, int count) const {
  if (count < 1 || count > kMaxCount) {
    throw std::invalid_argument("DeviceRankSum::Sum: " + std::to_string(count) + " values (1.." +
                                std::to_string(kMaxCount) + ")");
  }
  if (values == nullptr) throw std::invalid_argument("DeviceRankSum::Sum: null values");
  double* gathered = static_cast<double*>(state_->gathered.data());
  // Rank r's values land at gathered[r * count ...]: ncclAllGather orders the pieces by NCCL rank, which is
  // the communicator's rank (constructor).
  Check(Nccl().all_gather(values, gathered, static_cast<std::size_t>(count), ncclDouble, state_->comm,
                          /*stream=*/0),
        "ncclAllGather");
  LaunchRankOrderSum(gathered, state_->ranks, count, values, host_copy);
}

}  // namespace lqcd::gpu
