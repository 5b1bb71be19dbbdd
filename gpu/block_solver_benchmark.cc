// block_solver_benchmark: n systems M_ee x_k = b_k solved as one lockstep block (block BiCGstab on the
// multi-RHS operator: every M_ee application serves all unconverged systems, the links read once per site for
// all of them) against the same n systems solved one after another by BiCGstab, on the GPU, per column.
//
//   block_solver_benchmark [--lattice=32x32x32x32 | --gauge=PATH] [--kappa=0.12] [--rhs=1,2,4,8,12]
//                          [--precision=double|single] [--links=18|12|8] [--tolerance=1e-10]
//                          [--max-iterations=20000] [--seed=1]
//
// Sources: Gaussian even-parity fields (seeds seed + k), x = 0. The separate solves are the production
// BiCGstab (its dot products fused into M_ee); the block solver sums them separately per system (the
// operator's block application has no fused reductions). Each configuration is solved once untimed first (the
// tuner times its kernels then), then once timed; wall-clock seconds from the solvers' own records (each ends
// with the true-residual check, which waits for the device). Memory: the block holds 5 work fields per system
// plus 1 temporary per system in the operator. Measures and prints; asserts nothing about speed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "reference/cli/command_line.h"
#include "reference/io/gauge_io.h"
#include "reference/su3_random.h"
#include "solvers/bicgstab.h"
#include "solvers/block_bicgstab.h"

namespace lqcd::gpu {
namespace {

struct Options {
  double kappa = 0.12;
  std::vector<int> rhs{1, 2, 4, 8, 12};
  std::string precision = "double";
  std::string links = "18";
  double tolerance = 1e-10;
  int max_iterations = 20000;
  std::uint64_t seed = 1;
};

template <typename P>
void Run(const GaugeField<double>& u, const Options& o) {
  const Lattice& lattice = u.lattice();
  const WilsonParams w = WilsonParams::FromKappa(o.kappa);
  GpuOperatorLayout layout;
  layout.reconstruct = ParseReconstruct(o.links);
  GpuWilsonSchur<P> schur(u, w, Parity::kEven, layout);
  solvers::SolverParams params;
  params.tolerance = o.tolerance;
  params.max_iterations = o.max_iterations;
  const int max_n = *std::max_element(o.rhs.begin(), o.rhs.end());
  std::vector<SpinorField<double>> sources;
  for (int k = 0; k < max_n; ++k) {
    sources.emplace_back(lattice, Subset::kEven);
    FillGaussian(sources.back(), o.seed + k);
  }
  std::printf("\n%s, kappa %.4f, BiCGstab to %.0e, Gaussian sources, x = 0\n", schur.Name().c_str(), o.kappa,
              o.tolerance);
  std::printf("%3s | %10s %7s | %10s %7s %7s | %8s %12s\n", "n", "separate", "iters", "block", "iters", "appl",
              "speedup", "model GB/app");
  std::printf("%3s | %10s %7s | %10s %7s %7s | %8s %12s\n", "", "s/column", "mean", "s/column", "mean", "blocks",
              "/column", "per column");
  for (int n : o.rhs) {
    std::vector<GpuSpinorField<P>> rhs;
    for (int k = 0; k < n; ++k) {
      rhs.push_back(schur.NewField());
      rhs.back().Upload(sources[k]);
    }
    auto separate = [&] {
      double seconds = 0, iterations = 0;
      bool converged = true;
      for (int k = 0; k < n; ++k) {
        GpuSpinorField<P> x = schur.NewField();
        const solvers::SolveResult r = solvers::BiCGstab(schur, x, rhs[k], params);
        seconds += r.seconds;
        iterations += r.iterations;
        converged = converged && r.converged();
      }
      return std::make_tuple(seconds, iterations / n, converged);
    };
    auto block = [&] {
      std::vector<GpuSpinorField<P>> x;
      for (int k = 0; k < n; ++k) x.push_back(schur.NewField());
      return solvers::BlockBiCGstab(schur, x, rhs, params);
    };
    (void)separate();  // tunes
    (void)block();
    const auto [separate_seconds, separate_iterations, separate_converged] = separate();
    const solvers::BlockSolveResult r = block();
    double block_iterations = 0;
    for (const auto& s : r.systems) block_iterations += s.iterations;
    std::printf("%3d | %10.4f %7.1f | %10.4f %7.1f %7d | %7.2fx %12.3f%s\n", n, separate_seconds / n,
                separate_iterations, r.seconds / n, block_iterations / n, r.block_applications,
                separate_seconds / r.seconds, r.bytes / r.block_applications / 1e9 / n,
                separate_converged && r.all_converged() ? "" : "  (not all converged)");
  }
}

int Main(int argc, char** argv) {
  Options o;
  Coordinates extents{32, 32, 32, 32};
  std::string gauge_path;
  int seed = 1;
  command_line::FlagSet flags(
      "block_solver_benchmark",
      "n even-odd Wilson systems on the GPU solved as one lockstep block (block BiCGstab on the multi-RHS M_ee:\n"
      "the links read once per site for every system) against n BiCGstab solves one after another; seconds per\n"
      "column, mean iterations, speed-up per column. Haar-random links (or --gauge=PATH), Gaussian sources.\n"
      "Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice of the Haar-random links (ignored with --gauge)");
  flags.String("gauge", &gauge_path, "PATH", "read the links from a NERSC, LIME or MILC file instead");
  flags.Double("kappa", &o.kappa, "hopping parameter", command_line::Range::Open(0, 0.25));
  flags.IntList("rhs", &o.rhs, 1, 64, "block sizes, a list");
  flags.Choice<std::string>("precision", &o.precision, {{"double", "double"}, {"single", "single"}},
                            "precision of the links, the fields and the solve");
  flags.Choice<std::string>("links", &o.links, {{"18", "18"}, {"12", "12"}, {"8", "8"}}, "reals stored per link");
  flags.Double("tolerance", &o.tolerance, "|b - M x| / |b| to reach (per system)", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 10000000, "per system");
  flags.Int("seed", &seed, 0, 1 << 30, "sources: Gaussian with seeds seed + k; links with seed + 1000");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  o.seed = static_cast<std::uint64_t>(seed);
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("block_solver_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("block_solver_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  std::unique_ptr<GaugeConfiguration> file;
  if (!gauge_path.empty()) file = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(gauge_path));
  const GaugeField<double> u = file ? file->field : RandomGaugeField<double>(Lattice(extents), o.seed + 1000);
  std::printf("links: %s, lattice %s\n", file ? gauge_path.c_str() : "Haar-random", u.lattice().ToString().c_str());
  if (o.precision == "double") {
    Run<double>(u, o);
  } else {
    Run<float>(u, o);
  }
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("block_solver_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
