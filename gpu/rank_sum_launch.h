// rank_sum_launch.h: the kernel of DeviceRankSum (device_rank_sum.h): sums of gathered per-rank partials in
// rank order.
//
// Host-only header (no CUDA types).
#pragma once

namespace lqcd::gpu {

// Queues on the default stream: for i < count, s = gathered[i] (rank 0), then s = s + gathered[r * count + i]
// for r = 1 .. ranks - 1, one double addition at a time; s into device[i] and, when host is not null, host[i]
// (the device's address of pinned host memory). gathered is [ranks x count] device memory.
void LaunchRankOrderSum(const double* gathered, int ranks, int count, double* device, double* host);

}  // namespace lqcd::gpu
