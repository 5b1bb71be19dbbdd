// copy_bandwidth.h: the bandwidth roofline. A plain device-to-device copy kernel is the speed of light
// for a bandwidth-bound kernel such as Dslash; every benchmark measures it in the same run and reports
// its own GB/s as a fraction of it.
#pragma once

#include <cstddef>
#include <vector>

namespace lqcd::gpu {

// Copies n floats from `in` to `out` on the device with the copy kernel (16-byte vector loads and
// stores, grid-stride loop). Host vectors in and out: this is the testable entry point.
std::vector<float> CopyThroughDevice(const std::vector<float>& in);

struct CopyBandwidth {
  std::size_t bytes_per_copy = 0;  // bytes read + bytes written by one copy
  double kernel_gbs = 0;           // our copy kernel, best of the repetitions, 1e9 bytes/s
  double memcpy_gbs = 0;           // cudaMemcpy device-to-device, for comparison
};

// Copies `buffer_bytes` (rounded down to 16 bytes) `repetitions` times with each method and returns
// the best rate, counting read + write. Use a buffer much larger than the L2 cache (>= 256 MiB).
CopyBandwidth MeasureCopyBandwidth(std::size_t buffer_bytes, int repetitions);

}  // namespace lqcd::gpu
