// multi_mass: paper 002's multi-mass study (Alexandru, Pelissier, Gamari, Lee, arXiv:1103.5103, its Figure 6
// and Table 3) on a quenched Wilson configuration, on the CPU oracle or the GPU.
//
// For each mass set of 002's Table 2 (wide: pion masses ~500-2200 MeV, narrow: ~500-600 MeV; 8 masses each),
// the Wilson systems M(m_i) x_i = b (b a Gaussian source; a point source breaks BiCGstab-M down exactly:
// with r0 = b = delta at one site, s = b - alpha M b vanishes there and (r0, M s) = 0 because the projectors
// of a hop out and back multiply to (1 - gamma)(1 + gamma) = 0, so rho = (r0, r) = 0) are solved to
// |b - M x| / |b| <= --tolerance in three ways:
//   - single-mass: the --solver spec (default: even-odd reliable-update BiCGstab with a single-precision inner
//     operator) for each mass, heaviest first, each started from a guess built from the solutions already
//     found (solvers/multi_mass.h): zero (the baseline), polynomial extrapolation of each order in --orders
//     (the highest: through all earlier solutions), and solution-space minimisation; on the GPU the driver, its
//     solutions and guesses stay on the device (SingleMassRunner);
//   - BiCGstab-M on the full matrix M(m_min) + sigma_i (solvers/multishift_bicgstab.h; double, no even-odd:
//     the even-odd Schur complement is not a shifted family).
// CG-M is not run: M(m + sigma)^dag M(m + sigma) = M^dag M + sigma (M + M^dag) + sigma^2 is not
// M^dag M + sigma, so the shifted normal equations are not this family's (002 compares BiCGstab-M too).
// Figure 6: the gain (total iterations / the zero-guess baseline, 002's Eq. 26) against the polynomial order,
// and the minimisation's gain. Table 3: total iterations, ms per iteration, total time and the speed-up of
// the single-mass solver (highest-order guesses) over BiCGstab-M, the fields each holds, and on the GPU the
// device memory each used at its peak (gpu/device_buffer.h's peak window).
//
// Masses: 002's values shifted by (--critical-mass - (-0.8173)), 002's am_c, so that the same distances from
// the critical mass (the same pion masses, to the extent am - am_c sets them) are used on our ensemble.
// --critical-mass defaults to 002's value (002's ensemble, a ~ 0.1 fm, is close to ours at beta = 6.0). This
// program does not measure it; the solver tables' pion and PCAC fits do (experiments/critical_mass.h;
// the GPU bundle's run_multi_mass.sh runs them on the same ensemble first).
//
// Writes to --output: figure6.csv, table3.csv, multi_mass.md, figure6.png (matplotlib; --no-plot skips it).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "experiments/plot_runner.h"
#include "experiments/quenched_ensemble.h"
#include "experiments/sweep_engine.h"
#include "experiments/text_format.h"
#include "gpu/device_buffer.h"
#include "gpu/device_gauge_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/spec_solver.h"
#include "reference/cli/command_line.h"
#include "reference/io/gauge_io.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/multi_mass.h"
#include "solvers/multishift_bicgstab.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {
namespace {

namespace fs = std::filesystem;
using solvers::GuessStrategy;
using solvers::MultiMassOptions;
using solvers::MultiMassResult;
using solvers::SolverSpec;

constexpr double kPaperCriticalMass = -0.8173;  // 002's am_c on its ensemble
const std::vector<double> kWideSet = {-0.7908, -0.7721, -0.7511, -0.7320, -0.7105, -0.6193, -0.5108, -0.2687};
const std::vector<double> kNarrowSet = {-0.7908, -0.7887, -0.7866, -0.7846, -0.7825, -0.7804, -0.7784, -0.7763};

struct Options {
  std::string config;
  EnsembleSpec ensemble;
  std::vector<std::string> sets{"wide", "narrow"};
  double critical_mass = kPaperCriticalMass;
  std::string solver = "bicgstab-reliable:single:0.1";
  std::vector<int> orders{0, 1, 2, 3, 4, 5, 6, 7};
  double tolerance = 1e-10;
  int max_iterations = 100000;
  BackendKind backend = BackendKind::kAuto;
  std::string output = "multi_mass_out";
  bool no_plot = false;
  std::string plot_script;
};

std::vector<double> MassesOf(const std::string& set, double critical_mass) {
  std::vector<double> masses = set == "wide" ? kWideSet : kNarrowSet;
  for (double& m : masses) m += critical_mass - kPaperCriticalMass;
  return masses;
}

// One strategy of the single-mass solver over a mass set.
struct StrategyRun {
  std::string strategy;  // "zero", "polynomial", "minimal-residual"
  int order = -1;        // polynomial order (-1: highest, or not polynomial)
  MultiMassResult result;
};

// M(m) on the multi-mass driver's host fields (the CPU backend), for the applications solvers/multi_mass.h makes
// itself (the images A(m_j) x_j of the solution-space minimisation). It holds references only, because the
// driver makes one per mass: a CpuWilson would copy the links and allocate two scratch fields each time.
class HostWilsonAtMass {
 public:
  using Backend = solvers::CpuBackend;
  using Precision = double;
  using Field = SpinorField<double>;

  HostWilsonAtMass(const GaugeField<double>& u, const WilsonParams& params) : u_(u), params_(params) {}
  void Apply(Field& out, const Field& in) const { ApplyWilson(out, u_, in, params_, Dagger::kNo); }
  Field NewField() const { return Field(u_.lattice(), Subset::kFull); }
  double FlopsPerApply() const { return (kHoppingFlopsPerSite + 48) * u_.lattice().volume(); }
  std::string Name() const { return "M<double>"; }

 private:
  const GaugeField<double>& u_;
  WilsonParams params_;
};

// The Wilson action of the study at `mass` (the default basis and boundary, as the source is made in).
FermionAction ActionAt(double mass) {
  FermionAction action;
  action.mass = mass;
  return action;
}

// One strategy over a mass set with the driver on the backend's own fields: x one field per mass, make_operator(m)
// the full M(m) (the driver's residual images), solve(m, x, b) the spec's solve from the guess in x.
template <typename Field, typename MakeOperator, typename Solve>
StrategyRun RunStrategy(const std::vector<double>& masses, std::vector<Field>& x, const Field& b,
                        const SolverSpec& spec, GuessStrategy guess, int order, MakeOperator&& make_operator,
                        Solve&& solve) {
  MultiMassOptions options;
  options.guess = guess;
  options.polynomial_order = order;
  options.shifted_family = true;  // M(m) = M(m') + (m - m') 1 on the full lattice
  options.measure_guess_residual = false;
  StrategyRun run;
  run.strategy = solvers::ToString(guess);
  run.order = order;
  run.result = solvers::SolveMultiMass(
      masses, x, b, spec.Params(), options, make_operator,
      [&](double m, Field& xm, const Field& bm, const solvers::SolverParams&) { return solve(m, xm, bm); });
  return run;
}

// The single-mass strategies on one backend. On the GPU everything stays on the device: the source, the
// solutions the guesses are built from (full-lattice double fields), the guesses (the backend's vector
// operations) and every solve (gpu::SolveWithSpecOnGpu on links uploaded once); nothing crosses the bus per
// mass. On the CPU the oracle's DiracSolver solves on host fields.
class SingleMassRunner {
 public:
  SingleMassRunner(BackendChoice backend, const GaugeField<double>& u, const SpinorField<double>& b,
                   const SolverSpec& spec)
      : backend_(backend.kind), u_(u), b_(b), spec_(spec) {
    if (backend_ == BackendKind::kGpu) {
      links_ = std::make_unique<gpu::GpuGaugeLinks>(u, false);
      b_device_ = std::make_unique<gpu::GpuSpinorField<double>>(u.lattice(), Subset::kFull);
      b_device_->Upload(b, FermionAction{}.basis);
    } else {
      solver_ = MakeDiracSolver(backend, u);
    }
  }

  StrategyRun Run(const std::vector<double>& masses, GuessStrategy guess, int order) {
    if (backend_ == BackendKind::kGpu) {
      std::vector<gpu::GpuSpinorField<double>> x;
      for (std::size_t i = 0; i < masses.size(); ++i) x.emplace_back(u_.lattice(), Subset::kFull);
      const std::shared_ptr<const gpu::DeviceGaugeField> links = links_->Get<double>(18);
      return RunStrategy(
          masses, x, *b_device_, spec_, guess, order,
          [&](double m) { return gpu::GpuWilson<double>(links, ActionAt(m).wilson()); },
          [&](double m, gpu::GpuSpinorField<double>& xm, const gpu::GpuSpinorField<double>& bm) {
            return gpu::SolveWithSpecOnGpu(spec_, *links_, ActionAt(m).wilson(), xm, bm);
          });
    }
    std::vector<SpinorField<double>> x(masses.size(), SpinorField<double>(u_.lattice()));
    return RunStrategy(
        masses, x, b_, spec_, guess, order, [&](double m) { return HostWilsonAtMass(u_, ActionAt(m).wilson()); },
        [&](double m, SpinorField<double>& xm, const SpinorField<double>& bm) {
          return solver_->Solve(ActionAt(m), spec_, bm, xm).result;
        });
  }

 private:
  BackendKind backend_;
  const GaugeField<double>& u_;
  const SpinorField<double>& b_;
  SolverSpec spec_;
  std::unique_ptr<DiracSolver> solver_;                       // CPU
  std::unique_ptr<gpu::GpuGaugeLinks> links_;                 // GPU
  std::unique_ptr<gpu::GpuSpinorField<double>> b_device_;     // GPU
};

// BiCGstab-M on M(m_min) + sigma_i, on the backend's full Wilson operator in double.
struct MultiShiftRun {
  solvers::MultiShiftResult result;
  int fields = 0;  // full-lattice double fields the solver holds: x_i and phat_i per shift, r, r0, p, v, t, b
  double device_bytes = -1;  // GPU: the most device memory its links and fields held at once (-1 on the CPU)
};

MultiShiftRun RunMultiShift(BackendKind backend, const GaugeField<double>& u, const std::vector<double>& masses,
                            const SpinorField<double>& b, double tolerance, int max_iterations) {
  const double m_min = *std::min_element(masses.begin(), masses.end());
  std::vector<double> shifts;
  for (double m : masses) shifts.push_back(m - m_min);
  WilsonParams p;
  p.mass = m_min;
  solvers::SolverParams params;
  params.tolerance = tolerance;
  params.max_iterations = max_iterations;
  MultiShiftRun run;
  run.fields = 2 * static_cast<int>(masses.size()) + 6;
  if (backend == BackendKind::kGpu) {
    const std::size_t held_before = gpu::ResetDeviceBufferPeak();  // the single-mass runner's links and source
    const gpu::GpuWilson<double> m(u, p);
    gpu::GpuSpinorField<double> b_device = m.NewField();
    b_device.Upload(b);
    std::vector<gpu::GpuSpinorField<double>> x;
    for (std::size_t i = 0; i < masses.size(); ++i) x.push_back(m.NewField());
    run.result = solvers::MultiShiftBiCGstab(m, shifts, x, b_device, params);
    run.device_bytes = static_cast<double>(gpu::DeviceBufferPeakBytes() - held_before);
  } else {
    const solvers::CpuWilson<double> m(u, p);
    std::vector<SpinorField<double>> x(masses.size(), SpinorField<double>(u.lattice()));
    run.result = solvers::MultiShiftBiCGstab(m, shifts, x, b, params);
  }
  return run;
}

int Main(int argc, char** argv) {
  Options o;
  o.ensemble.generator.extents = {24, 24, 24, 24};
  o.ensemble.generator.beta = 6.0;
  o.ensemble.generator.seed = 1;
  o.ensemble.generator.thermalisation_sweeps = 199;
  o.ensemble.generator.separation_sweeps = 1;
  o.ensemble.generator.configurations = 1;
  o.ensemble.generator.overrelaxation_steps = 4;
  o.ensemble.generator.progress_every = 20;
  std::string sets = "wide,narrow";
  command_line::FlagSet flags(
      "multi_mass",
      "Paper 002's multi-mass study (its Figure 6 and Table 3): the Wilson systems of its two mass sets solved by a\n"
      "single-mass solver with initial guesses (zero, polynomial extrapolation of each order, solution-space\n"
      "minimisation) and by BiCGstab-M, on a quenched configuration (generated and cached, or --config), on the CPU\n"
      "oracle or the GPU. Writes figure6.csv, table3.csv, multi_mass.md and figure6.png to --output.");
  flags.String("config", &o.config, "FILE", "read this configuration (NERSC, LIME or MILC) instead of generating");
  flags.Extents("lattice", &o.ensemble.generator.extents, "generator: lattice extents");
  flags.Double("beta", &o.ensemble.generator.beta, "generator: Wilson gauge coupling", command_line::Range::AtLeast(0));
  flags.Int("therm", &o.ensemble.generator.thermalisation_sweeps, 0, 1000000, "generator: thermalisation sweeps");
  flags.String("sets", &sets, "wide,narrow", "mass sets of 002's Table 2 to run: wide, narrow or both");
  flags.Double("critical-mass", &o.critical_mass,
               "our ensemble's am_c; 002's masses are shifted by (this - 002's -0.8173) (default: 002's value)");
  flags.String("solver", &o.solver, "SPEC", "the single-mass solver (solvers/solver_spec.h)");
  flags.IntList("orders", &o.orders, 0, 7, "polynomial extrapolation orders for Figure 6");
  flags.Double("tolerance", &o.tolerance, "|b - M x| / |b| per mass", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 100000000, "iteration budget per solve");
  flags.Choice<BackendKind>("backend", &o.backend,
                            {{"auto", BackendKind::kAuto}, {"cpu", BackendKind::kCpu}, {"gpu", BackendKind::kGpu}},
                            "where the solves run (auto: the GPU when one is usable)");
  flags.String("output", &o.output, "DIR", "output directory (the ensemble is cached there too)");
  flags.Switch("no-plot", &o.no_plot, "skip the matplotlib PNG");
  flags.String("plot-script", &o.plot_script, "FILE", "plot_multi_mass.py to use (default: found in the runfiles)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (!o.config.empty() && (flags.Given("lattice") || flags.Given("beta") || flags.Given("therm"))) {
    throw std::invalid_argument("--lattice, --beta and --therm set up the generator; they conflict with --config");
  }
  o.sets.clear();
  for (const std::string& s : command_line::SplitList("sets", sets)) {
    if (s != "wide" && s != "narrow") throw std::invalid_argument("--sets: '" + s + "' is not wide or narrow");
    o.sets.push_back(s);
  }
  if (o.sets.empty()) throw std::invalid_argument("--sets: no mass set");
  SolverSpec spec;
  try {
    spec = SolverSpec::Parse(o.solver);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--solver: ") + e.what());
  }
  spec.tolerance = o.tolerance;
  spec.max_iterations = o.max_iterations;
  spec.Validate();
  for (const std::string& set : o.sets) {
    for (double m : MassesOf(set, o.critical_mass)) {
      if (!(m > -4)) throw std::invalid_argument("--critical-mass: mass " + std::to_string(m) + " is not above -4");
    }
  }
  const BackendChoice backend = ChooseBackend(o.backend, VerifyOn::kAuto);
  solvers::RequireSupported(spec, CapabilitiesOf(backend), false);
  if (backend.kind == BackendKind::kGpu && spec.temporal_gauge) {
    throw std::invalid_argument("--solver: " + spec.Name() + " fixes the temporal gauge, which multi_mass on the GPU does "
                                "not do (its driver keeps the solutions on the device, on the original links)");
  }

  const fs::path output = UserPath(o.output);
  fs::create_directories(output);
  std::cout << "multi_mass: " << backend.device << "\nbackend: " << ToString(backend.kind) << " (" << backend.reason
            << ")\n";
  GaugeField<double> u{Lattice(o.ensemble.generator.extents)};
  std::string links;
  if (!o.config.empty()) {
    u = ReadGaugeConfiguration(UserPath(o.config).string()).field;
    links = "read from " + o.config;
  } else {
    const std::unique_ptr<SweepEngine> sweeps_on = MakeSweepEngine(backend);  // generation follows --backend
    const Ensemble e = LoadOrGenerateEnsemble(o.ensemble, output.string(), std::cout, sweeps_on.get());
    u = e.members.front().u;
    links = "quenched " + o.ensemble.Tag() + " (" + (e.generated ? "generated" : "cached") + ")";
  }
  std::cout << "links: " << links << ", lattice " << u.lattice().ToString() << "\n";
  SpinorField<double> b(u.lattice());
  FillGaussian(b, 2026);
  SingleMassRunner single_mass(backend, u, b, spec);

  std::ofstream figure6(output / "figure6.csv"), table3(output / "table3.csv");
  figure6 << std::setprecision(17)
          << "set,strategy,order,total_iterations,baseline_iterations,gain,seconds,solver_seconds\n";
  table3 << std::setprecision(17);
  table3 << "set,solver,total_iterations,ms_per_iteration,total_seconds,speedup,fields,device_bytes\n";
  std::ostringstream md;
  md << "# Multi-mass solvers (paper 002's Figure 6 and Table 3)\n\n"
     << "Backend " << ToString(backend.kind) << " (" << backend.device << "), links " << links  << ", Gaussian source, "
     << "eps = " << o.tolerance << ", single-mass solver " << spec.Name() << ", critical mass " << o.critical_mass
     << " (002: " << kPaperCriticalMass << ").\n\n";
  for (const std::string& set : o.sets) {
    const std::vector<double> masses = MassesOf(set, o.critical_mass);
    std::cout << "\n" << set << " set, masses:";
    for (double m : masses) std::cout << " " << m;
    std::cout << "\n";
    const StrategyRun zero = single_mass.Run(masses, GuessStrategy::kZero, -1);
    const int baseline = zero.result.total_iterations;
    auto record = [&](const StrategyRun& r) {
      const double gain = static_cast<double>(r.result.total_iterations) / baseline;
      double solver_seconds = 0;  // inside the single-mass solver; the rest is transfers, checks and guesses
      for (const solvers::SolveResult& s : r.result.solves) solver_seconds += s.seconds;
      figure6 << set << "," << r.strategy << "," << r.order << "," << r.result.total_iterations << "," << baseline
              << "," << gain << "," << r.result.seconds << "," << solver_seconds << "\n";
      const std::string order =
          r.strategy != "polynomial" ? "" : r.order < 0 ? " highest order" : " order " + std::to_string(r.order);
      std::cout << "  " << std::left << std::setw(27) << r.strategy + order << std::right << ": " << std::setw(6)
                << r.result.total_iterations << " iterations, gain " << Fixed(gain, 3) << ", "
                << Fixed(r.result.seconds, 2) << " s (" << Fixed(solver_seconds, 2) << " s in the solver)"
                << (r.result.all_converged() ? "" : "  (NOT ALL CONVERGED)") << "\n";
    };
    record(zero);
    std::vector<StrategyRun> polynomial;
    for (int order : o.orders) {
      polynomial.push_back(single_mass.Run(masses, GuessStrategy::kPolynomial, order));
      record(polynomial.back());
    }
    // Everything on the device during this run is the single-mass solver's: its links (cached across solves),
    // the source, the solutions the guesses are built from, and one solve's fields.
    if (backend.kind == BackendKind::kGpu) gpu::ResetDeviceBufferPeak();
    const StrategyRun highest =
        single_mass.Run(masses, GuessStrategy::kPolynomial, MultiMassOptions::kHighestOrder);
    const double single_device_bytes =
        backend.kind == BackendKind::kGpu ? static_cast<double>(gpu::DeviceBufferPeakBytes()) : -1;
    record(highest);
    const StrategyRun minimal = single_mass.Run(masses, GuessStrategy::kMinimalResidual, -1);
    record(minimal);
    const MultiShiftRun shifted = RunMultiShift(backend.kind, u, masses, b, o.tolerance, o.max_iterations);
    std::cout << "  BiCGstab-M: " << shifted.result.iterations << " iterations, "
              << Fixed(shifted.result.seconds, 2) << " s" << "\n";
    if (!shifted.result.all_converged()) std::cout << "  NOT ALL CONVERGED: " << shifted.result.Summary() << "\n";
    const double single_ms = 1e3 * highest.result.seconds / highest.result.total_iterations;
    const double shift_ms = 1e3 * shifted.result.seconds / shifted.result.iterations;
    const int single_fields = static_cast<int>(masses.size()) + 1;  // the solutions kept for the guesses, and b
    table3 << set << ",single-mass," << highest.result.total_iterations << "," << single_ms << ","
           << highest.result.seconds << "," << shifted.result.seconds / highest.result.seconds << ","
           << single_fields << "," << single_device_bytes << "\n";
    table3 << set << ",multi-shift," << shifted.result.iterations << "," << shift_ms << "," << shifted.result.seconds
           << ",1," << shifted.fields << "," << shifted.device_bytes << "\n";
    auto gigabytes = [](double bytes) { return bytes < 0 ? std::string("-") : Fixed(bytes / 1e9, 3); };
    md << "## " << set << " set\n\n| solver | total iterations | ms/iteration | total time (s) | speed-up | "
       << "full-lattice fields | device memory (GB) |\n|---|---|---|---|---|---|---|\n"
       << "| single-mass, highest-order guesses | " << highest.result.total_iterations << " | " << Fixed(single_ms, 2)
       << " | " << Fixed(highest.result.seconds, 3) << " | " << Fixed(shifted.result.seconds / highest.result.seconds, 2)
       << " | " << single_fields << " + the solver's | " << gigabytes(single_device_bytes) << " |\n"
       << "| BiCGstab-M | " << shifted.result.iterations << " | " << Fixed(shift_ms, 2) << " | "
       << Fixed(shifted.result.seconds, 3) << " | | " << shifted.fields << " | " << gigabytes(shifted.device_bytes)
       << " |\n\n"
       << "Gain (total iterations / zero-guess baseline " << baseline << "): polynomial order";
    for (const StrategyRun& r : polynomial) md << " " << r.order << ": " << Fixed(r.result.total_iterations * 1.0 / baseline, 3) << ";";
    md << " highest: " << Fixed(highest.result.total_iterations * 1.0 / baseline, 3)
       << "; minimisation: " << Fixed(minimal.result.total_iterations * 1.0 / baseline, 3) << ".\n\n";
  }
  md << "Paper 002 (GTX 480, 24^4, 10 configurations): single-mass 1404 / 987 iterations and 2.10 / 2.21 times "
        "faster than BiCGstab-M (790 / 793 iterations) for the narrow / wide set.\n";
  std::ofstream(output / "multi_mass.md") << md.str();
  figure6.close();
  if (!o.no_plot) {
    const fs::path script = FindPlotScript("plot_multi_mass.py", o.plot_script, argv[0]);
    const int status = RunPython(script, {(output / "figure6.csv").string(), (output / "figure6.png").string()});
    if (status != 0) throw std::runtime_error("plot_multi_mass.py failed with status " + std::to_string(status));
  }
  std::cout << "\nwrote " << (output / "figure6.csv").string() << ", table3.csv, multi_mass.md"
            << (o.no_plot ? "" : ", figure6.png") << "\n";
  return 0;
}

}  // namespace
}  // namespace lqcd::experiments

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("multi_mass", [&] { return lqcd::experiments::Main(argc, argv); });
}
