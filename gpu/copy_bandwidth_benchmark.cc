// copy_bandwidth_benchmark: the measured bandwidth roofline of this GPU (device-to-device copy).
//   bazel run -c opt //gpu:copy_bandwidth_benchmark -- [--mib=1024] [--repetitions=20]
#include <cstdio>
#include <iostream>
#include <string>

#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "reference/cli/command_line.h"

namespace lqcd::gpu {
namespace {

int Main(int argc, char** argv) {
  int mib = 1024;
  int repetitions = 20;
  command_line::FlagSet flags(
      "copy_bandwidth_benchmark",
      "The measured bandwidth roofline of this GPU: copies two device buffers of --mib MiB each --repetitions\n"
      "times with the copy kernel (gpu/copy_bandwidth.h) and with cudaMemcpy device-to-device, and prints the\n"
      "best rate of each (read + write, 1e9 bytes/s) and its fraction of the theoretical bandwidth. Use buffers\n"
      "much larger than the L2 cache. Needs a GPU: without one it prints why and exits 1.");
  flags.Int("mib", &mib, 1, 65536, "size of each of the two buffers in MiB");
  flags.Int("repetitions", &repetitions, 1, 100000, "copies per method; the best is reported");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::fprintf(stderr, "copy_bandwidth_benchmark: %s\n", why.c_str());
    return 1;
  }
  const DeviceInfo info = CurrentDeviceInfo();
  std::printf("%s\n", Describe(info).c_str());
  std::printf("buffer %d MiB, %d repetitions, best of each\n", mib, repetitions);
  const CopyBandwidth bw = MeasureCopyBandwidth(static_cast<std::size_t>(mib) << 20, repetitions);
  std::printf("copy kernel   %8.1f GB/s (read + write)  %.1f%% of theoretical\n", bw.kernel_gbs,
              100 * bw.kernel_gbs / info.theoretical_bandwidth_gbs());
  std::printf("cudaMemcpyD2D %8.1f GB/s (read + write)  %.1f%% of theoretical\n", bw.memcpy_gbs,
              100 * bw.memcpy_gbs / info.theoretical_bandwidth_gbs());
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("copy_bandwidth_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
