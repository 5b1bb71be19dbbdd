// solver_benchmark: time to solution of the even-odd Wilson system on the GPU, the paper's Figure 7
// analogue: solver specs (solvers/solver_spec.h; default: double BiCGstab, reliable-update BiCGstab at
// delta = 0.1 with a half/12 and a single/8 inner operator) to eps = 1e-12 in the full-lattice true
// residual (double), on Haar-random SU(3) links for a few kappas; then the bandwidth of the fused vector
// kernels.
//
//   solver_benchmark [--lattice=24x24x24x32] [--kappas=0.2,0.22,0.23,0.24] [--solvers=SPEC,...]
//                    [--repetitions=3] [--seed=1] [--tolerance=1e-12] [--max-iterations=20000]
//
// Every solve goes through SolveWithSpecOnGpu (gpu/spec_solver.h), the same factory the main job uses;
// links are uploaded once per layout. A spec with /gf solves the system on the temporal-gauge-fixed copy of
// the links (the same matrix up to a gauge transformation, so the same iteration counts up to rounding).
// Each spec is solved once untimed first (the launch tuner times its block sizes then); every solve is
// repeated N times (deterministic: the same iterations each time) and the median wall-clock time is
// reported. GFLOPS = the solver's own count (operator flops, 1320 per Dslash site + 48 per xpay site, plus
// the vector operations of solvers/vector_flops.h, plus the source preparation, reconstruction and final
// residual) / that time. Speed-up = time of the first spec / time. Measures and prints; asserts nothing.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/event_timer.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/cli/command_line.h"
#include "reference/gauge_transform.h"
#include "reference/su3_random.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using solvers::SolveResult;
using solvers::SolverSpec;

// Runs `solve` (which returns a SolveResult) `repetitions` times; returns the record of the median time.
template <typename Solve>
SolveResult Median(int repetitions, Solve&& solve) {
  std::vector<SolveResult> runs;
  for (int r = 0; r < repetitions; ++r) runs.push_back(solve());
  std::sort(runs.begin(), runs.end(), [](const SolveResult& a, const SolveResult& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

void PrintRow(double kappa, const std::string& spec, const SolveResult& r, double baseline_seconds) {
  std::printf("%6.3f %-34s %-11s %6d %6d %6lld %9.4f %8.1f %8.2f  %.2e\n", kappa, spec.c_str(),
              solvers::ToString(r.status), r.iterations, r.high_precision_updates, r.low_precision_applications,
              r.seconds, r.flops / r.seconds / 1e9, baseline_seconds / r.seconds, r.true_residual);
}

void SolveTable(const Lattice& lattice, const std::vector<double>& kappas, const std::vector<SolverSpec>& specs,
                int repetitions, std::uint64_t seed) {
  const GaugeField<double> links = RandomGaugeField<double>(lattice, seed);
  std::unique_ptr<TemporalGauge<double>> fixed;  // for /gf specs, made on first use
  SpinorField<double> source(lattice);
  FillGaussian(source, seed + 1);
  GpuGaugeLinks plain(links, false);
  std::unique_ptr<GpuGaugeLinks> gauge_fixed;
  GpuSpinorField<double> b(lattice, Subset::kFull);
  b.Upload(source);
  std::printf("\nlattice %s, Haar-random links (seed %llu), Gaussian source, eps = %.0e, median of %d\n",
              lattice.ToString().c_str(), static_cast<unsigned long long>(seed), specs.front().tolerance, repetitions);
  std::printf("%6s %-34s %-11s %6s %6s %6s %9s %8s %8s  %s\n", "kappa", "solver", "status", "iters", "updts",
              "lowapp", "time s", "GFLOPS", "speedup", "true residual");
  for (double kappa : kappas) {
    const WilsonParams w = WilsonParams::FromKappa(kappa);
    double baseline = 0;
    for (const SolverSpec& spec : specs) {
      if (spec.temporal_gauge && !gauge_fixed) {
        fixed = std::make_unique<TemporalGauge<double>>(TemporalGaugeFix(links));
        gauge_fixed = std::make_unique<GpuGaugeLinks>(fixed->field, true);
      }
      GpuGaugeLinks& on = spec.temporal_gauge ? *gauge_fixed : plain;
      auto solve = [&] {
        GpuSpinorField<double> x(lattice, Subset::kFull);
        return SolveWithSpecOnGpu(spec, on, w, x, b);
      };
      solve();  // untimed: tunes every kernel the solve launches
      const SolveResult r = Median(repetitions, solve);
      if (baseline == 0) baseline = r.seconds;
      PrintRow(kappa, spec.Name(), r, baseline);
    }
  }
}

// Median time of `repetitions` calls of `run` between CUDA events (a reduction includes its host round
// trip), after one warm-up call.
template <typename F>
double MedianMicroseconds(int repetitions, F&& run) {
  run();
  EventTimer timer;
  std::vector<double> us;
  for (int r = 0; r < repetitions; ++r) {
    timer.Start();
    run();
    us.push_back(1e3 * timer.Stop());
  }
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return us[us.size() / 2];
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
    const double us = MedianMicroseconds(50, item.run);
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
    int repetitions = 3, max_iterations = 20000;
    std::uint64_t seed = 1;
    double tolerance = 1e-12;
    command_line::FlagSet flags(
        "solver_benchmark",
        "Time to solution of the even-odd Wilson system on the GPU for solver specs over kappa (the paper's\n"
        "Figure 7 analogue), then the bandwidth of the fused vector kernels. Measures; asserts nothing.");
    flags.Extents("lattice", &extents, "lattice");
    flags.DoubleList("kappas", &kappas, "hopping parameters", command_line::Range::Open(0, 0.25));
    flags.String("solvers", &solver_list, "SPEC,...",
                 "solver specs (solvers/solver_spec.h); the first is the baseline of the speed-up");
    flags.Int("repetitions", &repetitions, 1, 1000, "timed solves per spec and kappa (the median is reported)");
    flags.Unsigned64("seed", &seed, "seed of the random links and source");
    flags.Double("tolerance", &tolerance, "eps: full-lattice true residual", command_line::Range::Open(0, 1));
    flags.Int("max-iterations", &max_iterations, 1, 100000000, "iteration budget per solve");
    if (!flags.Parse(argc, argv, std::cout)) return 0;
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
    const Lattice lattice(extents);
    if (const std::string why = NoDeviceReason(); !why.empty()) {
      std::printf("solver_benchmark: %s\n", why.c_str());
      return 1;
    }
    std::printf("solver_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
    const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
    std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
    SolveTable(lattice, kappas, specs, repetitions, seed);
    BlasTable(lattice, copy.kernel_gbs);
    return 0;
  });
}
