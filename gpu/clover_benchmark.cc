// clover_benchmark: the clover term out = T in and out = T^{-1} in on one parity, in each precision, with the
// modelled bytes and their rate, GFLOPS (504 flops per site; the 48 of the basis change not counted) and the
// fraction of the bandwidth roofline (minimum bytes at the copy bandwidth measured in the same run).
//
//   clover_benchmark [--lattice=LXxLYxLZxLT[,...]] [--repetitions=N] [--precision=P]
//   (default 32x32x32x32, 100 repetitions, every precision; P = double|single|half)
//
// The clover field is the oracle's (reference/clover.h) on Haar-random links, c_sw = 1.5, m = 0.25; its host
// construction takes ~20 s at 32^4 on one core. Times with CUDA events around each launch after a warm-up launch
// (which also tunes the block size); prints the median. Cost model: gpu/clover_apply.h. Measures and prints;
// asserts nothing about speed.
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/clover_apply.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_spinor_field.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"

namespace lqcd::gpu {
namespace {

void Run(const Lattice& lattice, int repetitions, double copy_gbs, const std::vector<Precision>& precisions) {
  const int threads = DefaultThreads();
  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1, threads);
  CloverParams params;
  params.mass = 0.25;
  params.c_sw = 1.5;
  const CloverField<double> clover(links, params);
  SpinorField<double> source(lattice, Subset::kEven);
  ParallelFillGaussian(source, 2, threads);
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};

  std::printf("\nlattice %s, c_sw %.2f, m %.2f, condition number of T <= %.2f; %d repetitions, median; "
              "roofline = minimum bytes at %.0f GB/s\n",
              lattice.ToString().c_str(), params.c_sw, params.mass, clover.max_condition(), repetitions, copy_gbs);
  std::printf("%-8s %-5s %10s %9s %8s %8s %7s\n", "prec", "op", "bytes/site", "time us", "GFLOPS", "GB/s", "roof%");
  for (Precision precision : precisions) {
    const DeviceCloverField device_clover(clover, {precision, 0});
    DeviceSpinorField in(lattice, Subset::kEven, precision), out(lattice, Subset::kEven, precision);
    in.Upload(source);
    const CloverApplyKernelCost cost = CloverApplyCost(precision, extents);
    for (bool inverse : {false, true}) {
      const double ms =
          MedianMilliseconds(repetitions, [&] { ApplyCloverTerm(out.View(), device_clover, in.View(), inverse); });
      std::printf("%-8s %-5s %10.0f %9.1f %8.0f %8.0f %6.1f%%\n", ToString(precision), inverse ? "T^-1" : "T",
                  cost.bytes / lattice.half_volume(), 1e3 * ms, cost.flops / ms / 1e6, cost.bytes / ms / 1e6,
                  100 * cost.minimum_bytes / ms / 1e6 / copy_gbs);
    }
  }
}

int Main(int argc, char** argv) {
  std::vector<Coordinates> lattices = {{32, 32, 32, 32}};
  int repetitions = 100;
  std::string precision = "all";
  command_line::FlagSet flags(
      "clover_benchmark",
      "The clover term T and T^{-1} (gpu/clover_apply.h) on one parity, in each precision: the median of\n"
      "--repetitions launches (CUDA events) after a warm-up that tunes the block size, with GFLOPS (504 flops per\n"
      "site), the modelled bytes and their rate, and the fraction of the copy-bandwidth roofline measured in the\n"
      "same run. The clover field is the oracle's on Haar-random links (c_sw = 1.5, m = 0.25). Needs a GPU: without\n"
      "one it prints why and exits 1.");
  flags.ExtentsList("lattice", &lattices, "lattices to time, in this order; each extent even");
  flags.Int("repetitions", &repetitions, 1, 1000000, "timed launches per case; the median is reported");
  flags.Choice<std::string>("precision", &precision,
                            {{"all", "all"}, {"double", "double"}, {"single", "single"}, {"half", "half"}},
                            "storage precision of the clover field and the spinors (all: every one)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  if (precision != "all") precisions = {ParsePrecision(precision)};
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("clover_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("clover_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
  for (const Coordinates& extents : lattices) Run(Lattice(extents), repetitions, copy.kernel_gbs, precisions);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("clover_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
