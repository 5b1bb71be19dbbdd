// rank_sum_kernel.cu: the rank-order sum of gathered partials (rank_sum_launch.h).
#include <cuda_runtime.h>

#include "gpu/cuda_check.h"
#include "gpu/rank_sum_launch.h"

namespace lqcd::gpu {
namespace {

// One thread per component. __dadd_rn keeps every addition a separate, round-to-nearest double addition, as
// comm::SumInRankOrder's loop on the host: nothing for the compiler to contract or reorder.
__global__ void RankOrderSumKernel(const double* gathered, int ranks, int count, double* device, double* host) {
  const int i = threadIdx.x;
  if (i >= count) return;
  double sum = gathered[i];
  for (int r = 1; r < ranks; ++r) sum = __dadd_rn(sum, gathered[r * count + i]);
  device[i] = sum;
  if (host != nullptr) host[i] = sum;
}

}  // namespace

void LaunchRankOrderSum(const double* gathered, int ranks, int count, double* device, double* host) {
  RankOrderSumKernel<<<1, 32>>>(gathered, ranks, count, device, host);
  LQCD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace lqcd::gpu
