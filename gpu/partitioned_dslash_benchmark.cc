// partitioned_dslash_benchmark: what domain decomposition costs on one GPU. The Dslash self-partitioned in
// T, ZT, YZT and XYZT (faces packed and exchanged with the rank itself, the interior computed meanwhile;
// partitioned_dslash.h) against the unpartitioned kernel on the same lattice, for double, single and half,
// through both transports: time per call, GFLOPS (1320 flops per site), overhead, face bytes per call and
// the fraction of exterior sites. With one rank nothing crosses a network. Device transport: the overhead
// is the packing, one device-to-device copy per face, the exterior launch and the lost overlap -- what
// splitting the work costs on a GPU. Host staged: plus two PCIe copies per face and a host copy in between,
// the path between nodes (docs/multi_gpu.md).
//
//   partitioned_dslash_benchmark [--lattice=LXxLYxLZxLT[,...]] [--repetitions=N] [--links=R]
//   (default 32x32x32x32 and 24x24x24x48, 50 repetitions, 12 reals per link)
//
// Times with CUDA events on the default stream around each call after a warm-up call (which tunes both
// regions' block sizes); prints the median. Measures and prints; asserts nothing about speed.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/comm/communicator.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

struct Partitioning {
  const char* name;
  std::array<bool, 4> directions;
};
constexpr Partitioning kPartitionings[] = {{"T", {false, false, false, true}},
                                           {"ZT", {false, false, true, true}},
                                           {"YZT", {false, true, true, true}},
                                           {"XYZT", {true, true, true, true}}};

void Run(const Lattice& lattice, int repetitions, Reconstruct reconstruct) {
  std::printf("\nlattice %s, %s links, %d repetitions, median\n", lattice.ToString().c_str(), ToString(reconstruct),
              repetitions);
  std::printf("%-7s %-6s %-7s %9s %8s %9s %11s %9s\n", "prec", "split", "via", "us", "GFLOPS", "overhead", "face MB",
              "exterior");
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 1);
  SpinorField<double> source(lattice, Subset::kEven);
  FillGaussian(source, 2);
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
  comm::SingleProcessCommunicator self;
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    const DeviceGaugeField gauge(links, {precision, reconstruct, false, 0});
    DeviceSpinorField in(lattice, Subset::kEven, precision), out(lattice, Subset::kOdd, precision);
    in.Upload(source);
    const double flops = WilsonDslashCost(DslashVariant{precision, reconstruct}, extents).flops;
    const double plain_ms =
        MedianMilliseconds(repetitions, [&] { ApplyWilsonDslash(out.View(), gauge, in.View(), Dagger::kNo); });
    std::printf("%-7s %-6s %-7s %9.1f %8.0f %9s %11s %9s\n", ToString(precision), "none", "-", 1e3 * plain_ms,
                flops / plain_ms / 1e6, "-", "-", "-");
    for (HaloTransport transport : {HaloTransport::kDevice, HaloTransport::kHostStaged}) {
      for (const Partitioning& p : kPartitionings) {
        const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), p.directions,
                                             transport);
        const double ms = MedianMilliseconds(repetitions, [&] { dslash.Apply(out.View(), in.View(), Dagger::kNo); });
        std::printf("%-7s %-6s %-7s %9.1f %8.0f %8.1f%% %11.2f %8.1f%%\n", ToString(precision), p.name,
                    ToString(transport), 1e3 * ms, flops / ms / 1e6, 100 * (ms / plain_ms - 1),
                    dslash.FaceBytesPerCall() / 1e6, 100.0 * dslash.ExteriorSites(1) / lattice.half_volume());
      }
    }
  }
}

int Main(int argc, char** argv) {
  std::vector<Coordinates> lattices = {{32, 32, 32, 32}, {24, 24, 24, 48}};
  int repetitions = 50;
  std::string links = "12";
  command_line::FlagSet flags(
      "partitioned_dslash_benchmark",
      "The self-partitioned Dslash (faces packed, staged through pinned host memory and exchanged with this\n"
      "one rank; interior overlapped) against the unpartitioned kernel, per precision and partitioning: the\n"
      "median of --repetitions calls (CUDA events) after a warm-up that tunes the block sizes. Needs a GPU:\n"
      "without one it prints why and exits 1.");
  flags.ExtentsList("lattice", &lattices, "lattices to time, in this order; each extent even");
  flags.Int("repetitions", &repetitions, 1, 1000000, "timed calls per case; the median is reported");
  flags.Choice<std::string>("links", &links, {{"18", "18"}, {"12", "12"}, {"8", "8"}},
                            "reals stored per link: 18 (full), 12 or 8 (reconstructed)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("partitioned_dslash_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("partitioned_dslash_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  for (const Coordinates& extents : lattices) Run(Lattice(extents), repetitions, ParseReconstruct(links));
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("partitioned_dslash_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
