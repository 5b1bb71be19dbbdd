// block_solver_benchmark: n Wilson (or Wilson-clover) systems M x_k = b_k solved as one lockstep block (the block
// form of a solver spec, gpu/spec_solver.h SolveBlockWithSpecOnGpu: every M_ee application, in every precision
// the spec uses, serves all unconverged systems with the links, and the clover term, read once per site) against
// the same n systems solved one after another by the same spec (SolveWithSpecOnGpu), on the GPU, per column.
//
//   block_solver_benchmark [--lattice=32x32x32x32 | --gauge=PATH] [--kappa=0.12] [--rhs=1,2,4,8,12]
//                          [--solver=SPEC[,SPEC...]] [--tolerance=1e-10] [--max-iterations=20000] [--seed=1]
//                          [--fermion=wilson|clover] [--csw=1] [--clover-form=complement|unit-diagonal]
//                          [--csv=FILE]
//
// --solver is one GPU solver spec or a comma-separated list of them (solvers/solver_spec.h): "bicgstab:double/18",
// "bicgstab:single/12", "bicgstab-reliable:half/12:0.1", "cg-dc:single/8:1e-3", ...; each gets its own table.
// Sources: Gaussian full-lattice fields (seeds seed + k), x = 0; the whole even-odd solve (source preparation,
// Schur solve, reconstruction, the true-residual check) is timed. Each configuration is solved once untimed first
// (the tuner times its kernels then), then once timed by the wall clock (each solve ends with its true-residual
// check, which waits for the device).
//
// --fermion=clover solves the Wilson-clover matrix M = (4 + m) + A - D/2 (reference/clover.h; c_sw = --csw,
// traceless field strength, the even-odd --clover-form) instead: the clover term is built once on the host from
// the links (GpuCloverTerms, as the main job's GPU path builds it) and shared by every solve; a T(n) that is
// singular or ill-conditioned on these links is refused naming kappa and c_sw. On Haar-random links |A| <= 4 c_sw,
// so kappa < 1 / (8 c_sw) keeps T positive definite (the default kappa 0.12 at c_sw = 1); a thermalised
// configuration (--gauge) allows the physical kappas.
//
// --csv=FILE also writes one row per (spec, n) (kCsvHeader below; experiments/plot_block_solver.py plots it):
// seconds per column of both ways, the speed-up per column, mean iterations and reliable updates, whether every
// solve converged, the largest true residual, with the lattice, links, action, spec and device the row came from.
// Memory: the block holds the solver's work fields for every system. Measures and prints; asserts nothing about
// speed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/cli/command_line.h"
#include "reference/cli/csv_cell.h"
#include "reference/clover.h"
#include "reference/io/gauge_io.h"
#include "reference/su3_random.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

struct Options {
  double kappa = 0.12;
  std::vector<int> rhs{1, 2, 4, 8, 12};
  std::string solvers = "bicgstab";
  double tolerance = 1e-10;
  int max_iterations = 20000;
  std::uint64_t seed = 1;
  bool clover = false;
  double c_sw = 1.0;  // clover only
  CloverSchurForm clover_form = CloverSchurForm::kComplement;
  std::string csv;  // empty: no CSV
};

// One row per (spec, n). csw and clover_form are empty for Wilson; all_converged is 1 when every timed solve
// (separate and block) converged; max_true_residual is the largest |b - M x| / |b| of those solves.
constexpr char kCsvHeader[] =
    "lattice,links,fermion,kappa,csw,clover_form,solver,tolerance,rhs,separate_seconds_per_column,"
    "block_seconds_per_column,speedup_per_column,separate_mean_iterations,block_mean_iterations,"
    "separate_mean_reliable_updates,block_mean_reliable_updates,all_converged,max_true_residual,device";

const char* CloverFormWord(CloverSchurForm form) {  // as --clover-form spells it
  return form == CloverSchurForm::kUnitDiagonal ? "unit-diagonal" : "complement";
}

// The specs of --solver with the tolerance and budget; checked (for this action on the GPU) before any work.
std::vector<solvers::SolverSpec> ParseSpecs(const Options& o) {
  std::vector<solvers::SolverSpec> specs;
  for (const std::string& text : command_line::SplitList("solver", o.solvers)) {
    try {
      solvers::SolverSpec spec = solvers::SolverSpec::Parse(text);
      spec.tolerance = o.tolerance;
      spec.max_iterations = o.max_iterations;
      spec.Validate();
      solvers::RequireSupported(spec, GpuCapabilities(), o.clover);
      if (spec.temporal_gauge) throw std::invalid_argument("'/gf' specs are not offered here");
      specs.push_back(spec);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--solver: " + std::string(e.what()));
    }
  }
  return specs;
}

// The clover parameters of --kappa and --csw; std::invalid_argument naming both if they are refused.
CloverParams CloverParamsOf(const Options& o) {
  try {
    return CloverParams::FromKappa(o.kappa, o.c_sw);
  } catch (const std::invalid_argument& e) {
    std::ostringstream what;
    what << "--csw=" << o.c_sw << " at --kappa=" << o.kappa << ": " << e.what();
    throw std::invalid_argument(what.str());
  }
}

// The matrix every solve inverts: the Wilson matrix of kappa, or the Wilson-clover matrix of (kappa, c_sw) in the
// chosen even-odd form, whose clover term is built once here from the links and shared by every solve.
class BenchmarkSystem {
 public:
  BenchmarkSystem(const GaugeField<double>& u, const Options& o)
      : wilson_(WilsonParams::FromKappa(o.kappa)), clover_form_(o.clover_form) {
    if (!o.clover) return;
    try {
      clover_ = std::make_unique<GpuCloverTerms>(u, CloverParamsOf(o));
    } catch (const std::domain_error& e) {
      std::ostringstream what;
      what << "the clover term T at kappa " << o.kappa << ", c_sw " << o.c_sw
           << " is ill-conditioned on these links (lower --kappa or --csw): " << e.what();
      throw std::domain_error(what.str());
    }
  }

  solvers::SolveResult Solve(const solvers::SolverSpec& spec, GpuGaugeLinks& links, GpuSpinorField<double>& x,
                             const GpuSpinorField<double>& b) {
    return clover_ ? SolveWithSpecOnGpu(spec, links, *clover_, clover_form_, x, b)
                   : SolveWithSpecOnGpu(spec, links, wilson_, x, b);
  }

  std::vector<solvers::SolveResult> SolveBlock(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                               std::vector<GpuSpinorField<double>>& x,
                                               const std::vector<GpuSpinorField<double>>& b) {
    return clover_ ? SolveBlockWithSpecOnGpu(spec, links, *clover_, clover_form_, x, b)
                   : SolveBlockWithSpecOnGpu(spec, links, wilson_, x, b);
  }

 private:
  WilsonParams wilson_;
  CloverSchurForm clover_form_;
  std::unique_ptr<GpuCloverTerms> clover_;  // null for Wilson
};

// What a row records besides its spec and n, the same for every row of a run.
struct RunContext {
  std::string links;   // "haar-random seed N" or the configuration file
  std::string device;  // the GPU's name
};

void Run(const GaugeField<double>& u, const Options& o, const RunContext& context, std::ofstream* csv) {
  const Lattice& lattice = u.lattice();
  const std::vector<solvers::SolverSpec> specs = ParseSpecs(o);
  BenchmarkSystem system(u, o);
  GpuGaugeLinks links(u, /*temporal_gauge_fixed=*/false);
  const int max_n = *std::max_element(o.rhs.begin(), o.rhs.end());
  std::vector<SpinorField<double>> sources;
  for (int k = 0; k < max_n; ++k) {
    sources.emplace_back(lattice, Subset::kFull);
    FillGaussian(sources.back(), o.seed + k);
  }
  std::string fermion;  // empty for Wilson: its header is unchanged
  if (o.clover) {
    std::ostringstream text;
    text << ", Wilson-clover c_sw = " << o.c_sw << " (traceless F), " << ToString(o.clover_form) << " form";
    fermion = text.str();
  }
  for (const solvers::SolverSpec& spec : specs) {
    std::printf("\n%s, kappa %.4f, Gaussian sources, x = 0%s\n", spec.Describe().c_str(), o.kappa, fermion.c_str());
    std::printf("%3s | %10s %7s %7s | %10s %7s %7s | %8s\n", "n", "separate", "iters", "updates", "block", "iters",
                "updates", "speedup");
    std::printf("%3s | %10s %7s %7s | %10s %7s %7s | %8s\n", "", "s/column", "mean", "mean", "s/column", "mean",
                "mean", "/column");
    for (int n : o.rhs) {
      std::vector<GpuSpinorField<double>> b;
      for (int k = 0; k < n; ++k) {
        b.emplace_back(lattice, Subset::kFull);
        b.back().Upload(sources[k]);
      }
      struct Totals {
        double seconds = 0, iterations = 0, updates = 0, max_true_residual = 0;
        bool converged = true;
        void Add(const solvers::SolveResult& r) {
          iterations += r.iterations;
          updates += r.high_precision_updates;
          max_true_residual = std::max(max_true_residual, r.true_residual);
          converged = converged && r.converged();
        }
      };
      auto separate = [&] {
        Totals t;
        t.seconds = WallSeconds([&] {
          for (int k = 0; k < n; ++k) {
            GpuSpinorField<double> x(lattice, Subset::kFull);
            t.Add(system.Solve(spec, links, x, b[k]));
          }
        });
        return t;
      };
      auto block = [&] {
        Totals t;
        std::vector<GpuSpinorField<double>> x;
        for (int k = 0; k < n; ++k) x.emplace_back(lattice, Subset::kFull);
        std::vector<solvers::SolveResult> records;
        t.seconds = WallSeconds([&] { records = system.SolveBlock(spec, links, x, b); });
        for (const auto& r : records) t.Add(r);
        return t;
      };
      (void)separate();  // tunes
      (void)block();
      const Totals one = separate();
      const Totals all = block();
      const bool all_converged = one.converged && all.converged;
      std::printf("%3d | %10.4f %7.1f %7.1f | %10.4f %7.1f %7.1f | %7.2fx%s\n", n, one.seconds / n,
                  one.iterations / n, one.updates / n, all.seconds / n, all.iterations / n, all.updates / n,
                  one.seconds / all.seconds, all_converged ? "" : "  (not all converged)");
      if (csv != nullptr) {
        *csv << lattice.ToString() << "," << CsvCell(context.links) << "," << (o.clover ? "clover" : "wilson") << ","
             << o.kappa << ",";
        if (o.clover) *csv << o.c_sw;
        *csv << "," << (o.clover ? CloverFormWord(o.clover_form) : "") << "," << CsvCell(spec.Name()) << ","
             << spec.tolerance << "," << n << "," << one.seconds / n << "," << all.seconds / n << ","
             << one.seconds / all.seconds << "," << one.iterations / n << "," << all.iterations / n << ","
             << one.updates / n << "," << all.updates / n << "," << (all_converged ? 1 : 0) << ","
             << std::max(one.max_true_residual, all.max_true_residual) << "," << CsvCell(context.device) << "\n";
        csv->flush();  // a run cut short keeps the rows it finished
      }
    }
  }
}

// Refuses --csv naming the configuration it would overwrite (before anything is opened).
void CheckCsvIsNotTheGauge(const std::string& csv, const std::string& gauge) {
  if (csv.empty() || gauge.empty()) return;
  std::error_code ignored;
  if (csv == gauge || std::filesystem::equivalent(csv, gauge, ignored)) {
    throw std::invalid_argument("--csv=" + csv + " is the --gauge configuration file; give another file");
  }
}

int Main(int argc, char** argv) {
  Options o;
  Coordinates extents{32, 32, 32, 32};
  std::string gauge_path;
  int seed = 1;
  enum class Fermion { kWilson, kClover } fermion = Fermion::kWilson;
  command_line::FlagSet flags(
      "block_solver_benchmark",
      "n even-odd Wilson (or Wilson-clover) systems on the GPU solved as one lockstep block (the block form of\n"
      "--solver: the links, and the clover term, read once per site for every system in every M_ee application)\n"
      "against n solves by the same spec one after another; seconds per column, mean iterations and reliable\n"
      "updates, speed-up per column (--csv: also as rows, experiments/plot_block_solver.py plots them). Haar-random\n"
      "links (or --gauge=PATH), Gaussian sources. Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice of the Haar-random links (ignored with --gauge)");
  flags.String("gauge", &gauge_path, "PATH", "read the links from a NERSC, LIME or MILC file instead");
  flags.Double("kappa", &o.kappa, "hopping parameter", command_line::Range::Open(0, 0.25));
  flags.IntList("rhs", &o.rhs, 1, 64, "block sizes, a list");
  flags.String("solver", &o.solvers, "SPEC[,SPEC...]",
               "solver specs (solvers/solver_spec.h), one table each, e.g. bicgstab-reliable:half/12:0.1");
  flags.Double("tolerance", &o.tolerance, "|b - M x| / |b| to reach (per system)", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 10000000, "per system");
  flags.Int("seed", &seed, 0, 1 << 30, "sources: Gaussian with seeds seed + k; links with seed + 1000");
  flags.Choice<Fermion>("fermion", &fermion, {{"wilson", Fermion::kWilson}, {"clover", Fermion::kClover}},
                        "fermion action");
  flags.Double("csw", &o.c_sw, "clover coefficient (clover only; 1 = tree level)", command_line::Range::AtLeast(0));
  flags.Choice<CloverSchurForm>("clover-form", &o.clover_form,
                                {{"complement", CloverSchurForm::kComplement},
                                 {"unit-diagonal", CloverSchurForm::kUnitDiagonal}},
                                "even-odd form of the clover matrix (clover only)");
  flags.String("csv", &o.csv, "FILE", "also write one row per spec and n to this CSV (plot_block_solver.py)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  o.seed = static_cast<std::uint64_t>(seed);
  o.clover = fermion == Fermion::kClover;
  // Every refusal comes before looking for a GPU.
  if (flags.Given("csw") && !o.clover) {
    throw std::invalid_argument("--csw needs --fermion=clover (the Wilson action has no clover term)");
  }
  if (flags.Given("clover-form") && !o.clover) throw std::invalid_argument("--clover-form needs --fermion=clover");
  if (o.clover) (void)CloverParamsOf(o);
  (void)ParseSpecs(o);
  CheckCsvIsNotTheGauge(o.csv, gauge_path);
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("block_solver_benchmark: %s\n", why.c_str());
    return 1;
  }
  const DeviceInfo device = CurrentDeviceInfo();
  std::printf("block_solver_benchmark: %s\n", Describe(device).c_str());
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw std::runtime_error("--csv: cannot write " + o.csv);
    csv << std::setprecision(9) << kCsvHeader << "\n";
  }
  std::unique_ptr<GaugeConfiguration> file;
  if (!gauge_path.empty()) file = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(gauge_path));
  const GaugeField<double> u = file ? file->field : RandomGaugeField<double>(Lattice(extents), o.seed + 1000);
  std::printf("links: %s, lattice %s\n", file ? gauge_path.c_str() : "Haar-random", u.lattice().ToString().c_str());
  const RunContext context{file ? gauge_path : "haar-random seed " + std::to_string(o.seed + 1000), device.name};
  Run(u, o, context, o.csv.empty() ? nullptr : &csv);
  if (!o.csv.empty()) std::printf("\nwrote %s\n", o.csv.c_str());
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("block_solver_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
