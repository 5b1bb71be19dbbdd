// solver_benchmark: time to solution of the even-odd Wilson system on the GPU, the paper's Figure 7
// analogue: solver specs (solvers/solver_spec.h; default: double BiCGstab, reliable-update BiCGstab at
// delta = 0.1 with a half/12 and a single/8 inner operator) to eps = 1e-12 in the full-lattice true
// residual (double), on Haar-random SU(3) links (or the links of a configuration file) for a few kappas; then
// the bandwidth of the fused vector kernels.
//
//   solver_benchmark [--lattice=24x24x24x32] [--kappas=0.2,0.22,0.23,0.24] [--solvers=SPEC,...]
//                    [--repetitions=3] [--seed=1] [--tolerance=1e-12] [--max-iterations=20000]
//                    [--fermion=wilson|clover] [--csw=1] [--clover-form=complement|unit-diagonal]
//                    [--gauge=PATH]
//
// --gauge=PATH replaces the Haar-random links by those of a configuration file, read with
// reference/io/gauge_io.h (NERSC, LIME or MILC, detected from the file's first bytes; checksums and SU(3)
// verified): the lattice is then the file's (a --lattice that differs is refused before the GPU is looked
// for), and --seed sets only the source. Thermalised links make the system, and so the iteration counts,
// those of a real ensemble instead of the hot start's.
//
// --fermion=clover times the Wilson-clover system instead (reference/clover.h, M = (4 + m) + A - D/2 with
// c_sw = --csw, traceless field strength), even-odd in the --clover-form Schur form: per kappa the clover term is
// built once on the host (GpuCloverTerms; a singular or ill-conditioned T(n) is refused naming kappa and c_sw).
// Haar-random links have O(1) field strength: |F_{mu nu}| <= 4/3, so |A| <= 4 c_sw and any kappa < 1 / (8 c_sw)
// keeps T positive definite on any links, its condition number <= (1 + 8 kappa c_sw) / (1 - 8 kappa c_sw)
// (9 at kappa = 0.1, c_sw = 1); the Wilson kappas 0.2 - 0.24 may be refused at c_sw = 1.
//
// Every solve goes through SolveWithSpecOnGpu (gpu/spec_solver.h), the same factory the main job uses;
// links are uploaded once per layout. A spec with /gf solves the system on the temporal-gauge-fixed copy of
// the links (the same matrix up to a gauge transformation, so the same iteration counts up to rounding).
// Each spec is solved once untimed first (the launch tuner times its block sizes then); every solve is
// repeated N times (deterministic: the same iterations each time) and the median wall-clock time is
// reported. GFLOPS = the solver's own count (operator flops, 1320 per Dslash site + 48 per xpay site; for clover
// the Schur operator's kCloverSchurFlopsPerSite = 2 x (1320 + 504) + 48 = 3696 per site of one parity; plus
// the vector operations of solvers/vector_flops.h, plus the source preparation, reconstruction and final
// residual) / that time. Speed-up = time of the first spec / time. Measures and prints; asserts nothing.
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/blas.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"
#include "reference/gauge_transform.h"
#include "reference/io/gauge_io.h"
#include "reference/su3_random.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using solvers::SolveResult;
using solvers::SolverSpec;

void PrintRow(double kappa, const std::string& spec, const SolveResult& r, double baseline_seconds) {
  std::printf("%6.3f %-34s %-11s %6d %6d %6lld %9.4f %8.1f %8.2f  %.2e\n", kappa, spec.c_str(),
              solvers::ToString(r.status), r.iterations, r.high_precision_updates, r.low_precision_applications,
              r.seconds, r.flops / r.seconds / 1e9, baseline_seconds / r.seconds, r.true_residual);
}

// The fermion action: Wilson, or Wilson-clover with c_sw in an even-odd Schur form.
struct Action {
  bool clover = false;
  double c_sw = 1;
  CloverSchurForm form = CloverSchurForm::kComplement;
};

// The clover parameters of `kappa`; std::invalid_argument naming kappa and c_sw if they are refused.
CloverParams CloverParamsOf(double kappa, double c_sw) {
  try {
    return CloverParams::FromKappa(kappa, c_sw);
  } catch (const std::invalid_argument& e) {
    std::ostringstream what;
    what << "--csw=" << c_sw << " at kappa " << kappa << ": " << e.what();
    throw std::invalid_argument(what.str());
  }
}

// `links` are the Haar-random links or those of a file, `links_source` says which (for the header).
void SolveTable(const GaugeField<double>& links, const std::string& links_source, const std::vector<double>& kappas,
                const std::vector<SolverSpec>& specs, int repetitions, std::uint64_t seed, const Action& action) {
  const Lattice& lattice = links.lattice();
  std::unique_ptr<TemporalGauge<double>> fixed;  // for /gf specs, made on first use
  SpinorField<double> source(lattice);
  FillGaussian(source, seed + 1);
  GpuGaugeLinks plain(links, false);
  std::unique_ptr<GpuGaugeLinks> gauge_fixed;
  GpuSpinorField<double> b(lattice, Subset::kFull);
  b.Upload(source);
  std::string fermion;  // empty for Wilson: its header is unchanged
  if (action.clover) {
    std::ostringstream text;
    text << ", Wilson-clover c_sw = " << action.c_sw << " (traceless F), " << ToString(action.form) << " form";
    fermion = text.str();
  }
  std::printf("\nlattice %s, %s, Gaussian source, eps = %.0e, median of %d%s\n", lattice.ToString().c_str(),
              links_source.c_str(), specs.front().tolerance, repetitions, fermion.c_str());
  std::printf("%6s %-34s %-11s %6s %6s %6s %9s %8s %8s  %s\n", "kappa", "solver", "status", "iters", "updts",
              "lowapp", "time s", "GFLOPS", "speedup", "true residual");
  for (double kappa : kappas) {
    const WilsonParams w = WilsonParams::FromKappa(kappa);
    // Clover: the term on the original links, and (for /gf specs) on the gauge-fixed ones, each built once.
    std::unique_ptr<GpuCloverTerms> clover_plain, clover_fixed;
    auto clover_on = [&](const GaugeField<double>& u) {
      try {
        return std::make_unique<GpuCloverTerms>(u, CloverParamsOf(kappa, action.c_sw));
      } catch (const std::domain_error& e) {
        std::ostringstream what;
        what << "the clover term T at kappa " << kappa << ", c_sw " << action.c_sw
             << " is ill-conditioned on these links (lower kappa or --csw): " << e.what();
        throw std::domain_error(what.str());
      }
    };
    if (action.clover) clover_plain = clover_on(links);
    double baseline = 0;
    for (const SolverSpec& spec : specs) {
      if (spec.temporal_gauge && !gauge_fixed) {
        fixed = std::make_unique<TemporalGauge<double>>(TemporalGaugeFix(links));
        gauge_fixed = std::make_unique<GpuGaugeLinks>(fixed->field, true);
      }
      GpuGaugeLinks& on = spec.temporal_gauge ? *gauge_fixed : plain;
      if (action.clover && spec.temporal_gauge && !clover_fixed) clover_fixed = clover_on(fixed->field);
      GpuCloverTerms* clover = spec.temporal_gauge ? clover_fixed.get() : clover_plain.get();
      auto solve = [&] {
        GpuSpinorField<double> x(lattice, Subset::kFull);
        return action.clover ? SolveWithSpecOnGpu(spec, on, *clover, action.form, x, b)
                             : SolveWithSpecOnGpu(spec, on, w, x, b);
      };
      const SolveResult r = MedianSolve(repetitions, solve);  // after an untimed solve that tunes the kernels
      if (baseline == 0) baseline = r.seconds;
      PrintRow(kappa, spec.Name(), r, baseline);
    }
  }
}

template <typename P>
void BlasRow(const Lattice& lattice, double copy_gbs) {
  using B = GpuBackend;
  const Precision precision = DevicePrecisionOf<P>::kValue;
  SpinorField<double> host(lattice, Subset::kEven);
  std::vector<GpuSpinorField<P>> f;
  for (int k = 0; k < 5; ++k) {
    FillGaussian(host, 100 + k);
    f.emplace_back(lattice, Subset::kEven);
    f.back().Upload(host);
  }
  const double sites = lattice.half_volume();
  const std::complex<double> alpha(1e-3, 2e-3), omega(-1e-3, 1e-3);
  struct Item {
    blas::Operation op;
    std::function<void()> run;
  };
  // Small coefficients keep the fields of order one however often the updates are repeated.
  const Item items[] = {
      {blas::Operation::kNorm2, [&] { (void)B::Norm2(f[0]); }},
      {blas::Operation::kDotNorm, [&] { (void)B::DotNorm(f[0], f[1]); }},
      {blas::Operation::kAxpyNorm, [&] { (void)B::AxpyNorm(1e-3, f[0], f[1]); }},
      {blas::Operation::kCaxpyNorm, [&] { (void)B::CaxpyNorm(alpha, f[0], f[1]); }},
      {blas::Operation::kBicgstabDirection, [&] { B::BicgstabDirection(f[0], alpha, omega, f[1], f[2]); }},
      {blas::Operation::kBicgstabUpdate, [&] { (void)B::BicgstabUpdate(alpha, f[0], omega, f[1], f[2], f[3], f[4]); }},
  };
  for (const Item& item : items) {
    const double us = 1e3 * MedianMilliseconds(50, item.run);  // a reduction includes its host read
    const blas::BlasCost c = blas::Cost(item.op, precision, sites);
    std::printf("%-7s %-18s %9.1f %8.0f %7.1f%%\n", ToString(precision), blas::InfoOf(item.op).name, us,
                c.bytes / us / 1e3, 100 * c.bytes / us / 1e3 / copy_gbs);
  }
}

void BlasTable(const Lattice& lattice, double copy_gbs) {
  std::printf("\nfused vector kernels on one parity of %s (%d sites), median of 50; %% of the copy bandwidth\n",
              lattice.ToString().c_str(), lattice.half_volume());
  std::printf("%-7s %-18s %9s %8s %8s\n", "prec", "operation", "time us", "GB/s", "of copy");
  BlasRow<double>(lattice, copy_gbs);
  BlasRow<float>(lattice, copy_gbs);
  BlasRow<Half>(lattice, copy_gbs);
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  using namespace lqcd;
  using namespace lqcd::gpu;
  return command_line::RunMain("solver_benchmark", [&] {
    Coordinates extents{24, 24, 24, 32};
    std::vector<double> kappas = {0.2, 0.22, 0.23, 0.24};
    std::string solver_list = "bicgstab,bicgstab-reliable:half/12:0.1,bicgstab-reliable:single/8:0.1";
    std::string gauge_path;
    int repetitions = 3, max_iterations = 20000;
    std::uint64_t seed = 1;
    double tolerance = 1e-12;
    Action action;
    enum class Fermion { kWilson, kClover } fermion = Fermion::kWilson;
    command_line::FlagSet flags(
        "solver_benchmark",
        "Time to solution of the even-odd Wilson (or Wilson-clover) system on the GPU for solver specs over kappa\n"
        "(the paper's Figure 7 analogue), then the bandwidth of the fused vector kernels. Measures; asserts nothing.");
    flags.Extents("lattice", &extents, "lattice");
    flags.DoubleList("kappas", &kappas, "hopping parameters", command_line::Range::Open(0, 0.25));
    flags.String("solvers", &solver_list, "SPEC,...",
                 "solver specs (solvers/solver_spec.h); the first is the baseline of the speed-up");
    flags.Int("repetitions", &repetitions, 1, 1000, "timed solves per spec and kappa (the median is reported)");
    flags.Unsigned64("seed", &seed, "seed of the random links (seed) and source (seed + 1; with --gauge only that)");
    flags.Double("tolerance", &tolerance, "eps: full-lattice true residual", command_line::Range::Open(0, 1));
    flags.Int("max-iterations", &max_iterations, 1, 100000000, "iteration budget per solve");
    flags.Choice<Fermion>("fermion", &fermion, {{"wilson", Fermion::kWilson}, {"clover", Fermion::kClover}},
                          "fermion action");
    flags.Double("csw", &action.c_sw, "clover coefficient (clover only; 1 = tree level)");
    flags.Choice<CloverSchurForm>("clover-form", &action.form,
                                  {{"complement", CloverSchurForm::kComplement},
                                   {"unit-diagonal", CloverSchurForm::kUnitDiagonal}},
                                  "even-odd form of the clover matrix (clover only)");
    flags.String("gauge", &gauge_path, "PATH",
                 "read the links from this configuration file (NERSC, LIME or MILC; its lattice is used) instead "
                 "of Haar-random ones");
    if (!flags.Parse(argc, argv, std::cout)) return 0;
    action.clover = fermion == Fermion::kClover;
    if (flags.Given("csw") && !action.clover) {
      throw std::invalid_argument("--csw needs --fermion=clover (the Wilson action has no clover term)");
    }
    if (flags.Given("clover-form") && !action.clover) {
      throw std::invalid_argument("--clover-form needs --fermion=clover");
    }
    if (action.clover) {
      for (double kappa : kappas) (void)CloverParamsOf(kappa, action.c_sw);  // refuse a bad c_sw before the GPU
    }
    std::vector<solvers::SolverSpec> specs;
    for (const std::string& text : command_line::SplitList("solvers", solver_list)) {
      solvers::SolverSpec spec;
      try {
        spec = solvers::SolverSpec::Parse(text);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--solvers: ") + e.what());
      }
      spec.tolerance = tolerance;
      spec.max_iterations = max_iterations;
      solvers::RequireSupported(spec, GpuCapabilities(), false);
      specs.push_back(spec);
    }
    // The configuration file is read, and its lattice checked, before the GPU is looked for.
    std::unique_ptr<GaugeConfiguration> file;
    if (!gauge_path.empty()) {
      file = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(gauge_path));
      if (flags.Given("lattice") && extents != file->field.lattice().extents()) {
        throw std::invalid_argument("--lattice=" + Lattice(extents).ToString() +
                                    " differs from the lattice of --gauge=" + gauge_path + " (" +
                                    file->field.lattice().ToString() + "): leave --lattice out or give that one");
      }
    }
    const Lattice lattice = file ? file->field.lattice() : Lattice(extents);
    if (const std::string why = NoDeviceReason(); !why.empty()) {
      std::printf("solver_benchmark: %s\n", why.c_str());
      return 1;
    }
    std::printf("solver_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
    const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
    std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
    if (file) {
      std::printf("links: read from %s\n%s\n", gauge_path.c_str(), file->metadata.Describe().c_str());
      SolveTable(file->field, "links read from " + gauge_path, kappas, specs, repetitions, seed, action);
    } else {
      const GaugeField<double> links = RandomGaugeField<double>(lattice, seed);
      SolveTable(links, "Haar-random links (seed " + std::to_string(seed) + ")", kappas, specs, repetitions, seed,
                 action);
    }
    BlasTable(lattice, copy.kernel_gbs);
    return 0;
  });
}
