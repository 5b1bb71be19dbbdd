// dslash_accuracy: the paper's accuracy experiment (section 4.7, Eq. (3), Figure 6). For every kernel variant
// (double / single / half x 18 / 12 / 8 reals per link), applies the even-odd operator
//     M_ee = 1 - kappa^2 D_eo D_oe                                        (--operator=wilson or both)
// on the GPU to a random source eta with every real in [0, 1) (reference/spinor_field.h FillUniform) on Haar-random
// SU(3) links, and compares each complex output component with the CPU oracle in double (reference/wilson.h
// ApplySchur, DeGrand-Rossi basis). "GPU" includes the transfers, as in the paper: eta is converted to the
// device's basis and precision, M_ee applied, the result downloaded and converted back.
// With --operator=clover or both, the same for the Wilson-clover Schur complement (gpu/gpu_clover.h)
//     S_ee = T_ee - (1/4) D_eo T_oo^{-1} D_oe,   T(n) = (4 + m) + A(n),  A = -(c_sw/2) sum sigma F
// on the same links and source: GpuCloverSchur<P> (CloverSchurForm::kComplement) with the links and the oracle's
// CloverField<double> (T, T^{-1} built in double) stored in precision P (UploadClover<P>), against the oracle's
// ApplyCloverSchur in double (DeGrand-Rossi). So the clover columns measure the kernels' arithmetic plus the
// rounding of T and T^{-1} to P, not that of building the clover term.
// Delta(eps) = fraction of components with |gpu - cpu| >= eps (ABSOLUTE deviation, as Eq. (3); deviation_cdf.h).
//
//   dslash_accuracy [--lattice=LXxLYxLZxLT] [--csv=PATH] [--summary=PATH] [--kappa=K] [--threads=N]
//                   [--operator=both|wilson|clover] [--csw=C]
//   defaults: 24x24x24x32 (the paper's volume), dslash_accuracy.csv, dslash_accuracy_summary.csv, kappa = 1/8,
//   --operator=both (Wilson columns first, then clover), c_sw = 1
//
// kappa = 1/8 (m = 0): kappa^2 = 1/64 is exact in every precision, so the coefficient adds no rounding of its own;
// the outputs are O(1), so absolute and relative deviations are alike.
// Clover mass m = 1 (kappa = 1/10), fixed: T(n) must be safely invertible on Haar-random links, the roughest
// field (CloverField refuses a block with condition number above 1e10). A bound for ANY links: ||Q|| <= 4, so
// F = (Q - Q^dag)/(8i) has eigenvalues in [-1, 1] and its traceless part norm <= 4/3; per chirality
// sum sigma F = sum_k sigma_k (x) (F_a +- F_b) has norm <= 3 x 2 x 4/3 = 8, so ||A|| <= 4 c_sw and
// T >= 4 + m - 4 c_sw: m = 1 gives T >= 1 (condition <= 9) at c_sw = 1 whatever the links. Measured on Haar links
// (gpu/clover_dslash_test.cc, same m and c_sw) T lies in [3.9, 6.1], condition ~1.5, i.e. ||A|| ~ 1.1 c_sw; the
// program prints the measured range. --csw is limited to [0, 2] (there T >= ~2.6 as measured). S_ee's own
// coefficient 1/4 is exact in every precision, and m enters only through the stored T, T^{-1} (rounded to P
// anyway), so m needs no power-of-two care; the clover outputs are O(5), so their absolute deviations are ~5x
// those of O(1) outputs of the same relative accuracy (compare onsets in ulps with that in mind).
//
// The CSV has one row per eps (1e-17 to 1, 10 per decade) and one column per variant ("double_18", ...; clover:
// "clover_double_18", ...); the summary has per variant the largest, median and smallest deviation and the onset
// (largest grid eps with Delta > 0) in ulps of 1. experiments/plot_dslash_accuracy.py draws Figure 6 from the CSV
// (a second row of panels for the clover columns). Needs a GPU; runs the oracles on the host (Wilson: a few
// seconds at 24^3 x 32; the clover term and S_ee: some tens of seconds more, single-threaded).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/deviation_cdf.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/schur_operator.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"
#include "reference/wilson.h"

namespace lqcd::gpu {
namespace {

// The unit in the last place of 1 for each storage: 2^-52, 2^-23, and one level 1/32767 of half's fixed point.
double UlpOfOne(Precision p) {
  return p == Precision::kDouble ? 0x1p-52 : p == Precision::kSingle ? 0x1p-23 : 1.0 / 32767;
}

enum class Operators { kBoth, kWilson, kClover };

// The clover mass (file comment: T >= 4 + m - 4 c_sw for any links; measured T in [3.9, 6.1] at c_sw = 1).
constexpr double kCloverMass = 1.0;

// S_ee eta on the GPU in precision P with links stored as r: upload, apply, download (DeGrand-Rossi in and out).
template <typename P>
SpinorField<double> GpuCloverComplement(const GaugeField<double>& links, const CloverField<double>& clover,
                                        const SpinorField<double>& eta, Reconstruct r) {
  const GpuCloverSchur<P> s(UploadGauge<P>(links, {r, false, 0}), UploadClover<P>(clover),
                            CloverSchurForm::kComplement, Parity::kEven);
  GpuSpinorField<P> in(links.lattice(), Subset::kEven), out(links.lattice(), Subset::kEven);
  in.Upload(eta);
  s.Apply(out, in);
  return out.Download();
}

SpinorField<double> CloverOnGpu(Precision p, const GaugeField<double>& links, const CloverField<double>& clover,
                                const SpinorField<double>& eta, Reconstruct r) {
  switch (p) {
    case Precision::kDouble:
      return GpuCloverComplement<double>(links, clover, eta, r);
    case Precision::kSingle:
      return GpuCloverComplement<float>(links, clover, eta, r);
    default:
      return GpuCloverComplement<solvers::Half>(links, clover, eta, r);
  }
}

double LargestComponent(const SpinorField<double>& f) {
  double largest = 0;
  for (int i = 0; i < f.sites(); ++i) largest = std::max(largest, f[i].cwiseAbs().maxCoeff());
  return largest;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int Run(const Lattice& lattice, const std::string& csv_path, const std::string& summary_path, double kappa,
        Operators operators, double c_sw, int threads) {
  const bool wilson = operators != Operators::kClover, clover = operators != Operators::kWilson;
  std::printf("dslash_accuracy: %s\n", Describe(CurrentDeviceInfo()).c_str());
  std::printf("lattice %s, Haar links (seed 1), source in [0,1) (FillUniform seed 2), antiperiodic in t; %d host "
              "threads\n",
              lattice.ToString().c_str(), threads);
  if (wilson) std::printf("Wilson: M_ee = 1 - kappa^2 D_eo D_oe with kappa = %.17g\n", kappa);
  if (clover) {
    std::printf("clover: S_ee = T_ee - (1/4) D_eo T_oo^-1 D_oe, T = (4 + m) + A, m = %g, c_sw = %.17g (traceless F)\n",
                kCloverMass, c_sw);
  }
  const GaugeField<double> links = ParallelRandomGaugeField(lattice, 1, threads);
  SpinorField<double> eta(lattice, Subset::kEven);
  FillUniform(eta, 2);

  SpinorField<double> cpu_wilson(lattice, Subset::kEven), cpu_clover(lattice, Subset::kEven);
  if (wilson) {
    const auto start = std::chrono::steady_clock::now();
    ApplySchur(cpu_wilson, links, eta, WilsonParams::FromKappa(kappa), Dagger::kNo);
    std::printf("CPU oracle (double), Wilson: %.1f s; largest |output component| %.3f; %lld components\n",
                SecondsSince(start), LargestComponent(cpu_wilson), static_cast<long long>(cpu_wilson.size()));
  }
  std::unique_ptr<CloverField<double>> clover_field;
  if (clover) {
    CloverParams params;
    params.mass = kCloverMass;
    params.c_sw = c_sw;
    params.basis = GammaBasis::kDeGrandRossi;
    const auto start = std::chrono::steady_clock::now();
    clover_field = std::make_unique<CloverField<double>>(links, params);
    ApplyCloverSchur(cpu_clover, links, *clover_field, eta, CloverSchurForm::kComplement, Dagger::kNo);
    std::printf("CPU oracle (double), clover: %.1f s; eigenvalues of T in [%.3f, %.3f], block condition <= %.3f; "
                "largest |output component| %.3f\n",
                SecondsSince(start), clover_field->min_eigenvalue(), clover_field->max_eigenvalue(),
                clover_field->max_condition(), LargestComponent(cpu_clover));
  }

  const std::vector<double> grid = LogGrid(1e-17, 1.0, 10);
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  std::ofstream summary(summary_path);
  if (!summary) throw std::runtime_error("cannot write " + summary_path);
  summary << "variant,max_deviation,median_deviation,min_deviation,exact_fraction,onset_eps,onset_ulps,ulp\n";
  std::printf("\n%-17s %12s %12s %12s %8s %12s %10s\n", "variant", "max |dev|", "median", "min", "exact",
              "onset eps", "onset/ulp");
  // Delta(eps) and the summary row of one variant.
  auto record = [&](const std::string& name, Precision p, const SpinorField<double>& gpu,
                    const SpinorField<double>& cpu) {
    std::vector<double> d = ComponentDeviations(gpu, cpu);
    const std::vector<double> delta = ExceedanceFractions(d, grid);
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    const long exact = std::count(d.begin(), d.end(), 0.0);
    double onset = 0;
    for (std::size_t k = 0; k < grid.size(); ++k) {
      if (delta[k] > 0) onset = grid[k];
    }
    names.push_back(name);
    columns.push_back(delta);
    const double ulp = UlpOfOne(p);
    summary << name << "," << sorted.back() << "," << sorted[sorted.size() / 2] << "," << sorted.front() << ","
            << static_cast<double>(exact) / d.size() << "," << onset << "," << onset / ulp << "," << ulp << "\n";
    std::printf("%-17s %12.3e %12.3e %12.3e %7.1f%% %12.3e %10.1f\n", name.c_str(), sorted.back(),
                sorted[sorted.size() / 2], sorted.front(), 100.0 * exact / d.size(), onset, onset / ulp);
  };
  const Precision precisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
  const Reconstruct reconstructs[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
  if (wilson) {
    for (Precision p : precisions) {
      for (Reconstruct r : reconstructs) {
        const DeviceGaugeField gauge(links, {p, r, false, 0});
        DeviceSpinorField in(lattice, Subset::kEven, p), out(lattice, Subset::kEven, p);
        in.Upload(eta);
        const DeviceSchurOperator m(gauge, kappa, Parity::kEven);
        m.Apply(out.View(), in.View(), Dagger::kNo);
        record(std::string(ToString(p)) + "_" + ToString(r), p, out.Download(), cpu_wilson);
      }
    }
  }
  if (clover) {
    for (Precision p : precisions) {
      for (Reconstruct r : reconstructs) {
        record(std::string("clover_") + ToString(p) + "_" + ToString(r), p,
               CloverOnGpu(p, links, *clover_field, eta, r), cpu_clover);
      }
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
  double kappa = 0.125, c_sw = 1.0;
  Operators operators = Operators::kBoth;
  int threads = 0;
  command_line::FlagSet flags(
      "dslash_accuracy",
      "The paper's accuracy experiment (section 4.7, Figure 6): for every kernel variant (double/single/half x\n"
      "18/12/8 reals per link) applies M_ee = 1 - kappa^2 D_eo D_oe on the GPU to a source with reals in [0, 1)\n"
      "on Haar-random links and compares every output component with the CPU oracle in double. Writes Delta(eps),\n"
      "the fraction of components with |gpu - cpu| >= eps, to --csv (one column per variant) and the largest,\n"
      "median and smallest deviations and the onset to --summary. With --operator=clover or both (the default),\n"
      "the same for the Wilson-clover Schur complement S_ee = T_ee - (1/4) D T^-1 D (m = 1, --csw) against the\n"
      "oracle's, in columns clover_<precision>_<links>. Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice extents, each even");
  flags.String("csv", &csv, "FILE", "Delta(eps) per variant (experiments/plot_dslash_accuracy.py draws it)");
  flags.String("summary", &summary, "FILE", "per-variant deviation summary");
  flags.Double("kappa", &kappa, "hopping parameter of M_ee", command_line::Range::Positive());
  flags.Choice<Operators>("operator", &operators,
                          {{"both", Operators::kBoth}, {"wilson", Operators::kWilson}, {"clover", Operators::kClover}},
                          "the operators measured: Wilson M_ee, clover S_ee, or both (Wilson columns first)");
  flags.Double("csw", &c_sw, "clover coefficient c_sw of S_ee (clover mass m = 1 keeps T >= 1 up to c_sw = 1 on any "
               "links)", command_line::Range::Closed(0, 2));
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
  return Run(Lattice(extents), csv, summary, kappa, operators, c_sw, threads);
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("dslash_accuracy", [&] { return lqcd::gpu::Main(argc, argv); });
}
