// dslash_ladder_benchmark: times every rung of the Dslash teaching ladder (dslash_ladder.h) on one lattice and
// prints, per rung, GFLOPS (1320 flops per output site), the modelled bytes' rate, the fraction of the
// bandwidth roofline (the rung's minimum bytes at the copy bandwidth measured at the start of this run) and the
// gain over the previous rung in the table (ratio of times; 4a over 3, 4b over 4a, ...), as a plain table and as a markdown table for
// docs/dslash_ladder.md.
//
//   dslash_ladder_benchmark [--lattice=LXxLYxLZxLT] [--repetitions=N] [--threads=N]   (default 32x32x32x32, 100)
//
// Inputs: Haar-random links (seed 1) and, for the gauge-fixed rungs, those links fixed to temporal gauge
// (reference/gauge_transform.h); a Gaussian source on the even sites; out = D_oe in. Every launch is timed with
// CUDA events after a warm-up (which tunes the block size); the median is reported. Asserts nothing about speed.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/dslash_ladder.h"
#include "reference/cli/command_line.h"
#include "reference/gauge_transform.h"

namespace lqcd::gpu {
namespace {

int Main(int argc, char** argv) {
  Coordinates extents{32, 32, 32, 32};
  int repetitions = 100, threads = 0;
  command_line::FlagSet flags(
      "dslash_ladder_benchmark",
      "Times every rung of the Dslash teaching ladder (gpu/dslash_ladder.h) on one lattice: out = D_oe in on\n"
      "Haar-random links (temporal-gauge-fixed for the rungs that need it), the median of --repetitions launches\n"
      "after a warm-up. Prints per rung GFLOPS, the modelled GB/s, the fraction of the copy-bandwidth roofline\n"
      "measured at the start, and the gain over the previous rung, as a plain and a markdown table\n"
      "(docs/dslash_ladder.md). Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice extents, each even");
  flags.Int("repetitions", &repetitions, 1, 1000000, "timed launches per rung; the median is reported");
  flags.Int("threads", &threads, 0, 1024, "host threads for the random inputs (0: all hardware threads)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (threads == 0) threads = DefaultThreads();
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("dslash_ladder_benchmark: %s\n", why.c_str());
    return 1;
  }
  const Lattice lattice(extents);
  std::printf("dslash_ladder_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10): the roofline\n", copy.kernel_gbs);
  std::printf("lattice %s, out = D_oe in (V/2 = %d output sites), median of %d launches\n\n",
              lattice.ToString().c_str(), lattice.half_volume(), repetitions);

  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1, threads);
  const GaugeField<double> fixed = TemporalGaugeFix(links).field;
  SpinorField<double> source(lattice, Subset::kEven);
  ParallelFillGaussian(source, 2, threads);

  struct Row {
    const LadderRung* rung;
    double ms;
    KernelCost cost;
  };
  std::vector<Row> rows;
  std::printf("%-4s %-21s %10s %8s %8s %7s %10s %7s\n", "rung", "name", "us", "GFLOPS", "GB/s", "roof%",
              "bytes/site", "gain");
  for (const LadderRung& rung : DslashLadder()) {
    LadderDslash d(rung.label, rung.temporal_gauge_fixed ? fixed : links, Parity::kOdd);
    d.Upload(source);
    const double ms = MedianMilliseconds(repetitions, [&] { d.Apply(); });
    rows.push_back({&rung, ms, d.Cost()});
    const Row& r = rows.back();
    const double gain = rows.size() > 1 ? rows[rows.size() - 2].ms / ms : 1.0;
    std::printf("%-4s %-21s %10.1f %8.0f %8.0f %6.1f%% %10.0f %6.2fx\n", rung.label, rung.name, 1e3 * ms,
                r.cost.flops / ms / 1e6, r.cost.bytes / ms / 1e6,
                100 * r.cost.minimum_bytes / ms / 1e6 / copy.kernel_gbs, r.cost.bytes / lattice.half_volume(), gain);
  }

  std::printf("\nmarkdown:\n\n| rung | change | time (us) | GFLOPS | GB/s (model) | roofline %% | gain over previous |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    const double gain = k > 0 ? rows[k - 1].ms / r.ms : 1.0;
    std::printf("| %s %s | %s | %.1f | %.0f | %.0f | %.1f | %.2fx |\n", r.rung->label, r.rung->name,
                r.rung->change, 1e3 * r.ms, r.cost.flops / r.ms / 1e6, r.cost.bytes / r.ms / 1e6,
                100 * r.cost.minimum_bytes / r.ms / 1e6 / copy.kernel_gbs, gain);
  }
  std::printf("\noverall: rung %s is %.1fx faster than rung %s\n", rows.back().rung->label,
              rows.front().ms / rows.back().ms, rows.front().rung->label);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("dslash_ladder_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
