// clover_dslash_benchmark: the clover Dslash (out = T^{-1} D in, the even-odd building block) and the two
// even-odd clover operators (gpu_clover.h: the Schur complement S_pp and the unit-diagonal Mhat_pp) for every
// precision x reconstruction x temporal gauge fixing, with GFLOPS, the modelled bytes' rate, the fraction of
// the min-bytes roofline at the copy bandwidth measured in the same run, and, at 32^4 without gauge fixing,
// the time of QUDA on the same H100 (the reference below) and our speed-up over it.
//
//   clover_dslash_benchmark [--lattice=LXxLYxLZxLT] [--repetitions=N] [--precision=P] [--links=R]
//
// Flops (our counting, wilson_dslash.h / reference/clover.h): T^{-1} D in 1320 + 504 = 1824 per site, an
// even-odd clover operator 3696 per site (QUDA counts 1872 and 3792 for the same work: compare times).
// Bytes: wilson_dslash.h's model with the clover epilogues (72 clover reals, + 2 norms in half, per site).
// Inputs: Haar-random links and, for the clover term, one well-conditioned Hermitian block pair (and its
// inverse) at every site: the timing does not depend on the values, and building the oracle's CloverField
// for 10^6 sites would take minutes of host time. Measures and prints; asserts nothing about speed.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_clover.h"
#include "gpu/synthetic_clover.h"
#include "gpu/wilson_dslash.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "solvers/precision.h"

namespace lqcd::gpu {
namespace {

// QUDA (develop of 2024-10, CUDA 13.0, autotuned, clover inverse computed on the fly, its defaults) on the
// same H100 at 32^4, microseconds per application: its clover Dslash A^{-1} D and its symmetric even-odd
// clover operator (1 - kappa^2 A^{-1} D A^{-1} D, our unit-diagonal form), by precision and reals per link.
struct QudaTimes {
  double clover_dslash_us;
  double even_odd_us;
};
const std::map<std::pair<Precision, Reconstruct>, QudaTimes>& QudaAt32() {
  static const std::map<std::pair<Precision, Reconstruct>, QudaTimes> table = {
      {{Precision::kDouble, Reconstruct::k18}, {400.8, 843.8}}, {{Precision::kDouble, Reconstruct::k12}, {341.0, 717.2}},
      {{Precision::kDouble, Reconstruct::k8}, {307.1, 644.6}},  {{Precision::kSingle, Reconstruct::k18}, {202.5, 427.1}},
      {{Precision::kSingle, Reconstruct::k12}, {167.0, 359.0}}, {{Precision::kSingle, Reconstruct::k8}, {155.9, 339.6}},
      {{Precision::kHalf, Reconstruct::k18}, {109.7, 238.0}},   {{Precision::kHalf, Reconstruct::k12}, {94.3, 209.2}},
      {{Precision::kHalf, Reconstruct::k8}, {96.5, 210.8}},
  };
  return table;
}

struct Selection {
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  std::vector<Reconstruct> reconstructs{Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
};

template <typename P>
void TimeOperators(const GaugeField<double>& links, bool gauge_fixed, Reconstruct reconstruct,
                   const SyntheticClover& blocks, const SpinorField<double>& source, int repetitions,
                   double copy_gbs, bool compare_with_quda, std::vector<std::string>& markdown) {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const Lattice& lattice = links.lattice();
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
  const auto gauge = UploadGauge<P>(links, {reconstruct, gauge_fixed, 0});
  GpuCloverTerm clover;
  clover.field = std::make_shared<const DeviceCloverField>(lattice, blocks.t, blocks.t_inverse, CloverLayout{precision, 0});
  clover.params.mass = 1.0;  // mass and c_sw do not enter the kernels; the boundary does (antiperiodic in time)
  clover.norm_bound = 6.0;
  GpuSpinorField<P> in(lattice, Subset::kEven), out_odd(lattice, Subset::kOdd), out(lattice, Subset::kEven);
  in.Upload(source);

  CloverEpilogue inverse;
  inverse.kind = DslashEpilogue::kClover;
  inverse.clover = clover.field->View(Parity::kOdd, /*inverse=*/true);
  const double dslash_ms = MedianMilliseconds(repetitions, [&] {
    ApplyCloverDslash(out_odd.device().View(), *gauge, in.device().View(), Dagger::kNo, inverse);
  });
  const GpuCloverSchur<P> complement(gauge, clover, CloverSchurForm::kComplement);
  const GpuCloverSchur<P> unit(gauge, clover, CloverSchurForm::kUnitDiagonal);
  const double complement_ms = MedianMilliseconds(repetitions, [&] { complement.Apply(out, in); });
  const double unit_ms = MedianMilliseconds(repetitions, [&] { unit.Apply(out, in); });

  DslashVariant v{precision, reconstruct, gauge_fixed, Dagger::kNo, false};
  v.clover_epilogue = DslashEpilogue::kClover;
  const KernelCost d = WilsonDslashCost(v, extents);
  const KernelCost sc = complement.Cost(), su = unit.Cost();
  auto roof = [&](const KernelCost& c, double ms) { return 100 * c.minimum_bytes / ms / 1e6 / copy_gbs; };
  std::string quda_dslash = "-", quda_eo = "-";
  if (compare_with_quda && !gauge_fixed) {
    const QudaTimes q = QudaAt32().at({precision, reconstruct});
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.1f (%.2fx)", q.clover_dslash_us, q.clover_dslash_us / (1e3 * dslash_ms));
    quda_dslash = buffer;
    std::snprintf(buffer, sizeof buffer, "%.1f (%.2fx)", q.even_odd_us, q.even_odd_us / (1e3 * unit_ms));
    quda_eo = buffer;
  }
  std::string name = std::string(ToString(precision)) + "/" + ToString(reconstruct) + (gauge_fixed ? "/gf" : "");
  std::printf("%-14s %8.1f %7.0f %6.1f%% %-16s | %8.1f %7.0f %6.1f%% | %8.1f %6.1f%% %-16s\n", name.c_str(),
              1e3 * dslash_ms, d.flops / dslash_ms / 1e6, roof(d, dslash_ms), quda_dslash.c_str(), 1e3 * complement_ms,
              sc.flops / complement_ms / 1e6, roof(sc, complement_ms), 1e3 * unit_ms, roof(su, unit_ms),
              quda_eo.c_str());
  char row[512];
  std::snprintf(row, sizeof row, "| %s | %.1f | %.0f | %.1f | %s | %.1f | %.0f | %.1f | %.1f | %.1f | %s |", name.c_str(),
                1e3 * dslash_ms, d.flops / dslash_ms / 1e6, roof(d, dslash_ms), quda_dslash.c_str(),
                1e3 * complement_ms, sc.flops / complement_ms / 1e6, roof(sc, complement_ms), 1e3 * unit_ms,
                roof(su, unit_ms), quda_eo.c_str());
  markdown.push_back(row);
}

void Run(const Lattice& lattice, int repetitions, double copy_gbs, const Selection& selection) {
  std::printf("\nlattice %s, %d repetitions, median; roofline = minimum bytes at %.0f GB/s\n",
              lattice.ToString().c_str(), repetitions, copy_gbs);
  std::printf("%-14s %8s %7s %7s %-16s | %8s %7s %7s | %8s %7s %-16s\n", "variant", "T^-1D us", "GFLOPS", "roof%",
              "QUDA us (ours x)", "S_ee us", "GFLOPS", "roof%", "Mhat us", "roof%", "QUDA us (ours x)");
  const int threads = DefaultThreads();
  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1, threads);
  const GaugeField<double> fixed = UnitTemporalLinks(links);
  SpinorField<double> source(lattice, Subset::kEven);
  ParallelFillGaussian(source, 2, threads);
  const SyntheticClover host_clover = MakeSyntheticClover(lattice);
  const bool at_32 = lattice == Lattice(32, 32, 32, 32);
  std::vector<std::string> markdown;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double>& u = gauge_fixed ? fixed : links;
    for (Precision precision : selection.precisions) {
      for (Reconstruct reconstruct : selection.reconstructs) {
        switch (precision) {
          case Precision::kDouble:
            TimeOperators<double>(u, gauge_fixed, reconstruct, host_clover, source, repetitions, copy_gbs, at_32,
                                  markdown);
            break;
          case Precision::kSingle:
            TimeOperators<float>(u, gauge_fixed, reconstruct, host_clover, source, repetitions, copy_gbs, at_32,
                                 markdown);
            break;
          case Precision::kHalf:
            TimeOperators<solvers::Half>(u, gauge_fixed, reconstruct, host_clover, source, repetitions, copy_gbs,
                                         at_32, markdown);
            break;
        }
      }
    }
  }
  std::printf("\nmarkdown:\n\n| variant | T^-1 D (us) | GFLOPS | roofline %% | QUDA A^-1 D (us; ours faster by) | "
              "S_ee (us) | GFLOPS | roofline %% | Mhat_ee (us) | roofline %% | QUDA even-odd (us; ours faster by) |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& row : markdown) std::printf("%s\n", row.c_str());
}

int Main(int argc, char** argv) {
  Coordinates extents{32, 32, 32, 32};
  int repetitions = 50;
  std::string precision = "all", links = "all";
  command_line::FlagSet flags(
      "clover_dslash_benchmark",
      "The clover Dslash T^{-1} D and the even-odd clover operators (Schur complement and unit-diagonal form) on\n"
      "the GPU for every precision x reconstruction x temporal gauge fixing: the median of --repetitions\n"
      "applications (CUDA events) after a warm-up that tunes the block sizes, with GFLOPS, the fraction of the\n"
      "copy-bandwidth roofline measured in the same run and, at 32^4, QUDA's time on the same H100. Needs a GPU:\n"
      "without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "the lattice (default 32x32x32x32)");
  flags.Int("repetitions", &repetitions, 1, 1000000, "timed applications per variant; the median is reported");
  flags.Choice<std::string>("precision", &precision,
                            {{"all", "all"}, {"double", "double"}, {"single", "single"}, {"half", "half"}},
                            "storage precision of links, clover term and spinors (all: every one)");
  flags.Choice<std::string>("links", &links, {{"all", "all"}, {"18", "18"}, {"12", "12"}, {"8", "8"}},
                            "reals stored per link (all: every one)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  Selection selection;
  if (precision != "all") selection.precisions = {ParsePrecision(precision)};
  if (links != "all") selection.reconstructs = {ParseReconstruct(links)};
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("clover_dslash_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row as soon as it is measured
  std::printf("clover_dslash_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
  Run(Lattice(extents), repetitions, copy.kernel_gbs, selection);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("clover_dslash_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
