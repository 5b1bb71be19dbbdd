// multi_rhs_dslash_benchmark: the multi-RHS Dslash (one launch for n right-hand sides, each link read once per
// site for all of them) against the single-RHS kernel, per right-hand side, for each precision x reconstruction,
// n = 1, 2, 4, 8, 12, 16, each compiled mapping (1, 2 or 4 right-hand sides per thread; 1 or 2 in double and
// for the clover Dslash) and the tuner's choice, with GFLOPS, the n-RHS minimum bytes per site per right-hand
// side and the fraction of that roofline at the copy bandwidth measured in the same run. Two operators:
//   --operator=wilson   out = D in (1320 flops per site per right-hand side);
//   --operator=clover   the clover Dslash out = T^{-1} D in (the kClover epilogue, 1824 flops per site per
//                       right-hand side; the clover term, like the links, read once per site for all n): the
//                       even-odd clover building block, and what QUDA's multi-RHS clover Dslash (A^{-1} D)
//                       computes, so the two compare directly (docs/multi_rhs.md).
//
//   multi_rhs_dslash_benchmark [--operator=wilson|clover] [--lattice=LXxLYxLZxLT[,...]] [--rhs=1,2,4,8,12,16]
//                              [--repetitions=N] [--precision=P] [--links=R] [--gauge-fixed] [--csv=FILE]
//
// --csv writes every row (experiments/plot_multi_rhs.py plots it: the paper-003 table of docs/multi_rhs.md); the
// clover rows' variant names end in "/clover".
//
// Times with CUDA events around each call after a warm-up call (which also tunes); prints medians. Haar-random
// links and, for the clover term, one well-conditioned block pair at every site (synthetic_clover.h): values do
// not change the timing. Cost model: gpu/wilson_dslash.h (WilsonDslashCost with rhs = n).
// Measures and prints; asserts nothing about speed.
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/multi_rhs_dslash.h"
#include "gpu/synthetic_clover.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

struct Options {
  bool clover = false;  // the clover Dslash T^{-1} D instead of D
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  std::vector<Reconstruct> reconstructs{Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
  std::vector<int> rhs{1, 2, 4, 8, 12, 16};
  int repetitions = 20;
  bool gauge_fixed = false;
  std::string csv;  // empty: no CSV
};

// One CSV row per lattice, variant and n; microseconds per right-hand side, -1 where a mapping was not run.
constexpr char kCsvHeader[] =
    "lattice,variant,precision,reconstruct,gauge_fixed,rhs,single_us,m1_us,m2_us,m4_us,best_us,gflops_per_rhs,"
    "minimum_bytes_per_site_per_rhs,roofline_fraction,speedup,copy_gbs";

void Run(const Lattice& lattice, const Options& o, double copy_gbs, std::ofstream* csv) {
  std::printf("\n%s, lattice %s, %d repetitions, median; roofline = n-RHS minimum bytes at %.0f GB/s%s\n",
              o.clover ? "clover Dslash T^-1 D" : "Wilson Dslash D", lattice.ToString().c_str(), o.repetitions,
              copy_gbs, o.gauge_fixed ? ", temporal gauge fixed" : "");
  std::printf("%-10s %3s | %9s | %9s %9s %9s | %9s %8s %9s %6s %7s\n", "variant", "n", "single us", "m=1 us",
              "m=2 us", "m=4 us", "best us", "GFLOPS", "B/site", "roof%", "speedup");
  std::printf("%-10s %3s | %9s | %29s | %9s %8s %9s %6s %7s\n", "", "", "per RHS", "per RHS, pinned mapping",
              "per RHS", "", "per RHS", "", "x single");
  const GaugeField<double> random = RandomGaugeField<double>(lattice, 1);
  const GaugeField<double> links = o.gauge_fixed ? UnitTemporalLinks(random) : random;
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
  int max_n = 1;
  for (int n : o.rhs) max_n = std::max(max_n, n);
  std::vector<SpinorField<double>> sources;
  for (int j = 0; j < max_n; ++j) {
    sources.emplace_back(lattice, Subset::kEven);
    ParallelFillGaussian(sources.back(), 10 + j, DefaultThreads());
  }
  // T^{-1} on the output parity (odd), for the clover Dslash.
  const SyntheticClover host_clover = o.clover ? MakeSyntheticClover(lattice) : SyntheticClover{};
  for (Precision precision : o.precisions) {
    std::unique_ptr<DeviceCloverField> clover;
    CloverEpilogue inverse;
    if (o.clover) {
      clover = std::make_unique<DeviceCloverField>(lattice, host_clover.t, host_clover.t_inverse,
                                                   CloverLayout{precision, 0});
      inverse.kind = DslashEpilogue::kClover;
      inverse.clover = clover->View(Parity::kOdd, /*inverse=*/true);
    }
    std::vector<std::unique_ptr<DeviceSpinorField>> in, out;
    for (int j = 0; j < max_n; ++j) {
      in.push_back(std::make_unique<DeviceSpinorField>(lattice, Subset::kEven, precision));
      in.back()->Upload(sources[j]);
      out.push_back(std::make_unique<DeviceSpinorField>(lattice, Subset::kOdd, precision));
    }
    for (Reconstruct reconstruct : o.reconstructs) {
      const DeviceGaugeField gauge(links, {precision, reconstruct, o.gauge_fixed, 0});
      DslashVariant v{precision, reconstruct, o.gauge_fixed, Dagger::kNo, false};
      if (o.clover) v.clover_epilogue = DslashEpilogue::kClover;
      const double single_ms = MedianMilliseconds(o.repetitions, [&] {
        if (o.clover) {
          ApplyCloverDslash(out[0]->View(), gauge, in[0]->View(), Dagger::kNo, inverse);
        } else {
          ApplyWilsonDslash(out[0]->View(), gauge, in[0]->View(), Dagger::kNo);
        }
      });
      for (int n : o.rhs) {
        std::vector<SpinorView> out_views;
        std::vector<ConstSpinorView> in_views;
        for (int j = 0; j < n; ++j) {
          out_views.push_back(out[j]->View());
          in_views.push_back(static_cast<const DeviceSpinorField&>(*in[j]).View());
        }
        CloverBlockEpilogue block_inverse;
        block_inverse.kind = DslashEpilogue::kClover;
        block_inverse.clover = inverse.clover;
        auto time_with = [&](int m) {
          return MedianMilliseconds(o.repetitions, [&] {
            if (o.clover) {
              ApplyCloverDslashBlock(out_views, gauge, in_views, Dagger::kNo, block_inverse,
                                     FermionBoundary::AntiperiodicTime(), {m});
            } else {
              ApplyWilsonDslashBlock(out_views, gauge, in_views, Dagger::kNo, FermionBoundary::AntiperiodicTime(), {m});
            }
          });
        };
        double pinned[3] = {-1, -1, -1};
        const int choices[3] = {1, 2, 4};
        for (int c = 0; c < 3; ++c) {
          const int m = choices[c];
          if (m > n || (m == 4 && (precision == Precision::kDouble || o.clover))) continue;  // not compiled
          pinned[c] = time_with(m);
        }
        const double tuned_ms = time_with(0);
        const KernelCost cost = WilsonDslashCost(v, extents, n);
        auto us_per_rhs = [&](double ms) {
          return ms < 0 ? std::string("-") : std::to_string(1e3 * ms / n).substr(0, 7);
        };
        std::printf("%-10s %3d | %9.1f | %9s %9s %9s | %9.1f %8.0f %9.0f %5.1f%% %6.2fx\n", v.Name().c_str(), n,
                    1e3 * single_ms, us_per_rhs(pinned[0]).c_str(), us_per_rhs(pinned[1]).c_str(),
                    us_per_rhs(pinned[2]).c_str(), 1e3 * tuned_ms / n, cost.flops / tuned_ms / 1e6,
                    cost.minimum_bytes / n / HalfVolume(extents), 100 * cost.minimum_bytes / tuned_ms / 1e6 / copy_gbs,
                    single_ms * n / tuned_ms);
        if (csv != nullptr) {
          auto per_rhs = [&](double ms) { return ms < 0 ? -1.0 : 1e3 * ms / n; };
          *csv << lattice.ToString() << "," << v.Name() << "," << ToString(precision) << ","
               << ToString(reconstruct) << "," << (o.gauge_fixed ? 1 : 0) << "," << n << "," << 1e3 * single_ms << ","
               << per_rhs(pinned[0]) << "," << per_rhs(pinned[1]) << "," << per_rhs(pinned[2]) << ","
               << 1e3 * tuned_ms / n << "," << cost.flops / tuned_ms / 1e6 / n << ","
               << cost.minimum_bytes / n / HalfVolume(extents) << ","
               << cost.minimum_bytes / tuned_ms / 1e6 / copy_gbs << "," << single_ms * n / tuned_ms << "," << copy_gbs
               << "\n";
          csv->flush();
        }
      }
    }
  }
}

int Main(int argc, char** argv) {
  std::vector<Coordinates> lattices = {{32, 32, 32, 32}, {24, 24, 24, 64}};
  Options o;
  std::string precision = "all", links = "all", op = "wilson";
  command_line::FlagSet flags(
      "multi_rhs_dslash_benchmark",
      "The multi-RHS Dslash on the GPU against the single-RHS kernel: microseconds per right-hand side for n\n"
      "right-hand sides in one launch, for each mapping (1, 2 or 4 right-hand sides per thread) and the tuner's\n"
      "choice, GFLOPS (per site per right-hand side 1320 flops for D, 1824 for the clover Dslash T^-1 D), the\n"
      "n-RHS minimum bytes per site per right-hand side (links and clover term once, spinors per right-hand side)\n"
      "and the fraction of that roofline at the copy bandwidth measured in the same run. Medians of --repetitions\n"
      "calls (CUDA events) after a warm-up that tunes. Needs a GPU: without one it prints why and exits 1.");
  flags.Choice<std::string>("operator", &op, {{"wilson", "wilson"}, {"clover", "clover"}},
                            "the Wilson Dslash D, or the clover Dslash T^-1 D (QUDA's multi-RHS clover Dslash)");
  flags.ExtentsList("lattice", &lattices, "lattices to time, in this order; each extent even");
  flags.IntList("rhs", &o.rhs, 1, 64, "right-hand sides per call, a list");
  flags.Int("repetitions", &o.repetitions, 1, 1000000, "timed calls per row; the median is reported");
  flags.Choice<std::string>("precision", &precision,
                            {{"all", "all"}, {"double", "double"}, {"single", "single"}, {"half", "half"}},
                            "storage precision of the links and spinors (all: every one)");
  flags.Choice<std::string>("links", &links, {{"all", "all"}, {"18", "18"}, {"12", "12"}, {"8", "8"}},
                            "reals stored per link: 18, 12 or 8; all: every one");
  flags.Switch("gauge-fixed", &o.gauge_fixed, "links in temporal gauge (unit t-links but the last slice)");
  flags.String("csv", &o.csv, "FILE", "also write every row to this CSV (experiments/plot_multi_rhs.py plots it)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  o.clover = op == "clover";
  if (precision != "all") o.precisions = {ParsePrecision(precision)};
  if (links != "all") o.reconstructs = {ParseReconstruct(links)};
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("multi_rhs_dslash_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("multi_rhs_dslash_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
  std::printf("right-hand sides:");
  for (int n : o.rhs) std::printf(" %d", n);
  std::printf("\n");
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw std::runtime_error("cannot write " + o.csv);
    csv << std::setprecision(9) << kCsvHeader << "\n";
  }
  for (const Coordinates& extents : lattices) Run(Lattice(extents), o, copy.kernel_gbs, o.csv.empty() ? nullptr : &csv);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("multi_rhs_dslash_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
