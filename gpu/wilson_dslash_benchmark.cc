// wilson_dslash_benchmark: Dslash and M_ee for every precision x reconstruction x temporal gauge fixing,
// on Haar-random links, with GFLOPS (1320 flops per site per Dslash), the modelled bytes and their rate, and
// the fraction of the bandwidth roofline (minimum bytes at the copy bandwidth measured in the same run).
//
//   wilson_dslash_benchmark [--lattice=LXxLYxLZxLT[,...]] [--repetitions=N] [--precision=P] [--links=R]
//   (default 32x32x32x32, 50 repetitions, every precision and reconstruction; P = double|single|half,
//   R = 18|12|8 restrict the table, e.g. for a profiler run)
//
// Times with CUDA events around each launch after a warm-up launch (which also tunes the block size);
// prints the median. Cost model: gpu/wilson_dslash.h. Measures and prints; asserts nothing about speed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/event_timer.h"
#include "gpu/schur_operator.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"
#include "reference/gauge_transform.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

struct Selection {
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  std::vector<Reconstruct> reconstructs{Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
};

void Run(const Lattice& lattice, int repetitions, double copy_gbs, const Selection& selection) {
  std::printf("\nlattice %s, %d repetitions, median; roofline = minimum bytes at %.0f GB/s\n",
              lattice.ToString().c_str(), repetitions, copy_gbs);
  std::printf("%-16s %9s %8s %8s %7s | %9s %8s %7s\n", "variant", "Dslash us", "GFLOPS", "GB/s", "roof%", "M_ee us",
              "GFLOPS", "roof%");
  const GaugeField<double> links = RandomGaugeField<double>(lattice, 1);
  const GaugeField<double> fixed = TemporalGaugeFix(links).field;
  SpinorField<double> source(lattice, Subset::kEven);
  FillGaussian(source, 2);
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
  for (bool gauge_fixed : {false, true}) {
    for (Precision precision : selection.precisions) {
      for (Reconstruct reconstruct : selection.reconstructs) {
        const DeviceGaugeField gauge(gauge_fixed ? fixed : links, {precision, reconstruct, gauge_fixed, 0});
        DeviceSpinorField in(lattice, Subset::kEven, precision), out(lattice, Subset::kOdd, precision);
        DeviceSpinorField m_out(lattice, Subset::kEven, precision);
        in.Upload(source);
        const DeviceSchurOperator m(gauge, 0.12, Parity::kEven);
        const double dslash_ms = MedianMilliseconds(
            repetitions, [&] { ApplyWilsonDslash(out.View(), gauge, in.View(), Dagger::kNo); });
        const double m_ms = MedianMilliseconds(repetitions, [&] { m.Apply(m_out.View(), in.View(), Dagger::kNo); });
        const DslashVariant v{precision, reconstruct, gauge_fixed, Dagger::kNo, false};
        const KernelCost d = WilsonDslashCost(v, extents), mc = m.Cost(precision);
        std::printf("%-16s %9.1f %8.0f %8.0f %6.1f%% | %9.1f %8.0f %6.1f%%\n", v.Name().c_str(), 1e3 * dslash_ms,
                    d.flops / dslash_ms / 1e6, d.bytes / dslash_ms / 1e6,
                    100 * d.minimum_bytes / dslash_ms / 1e6 / copy_gbs, 1e3 * m_ms, mc.flops / m_ms / 1e6,
                    100 * mc.minimum_bytes / m_ms / 1e6 / copy_gbs);
      }
    }
  }
}

int Main(int argc, char** argv) {
  std::vector<Coordinates> lattices = {{32, 32, 32, 32}};
  int repetitions = 50;
  std::string precision = "all", links = "all";
  command_line::FlagSet flags(
      "wilson_dslash_benchmark",
      "Dslash and M_ee on the GPU for every precision x reconstruction (reals per link) x temporal gauge fixing,\n"
      "on Haar-random links: the median of --repetitions launches (CUDA events) after a warm-up that tunes the\n"
      "block size, with GFLOPS (1320 flops per site per Dslash), the modelled bytes and their rate, and the\n"
      "fraction of the copy-bandwidth roofline measured in the same run (cost model: gpu/wilson_dslash.h).\n"
      "--precision and --links restrict the table, e.g. for a profiler run. Needs a GPU: without one it prints\n"
      "why and exits 1.");
  flags.ExtentsList("lattice", &lattices, "lattices to time, in this order; each extent even");
  flags.Int("repetitions", &repetitions, 1, 1000000, "timed launches per variant; the median is reported");
  flags.Choice<std::string>("precision", &precision,
                            {{"all", "all"}, {"double", "double"}, {"single", "single"}, {"half", "half"}},
                            "storage precision of the links and spinors (all: every one)");
  flags.Choice<std::string>("links", &links, {{"all", "all"}, {"18", "18"}, {"12", "12"}, {"8", "8"}},
                            "reals stored per link: 18 (full), 12 or 8 (reconstructed); all: every one");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  Selection selection;
  if (precision != "all") selection.precisions = {ParsePrecision(precision)};
  if (links != "all") selection.reconstructs = {ParseReconstruct(links)};
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("wilson_dslash_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("wilson_dslash_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
  std::printf("precisions:");
  for (Precision p : selection.precisions) std::printf(" %s", ToString(p));
  std::printf(", reconstructions:");
  for (Reconstruct r : selection.reconstructs) std::printf(" %s", ToString(r));
  std::printf("\n");
  for (const Coordinates& extents : lattices) Run(Lattice(extents), repetitions, copy.kernel_gbs, selection);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("wilson_dslash_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
