// copy_bandwidth_benchmark: the measured bandwidth roofline of this GPU (device-to-device copy).
//   bazel run -c opt //gpu:copy_bandwidth_benchmark -- [MiB per buffer, default 1024] [repetitions, default 20]
#include <cstdio>
#include <cstdlib>

#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"

int main(int argc, char** argv) {
  using namespace lqcd::gpu;
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 20;
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::fprintf(stderr, "copy_bandwidth_benchmark: %s\n", why.c_str());
    return 1;
  }
  const DeviceInfo info = CurrentDeviceInfo();
  std::printf("%s\n", Describe(info).c_str());
  std::printf("buffer %zu MiB, %d repetitions, best of each\n", mib, repetitions);
  const CopyBandwidth bw = MeasureCopyBandwidth(mib << 20, repetitions);
  std::printf("copy kernel   %8.1f GB/s (read + write)  %.1f%% of theoretical\n", bw.kernel_gbs,
              100 * bw.kernel_gbs / info.theoretical_bandwidth_gbs());
  std::printf("cudaMemcpyD2D %8.1f GB/s (read + write)  %.1f%% of theoretical\n", bw.memcpy_gbs,
              100 * bw.memcpy_gbs / info.theoretical_bandwidth_gbs());
  return 0;
}
