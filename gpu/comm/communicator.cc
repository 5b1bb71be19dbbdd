#include "gpu/comm/communicator.h"

#include <cstdint>
#include <cstring>
#include <functional>

namespace lqcd::comm {

std::vector<double> SumInRankOrder(const std::vector<std::vector<double>>& partials) {
  if (partials.empty()) throw std::invalid_argument("SumInRankOrder: no partials");
  // Starting from rank 0's value (not from 0.0) keeps a one-rank sum bit-identical to its input (-0.0).
  std::vector<double> sum = partials[0];
  for (std::size_t r = 1; r < partials.size(); ++r) {
    if (partials[r].size() != sum.size()) {
      throw std::invalid_argument("SumInRankOrder: rank " + std::to_string(r) + " has " +
                                  std::to_string(partials[r].size()) + " values, rank 0 has " +
                                  std::to_string(sum.size()));
    }
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += partials[r][i];
  }
  return sum;
}

void CheckExchangeArguments(int mu, const void* send, const void* receive, std::size_t bytes) {
  if (mu < 0 || mu >= kDims) {
    throw std::invalid_argument("Exchange: direction " + std::to_string(mu) + " is not in 0..3");
  }
  if (bytes == 0) return;
  if (send == nullptr || receive == nullptr) {
    throw std::invalid_argument("Exchange: null " + std::string(send == nullptr ? "send" : "receive") +
                                " buffer for " + std::to_string(bytes) + " bytes");
  }
  const auto s = reinterpret_cast<std::uintptr_t>(send), r = reinterpret_cast<std::uintptr_t>(receive);
  if (s < r + bytes && r < s + bytes) {
    throw std::invalid_argument("Exchange: the send and receive buffers overlap (" + std::to_string(bytes) +
                                " bytes each)");
  }
}

void CheckAllGatherArguments(const void* local, std::size_t bytes, const void* all, int ranks) {
  if (ranks < 1) throw std::invalid_argument("AllGather: " + std::to_string(ranks) + " ranks");
  if (bytes == 0) return;
  if (local == nullptr || all == nullptr) {
    throw std::invalid_argument("AllGather: null " + std::string(local == nullptr ? "local" : "all") +
                                " buffer for " + std::to_string(bytes) + " bytes per rank");
  }
  if (bytes > SIZE_MAX / static_cast<std::size_t>(ranks)) {
    throw std::invalid_argument("AllGather: " + std::to_string(bytes) + " bytes x " + std::to_string(ranks) +
                                " ranks overflow the address space");
  }
  const std::size_t total = bytes * static_cast<std::size_t>(ranks);
  const auto l = reinterpret_cast<std::uintptr_t>(local), a = reinterpret_cast<std::uintptr_t>(all);
  if (l < a + total && a < l + bytes) {
    throw std::invalid_argument("AllGather: the local buffer (" + std::to_string(bytes) +
                                " bytes) overlaps the gathered one (" + std::to_string(total) + " bytes)");
  }
}

SingleProcessCommunicator::SingleProcessCommunicator(const ProcessGrid& grid) : grid_(grid) {
  grid_.CheckRankCount(1);
}

void SingleProcessCommunicator::Exchange(int mu, Side /*side*/, const void* send, void* receive,
                                         std::size_t bytes) {
  CheckExchangeArguments(mu, send, receive, bytes);
  if (bytes > 0) std::memcpy(receive, send, bytes);
}

std::vector<double> SingleProcessCommunicator::SumDeterministic(const std::vector<double>& local) {
  return SumInRankOrder({local});
}

void SingleProcessCommunicator::AllGather(const void* local, std::size_t bytes, void* all) {
  CheckAllGatherArguments(local, bytes, all, 1);
  if (bytes > 0) std::memcpy(all, local, bytes);
}

}  // namespace lqcd::comm
