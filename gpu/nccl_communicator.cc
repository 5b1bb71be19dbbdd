// nccl_communicator.cc: NCCL loaded at run time, and the operations of NcclCommunicator (nccl_communicator.h).
#include "gpu/nccl_communicator.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

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
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
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
      Resolve(nccl, "ncclGetErrorString", &nccl.error_string) && Resolve(nccl, "ncclGroupStart", &nccl.group_start) &&
      Resolve(nccl, "ncclGroupEnd", &nccl.group_end) && Resolve(nccl, "ncclSend", &nccl.send) &&
      Resolve(nccl, "ncclRecv", &nccl.recv)) {
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
  throw std::runtime_error(std::string("NCCL: ") + what + " failed: " + Nccl().error_string(result));
}

cudaStream_t StreamOf(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

struct NcclCommunicator::State {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1;
};

std::string NcclCommunicator::Unavailable() { return Nccl().error; }

NcclCommunicator::NcclCommunicator(comm::Communicator& communicator)
    : communicator_(communicator), state_(std::make_unique<State>()) {
  // A rank that cannot load NCCL must not leave the others waiting in the id exchange or in NCCL's setup:
  // every rank learns whether all could, and all refuse together.
  const std::string unavailable = Unavailable();
  if (communicator.SumDeterministic(unavailable.empty() ? 0.0 : 1.0) > 0) {
    throw std::runtime_error(unavailable.empty() ? "NCCL: another rank could not load NCCL" : unavailable);
  }
  const NcclLibrary& nccl = Nccl();
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  if (communicator.rank() == 0) Check(nccl.get_unique_id(&id), "ncclGetUniqueId");
  std::vector<ncclUniqueId> ids(communicator.size());
  communicator.AllGather(&id, sizeof(id), ids.data());
  state_->rank = communicator.rank();
  state_->size = communicator.size();
  Check(nccl.comm_init_rank(&state_->comm, state_->size, ids[0], state_->rank), "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
  if (state_ != nullptr && state_->comm != nullptr) Nccl().comm_destroy(state_->comm);
}

int NcclCommunicator::rank() const { return state_->rank; }
int NcclCommunicator::size() const { return state_->size; }

void NcclCommunicator::AllGatherDoubles(const double* mine, double* all, std::size_t count, void* stream) const {
  Check(Nccl().all_gather(mine, all, count, ncclDouble, state_->comm, StreamOf(stream)), "ncclAllGather");
}

void NcclCommunicator::Exchange(const std::vector<Message>& sends, const std::vector<Message>& receives,
                                void* stream) const {
  const NcclLibrary& nccl = Nccl();
  Check(nccl.group_start(), "ncclGroupStart");
  for (const Message& m : sends) {
    Check(nccl.send(m.data, m.bytes, ncclInt8, m.peer, state_->comm, StreamOf(stream)), "ncclSend");
  }
  for (const Message& m : receives) {
    Check(nccl.recv(m.data, m.bytes, ncclInt8, m.peer, state_->comm, StreamOf(stream)), "ncclRecv");
  }
  Check(nccl.group_end(), "ncclGroupEnd");
}

}  // namespace lqcd::gpu
