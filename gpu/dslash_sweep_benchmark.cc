// dslash_sweep_benchmark: the paper's Figures 2-5 on our GPU. Dslash and the even-odd operator M_ee (two Dslash
// launches, the second with the fused xpay) for every precision x reconstruction x temporal gauge fixing, over the
// temporal extent T at spatial volume L^3, each WITHOUT padding and WITH the paper's padding (one time slice of
// one parity between sub-arrays, section 4.4), to see whether partition camping still matters.
//
//   dslash_sweep_benchmark [--spatial=L] [--temporal=LIST] [--repetitions=N] [--csv=PATH] [--threads=N]
//   defaults: L = 24, LIST = 8:128:8 (first:last:step, or a,b,c), N = 20, PATH = dslash_sweep.csv
//
// Per row it reports GFLOPS (1320 flops per site per Dslash, + 48 for the xpay; the paper's "effective" flops:
// reconstruction work and skipped t-links are not counted), the bytes the kernels move under the model of
// gpu/wilson_dslash.h and their rate, and the roofline fraction: the minimum bytes (each link, input and output
// spinor once) at the copy-kernel bandwidth measured at the start of this same run (measured again at the end
// to show it held). Times are the median of N launches, each between CUDA events, after a warm-up launch that
// also tunes the block size for that variant, volume and padding.
//
// Inputs: Haar-random links per T (ParallelRandomGaugeField, seed 1000 + T); for the gauge-fixed variants the same
// links with every t-link off the last slice set to 1 (UnitTemporalLinks: a field in temporal gauge; timing does
// not depend on link values); a Gaussian source on the even sites. The 18 device gauge fields of one (T, padding)
// are uploaded on several host threads (validation on the host is the slow part). Asserts nothing about speed.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/schur_operator.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"

namespace lqcd::gpu {
namespace {

struct Options {
  int spatial = 24;
  std::vector<int> temporal = ParseIntList("temporal", "8:128:8", 2, Lattice::kMaxExtent);
  int repetitions = 20;
  std::string csv = "dslash_sweep.csv";
  int threads = 0;  // 0: DefaultThreads()
};

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};

void SweepOneT(const Options& o, int lt, double copy_gbs, std::ofstream& csv) {
  const Lattice lattice(o.spatial, o.spatial, o.spatial, lt);
  const Extents extents{o.spatial, o.spatial, o.spatial, lt};
  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1000 + lt, o.threads);
  const GaugeField<double> fixed = UnitTemporalLinks(links);
  SpinorField<double> source(lattice, Subset::kEven);
  ParallelFillGaussian(source, 2000 + lt, o.threads);
  const double sites = lattice.half_volume();

  for (int padded = 0; padded < 2; ++padded) {
    const int pad = padded ? DeviceSpinorField::PaperPad(lattice) : 0;
    struct Layout {
      Precision precision;
      Reconstruct reconstruct;
      bool gauge_fixed;
    };
    std::vector<Layout> layouts;
    for (Precision p : kPrecisions) {
      for (Reconstruct r : kReconstructions) {
        for (bool gf : {false, true}) layouts.push_back({p, r, gf});
      }
    }
    std::vector<std::unique_ptr<DeviceGaugeField>> gauges(layouts.size());
    ParallelFor(static_cast<int>(layouts.size()), o.threads, [&](int k) {
      const Layout& l = layouts[k];
      gauges[k] = std::make_unique<DeviceGaugeField>(l.gauge_fixed ? fixed : links,
                                                     GaugeLayout{l.precision, l.reconstruct, l.gauge_fixed, pad});
    });
    std::printf("T=%-3d %s   Dslash GFLOPS / M_ee GFLOPS (M_ee roofline %%)\n", lt, padded ? "padded  " : "unpadded");
    for (Precision p : kPrecisions) {
      DeviceSpinorField in(lattice, Subset::kEven, p, pad), out(lattice, Subset::kOdd, p, pad);
      DeviceSpinorField m_out(lattice, Subset::kEven, p, pad);
      in.Upload(source);
      std::printf("  %-6s", ToString(p));
      for (std::size_t k = 0; k < layouts.size(); ++k) {
        if (layouts[k].precision != p) continue;
        const DeviceGaugeField& gauge = *gauges[k];
        const DeviceSchurOperator m(gauge, 0.12, Parity::kEven);
        const double dslash_ms = MedianMilliseconds(
            o.repetitions, [&] { ApplyWilsonDslash(out.View(), gauge, in.View(), Dagger::kNo); });
        const double m_ms = MedianMilliseconds(o.repetitions, [&] { m.Apply(m_out.View(), in.View(), Dagger::kNo); });
        const DslashVariant v{p, layouts[k].reconstruct, layouts[k].gauge_fixed, Dagger::kNo, false};
        const KernelCost costs[2] = {WilsonDslashCost(v, extents), m.Cost(p)};
        const double times[2] = {dslash_ms, m_ms};
        for (int op = 0; op < 2; ++op) {
          const double seconds = times[op] * 1e-3;
          csv << lt << "," << padded << "," << pad << "," << (op == 0 ? "dslash" : "mee") << "," << ToString(p) << ","
              << ToString(layouts[k].reconstruct) << "," << (layouts[k].gauge_fixed ? 1 : 0) << "," << seconds * 1e6
              << "," << costs[op].flops / seconds / 1e9 << "," << costs[op].bytes / sites << ","
              << costs[op].bytes / seconds / 1e9 << "," << costs[op].minimum_bytes / sites << ","
              << costs[op].minimum_bytes / seconds / 1e9 / copy_gbs << "," << copy_gbs << "\n";
        }
        std::printf("  %s%s %5.0f/%5.0f (%2.0f%%)", ToString(layouts[k].reconstruct), layouts[k].gauge_fixed ? "gf" : "  ",
                    costs[0].flops / dslash_ms / 1e6, costs[1].flops / m_ms / 1e6,
                    100 * costs[1].minimum_bytes / m_ms / 1e6 / copy_gbs);
      }
      std::printf("\n");
    }
    csv.flush();
  }
}

int Main(int argc, char** argv) {
  Options o;
  command_line::FlagSet flags(
      "dslash_sweep_benchmark",
      "The paper's Figures 2-5 on this GPU: Dslash and M_ee for every precision x reconstruction x temporal\n"
      "gauge fixing over the temporal extents T at spatial volume L^3, each without and with the paper's padding.\n"
      "Per row: GFLOPS, the modelled bytes and their rate, and the fraction of the copy-bandwidth roofline\n"
      "measured in the same run; the median of --repetitions launches after a warm-up. Writes every row to --csv\n"
      "(experiments/plot_dslash_sweep.py plots it). Needs a GPU: without one it prints why and exits 1.");
  flags.Int("spatial", &o.spatial, 2, Lattice::kMaxExtent, "spatial extent L of the L^3 x T lattices, even");
  flags.Custom("temporal", "LIST", "8:128:8",
               "temporal extents T: first:last:step or a,b,c; each even, in [2, " +
                   std::to_string(Lattice::kMaxExtent) + "]",
               [&](const std::string& value) {
                 o.temporal = ParseIntList("temporal", value, 2, Lattice::kMaxExtent);
               });
  flags.Int("repetitions", &o.repetitions, 1, 1000000, "timed launches per variant; the median is reported");
  flags.String("csv", &o.csv, "FILE", "output CSV, one row per T, padding, operator and variant");
  flags.Int("threads", &o.threads, 0, 1024, "host threads for the inputs and uploads (0: all hardware threads)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  for (int lt : o.temporal) {
    try {
      Lattice::CheckExtents({o.spatial, o.spatial, o.spatial, lt});
    } catch (const std::exception& e) {
      throw std::invalid_argument("--spatial=" + std::to_string(o.spatial) + " with --temporal T = " +
                                  std::to_string(lt) + ": " + e.what());
    }
  }
  if (o.threads == 0) o.threads = DefaultThreads();
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("dslash_sweep_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("dslash_sweep_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10): the roofline of this run\n",
              copy.kernel_gbs);
  std::printf("spatial %d^3, T = %d..%d (%zu values), median of %d launches, %d host threads, CSV %s\n", o.spatial,
              o.temporal.front(), o.temporal.back(), o.temporal.size(), o.repetitions, o.threads, o.csv.c_str());
  std::ofstream csv(o.csv);
  if (!csv) throw std::runtime_error("cannot write " + o.csv);
  csv << "T,padded,pad_sites,operator,precision,reconstruct,gauge_fixed,microseconds,gflops,model_bytes_per_site,"
         "model_gbs,minimum_bytes_per_site,roofline_fraction,copy_gbs\n";
  for (int lt : o.temporal) SweepOneT(o, lt, copy.kernel_gbs, csv);
  const CopyBandwidth after = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel at the end: %.0f GB/s (start %.0f)\n", after.kernel_gbs, copy.kernel_gbs);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("dslash_sweep_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
