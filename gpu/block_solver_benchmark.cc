// block_solver_benchmark: n Wilson systems M x_k = b_k solved as one lockstep block (the block form of a solver
// spec, gpu/spec_solver.h SolveBlockWithSpecOnGpu: every M_ee application, in every precision the spec uses,
// serves all unconverged systems with the links read once per site) against the same n systems solved one
// after another by the same spec (SolveWithSpecOnGpu), on the GPU, per column.
//
//   block_solver_benchmark [--lattice=32x32x32x32 | --gauge=PATH] [--kappa=0.12] [--rhs=1,2,4,8,12]
//                          [--solver=bicgstab] [--tolerance=1e-10] [--max-iterations=20000] [--seed=1]
//
// --solver is any GPU solver spec (solvers/solver_spec.h): "bicgstab:double/18", "bicgstab:single/12",
// "bicgstab-reliable:half/12:0.1", "cg-dc:single/8:1e-3", ... Sources: Gaussian full-lattice fields (seeds
// seed + k), x = 0; the whole even-odd solve (source preparation, Schur solve, reconstruction, the true-residual
// check) is timed. Each configuration is solved once untimed first (the tuner times its kernels then), then
// once timed by the wall clock (each solve ends with its true-residual check, which waits for the device).
// Memory: the block holds the solver's work fields for every system. Measures and prints; asserts nothing about
// speed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/cli/command_line.h"
#include "reference/io/gauge_io.h"
#include "reference/su3_random.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

struct Options {
  double kappa = 0.12;
  std::vector<int> rhs{1, 2, 4, 8, 12};
  std::string solver = "bicgstab";
  double tolerance = 1e-10;
  int max_iterations = 20000;
  std::uint64_t seed = 1;
};

// The spec of --solver with the tolerance and budget; checked before any work.
solvers::SolverSpec ParseSpec(const Options& o) {
  solvers::SolverSpec spec = solvers::SolverSpec::Parse(o.solver);
  spec.tolerance = o.tolerance;
  spec.max_iterations = o.max_iterations;
  spec.Validate();
  solvers::RequireSupported(spec, GpuCapabilities(), /*clover=*/false);
  if (spec.temporal_gauge) throw std::invalid_argument("--solver: '/gf' specs are not offered here");
  return spec;
}

void Run(const GaugeField<double>& u, const Options& o) {
  const Lattice& lattice = u.lattice();
  const WilsonParams w = WilsonParams::FromKappa(o.kappa);
  const solvers::SolverSpec spec = ParseSpec(o);
  GpuGaugeLinks links(u, /*temporal_gauge_fixed=*/false);
  const int max_n = *std::max_element(o.rhs.begin(), o.rhs.end());
  std::vector<SpinorField<double>> sources;
  for (int k = 0; k < max_n; ++k) {
    sources.emplace_back(lattice, Subset::kFull);
    FillGaussian(sources.back(), o.seed + k);
  }
  std::printf("\n%s, kappa %.4f, Gaussian sources, x = 0\n", spec.Describe().c_str(), o.kappa);
  std::printf("%3s | %10s %7s %7s | %10s %7s %7s | %8s\n", "n", "separate", "iters", "updates", "block", "iters",
              "updates", "speedup");
  std::printf("%3s | %10s %7s %7s | %10s %7s %7s | %8s\n", "", "s/column", "mean", "mean", "s/column", "mean", "mean",
              "/column");
  for (int n : o.rhs) {
    std::vector<GpuSpinorField<double>> b;
    for (int k = 0; k < n; ++k) {
      b.emplace_back(lattice, Subset::kFull);
      b.back().Upload(sources[k]);
    }
    struct Totals {
      double seconds = 0, iterations = 0, updates = 0;
      bool converged = true;
      void Add(const solvers::SolveResult& r) {
        iterations += r.iterations;
        updates += r.high_precision_updates;
        converged = converged && r.converged();
      }
    };
    auto separate = [&] {
      Totals t;
      t.seconds = WallSeconds([&] {
        for (int k = 0; k < n; ++k) {
          GpuSpinorField<double> x(lattice, Subset::kFull);
          t.Add(SolveWithSpecOnGpu(spec, links, w, x, b[k]));
        }
      });
      return t;
    };
    auto block = [&] {
      Totals t;
      std::vector<GpuSpinorField<double>> x;
      for (int k = 0; k < n; ++k) x.emplace_back(lattice, Subset::kFull);
      std::vector<solvers::SolveResult> records;
      t.seconds = WallSeconds([&] { records = SolveBlockWithSpecOnGpu(spec, links, w, x, b); });
      for (const auto& r : records) t.Add(r);
      return t;
    };
    (void)separate();  // tunes
    (void)block();
    const Totals one = separate();
    const Totals all = block();
    std::printf("%3d | %10.4f %7.1f %7.1f | %10.4f %7.1f %7.1f | %7.2fx%s\n", n, one.seconds / n, one.iterations / n,
                one.updates / n, all.seconds / n, all.iterations / n, all.updates / n, one.seconds / all.seconds,
                one.converged && all.converged ? "" : "  (not all converged)");
  }
}

int Main(int argc, char** argv) {
  Options o;
  Coordinates extents{32, 32, 32, 32};
  std::string gauge_path;
  int seed = 1;
  command_line::FlagSet flags(
      "block_solver_benchmark",
      "n even-odd Wilson systems on the GPU solved as one lockstep block (the block form of --solver: the links\n"
      "read once per site for every system in every M_ee application) against n solves by the same spec one after\n"
      "another; seconds per column, mean iterations and reliable updates, speed-up per column. Haar-random links\n"
      "(or --gauge=PATH), Gaussian sources. Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice of the Haar-random links (ignored with --gauge)");
  flags.String("gauge", &gauge_path, "PATH", "read the links from a NERSC, LIME or MILC file instead");
  flags.Double("kappa", &o.kappa, "hopping parameter", command_line::Range::Open(0, 0.25));
  flags.IntList("rhs", &o.rhs, 1, 64, "block sizes, a list");
  flags.String("solver", &o.solver, "SPEC", "solver spec (solvers/solver_spec.h), e.g. bicgstab-reliable:half/12:0.1");
  flags.Double("tolerance", &o.tolerance, "|b - M x| / |b| to reach (per system)", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 10000000, "per system");
  flags.Int("seed", &seed, 0, 1 << 30, "sources: Gaussian with seeds seed + k; links with seed + 1000");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  o.seed = static_cast<std::uint64_t>(seed);
  (void)ParseSpec(o);  // a bad spec is refused before looking for a GPU
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("block_solver_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("block_solver_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  std::unique_ptr<GaugeConfiguration> file;
  if (!gauge_path.empty()) file = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(gauge_path));
  const GaugeField<double> u = file ? file->field : RandomGaugeField<double>(Lattice(extents), o.seed + 1000);
  std::printf("links: %s, lattice %s\n", file ? gauge_path.c_str() : "Haar-random", u.lattice().ToString().c_str());
  Run(u, o);
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("block_solver_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
