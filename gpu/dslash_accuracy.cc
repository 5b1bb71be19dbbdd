// dslash_accuracy: the paper's accuracy experiment (section 4.7, Eq. (3), Figure 6). For every kernel variant
// (double / single / half x 18 / 12 / 8 reals per link), applies the even-odd operator
//     M_ee = 1 - kappa^2 D_eo D_oe
// on the GPU to a random source eta with every real in [0, 1) (reference/spinor_field.h FillUniform) on Haar-random
// SU(3) links, and compares each complex output component with the CPU oracle in double (reference/wilson.h
// ApplySchur, DeGrand-Rossi basis). "GPU" includes the transfers, as in the paper: eta is converted to the
// device's basis and precision, M_ee applied, the result downloaded and converted back.
// Delta(eps) = fraction of components with |gpu - cpu| >= eps (ABSOLUTE deviation, as Eq. (3); deviation_cdf.h).
//
//   dslash_accuracy [--lattice=LXxLYxLZxLT] [--csv=PATH] [--summary=PATH] [--kappa=K] [--threads=N]
//   defaults: 24x24x24x32 (the paper's volume), dslash_accuracy.csv, dslash_accuracy_summary.csv, kappa = 1/8
//
// kappa = 1/8 (m = 0): kappa^2 = 1/64 is exact in every precision, so the coefficient adds no rounding of its own;
// the outputs are O(1), so absolute and relative deviations are alike. The CSV has one row per eps (1e-17 to 1,
// 10 per decade) and one column per variant; the summary has per variant the largest, median and smallest
// deviation and the onset (largest grid eps with Delta > 0) in ulps of 1. experiments/plot_dslash_accuracy.py
// draws Figure 6 from the CSV. Needs a GPU; runs the oracle on the host (a few seconds at 24^3 x 32).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/deviation_cdf.h"
#include "gpu/schur_operator.h"
#include "reference/cli/command_line.h"
#include "reference/wilson.h"

namespace lqcd::gpu {
namespace {

// The unit in the last place of 1 for each storage: 2^-52, 2^-23, and one level 1/32767 of half's fixed point.
double UlpOfOne(Precision p) {
  return p == Precision::kDouble ? 0x1p-52 : p == Precision::kSingle ? 0x1p-23 : 1.0 / 32767;
}

int Run(const Lattice& lattice, const std::string& csv_path, const std::string& summary_path, double kappa,
        int threads) {
  std::printf("dslash_accuracy: %s\n", Describe(CurrentDeviceInfo()).c_str());
  std::printf("lattice %s, M_ee = 1 - kappa^2 D_eo D_oe with kappa = %.17g, Haar links (seed 1), source in [0,1) "
              "(FillUniform seed 2), antiperiodic in t; %d host threads\n",
              lattice.ToString().c_str(), kappa, threads);
  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1, threads);
  SpinorField<double> eta(lattice, Subset::kEven);
  FillUniform(eta, 2);

  const auto start = std::chrono::steady_clock::now();
  SpinorField<double> cpu(lattice, Subset::kEven);
  ApplySchur(cpu, links, eta, WilsonParams::FromKappa(kappa), Dagger::kNo);
  const double oracle_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double largest_output = 0;
  for (int i = 0; i < cpu.sites(); ++i) largest_output = std::max(largest_output, cpu[i].cwiseAbs().maxCoeff());
  std::printf("CPU oracle (double): %.1f s; largest |output component| %.3f; %lld components\n", oracle_seconds,
              largest_output, static_cast<long long>(cpu.size()));

  const std::vector<double> grid = LogGrid(1e-17, 1.0, 10);
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  std::ofstream summary(summary_path);
  if (!summary) throw std::runtime_error("cannot write " + summary_path);
  summary << "variant,max_deviation,median_deviation,min_deviation,exact_fraction,onset_eps,onset_ulps,ulp\n";
  std::printf("\n%-10s %12s %12s %12s %8s %12s %10s\n", "variant", "max |dev|", "median", "min", "exact", "onset eps",
              "onset/ulp");
  for (Precision p : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    for (Reconstruct r : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
      const DeviceGaugeField gauge(links, {p, r, false, 0});
      DeviceSpinorField in(lattice, Subset::kEven, p), out(lattice, Subset::kEven, p);
      in.Upload(eta);
      const DeviceSchurOperator m(gauge, kappa, Parity::kEven);
      m.Apply(out.View(), in.View(), Dagger::kNo);
      const SpinorField<double> gpu = out.Download();
      std::vector<double> d = ComponentDeviations(gpu, cpu);
      const std::vector<double> delta = ExceedanceFractions(d, grid);
      std::vector<double> sorted = d;
      std::sort(sorted.begin(), sorted.end());
      const long exact = std::count(d.begin(), d.end(), 0.0);
      double onset = 0;
      for (std::size_t k = 0; k < grid.size(); ++k) {
        if (delta[k] > 0) onset = grid[k];
      }
      const std::string name = std::string(ToString(p)) + "_" + ToString(r);
      names.push_back(name);
      columns.push_back(delta);
      const double ulp = UlpOfOne(p);
      summary << name << "," << sorted.back() << "," << sorted[sorted.size() / 2] << "," << sorted.front() << ","
              << static_cast<double>(exact) / d.size() << "," << onset << "," << onset / ulp << "," << ulp << "\n";
      std::printf("%-10s %12.3e %12.3e %12.3e %7.1f%% %12.3e %10.1f\n", name.c_str(), sorted.back(),
                  sorted[sorted.size() / 2], sorted.front(), 100.0 * exact / d.size(), onset, onset / ulp);
    }
  }
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error("cannot write " + csv_path);
  csv.precision(17);
  csv << "eps";
  for (const std::string& n : names) csv << "," << n;
  csv << "\n";
  for (std::size_t k = 0; k < grid.size(); ++k) {
    csv << grid[k];
    for (const auto& c : columns) csv << "," << c[k];
    csv << "\n";
  }
  std::printf("\nwrote %s (%zu eps x %zu variants) and %s\n", csv_path.c_str(), grid.size(), names.size(),
              summary_path.c_str());
  return 0;
}

int Main(int argc, char** argv) {
  Coordinates extents{24, 24, 24, 32};
  std::string csv = "dslash_accuracy.csv", summary = "dslash_accuracy_summary.csv";
  double kappa = 0.125;
  int threads = 0;
  command_line::FlagSet flags(
      "dslash_accuracy",
      "The paper's accuracy experiment (section 4.7, Figure 6): for every kernel variant (double/single/half x\n"
      "18/12/8 reals per link) applies M_ee = 1 - kappa^2 D_eo D_oe on the GPU to a source with reals in [0, 1)\n"
      "on Haar-random links and compares every output component with the CPU oracle in double. Writes Delta(eps),\n"
      "the fraction of components with |gpu - cpu| >= eps, to --csv (one column per variant) and the largest,\n"
      "median and smallest deviations and the onset to --summary. Needs a GPU: without one it prints why and\n"
      "exits 1.");
  flags.Extents("lattice", &extents, "lattice extents, each even");
  flags.String("csv", &csv, "FILE", "Delta(eps) per variant (experiments/plot_dslash_accuracy.py draws it)");
  flags.String("summary", &summary, "FILE", "per-variant deviation summary");
  flags.Double("kappa", &kappa, "hopping parameter of M_ee", command_line::Range::Positive());
  flags.Int("threads", &threads, 0, 1024, "host threads for the random links (0: all hardware threads)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (csv == summary) {
    throw std::invalid_argument("--csv and --summary name the same file '" + csv + "'; give two different files");
  }
  if (threads == 0) threads = DefaultThreads();
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("dslash_accuracy: %s\n", why.c_str());
    return 1;
  }
  return Run(Lattice(extents), csv, summary, kappa, threads);
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("dslash_accuracy", [&] { return lqcd::gpu::Main(argc, argv); });
}
