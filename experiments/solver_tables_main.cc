// solver_tables_cc: the computation behind `bazel run //experiments:solver_tables` (docs/solver_tables.md).
// It reproduces, on the CPU and on quenched configurations, the iteration counts of the paper's Tables 3
// (double CG vs BiCGstab), 4 (defect correction) and 5 (reliable updates) versus the quark mass, with
// eps = 1e-12, and writes CSV; experiments/solver_tables.py turns the CSV into markdown tables and a PNG.
//
// Steps:
//   1. ensemble: quenched configurations from the heatbath generator, cached as NERSC files under
//      <out>/ensemble/<tag>/ (experiments/quenched_ensemble.h);
//   2. critical mass (experiments/critical_mass.h): one-end pion and PCAC correlators at masses whose pion
//      is heavy enough for the box, placed from two mean-field probes and a third probe on their line;
//      m_c from the zero of m_PCAC (cross-checked by m_pi^2 = B (m - m_c)), and the strange mass m_s where
//      m_pi = a m_{s sbar} on the line m_pi^2 = B (m - m_c) through the quoted m_c;
//   3. the table masses m = m_c + f (m_s - m_c) for the fractions f (the paper spans m_c .. m_s);
//   4. every solver (experiments/paper_solvers.h, or --solvers) on every configuration, Gaussian source and
//      mass, from x = 0, solves run concurrently on --threads threads (one solve per thread).
// Output files (in --out): solves.csv (one row per solve), spectroscopy.csv (correlators), masses.csv,
// run_summary.csv (key,value), run_info.txt, and the ensemble cache. Each finished solve also goes to
// solves.journal (solve_journal.h) at once, so that a run interrupted part way resumes: started again with the
// same options, it takes the journal's solves and does the rest (--stop-after=N interrupts on purpose, exit 3).
// Bad options print the problem and the usage and exit with status 2; a failure inside exits with 1.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "experiments/critical_mass.h"
#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "experiments/paper_solvers.h"
#include "experiments/quenched_ensemble.h"
#include "experiments/solve_journal.h"
#include "experiments/sweep_engine.h"
#include "reference/cli/command_line.h"
#include "reference/cli/csv_cell.h"
#include "reference/lattice.h"
#include "reference/cli/machine_info.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {
namespace {

using solvers::SolverSpec;

constexpr char kSummary[] = R"(The computation behind `bazel run //experiments:solver_tables`: the paper's Tables 3-5 (CG vs
BiCGstab, defect correction, reliable updates) versus the quark mass on quenched configurations, on the
GPU or the CPU oracle (--backend). Writes solves.csv, masses.csv, spectroscopy.csv, run_summary.csv and
run_info.txt to --out (docs/solver_tables.md).)";

struct Options {
  std::string out;
  EnsembleSpec ensemble;
  int sources = 1;
  std::vector<double> mass_fractions = {1, 2.0 / 3, 1.0 / 3, 0};
  std::vector<double> explicit_masses;
  double critical_mass = 0, strange_mass = 0;
  bool given_critical = false;
  double strange_pion_mass = 0;  // 0: from the scale
  std::vector<double> pion_targets;
  double spectroscopy_tolerance = 1e-10;
  std::vector<SolverSpec> solvers = DefaultSolvers();
  double tolerance = 1e-12;
  int max_iterations = 2000;
  int threads = 0;
  BackendKind backend = BackendKind::kAuto;
  VerifyOn verify = VerifyOn::kAuto;
  int stop_after = 0;  // > 0: stop after that many solves of this invocation (tests of the resume)
};

// Parses and checks every flag (nothing expensive happens before it returns). False: --help was printed.
bool ParseOptions(int argc, char** argv, Options* out) {
  Options& o = *out;
  QuenchedOptions& g = o.ensemble.generator;
  g.extents = {6, 6, 6, 12};
  g.beta = 5.7;
  g.seed = 1;
  g.thermalisation_sweeps = 100;
  g.separation_sweeps = 20;
  g.configurations = 3;
  g.overrelaxation_steps = 4;
  g.progress_every = 20;
  std::string start = "cold", solvers_text;
  command_line::FlagSet flags("solver_tables_cc", kSummary);
  flags.String("out", &o.out, "DIR", "output directory (created; required); the ensemble is cached in DIR/ensemble");
  flags.Section("Ensemble");
  flags.Extents("lattice", &g.extents, "lattice");
  flags.Double("beta", &g.beta, "gauge coupling", command_line::Range::AtLeast(0));
  flags.Unsigned64("seed", &g.seed, "generator seed");
  flags.Choice<std::string>("start", &start, {{"cold", "cold"}, {"hot", "hot"}}, "generator start");
  flags.Int("therm", &g.thermalisation_sweeps, 0, 100000000, "thermalisation sweeps");
  flags.Int("sep", &g.separation_sweeps, 1, 100000000, "sweeps between configurations");
  flags.Int("or", &g.overrelaxation_steps, 0, 100, "overrelaxation sweeps per heatbath sweep");
  flags.Int("configs", &g.configurations, 1, 100000, "configurations");
  flags.Int("sources", &o.sources, 1, 100000, "Gaussian sources per configuration");
  flags.Section("Masses");
  flags.DoubleList("mass-fractions", &o.mass_fractions,
                   "table masses m = m_c + F (m_s - m_c); the default is the paper's span m_s .. m_c, evenly spaced; "
                   "F < 0 lies below m_c");
  flags.DoubleList("masses", &o.explicit_masses, "explicit table masses: skips the critical-mass determination",
                   command_line::Range{-4, std::numeric_limits<double>::infinity(), true, false});
  flags.Double("critical-mass", &o.critical_mass, "take m_c as given (with --strange-mass): skips the spectroscopy",
               command_line::Range{-4, std::numeric_limits<double>::infinity(), true, false});
  flags.Double("strange-mass", &o.strange_mass, "the strange bare mass m_s (with --critical-mass)",
               command_line::Range{-4, std::numeric_limits<double>::infinity(), true, false});
  flags.Double("strange-pion-mass", &o.strange_pion_mass,
               "a m_{s sbar} in lattice units (0: from the Necco-Sommer scale, r0 = 0.5 fm)",
               command_line::Range::AtLeast(0));
  flags.DoubleList("pion-targets", &o.pion_targets,
                   "a m_pi of the spectroscopy masses, at least two (default: max(4/L, 0.5) x 1.5, 1.25, 1)",
                   command_line::Range::Positive());
  flags.Double("spectroscopy-tolerance", &o.spectroscopy_tolerance, "solver tolerance of the correlator solves",
               command_line::Range::Open(0, 1));
  flags.Section("Solvers");
  flags.Custom("solvers", "SPEC,...", "the paper's columns without single eps_in = 1e-4, 1e-6",
               "solver specs (solvers/solver_spec.h: <solver>[:<precision>[/<links>][/gf]][:<parameter>], e.g. "
               "bicgstab-reliable:half/12:0.1), \"paper\" for all the paper's columns with 18-real links, or \"paper-gpu\" "
               "for its GPU columns (Half 12, Single 8, Single 12; experiments/paper_solvers.h)",
               [&](const std::string& v) { solvers_text = v; });
  flags.Double("tolerance", &o.tolerance, "eps of the tables", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 100000000, "iteration budget per solve, paper counting");
  flags.Int("threads", &o.threads, 0, 1024, "concurrent solves on the CPU backend (0: hardware threads)");
  flags.Choice<BackendKind>("backend", &o.backend,
                            {{"auto", BackendKind::kAuto}, {"cpu", BackendKind::kCpu}, {"gpu", BackendKind::kGpu}},
                            "where the solves run: auto = the GPU when one is usable, else the CPU oracle");
  flags.Choice<VerifyOn>("verify", &o.verify,
                         {{"auto", VerifyOn::kAuto}, {"host", VerifyOn::kHost}, {"device", VerifyOn::kDevice}},
                         "where true residuals are recomputed in double (auto: device on the GPU, host on the CPU)");
  flags.Int("stop-after", &o.stop_after, 0, 100000000,
            "stop after N solves of this invocation as if interrupted (0: never); the next run resumes");
  if (!flags.Parse(argc, argv, std::cout)) return false;
  if (o.out.empty()) throw std::invalid_argument("--out=DIR is required");
  g.hot_start = start == "hot";
  if (!solvers_text.empty()) {
    o.solvers.clear();
    if (solvers_text == "paper") {
      o.solvers = PaperSolvers();
    } else if (solvers_text == "paper-gpu") {
      o.solvers = PaperGpuSolvers();
    } else {
      for (const std::string& text : command_line::SplitList("solvers", solvers_text)) {
        try {
          o.solvers.push_back(SolverSpec::Parse(text));
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string("--solvers: ") + e.what());
        }
      }
    }
  }
  for (SolverSpec& spec : o.solvers) {
    spec.tolerance = o.tolerance;
    spec.max_iterations = o.max_iterations;
  }
  if (flags.Given("critical-mass") != flags.Given("strange-mass")) {
    throw std::invalid_argument("--critical-mass and --strange-mass go together");
  }
  o.given_critical = flags.Given("critical-mass");
  if (o.given_critical && !(o.strange_mass > o.critical_mass)) {
    throw std::invalid_argument("--strange-mass must exceed --critical-mass");
  }
  if (o.given_critical && flags.Given("masses")) {
    throw std::invalid_argument("give either --masses or --critical-mass, not both");
  }
  if (flags.Given("pion-targets") && o.pion_targets.size() < 2) {
    throw std::invalid_argument("--pion-targets needs at least two values (a line through them)");
  }
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  ValidateQuenchedOptions(g);
  return true;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Runs task(i) for i = 0 .. n-1 on `threads` threads (dynamic assignment, index order). The first
// exception thrown by a task is rethrown after all threads have stopped taking tasks.
template <typename Task>
void RunParallel(int n, int threads, Task&& task) {
  std::atomic<int> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&]() {
    for (;;) {
      const int i = next.fetch_add(1);
      if (i >= n) return;
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(n);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::min(threads, n); ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// The solvers of a run: CPU tasks each make their own DiracSolver (not thread-safe; its operators are built
// per solve anyway), the GPU keeps one per configuration (its links stay uploaded) and runs one task at a
// time, so its tasks are best ordered by configuration.
class SolverPool {
 public:
  SolverPool(const BackendChoice& backend, const Ensemble& ensemble) : backend_(backend), ensemble_(ensemble) {}
  bool gpu() const { return backend_.kind == BackendKind::kGpu; }
  int Threads(int requested) const { return gpu() ? 1 : requested; }
  SolveOutcome Solve(int config, const FermionAction& action, const SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) {
    const GaugeField<double>& u = ensemble_.members[config].u;
    if (!gpu()) return MakeDiracSolver(backend_, u)->Solve(action, spec, b, x);
    if (config != current_config_) {
      current_.reset();  // free the previous configuration's device links first
      current_ = MakeDiracSolver(backend_, u);
      current_config_ = config;
    }
    return current_->Solve(action, spec, b, x);
  }

 private:
  BackendChoice backend_;
  const Ensemble& ensemble_;
  std::unique_ptr<DiracSolver> current_;
  int current_config_ = -1;
};

FermionAction WilsonAt(double mass) {
  FermionAction a;
  a.mass = mass;
  return a;
}

std::string Num(double x) {
  if (std::isnan(x)) return "nan";
  std::ostringstream s;
  s << std::setprecision(10) << x;
  return s.str();
}

std::uint64_t SourceSeed(int config, int source) { return 0x5eed0000ull + 1000ull * config + source; }

// The Gaussian source of (configuration, source), filled once and shared by every mass and solver: at
// 24^3 x 64 filling one takes about half a second of one core, as long as a heavy-mass solve on the GPU. The
// GPU runs its tasks configuration by configuration, so it keeps only the current configuration's sources;
// the CPU threads take the configurations in turn and keep them all (its lattices are small).
class SourceCache {
 public:
  SourceCache(const Lattice& lattice, bool one_configuration_at_a_time)
      : lattice_(lattice), one_configuration_at_a_time_(one_configuration_at_a_time) {}
  std::shared_ptr<const SpinorField<double>> Get(int config, int source) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (one_configuration_at_a_time_) {
      for (auto it = fields_.begin(); it != fields_.end();) it = it->first.first == config ? std::next(it) : fields_.erase(it);
    }
    std::shared_ptr<const SpinorField<double>>& slot = fields_[{config, source}];
    if (!slot) {
      auto field = std::make_shared<SpinorField<double>>(lattice_);
      FillGaussian(*field, SourceSeed(config, source));
      slot = std::move(field);
    }
    return slot;
  }

 private:
  Lattice lattice_;
  bool one_configuration_at_a_time_;
  std::mutex mutex_;
  std::map<std::pair<int, int>, std::shared_ptr<const SpinorField<double>>> fields_;
};
// The same noise on a configuration for every mass: the correlators of different masses are then
// correlated, so the noise largely cancels in the mass dependence (the jackknife keeps the errors honest).
std::uint64_t NoiseSeed(int config) { return 0x0e5d0000ull + 1000ull * config; }

// ---- critical mass ----

struct SpectroscopyPoint {
  MassCorrelators correlators;
  PlateauEstimate plateau;  // of the configuration average
  int total_iterations = 0;
  double seconds = 0;
};

struct CriticalMassResult {
  double critical_mass = 0, critical_error = 0, strange_mass = 0, strange_pion_mass = 0;
  double fit_range_error = 0;  // |m_c(two lightest masses) - m_c(all)|
  bool measured = false;
  CriticalMassFit fit;
  std::vector<SpectroscopyPoint> probes, fitted;
  double mean_field_mass = 0;
  int t_first = 0, t_last = 0;
  double seconds = 0;
};

// The correlator solves: reliable-update BiCGstab with a single inner operator (the GPU in 12-real links).
SolverSpec SpectroscopySpec(const Options& o, const SolverPool& pool) {
  SolverSpec spec = SolverSpec::Parse(pool.gpu() ? "bicgstab-reliable:single/12:0.1" : "bicgstab-reliable:single:0.1");
  spec.tolerance = o.spectroscopy_tolerance;
  spec.max_iterations = o.max_iterations;
  return spec;
}

SpectroscopyPoint MeasureCorrelators(const Ensemble& ensemble, double mass, const Options& o, SolverPool& pool) {
  const auto start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(ensemble.members.size());
  SpectroscopyPoint point;
  point.correlators.mass = mass;
  point.correlators.per_config.resize(n);
  std::vector<int> iterations(n, 0);
  const SolverSpec spec = SpectroscopySpec(o, pool);
  const FermionAction action = WilsonAt(mass);
  RunParallel(n, pool.Threads(o.threads), [&](int k) {
    const GaugeField<double>& u = ensemble.members[k].u;
    const int lt = u.lattice().extent(3);
    const int t0 = (k * lt) / std::max(n, 1) % lt;  // spread the source slices over the configurations
    const SpinorField<double> eta = TimeSliceNoise(u.lattice(), t0, NoiseSeed(k));
    SpinorField<double> phi(u.lattice());
    const SolveOutcome r = pool.Solve(k, action, spec, eta, phi);
    if (!r.result.converged()) {
      throw std::runtime_error("correlator solve at m = " + Num(mass) + " on configuration " + std::to_string(k) +
                               " did not converge: " + r.result.Summary());
    }
    point.correlators.per_config[k] = ContractOneEnd(phi, t0, action.basis);
    iterations[k] = r.result.iterations;
  });
  for (int it : iterations) point.total_iterations += it;
  point.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return point;
}

PlateauEstimate AveragePlateau(const MassCorrelators& c, int t_first, int t_last) {
  const int lt = static_cast<int>(c.per_config[0].pp.size());
  MesonCorrelators mean{std::vector<double>(lt, 0.0), std::vector<double>(lt, 0.0)};
  for (const MesonCorrelators& k : c.per_config) {
    for (int t = 0; t < lt; ++t) {
      mean.pp[t] += k.pp[t] / c.per_config.size();
      mean.ap[t] += k.ap[t] / c.per_config.size();
    }
  }
  return EstimatePlateau(mean, t_first, t_last);
}

CriticalMassResult FindCriticalMass(const Ensemble& ensemble, const Options& o, SolverPool& pool) {
  const auto start = std::chrono::steady_clock::now();
  CriticalMassResult res;
  const Lattice& lattice = ensemble.members[0].u.lattice();
  const int lt = lattice.extent(3);
  const int ls = std::min({lattice.extent(0), lattice.extent(1), lattice.extent(2)});
  res.t_first = DefaultPlateauFirst(lt);
  res.t_last = DefaultPlateauLast(lt);
  res.strange_pion_mass =
      o.strange_pion_mass > 0 ? o.strange_pion_mass : StrangePseudoscalarLatticeMass(o.ensemble.generator.beta);
  if (o.given_critical) {
    res.critical_mass = o.critical_mass;
    res.strange_mass = o.strange_mass;
    return res;
  }
  std::vector<double> targets = o.pion_targets;
  if (targets.empty()) {
    const double lightest = std::max(4.0 / ls, 0.5);  // m_pi L >= 4 keeps finite-volume effects small
    targets = {1.5 * lightest, 1.25 * lightest, lightest};
  }
  std::sort(targets.rbegin(), targets.rend());
  res.mean_field_mass = MeanFieldCriticalMass(ensemble.MeanPlaquette());
  auto describe = [&](const char* what, const SpectroscopyPoint& p) {
    std::cout << "critical mass: " << what << " m = " << std::setprecision(6) << p.correlators.mass
              << " (kappa " << 1 / (2 * (4 + p.correlators.mass)) << "): a m_pi = " << p.plateau.pion_mass
              << ", a m_PCAC = " << p.plateau.pcac_mass << " (" << p.total_iterations << " iterations, "
              << std::setprecision(3) << p.seconds << " s)\n"
              << std::flush;
  };
  auto measure = [&](double mass) {
    SpectroscopyPoint p = MeasureCorrelators(ensemble, mass, o, pool);
    p.plateau = AveragePlateau(p.correlators, res.t_first, res.t_last);
    if (!std::isfinite(p.plateau.pion_mass)) {
      throw std::runtime_error("critical mass: the pion effective mass at m = " + Num(mass) +
                               " is undefined (correlator not cosh-like); give --critical-mass and --strange-mass");
    }
    return p;
  };
  // Two heavy probes from the mean-field estimate (which lies above m_c); a third probe at the middle
  // target a m_pi, placed on the line m_pi^2(m) through the first two; then all fit masses at once, on the
  // line through the second and third probes (well separated, and closer to the targets). Placing the fit
  // masses together keeps them apart by construction ((t_i^2 - t_j^2) / slope), whatever the noise.
  std::cout << "critical mass: mean-field start m = 4 u0 - 4 = " << res.mean_field_mass << " (plaquette "
            << ensemble.MeanPlaquette() << ")\n";
  auto line_through = [&](const SpectroscopyPoint& a, const SpectroscopyPoint& b) {
    const LineFit line = FitLine({a.correlators.mass, b.correlators.mass},
                                 {a.plateau.pion_mass * a.plateau.pion_mass, b.plateau.pion_mass * b.plateau.pion_mass});
    if (!(line.slope > 0)) {
      throw std::runtime_error("critical mass: m_pi^2 does not grow with m between m = " + Num(a.correlators.mass) +
                               " and " + Num(b.correlators.mass) + "; give --critical-mass and --strange-mass");
    }
    return line;
  };
  for (double mass : {res.mean_field_mass, 1.5 * res.mean_field_mass}) {
    res.probes.push_back(measure(mass));
    describe("probe", res.probes.back());
  }
  const double middle = targets[targets.size() / 2];
  const LineFit first = line_through(res.probes[0], res.probes[1]);
  res.probes.push_back(measure(first.Root() + middle * middle / first.slope));
  describe(("probe (target a m_pi = " + Num(middle) + ")").c_str(), res.probes.back());
  const LineFit second = line_through(res.probes[1], res.probes[2]);
  for (double target : targets) {
    res.fitted.push_back(measure(second.Root() + target * target / second.slope));
    describe(("target a m_pi = " + Num(target) + ":").c_str(), res.fitted.back());
  }
  std::vector<MassCorrelators> data;
  for (const SpectroscopyPoint& p : res.fitted) data.push_back(p.correlators);
  res.fit = FitCriticalMass(data, res.t_first, res.t_last);
  // The quoted m_c is the zero of the PCAC mass: it is interpolated close to where it is measured rather
  // extrapolated from a finite-volume pion mass (on 8^3 x 16 with two configurations the m_pi^2 line put m_c
  // 0.06 lower, where BiCGstab breaks down). The pion value gives the systematic error.
  // Fit-range systematic: the line through the two lightest masses only. A difference from the full fit
  // measures the curvature of m_PCAC(m).
  const std::vector<MassCorrelators> lightest(data.end() - 2, data.end());  // targets run heavy to light
  res.fit_range_error =
      std::abs(FitCriticalMass(lightest, res.t_first, res.t_last).pcac_critical_mass.value - res.fit.pcac_critical_mass.value);
  res.measured = true;
  res.critical_mass = res.fit.pcac_critical_mass.value;
  res.critical_error = std::hypot(res.fit.TotalError(), res.fit_range_error);
  if (!(res.fit.pion_slope.value > 0) || !std::isfinite(res.critical_mass)) {
    throw std::runtime_error("critical mass: the fit failed (slope " + Num(res.fit.pion_slope.value) + ")");
  }
  // m_s: where the measured m_pi^2 line reaches (a m_{s sbar})^2 (close to the measured pion masses, so it
  // does not depend on which m_c is quoted).
  res.strange_mass = res.fit.pion_critical_mass.value +
                     res.strange_pion_mass * res.strange_pion_mass / res.fit.pion_slope.value;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << std::setprecision(6) << "critical mass: m_c(pion) = " << res.fit.pion_critical_mass.value << " +- "
            << res.fit.pion_critical_mass.error << " (jackknife), m_c(PCAC) = " << res.fit.pcac_critical_mass.value
            << " +- " << res.fit.pcac_critical_mass.error << ", fit range " << res.fit_range_error << "; quoted m_c = "
            << res.critical_mass << " +- " << res.critical_error
            << " (PCAC; jackknife, |pion - PCAC| and fit range in quadrature); kappa_c = "
            << 1 / (2 * (4 + res.critical_mass)) << "\n"
            << "critical mass: B = " << res.fit.pion_slope.value << ", a m_{s sbar} = " << res.strange_pion_mass
            << " => m_s = " << res.strange_mass << " (m_s - m_c = " << res.strange_mass - res.critical_mass << ")\n";
  return res;
}

void WriteSpectroscopy(const std::string& path, const CriticalMassResult& res) {
  std::ofstream f(path);
  f << "role,mass,kappa,config,t,c_pp,c_ap\n";
  auto rows = [&](const char* role, const std::vector<SpectroscopyPoint>& points) {
    for (const SpectroscopyPoint& p : points) {
      for (std::size_t k = 0; k < p.correlators.per_config.size(); ++k) {
        const MesonCorrelators& c = p.correlators.per_config[k];
        for (std::size_t t = 0; t < c.pp.size(); ++t) {
          f << role << "," << Num(p.correlators.mass) << "," << Num(1 / (2 * (4 + p.correlators.mass))) << "," << k
            << "," << t << "," << std::setprecision(17) << c.pp[t] << "," << c.ap[t] << "\n";
        }
      }
    }
  };
  rows("probe", res.probes);
  rows("fit", res.fitted);
}

// ---- the tables ----

struct Task {
  int config, source, mass_index, variant;
};

struct SolveRow {
  std::string text;  // the solves.csv line, without its newline
  bool converged = false;
  bool done = false;
};

// Everything that determines a run's solves: a journal of another key is not resumed (solve_journal.h).
std::string RunKey(const Options& o, const BackendChoice& backend, const std::vector<double>& masses) {
  std::ostringstream key;
  key << std::hexfloat << "ensemble " << o.ensemble.Tag() << "; sources " << o.sources << "; tolerance " << o.tolerance
      << "; max_iterations " << o.max_iterations << "; backend " << ToString(backend.kind) << "; verify "
      << ToString(backend.verify) << "; masses";
  for (double m : masses) key << " " << m;
  key << "; solvers";
  for (const SolverSpec& v : o.solvers) key << " " << v.Name();
  return key.str();
}

int Run(const Options& o, const BackendChoice& backend) {
  const auto start = std::chrono::steady_clock::now();
  std::filesystem::create_directories(o.out);
  const std::string machine = DescribeMachine();
  std::ostringstream params;
  params << "lattice = " << Lattice(o.ensemble.generator.extents).ToString() << "\n"
         << "beta = " << o.ensemble.generator.beta << "\n"
         << "configurations = " << o.ensemble.generator.configurations << "\n"
         << "sources_per_configuration = " << o.sources << "\n"
         << "tolerance = " << o.tolerance << "\n"
         << "max_iterations = " << o.max_iterations << "\n"
         << "threads = " << (backend.kind == BackendKind::kGpu ? 1 : o.threads) << "\n"
         << "backend = " << ToString(backend.kind) << " (" << backend.reason << ")\n"
         << "device = " << backend.device << "\n"
         << "verify = " << ToString(backend.verify) << "\n"
         << "solvers =";
  for (const SolverSpec& v : o.solvers) params << " " << v.Name();
  params << "\n";
  std::cout << "solver_tables: the paper's Tables 3-5 on quenched configurations (even-odd M_ee)\n"
            << "machine: " << machine << ", load average " << LoadAverage() << "\n"
            << "compiler: " << __VERSION__ << "\n"
            << params.str() << std::flush;

  const std::unique_ptr<SweepEngine> sweeps_on = MakeSweepEngine(backend);  // generation follows --backend
  const Ensemble ensemble =
      LoadOrGenerateEnsemble(o.ensemble, (std::filesystem::path(o.out) / "ensemble").string(), std::cout, sweeps_on.get());
  std::cout << "ensemble: mean plaquette " << std::setprecision(8) << ensemble.MeanPlaquette() << " ("
            << std::setprecision(3) << ensemble.seconds << " s)\n";

  SolverPool pool(backend, ensemble);
  std::mutex log_mutex;
  CriticalMassResult critical;
  std::vector<double> masses, fractions;
  if (!o.explicit_masses.empty()) {
    masses = o.explicit_masses;
    fractions.assign(masses.size(), std::nan(""));
  } else {
    critical = FindCriticalMass(ensemble, o, pool);
    if (critical.measured) WriteSpectroscopy((std::filesystem::path(o.out) / "spectroscopy.csv").string(), critical);
    for (double f : o.mass_fractions) {
      masses.push_back(critical.critical_mass + f * (critical.strange_mass - critical.critical_mass));
      fractions.push_back(f);
    }
  }
  const bool have_mc = o.explicit_masses.empty();
  {
    std::ofstream f(std::filesystem::path(o.out) / "masses.csv");
    f << "mass_index,mass,kappa,mass_fraction,m_minus_mc\n";
    for (std::size_t i = 0; i < masses.size(); ++i) {
      f << i << "," << Num(masses[i]) << "," << Num(1 / (2 * (4 + masses[i]))) << "," << Num(fractions[i]) << ","
        << Num(have_mc ? masses[i] - critical.critical_mass : std::nan("")) << "\n";
    }
  }

  // Tasks, the most expensive first (lightest mass, CG before the others) so that the CPU threads finish
  // together; on the GPU (one task at a time) configuration by configuration, so each is uploaded once.
  const int n_configs = static_cast<int>(ensemble.members.size());
  std::vector<int> mass_order(masses.size()), variant_order;
  for (std::size_t i = 0; i < masses.size(); ++i) mass_order[i] = static_cast<int>(i);
  std::sort(mass_order.begin(), mass_order.end(), [&](int a, int b) { return masses[a] < masses[b]; });
  for (int pass = 0; pass < 2; ++pass) {
    for (int v = 0; v < static_cast<int>(o.solvers.size()); ++v) {
      const bool cg = o.solvers[v].krylov == solvers::KrylovMethod::kCg && !o.solvers[v].mixed();
      if (cg == (pass == 0)) variant_order.push_back(v);
    }
  }
  std::vector<Task> tasks;
  for (int mi : mass_order) {
    for (int v : variant_order) {
      for (int c = 0; c < n_configs; ++c) {
        for (int s = 0; s < o.sources; ++s) tasks.push_back({c, s, mi, v});
      }
    }
  }
  if (pool.gpu()) {
    std::stable_sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) { return a.config < b.config; });
  }
  std::cout << "tables: " << tasks.size() << " solves (" << masses.size() << " masses x " << o.solvers.size()
            << " solvers x " << n_configs << " configurations x " << o.sources << " sources) on "
            << (pool.gpu() ? std::string("the GPU") : std::to_string(o.threads) + " threads") << "\n"
            << std::flush;

  // Resume: the solves an interrupted run of the same key finished are taken from its journal.
  SolveJournal journal((std::filesystem::path(o.out) / "solves.journal").string(), RunKey(o, backend, masses));
  auto task_key = [&](const Task& t) {
    return "config " + std::to_string(t.config) + " source " + std::to_string(t.source) + " mass " +
           std::to_string(t.mass_index) + " " + o.solvers[t.variant].Name();
  };
  std::vector<SolveRow> rows(tasks.size());
  std::vector<int> pending;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const auto found = journal.entries().find(task_key(tasks[i]));
    if (found == journal.entries().end()) {
      pending.push_back(static_cast<int>(i));
    } else {
      rows[i] = SolveRow{found->second.row, found->second.converged, true};
    }
  }
  std::cout << "journal: " << journal.note() << "; " << pending.size() << " solves to do\n" << std::flush;

  // The solves.csv line of a finished task.
  auto row_text = [&](const Task& t, const SolveOutcome& outcome) {
    const SolverSpec& v = o.solvers[t.variant];
    const solvers::SolveResult& r = outcome.result;
    const double m = masses[t.mass_index];
    std::ostringstream f;
    f << t.config << "," << ensemble.members[t.config].sweep << "," << t.source << "," << SourceSeed(t.config, t.source)
      << "," << t.mass_index << "," << Num(m) << "," << Num(1 / (2 * (4 + m))) << "," << Num(fractions[t.mass_index])
      << "," << Num(have_mc ? m - critical.critical_mass : std::nan("")) << "," << PaperTable(v) << ","
      << MethodLabel(v) << "," << PrecisionLabel(v) << "," << v.ParameterName() << "," << Num(v.parameter) << ","
      << r.iterations << "," << r.krylov_iterations << "," << r.high_precision_updates << "," << r.restarts << ","
      << r.operator_applications << "," << r.low_precision_applications << "," << Num(outcome.true_residual) << ","
      << Num(r.iterated_residual) << "," << Num(r.seconds) << "," << Num(r.seconds > 0 ? r.flops / r.seconds * 1e-9 : 0)
      << "," << solvers::ToString(r.status) << "," << CsvCell(r.reason) << "," << v.Name() << "," << ToString(backend.kind);
    return f.str();
  };

  std::atomic<int> finished{static_cast<int>(tasks.size() - pending.size())}, solved{0};
  std::atomic<bool> stopped{false};
  SourceCache sources(ensemble.members.front().u.lattice(), pool.gpu());
  const auto solve_start = std::chrono::steady_clock::now();
  RunParallel(static_cast<int>(pending.size()), pool.Threads(o.threads), [&](int p) {
    if (stopped) return;
    const int i = pending[p];
    const Task& t = tasks[i];
    const auto task_start = std::chrono::steady_clock::now();
    const std::shared_ptr<const SpinorField<double>> b = sources.Get(t.config, t.source);
    SpinorField<double> x(b->lattice());
    const SolveOutcome outcome = pool.Solve(t.config, WilsonAt(masses[t.mass_index]), o.solvers[t.variant], *b, x);
    const solvers::SolveResult& r = outcome.result;
    rows[i] = SolveRow{row_text(t, outcome), r.converged(), true};
    journal.Record(task_key(t), r.converged(), rows[i].text);
    if (o.stop_after > 0 && ++solved >= o.stop_after) stopped = true;
    std::lock_guard<std::mutex> lock(log_mutex);
    std::cout << "[" << std::setw(4) << ++finished << "/" << tasks.size() << "] m = " << std::defaultfloat << std::setprecision(6)
              << masses[t.mass_index] << " cfg " << t.config << " src " << t.source << "  " << std::left
              << std::setw(34) << o.solvers[t.variant].Name() << std::right << " " << std::setw(11)
              << solvers::ToString(r.status) << "  it " << std::setw(5) << r.iterations << "  upd " << std::setw(3)
              << r.high_precision_updates << "  res " << std::scientific << std::setprecision(2)
              << outcome.true_residual << std::defaultfloat << "  " << std::setprecision(3) << r.seconds << " s (task "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - task_start).count() << " s)\n"
              << std::flush;
  });
  const double solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - solve_start).count();
  if (stopped) {
    std::cout << "solver_tables: stopped after " << solved << " solves (--stop-after); " << finished << " of "
              << tasks.size() << " are in " << o.out << "/solves.journal: run again with the same options to resume\n";
    return 3;
  }

  {
    std::ofstream f(std::filesystem::path(o.out) / "solves.csv");
    f << "config,config_sweep,source,source_seed,mass_index,mass,kappa,mass_fraction,m_minus_mc,table,solver,precision,"
         "parameter_name,parameter,iterations,krylov_iterations,updates,restarts,operator_applications,"
         "low_precision_applications,true_residual,iterated_residual,seconds,gflops,status,reason,spec,backend\n";
    for (const SolveRow& row : rows) f << row.text << "\n";
    if (!f.flush()) throw std::runtime_error("cannot write " + o.out + "/solves.csv");
  }
  journal.Finish();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  {
    std::ofstream f(std::filesystem::path(o.out) / "run_summary.csv");
    f << std::setprecision(10) << "key,value\n"
      << "lattice," << Lattice(o.ensemble.generator.extents).ToString() << "\n"
      << "beta," << o.ensemble.generator.beta << "\n"
      << "ensemble_tag," << o.ensemble.Tag() << "\n"
      << "configurations," << n_configs << "\n"
      << "config_sweeps,";
    for (int c = 0; c < n_configs; ++c) f << (c ? " " : "") << ensemble.members[c].sweep;
    f << "\n"
      << "sources_per_configuration," << o.sources << "\n"
      << "mean_plaquette," << ensemble.MeanPlaquette() << "\n"
      << "ensemble_generated," << (ensemble.generated ? 1 : 0) << "\n"
      << "ensemble_seconds," << ensemble.seconds << "\n"
      << "tolerance," << o.tolerance << "\n"
      << "max_iterations," << o.max_iterations << "\n"
      << "threads," << (backend.kind == BackendKind::kGpu ? 1 : o.threads) << "\n"
      << "backend," << ToString(backend.kind) << "\n"
      << "device," << CsvCell(backend.device) << "\n"
      << "machine," << CsvCell(machine) << "\n"
      << "hardware_threads," << std::thread::hardware_concurrency() << "\n"
      << "critical_mass_measured," << (critical.measured ? 1 : 0) << "\n";
    if (have_mc) {
      f << "critical_mass," << critical.critical_mass << "\n"
        << "critical_mass_error," << critical.critical_error << "\n"
        << "kappa_c," << 1 / (2 * (4 + critical.critical_mass)) << "\n"
        << "strange_mass," << critical.strange_mass << "\n"
        << "strange_pion_mass," << critical.strange_pion_mass << "\n";
    }
    if (critical.measured) {
      const CriticalMassFit& fit = critical.fit;
      f << "mean_field_mass," << critical.mean_field_mass << "\n"
        << "plateau_first," << critical.t_first << "\n"
        << "plateau_last," << critical.t_last << "\n"
        << "pion_critical_mass," << fit.pion_critical_mass.value << "\n"
        << "pion_critical_mass_jackknife," << fit.pion_critical_mass.error << "\n"
        << "pcac_critical_mass," << fit.pcac_critical_mass.value << "\n"
        << "pcac_critical_mass_jackknife," << fit.pcac_critical_mass.error << "\n"
        << "fit_range_error," << critical.fit_range_error << "\n"
        << "pion_slope," << fit.pion_slope.value << "\n"
        << "pion_slope_jackknife," << fit.pion_slope.error << "\n"
        << "pcac_slope," << fit.pcac_slope.value << "\n"
        << "spectroscopy_seconds," << critical.seconds << "\n"
        << "spectroscopy_masses,";
      for (std::size_t k = 0; k < critical.fitted.size(); ++k) {
        f << (k ? " " : "") << critical.fitted[k].correlators.mass;
      }
      f << "\nspectroscopy_pion_masses,";
      for (std::size_t k = 0; k < fit.pion_mass.size(); ++k) f << (k ? " " : "") << fit.pion_mass[k].value;
      f << "\nspectroscopy_pion_mass_errors,";
      for (std::size_t k = 0; k < fit.pion_mass.size(); ++k) f << (k ? " " : "") << fit.pion_mass[k].error;
      f << "\nspectroscopy_pcac_masses,";
      for (std::size_t k = 0; k < fit.pcac_mass.size(); ++k) f << (k ? " " : "") << fit.pcac_mass[k].value;
      f << "\nspectroscopy_pcac_mass_errors,";
      for (std::size_t k = 0; k < fit.pcac_mass.size(); ++k) f << (k ? " " : "") << fit.pcac_mass[k].error;
      f << "\nprobe_masses,";
      for (std::size_t k = 0; k < critical.probes.size(); ++k) f << (k ? " " : "") << critical.probes[k].correlators.mass;
      f << "\nprobe_pion_masses,";
      for (std::size_t k = 0; k < critical.probes.size(); ++k) f << (k ? " " : "") << critical.probes[k].plateau.pion_mass;
      f << "\n";
    }
    f << "solve_seconds," << solve_seconds << "\n"
      << "total_seconds," << total << "\n"
      << "load_average_end," << LoadAverage() << "\n";
  }
  {
    std::ofstream f(std::filesystem::path(o.out) / "run_info.txt");
    f << "solver_tables\nmachine = " << machine << "\ncompiler = " << __VERSION__ << "\n" << params.str()
      << "seconds = " << total << "\n";
  }
  std::cout << "solver_tables: " << tasks.size() << " solves in " << std::setprecision(4) << solve_seconds
            << " s; total " << total << " s; wrote " << o.out << "/{solves,masses,run_summary}.csv\n";
  int failed = 0;
  for (const SolveRow& r : rows) failed += r.converged ? 0 : 1;
  if (failed > 0) std::cout << "solver_tables: " << failed << " solves did not converge (status in solves.csv)\n";
  return 0;
}

}  // namespace
}  // namespace lqcd::experiments

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("solver_tables_cc", [&] {
    lqcd::experiments::Options options;
    if (!lqcd::experiments::ParseOptions(argc, argv, &options)) return 0;
    // The backend before any work: --backend=gpu without a device, or a solver the backend cannot run, is an
    // error here.
    const lqcd::experiments::BackendChoice backend =
        lqcd::experiments::ChooseBackend(options.backend, options.verify);
    for (const lqcd::solvers::SolverSpec& spec : options.solvers) {
      lqcd::solvers::RequireSupported(spec, lqcd::experiments::CapabilitiesOf(backend.kind), false);
    }
    return lqcd::experiments::Run(options, backend);
  });
}
