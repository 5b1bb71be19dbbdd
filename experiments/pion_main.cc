// pion: the main job. Takes a gauge configuration (generated here by default: quenched SU(3), Wilson
// plaquette action, 8^3 x 16 at beta = 6.0, cached in the output directory; or read from --config in any
// format reference/gauge_io.h reads), computes the point-source quark propagator S(x; 0) (12 even-odd
// solves, Wilson or clover), and the zero-momentum pion correlator C(t) = sum_x tr[S(x,t;0) S(x,t;0)^dag]
// with its effective masses. Prints the machine, lattice, plaquette, parameters, normalisation, every
// solve's record and the correlator; writes into the output directory
//     pion_correlator.csv   t, C (m-normalised, of M^{-1}), C_kappa = C / (4 kappa^2), C_folded =
//                           (C(t) + C(T - t)) / 2, m_eff_log, m_eff_cosh (of C), m_eff_cosh_folded (of C_folded)
//     solves.csv            one row per solve: status, iterations, true residual, time, Gflop/s
//     pion.png              log C(t) and the effective masses (experiments/plot_pion.py, matplotlib)
//     run.log               everything printed
//     quenched_*.nersc, quenched_*_plaquette.csv   the generated configuration and its plaquette history
// docs/main_job.md explains the physics, the flags and the output of the default run.
//
//   bazel run //experiments:pion                      # the default run, output in ./pion_out
//   bazel run //experiments:pion -- --help
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "reference/command_line.h"
#include "reference/gauge_io.h"
#include "reference/heatbath.h"  // kQuenchedChainVersion: the cache name changes with the chain
#include "reference/nersc_io.h"
#include "reference/plaquette.h"
#include "reference/propagator.h"
#include "reference/quenched_generator.h"
#include "solvers/propagator.h"

namespace lqcd {
namespace {

namespace fs = std::filesystem;
using solvers::FermionAction;
using solvers::FermionKind;
using solvers::LowPrecision;
using solvers::PropagatorRun;
using solvers::PropagatorSolver;
using solvers::PropagatorSolverOptions;
using solvers::PropagatorSolveRecord;

constexpr char kUsage[] = R"(usage: pion [options]        (under bazel: bazel run //experiments:pion -- [options])

Configuration (default: generate one, or reuse the one an earlier run cached in the output directory)
  --config=FILE              read this gauge configuration (NERSC, ILDG/SciDAC LIME or MILC v5, detected
                             from the file's bytes) instead of generating one
  --lattice=LXxLYxLZxLT      generator: lattice extents (default 8x8x8x16)
  --beta=B                   generator: Wilson gauge coupling (default 6.0)
  --seed=N                   generator: Philox seed (default 1)
  --sweeps=N                 generator: update sweeps from a cold start (default 50; one sweep = 1 heatbath
                             + --or overrelaxation sweeps)
  --or=N                     generator: overrelaxation sweeps per heatbath sweep (default 4)
  --threads=N                threads: OpenMP threads of the generator, and propagator columns solved
                             at once (default: all cores; the results do not depend on it)
Fermions
  --kappa=K                  hopping parameter (default 0.153); or
  --mass=M                   bare mass m of M = (4 + m) - D/2 (kappa = 1 / (2 (4 + m)))
  --fermion=wilson|clover    (default wilson)
  --csw=C                    clover coefficient (clover only; default 1.0 = tree level)
  --clover-form=complement|unit-diagonal   even-odd form of the clover matrix (default complement)
  --bc=XYZT                  fermion boundary conditions, one letter per direction, P periodic or
                             A antiperiodic (default PPPA)
  --basis=degrand-rossi|ukqcd   gamma basis (default degrand-rossi; C(t) does not depend on it)
  --source=x,y,z,t           point-source site (default 0,0,0,0)
Solver (every solve is even-odd preconditioned; convergence is judged by |b - M x| / |b| on the full lattice)
  --solver=bicgstab|cg|bicgstab-reliable|cg-reliable   (default bicgstab; cg = CGNR)
  --low-precision=single|half   inner precision of the reliable-update solvers (default single)
  --delta=D                  reliable-update threshold (default 0.1)
  --tol=T                    tolerance |b - M x| / |b| (default 1e-10)
  --max-iter=N               iteration budget per solve (default 10000)
Output
  --output=DIR               output directory (default ./pion_out; relative paths are relative to the
                             directory bazel run was invoked from)
  --no-plot                  skip the matplotlib PNG
  --plot-script=FILE         plot_pion.py to use (default: found in the runfiles)
)";

// ---- output: everything printed goes to stdout and to run.log ----

class TeeBuffer : public std::streambuf {
 public:
  TeeBuffer(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int overflow(int c) override {
    if (c == EOF) return !EOF;
    const int ra = a_->sputc(static_cast<char>(c));
    const int rb = b_ ? b_->sputc(static_cast<char>(c)) : c;
    return (ra == EOF || rb == EOF) ? EOF : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    a_->sputn(s, n);
    if (b_) b_->sputn(s, n);
    return n;
  }
  int sync() override {
    const int ra = a_->pubsync();
    const int rb = b_ ? b_->pubsync() : 0;
    return (ra == 0 && rb == 0) ? 0 : -1;
  }

 public:
  void set_second(std::streambuf* b) { b_ = b; }

 private:
  std::streambuf* a_;
  std::streambuf* b_;
};

// ---- flags ----

struct Options {
  std::string config;
  QuenchedOptions generator;
  bool kappa_given = false, mass_given = false;
  double kappa = 0.153, mass = 0;
  FermionKind fermion = FermionKind::kWilson;
  bool csw_given = false;
  double c_sw = 1.0;
  CloverSchurForm clover_form = CloverSchurForm::kComplement;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  Coordinates source{0, 0, 0, 0};
  PropagatorSolverOptions solver;
  std::string output = "pion_out";
  bool plot = true;
  std::string plot_script;
  int threads = 0;
};

Options ParseOptions(int argc, char** argv) {
  Options o;
  o.generator.thermalisation_sweeps = 49;  // + 1 separation sweep = 50 sweeps before the configuration
  o.generator.separation_sweeps = 1;
  o.generator.configurations = 1;
  o.generator.progress_every = 10;
  o.solver.params.tolerance = 1e-10;
  o.solver.params.max_iterations = 10000;
  command_line::FlagReader flags(argc, argv, {"help", "no-plot"});
  for (command_line::Flag flag; flags.Next(&flag);) {
    const std::string& key = flag.key;
    const std::string& value = flag.value;
    if (key == "help") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (key == "no-plot") {
      o.plot = false;
      continue;
    }
    if (key == "config") {
      o.config = value;
    } else if (key == "lattice") {
      o.generator.extents = command_line::ParseExtents(key, value);
    } else if (key == "beta") {
      o.generator.beta = command_line::ParseFiniteDouble(key, value);
    } else if (key == "seed") {
      o.generator.seed = static_cast<std::uint64_t>(command_line::ParseLong(key, value, 0, std::numeric_limits<long>::max()));
    } else if (key == "sweeps") {
      o.generator.thermalisation_sweeps = static_cast<int>(command_line::ParseLong(key, value, 1, 1000000)) - 1;
    } else if (key == "or") {
      o.generator.overrelaxation_steps = static_cast<int>(command_line::ParseLong(key, value, 0, 100));
    } else if (key == "threads") {
      o.threads = static_cast<int>(command_line::ParseLong(key, value, 1, 1024));
    } else if (key == "kappa") {
      o.kappa = command_line::ParseFiniteDouble(key, value);
      o.kappa_given = true;
    } else if (key == "mass") {
      o.mass = command_line::ParseFiniteDouble(key, value);
      o.mass_given = true;
    } else if (key == "fermion") {
      if (value != "wilson" && value != "clover") throw std::invalid_argument("--fermion must be wilson or clover");
      o.fermion = value == "wilson" ? FermionKind::kWilson : FermionKind::kClover;
    } else if (key == "csw") {
      o.c_sw = command_line::ParseFiniteDouble(key, value);
      o.csw_given = true;
    } else if (key == "clover-form") {
      if (value != "complement" && value != "unit-diagonal") {
        throw std::invalid_argument("--clover-form must be complement or unit-diagonal");
      }
      o.clover_form = value == "complement" ? CloverSchurForm::kComplement : CloverSchurForm::kUnitDiagonal;
    } else if (key == "bc") {
      if (value.size() != 4) throw std::invalid_argument("--bc needs 4 letters (P or A), e.g. PPPA; got " + value);
      for (int mu = 0; mu < kDims; ++mu) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(value[mu])));
        if (c != 'P' && c != 'A') throw std::invalid_argument("--bc: letter '" + value.substr(mu, 1) + "' is not P or A");
        o.boundary.condition[mu] = c == 'P' ? BoundaryCondition::kPeriodic : BoundaryCondition::kAntiperiodic;
      }
    } else if (key == "basis") {
      if (value != "degrand-rossi" && value != "ukqcd") throw std::invalid_argument("--basis must be degrand-rossi or ukqcd");
      o.basis = value == "ukqcd" ? GammaBasis::kUkqcd : GammaBasis::kDeGrandRossi;
    } else if (key == "source") {
      const std::vector<long> s = command_line::ParseLongList(key, value, ',', 4, -1000000, 1000000);
      o.source = {static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]), static_cast<int>(s[3])};
    } else if (key == "solver") {
      static const std::map<std::string, PropagatorSolver> kSolvers{
          {"bicgstab", PropagatorSolver::kBiCGstab},
          {"cg", PropagatorSolver::kCg},
          {"bicgstab-reliable", PropagatorSolver::kReliableBiCGstab},
          {"cg-reliable", PropagatorSolver::kReliableCg}};
      const auto it = kSolvers.find(value);
      if (it == kSolvers.end()) {
        throw std::invalid_argument("--solver must be bicgstab, cg, bicgstab-reliable or cg-reliable; got " + value);
      }
      o.solver.solver = it->second;
    } else if (key == "low-precision") {
      if (value != "single" && value != "half") throw std::invalid_argument("--low-precision must be single or half");
      o.solver.low_precision = value == "single" ? LowPrecision::kSingle : LowPrecision::kHalf;
    } else if (key == "delta") {
      o.solver.params.delta = command_line::ParseFiniteDouble(key, value);
    } else if (key == "tol") {
      o.solver.params.tolerance = command_line::ParseFiniteDouble(key, value);
    } else if (key == "max-iter") {
      o.solver.params.max_iterations = static_cast<int>(command_line::ParseLong(key, value, 1, 100000000));
    } else if (key == "output") {
      o.output = value;
    } else if (key == "plot-script") {
      o.plot_script = value;
    } else {
      throw std::invalid_argument("unknown option --" + key + " (see --help)");
    }
  }
  if (o.kappa_given && o.mass_given) throw std::invalid_argument("give --kappa or --mass, not both");
  if (o.csw_given && o.fermion == FermionKind::kWilson) {
    throw std::invalid_argument("--csw needs --fermion=clover (the Wilson action has no clover term)");
  }
  return o;
}

// ---- environment ----

// Relative paths given by the user are relative to where they ran `bazel run` (BUILD_WORKING_DIRECTORY),
// not to the runfiles directory bazel runs the binary in.
fs::path UserPath(const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute()) return p;
  if (const char* base = std::getenv("BUILD_WORKING_DIRECTORY"); base != nullptr && *base != '\0') {
    return fs::path(base) / p;
  }
  return fs::current_path() / p;
}

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return buffer;
}

// The plotting script: --plot-script, else the runfiles of this binary (bazel run, or run from bazel-bin).
fs::path FindPlotScript(const Options& o, const char* argv0) {
  if (!o.plot_script.empty()) return UserPath(o.plot_script);
  std::vector<fs::path> candidates;
  if (const char* r = std::getenv("RUNFILES_DIR"); r != nullptr) candidates.push_back(fs::path(r) / "lqcd");
  candidates.push_back(fs::path(std::string(argv0) + ".runfiles") / "lqcd");
  candidates.push_back(fs::current_path());
  for (const fs::path& root : candidates) {
    const fs::path script = root / "experiments" / "plot_pion.py";
    if (fs::exists(script)) return script;
  }
  throw std::runtime_error("cannot find experiments/plot_pion.py in the runfiles; pass --plot-script or --no-plot");
}

// Runs /usr/bin/python3 script args... with PYTHONPATH = the runfiles root (for `from experiments import
// plotting`); its stdout and stderr are forwarded to std::cout (so they reach run.log too). Returns the
// exit status.
int RunPython(const fs::path& script, const std::vector<std::string>& args) {
  const std::string python = "/usr/bin/python3";
  std::vector<std::string> argv_strings{python, script.string()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const std::string pythonpath = script.parent_path().parent_path().string();
  std::cout.flush();
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed while starting the plot");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed while starting the plot");
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    setenv("PYTHONPATH", pythonpath.c_str(), 1);
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(python.c_str(), argv.data());
    std::perror("execv /usr/bin/python3");
    _exit(127);
  }
  close(fds[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      std::cout.write(buffer, n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("waitpid failed for the plot process");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string Sci(double v, int digits) {
  if (std::isnan(v)) return "nan";
  std::ostringstream s;
  s << std::scientific << std::setprecision(digits) << v;
  return s.str();
}

// ---- the configuration ----

struct Configuration {
  GaugeField<double> field;
  std::string description;
};

Configuration LoadOrGenerate(const Options& o, const fs::path& output) {
  if (!o.config.empty()) {
    const fs::path path = UserPath(o.config);
    GaugeConfiguration c = ReadGaugeConfiguration(path.string());
    std::cout << "configuration: read " << path.string() << "\n" << c.metadata.Describe() << "\n";
    return {std::move(c.field), "read from " + path.string()};
  }
  const QuenchedOptions& g = o.generator;
  ValidateQuenchedOptions(g);
  const int sweeps = g.thermalisation_sweeps + g.separation_sweeps;
  std::ostringstream name;
  name << "quenched_" << Lattice(g.extents).ToString() << "_b" << Fixed(g.beta, 4) << "_seed" << g.seed << "_sweeps"
       << sweeps << "_or" << g.overrelaxation_steps << "_chain" << kQuenchedChainVersion;
  const fs::path cache = output / (name.str() + ".nersc");
  if (fs::exists(cache)) {
    GaugeConfiguration c = ReadGaugeConfiguration(cache.string());
    std::cout << "configuration: reusing " << cache.string() << " (cached by an earlier run with the same "
              << "generator parameters; delete it to regenerate; its checksum, plaquette and link trace were "
              << "verified on reading)\n";
    return {std::move(c.field), "generated earlier, cached in " + cache.string()};
  }
  std::cout << "configuration: generating (quenched SU(3), Wilson plaquette action, cold start):\n";
  GaugeField<double> field(Lattice(g.extents));
  const QuenchedSummary summary = GenerateQuenched(
      g, std::cout, [&](const GaugeField<double>& u, int, long) { field = u; });
  NerscWriteOptions write;
  write.ensemble_id = name.str();
  write.ensemble_label = "lqcd experiments/pion (reference/quenched_generator)";
  write.sequence_number = sweeps;
  write.creator = "lqcd experiments/pion";
  WriteNersc(cache.string(), field, write);
  WritePlaquetteHistoryCsv((output / (name.str() + "_plaquette.csv")).string(), summary.history);
  std::cout << "configuration: saved to " << cache.string() << " (NERSC, reused by the next run with the same "
            << "generator parameters); plaquette history in " << name.str() << "_plaquette.csv\n";
  return {std::move(field), "generated in " + Fixed(summary.seconds, 1) + " s, cached in " + cache.string()};
}

// ---- main ----

int Main(int argc, char** argv, TeeBuffer& tee) {
  const auto start = std::chrono::steady_clock::now();
  const Options o = ParseOptions(argc, argv);
  const int threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  omp_set_num_threads(threads);
  PropagatorSolverOptions solver_options = o.solver;
  solver_options.threads = std::min(threads, 12);
  const fs::path output = UserPath(o.output);
  fs::create_directories(output);
  std::ofstream log((output / "run.log").string());
  if (!log) throw std::runtime_error("cannot write " + (output / "run.log").string());
  struct Detach {  // stop teeing into run.log before `log` is destroyed, however Main is left
    TeeBuffer& tee;
    ~Detach() {
      std::cout.flush();
      tee.set_second(nullptr);
    }
  } detach{tee};
  tee.set_second(log.rdbuf());

  std::cout << "pion: point-source propagator and zero-momentum pion correlator (lqcd experiments/pion)\n"
            << "date: " << UtcNow() << "\n"
            << "machine: " << CpuModel() << ", " << std::thread::hardware_concurrency() << " hardware threads; "
            << "generator OpenMP threads " << omp_get_max_threads() << "; " << solver_options.threads
            << " propagator columns solved at a time, one thread each (CPU reference oracle)\n"
            << "compiler: " << __VERSION__ << "\n"
            << "output directory: " << output.string() << "\n\n";

  // Configuration.
  Configuration config = LoadOrGenerate(o, output);
  const GaugeField<double>& u = config.field;
  const Lattice& lattice = u.lattice();
  const PlaquetteAverages plaq = MeasurePlaquette(u);
  std::cout << "\nlattice: " << lattice.ToString() << " (" << lattice.volume() << " sites)\n"
            << "configuration: " << config.description << "\n"
            << "plaquette <Re Tr U_p>/3: " << Fixed(plaq.total, 8) << " (spatial " << Fixed(plaq.spatial, 8)
            << ", temporal " << Fixed(plaq.temporal, 8) << "); link trace <Re Tr U>/3: " << Fixed(LinkTrace(u), 8)
            << "\n";

  // Parameters.
  FermionAction action;
  action.kind = o.fermion;
  action.c_sw = o.fermion == FermionKind::kClover ? o.c_sw : 0.0;
  action.mass = o.mass_given ? o.mass : WilsonParams::FromKappa(o.kappa).mass;
  action.basis = o.basis;
  action.boundary = o.boundary;
  action.schur_form = o.clover_form;
  action.Validate();
  const double kappa = action.kappa();
  for (int mu = 0; mu < kDims; ++mu) {
    if (o.source[mu] < 0 || o.source[mu] >= lattice.extent(mu)) {
      throw std::invalid_argument("--source: coordinate " + std::to_string(o.source[mu]) + " is off the lattice " +
                                  lattice.ToString());
    }
  }
  const int source = lattice.Index(o.source);
  std::cout << "fermions: " << action.Describe() << "\n"
            << "source: point source at (x,y,z,t) = (" << o.source[0] << "," << o.source[1] << "," << o.source[2]
            << "," << o.source[3] << "), all 4 spins x 3 colours\n"
            << "solver: " << o.solver.Describe() << "\n"
            << "normalisation: the propagator is S = M^{-1} with the m-normalised M = (4 + m) - D/2"
            << (action.kind == FermionKind::kClover ? " + A" : "") << " (column C below).\n"
            << "               kappa-normalised: (1 - kappa D" << (action.kind == FermionKind::kClover ? " + 2 kappa A" : "")
            << ")^{-1} = M^{-1} / (2 kappa), so C_kappa(t) = C(t) / (4 kappa^2) = C(t) * "
            << Fixed(1 / (4 * kappa * kappa), 6) << " (column C_kappa).\n"
            << "correlator: C(t) = sum_x tr[S(x,t;0) S(x,t;0)^dag], t counted from the source time slice, T = "
            << lattice.extent(3) << ".\n"
            << "            m_eff_log(t) = log C(t)/C(t+1); m_eff_cosh(t) solves C(t)/C(t+1) = "
               "cosh(m (t - T/2))/cosh(m (t + 1 - T/2));\n"
            << "            folded: the same cosh form for C_folded(t) = (C(t) + C(T - t))/2 (the ensemble average "
               "is symmetric; one configuration only roughly).\n\n";

  // Solves.
  std::cout << "solves (" << o.solver.Describe() << "):\n"
            << " spin colour  status      iterations  true |b-Mx|/|b|  seconds  Gflop/s\n";
  const PropagatorRun run =
      solvers::ComputePropagator(u, action, solver_options, source, [](const PropagatorSolveRecord& r) {
        std::cout << std::setw(5) << r.spin << std::setw(7) << r.colour << "  " << std::left << std::setw(11)
                  << solvers::ToString(r.result.status) << std::right << std::setw(11) << r.result.iterations
                  << std::setw(17) << Sci(r.true_residual, 3) << std::setw(9) << Fixed(r.result.seconds, 2)
                  << std::setw(9)
                  << Fixed(r.result.seconds > 0 ? r.result.flops / r.result.seconds * 1e-9 : 0.0, 2) << "\n";
        std::cout.flush();
      });
  long iterations = 0;
  double flops = 0;
  for (const PropagatorSolveRecord& r : run.solves) {
    iterations += r.result.iterations;
    flops += r.result.flops;
  }
  std::cout << "12 solves: " << iterations << " iterations, " << Fixed(run.seconds, 1) << " s, "
            << Fixed(flops / run.seconds * 1e-9, 2) << " Gflop/s; solver: " << run.solves.front().result.solver
            << "\n";
  if (!run.all_converged()) {
    std::cout << "WARNING: not every solve converged; the correlator below is NOT reliable:\n";
    for (const PropagatorSolveRecord& r : run.solves) {
      if (!r.result.converged()) std::cout << "  (" << r.spin << "," << r.colour << "): " << r.result.Summary() << "\n";
    }
  }

  // Correlator.
  const std::vector<double> c = PionCorrelator(run.propagator);
  const std::vector<double> c_kappa = KappaNormalisedCorrelator(c, kappa);
  const std::vector<double> m_log = LogEffectiveMass(c);
  const std::vector<double> m_cosh = CoshEffectiveMass(c);
  const std::vector<double> folded = FoldCorrelator(c);
  const std::vector<double> m_folded = CoshEffectiveMass(folded);
  const int lt = lattice.extent(3);
  auto mass = [](double m) { return std::isnan(m) ? std::string("nan") : Fixed(m, 5); };
  std::cout << "\npion correlator (zero momentum; C of S = M^{-1}, C_kappa = C / (4 kappa^2), C_folded = (C(t) + "
               "C(T - t)) / 2;\n"
            << "effective masses: log = log C(t)/C(t+1), cosh = cosh form of C, folded = cosh form of C_folded):\n"
            << "  t            C(t)       C_kappa(t)     C_folded(t)       log      cosh    folded\n";
  for (int t = 0; t < lt; ++t) {
    std::cout << std::setw(3) << t << std::setw(16) << Sci(c[t], 6) << std::setw(17) << Sci(c_kappa[t], 6)
              << std::setw(16) << Sci(folded[t], 6);
    if (t + 1 < lt) {
      std::cout << std::setw(10) << mass(m_log[t]) << std::setw(10) << mass(m_cosh[t]);
      if (2 * t < lt) std::cout << std::setw(10) << mass(m_folded[t]);
    }
    std::cout << "\n";
  }

  // Files.
  {
    std::ofstream csv((output / "pion_correlator.csv").string());
    // Empty cells where a quantity is undefined (last t; folded masses past the midpoint; no cosh solution).
    auto cell = [](bool defined, double v) {
      std::ostringstream s;
      s << std::setprecision(17);
      if (defined && !std::isnan(v)) s << v;
      return s.str();
    };
    csv << "t,C,C_kappa,C_folded,m_eff_log,m_eff_cosh,m_eff_cosh_folded\n" << std::setprecision(17);
    for (int t = 0; t < lt; ++t) {
      const bool has_mass = t + 1 < lt;
      csv << t << "," << c[t] << "," << c_kappa[t] << "," << folded[t] << "," << cell(has_mass, has_mass ? m_log[t] : 0)
          << "," << cell(has_mass, has_mass ? m_cosh[t] : 0) << ","
          << cell(has_mass && 2 * t < lt, has_mass ? m_folded[t] : 0) << "\n";
    }
    if (!csv) throw std::runtime_error("error writing pion_correlator.csv");
    std::ofstream solves((output / "solves.csv").string());
    solves << "spin,colour,status,iterations,krylov_iterations,restarts,high_precision_updates,true_residual,"
              "solver_true_residual,seconds,flops\n"
           << std::setprecision(10);
    for (const PropagatorSolveRecord& r : run.solves) {
      solves << r.spin << "," << r.colour << "," << solvers::ToString(r.result.status) << "," << r.result.iterations
             << "," << r.result.krylov_iterations << "," << r.result.restarts << ","
             << r.result.high_precision_updates << "," << r.true_residual << "," << r.result.true_residual << ","
             << r.result.seconds << "," << r.result.flops << "\n";
    }
    if (!solves) throw std::runtime_error("error writing solves.csv");
  }
  std::cout << "\nwrote " << (output / "pion_correlator.csv").string() << ", " << (output / "solves.csv").string()
            << ", " << (output / "run.log").string() << "\n";

  if (o.plot) {
    const fs::path script = FindPlotScript(o, argv[0]);
    const fs::path png = output / "pion.png";
    const int status = RunPython(script, {(output / "pion_correlator.csv").string(), png.string(),
                                          "--title", lattice.ToString() + " plaquette " + Fixed(plaq.total, 5) + ", " +
                                                         action.Describe().substr(0, action.Describe().find(';')) +
                                                         ", kappa " + Fixed(kappa, 5)});
    if (status != 0) throw std::runtime_error("the plot script failed (exit status " + std::to_string(status) + ")");
    std::cout << "wrote " << png.string() << " (log C(t) and both effective masses)\n";
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "total time: " << Fixed(total, 1) << " s\n";
  return run.all_converged() ? 0 : 2;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  lqcd::TeeBuffer tee(std::cout.rdbuf(), nullptr);
  std::streambuf* original = std::cout.rdbuf(&tee);
  int status = 1;
  try {
    status = lqcd::Main(argc, argv, tee);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fprintf(stderr, "pion: error: %s\n", e.what());
    status = 1;
  }
  std::cout.flush();
  std::cout.rdbuf(original);
  return status;
}
