// device_rank_sum.cc: the all-gather of the partials and their rank-order sum (device_rank_sum.h).
#include "gpu/device_rank_sum.h"

#include <stdexcept>
#include <string>

#include "gpu/device_buffer.h"
#include "gpu/nccl_communicator.h"
#include "gpu/rank_sum_launch.h"

namespace lqcd::gpu {

struct DeviceRankSum::State {
  explicit State(comm::Communicator& c) : nccl(c) {}
  NcclCommunicator nccl;
  DeviceBuffer gathered;  // [ranks x kScalarSlotDoubles] doubles (a reduction writes at most that many)
};

DeviceRankSum::DeviceRankSum(comm::Communicator& communicator) : state_(std::make_unique<State>(communicator)) {
  state_->gathered = DeviceBuffer(sizeof(double) * kScalarSlotDoubles * state_->nccl.size());
}

DeviceRankSum::~DeviceRankSum() = default;

const comm::Communicator& DeviceRankSum::communicator() const { return state_->nccl.communicator(); }

void DeviceRankSum::Sum(double* values, double* host_copy, int count) const {
  if (count < 1 || count > kScalarSlotDoubles) {
    throw std::invalid_argument("DeviceRankSum::Sum: " + std::to_string(count) + " values (1.." +
                                std::to_string(kScalarSlotDoubles) + ")");
  }
  if (values == nullptr) throw std::invalid_argument("DeviceRankSum::Sum: null values");
  double* gathered = static_cast<double*>(state_->gathered.data());
  // Rank r's values land at gathered[r * count ...] (the NCCL rank is the communicator's rank).
  state_->nccl.AllGatherDoubles(values, gathered, static_cast<std::size_t>(count), /*stream=*/nullptr);
  LaunchRankOrderSum(gathered, state_->nccl.size(), count, values, host_copy);
}

bool GlobalSumsOnDevices(const std::string& flag, bool share_gpu) {
  if (flag.empty()) return !share_gpu;
  if (flag != "host" && flag != "device") {
    throw std::invalid_argument("--global-sums: '" + flag + "' is not host or device");
  }
  if (flag == "device" && share_gpu) {
    throw std::invalid_argument("--global-sums=device needs one GPU per rank (NCCL); drop --share-gpu or use host");
  }
  return flag == "device";
}

}  // namespace lqcd::gpu
