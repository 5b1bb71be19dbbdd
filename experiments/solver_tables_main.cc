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
//   4. every solver variant (experiments/solver_variants.h) on every configuration, Gaussian source and
//      mass, from x = 0, solves run concurrently on --threads threads (one solve per thread).
// Output files (in --out): solves.csv (one row per solve), spectroscopy.csv (correlators), masses.csv,
// run_summary.csv (key,value), run_info.txt, and the ensemble cache.
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
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "experiments/critical_mass.h"
#include "experiments/quenched_ensemble.h"
#include "experiments/solver_variants.h"
#include "reference/lattice.h"
#include "reference/machine_info.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/even_odd.h"
#include "solvers/reliable_update.h"

namespace lqcd::experiments {
namespace {

constexpr char kUsage[] = R"(usage: solver_tables_cc --out=DIR [options]
  --out=DIR                 output directory (created); the ensemble is cached in DIR/ensemble
  --lattice=LXxLYxLZxLT     lattice (default 6x6x6x12)
  --beta=B                  gauge coupling (default 5.7)
  --seed=N                  generator seed (default 1)
  --start=cold|hot          generator start (default cold)
  --therm=N                 thermalisation sweeps (default 100)
  --sep=N                   sweeps between configurations (default 20)
  --or=N                    overrelaxation sweeps per heatbath sweep (default 4)
  --configs=N               configurations (default 3)
  --sources=N               Gaussian sources per configuration (default 1)
  --mass_fractions=F,...    table masses m = m_c + F (m_s - m_c) (default 1,2/3,1/3,0: the paper's
                            span m_s .. m_c, evenly spaced; F < 0 lies below m_c)
  --masses=M,...            explicit table masses: skips the critical-mass determination
  --critical_mass=M         take m_c as given (with --strange_mass): skips the spectroscopy
  --strange_mass=M          the strange bare mass m_s (with --critical_mass)
  --strange_pion_mass=A     a m_{s sbar} in lattice units (default: Necco-Sommer scale, r0 = 0.5 fm)
  --pion_targets=A,...      a m_pi of the spectroscopy masses (default: max(4/L, 0.5) x 1.5, 1.25, 1)
  --spectroscopy_tolerance=E  solver tolerance of the correlator solves (default 1e-10)
  --variants=V,...          cg, bicgstab, dc:<half|single>:<eps_in>, ru:<half|single>:<delta>, or
                            "paper" for all the paper's columns (default: those without single
                            eps_in = 1e-4, 1e-6; experiments/solver_variants.h)
  --tolerance=E             eps of the tables (default 1e-12)
  --max_iterations=N        iteration budget per solve, paper counting (default 2000)
  --threads=N               concurrent solves (default: hardware threads)
)";

struct Options {
  std::string out;
  EnsembleSpec ensemble;
  int sources = 1;
  std::vector<double> mass_fractions = {1, 2.0 / 3, 1.0 / 3, 0};
  std::vector<double> explicit_masses;
  bool given_critical = false;
  double critical_mass = 0, strange_mass = 0;
  bool given_critical_set = false, given_strange_set = false;
  double strange_pion_mass = 0;  // 0: from the scale
  std::vector<double> pion_targets;
  double spectroscopy_tolerance = 1e-10;
  std::vector<SolverVariant> variants = DefaultVariants();
  double tolerance = 1e-12;
  int max_iterations = 2000;
  int threads = 0;
};

[[noreturn]] void BadOption(const std::string& message) { throw std::invalid_argument(message); }

double ParseDouble(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double d = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(d)) {
    BadOption("--" + key + " needs a finite number, got '" + value + "'");
  }
  return d;
}

int ParseInt(const std::string& key, const std::string& value) {
  const double d = ParseDouble(key, value);
  if (d != std::floor(d) || std::abs(d) > 1e9) BadOption("--" + key + " needs an integer, got '" + value + "'");
  return static_cast<int>(d);
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::vector<double> ParseList(const std::string& key, const std::string& value) {
  std::vector<double> out;
  for (const std::string& p : Split(value, ',')) out.push_back(ParseDouble(key, p));
  if (out.empty()) BadOption("--" + key + " needs at least one number");
  return out;
}

Coordinates ParseLattice(const std::string& text) {
  const std::vector<std::string> parts = Split(text, 'x');
  if (parts.size() != 4) BadOption("--lattice needs 4 extents like 6x6x6x12, got '" + text + "'");
  Coordinates c{};
  for (int mu = 0; mu < 4; ++mu) c[mu] = ParseInt("lattice", parts[mu]);
  Lattice check(c);  // throws std::invalid_argument naming a bad extent
  return c;
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  QuenchedOptions& g = o.ensemble.generator;
  g.extents = {6, 6, 6, 12};
  g.beta = 5.7;
  g.seed = 1;
  g.thermalisation_sweeps = 100;
  g.separation_sweeps = 20;
  g.configurations = 3;
  g.overrelaxation_steps = 4;
  g.progress_every = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) BadOption("expected --key=value, got '" + arg + "'");
    const std::string key = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    if (key == "out") {
      if (value.empty()) BadOption("--out needs a directory");
      o.out = value;
    } else if (key == "lattice") {
      g.extents = ParseLattice(value);
    } else if (key == "beta") {
      g.beta = ParseDouble(key, value);
    } else if (key == "seed") {
      const int seed = ParseInt(key, value);
      if (seed < 0) BadOption("--seed must be >= 0");
      g.seed = static_cast<std::uint64_t>(seed);
    } else if (key == "start") {
      if (value != "cold" && value != "hot") BadOption("--start must be cold or hot, got '" + value + "'");
      g.hot_start = value == "hot";
    } else if (key == "therm") {
      g.thermalisation_sweeps = ParseInt(key, value);
    } else if (key == "sep") {
      g.separation_sweeps = ParseInt(key, value);
    } else if (key == "or") {
      g.overrelaxation_steps = ParseInt(key, value);
    } else if (key == "configs") {
      g.configurations = ParseInt(key, value);
    } else if (key == "sources") {
      o.sources = ParseInt(key, value);
      if (o.sources < 1) BadOption("--sources must be >= 1");
    } else if (key == "mass_fractions") {
      o.mass_fractions = ParseList(key, value);
    } else if (key == "masses") {
      o.explicit_masses = ParseList(key, value);
      for (double m : o.explicit_masses) {
        if (!(4 + m > 0)) BadOption("--masses: m = " + value + " needs 4 + m > 0");
      }
    } else if (key == "critical_mass") {
      o.critical_mass = ParseDouble(key, value);
      o.given_critical_set = true;
    } else if (key == "strange_mass") {
      o.strange_mass = ParseDouble(key, value);
      o.given_strange_set = true;
    } else if (key == "strange_pion_mass") {
      o.strange_pion_mass = ParseDouble(key, value);
      if (!(o.strange_pion_mass > 0)) BadOption("--strange_pion_mass must be > 0");
    } else if (key == "pion_targets") {
      o.pion_targets = ParseList(key, value);
      if (o.pion_targets.size() < 2) BadOption("--pion_targets needs at least two values (a line through them)");
      for (double t : o.pion_targets) {
        if (!(t > 0)) BadOption("--pion_targets must be > 0");
      }
    } else if (key == "spectroscopy_tolerance") {
      o.spectroscopy_tolerance = ParseDouble(key, value);
      if (!(o.spectroscopy_tolerance > 0 && o.spectroscopy_tolerance < 1)) BadOption("--spectroscopy_tolerance in (0, 1)");
    } else if (key == "variants") {
      o.variants.clear();
      if (value == "paper") {
        o.variants = PaperVariants();
      } else {
        for (const std::string& v : Split(value, ',')) o.variants.push_back(ParseVariant(v));
      }
      if (o.variants.empty()) BadOption("--variants needs at least one variant");
    } else if (key == "tolerance") {
      o.tolerance = ParseDouble(key, value);
      if (!(o.tolerance > 0 && o.tolerance < 1)) BadOption("--tolerance must lie in (0, 1)");
    } else if (key == "max_iterations") {
      o.max_iterations = ParseInt(key, value);
      if (o.max_iterations < 1) BadOption("--max_iterations must be >= 1");
    } else if (key == "threads") {
      o.threads = ParseInt(key, value);
      if (o.threads < 1) BadOption("--threads must be >= 1");
    } else {
      BadOption("unknown option --" + key);
    }
  }
  if (o.out.empty()) BadOption("--out=DIR is required");
  if (o.given_critical_set != o.given_strange_set) BadOption("--critical_mass and --strange_mass go together");
  o.given_critical = o.given_critical_set;
  if (o.given_critical && !(o.strange_mass > o.critical_mass)) BadOption("--strange_mass must exceed --critical_mass");
  if (o.given_critical && !o.explicit_masses.empty()) BadOption("give either --masses or --critical_mass, not both");
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  ValidateQuenchedOptions(g);
  return o;
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

// CSV cell: quoted if it holds a comma, quote or newline.
std::string Cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Num(double x) {
  if (std::isnan(x)) return "nan";
  std::ostringstream s;
  s << std::setprecision(10) << x;
  return s.str();
}

std::uint64_t SourceSeed(int config, int source) { return 0x5eed0000ull + 1000ull * config + source; }
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

SpectroscopyPoint MeasureCorrelators(const Ensemble& ensemble, double mass, const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(ensemble.members.size());
  SpectroscopyPoint point;
  point.correlators.mass = mass;
  point.correlators.per_config.resize(n);
  std::vector<int> iterations(n, 0);
  RunParallel(n, o.threads, [&](int k) {
    const GaugeField<double>& u = ensemble.members[k].u;
    WilsonParams w;
    w.mass = mass;
    const int lt = u.lattice().extent(3);
    const int t0 = (k * lt) / std::max(n, 1) % lt;  // spread the source slices over the configurations
    const SpinorField<double> eta = TimeSliceNoise(u.lattice(), t0, NoiseSeed(k));
    SpinorField<double> phi(u.lattice());
    const solvers::CpuWilson<double> m(u, w);
    const solvers::CpuWilsonSchur<double> schur(u, w);
    const solvers::CpuWilsonSchur<float> low(u, w);
    solvers::SolverParams p;
    p.tolerance = o.spectroscopy_tolerance;
    p.max_iterations = o.max_iterations;
    p.record_history = false;
    const solvers::SolveResult r =
        solvers::SolveEvenOdd(schur, m, phi, eta, p, [&](SpinorField<double>& xp, const SpinorField<double>& bp,
                                                         const solvers::SolverParams& q) {
          return solvers::ReliableBiCGstab(schur, low, xp, bp, q);
        });
    if (!r.converged()) {
      throw std::runtime_error("correlator solve at m = " + Num(mass) + " on configuration " + std::to_string(k) +
                               " did not converge: " + r.Summary());
    }
    point.correlators.per_config[k] = ContractOneEnd(phi, t0, w.basis);
    iterations[k] = r.iterations;
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

CriticalMassResult FindCriticalMass(const Ensemble& ensemble, const Options& o) {
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
    SpectroscopyPoint p = MeasureCorrelators(ensemble, mass, o);
    p.plateau = AveragePlateau(p.correlators, res.t_first, res.t_last);
    if (!std::isfinite(p.plateau.pion_mass)) {
      throw std::runtime_error("critical mass: the pion effective mass at m = " + Num(mass) +
                               " is undefined (correlator not cosh-like); give --critical_mass and --strange_mass");
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
                               " and " + Num(b.correlators.mass) + "; give --critical_mass and --strange_mass");
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
  VariantOutcome outcome;
  bool done = false;
};

int Run(const Options& o) {
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
         << "threads = " << o.threads << "\n"
         << "variants =";
  for (const SolverVariant& v : o.variants) params << " [" << v.Label() << "]";
  params << "\n";
  std::cout << "solver_tables: the paper's Tables 3-5 on quenched configurations (CPU backend, even-odd M_ee)\n"
            << "machine: " << machine << ", load average " << LoadAverage() << "\n"
            << "compiler: " << __VERSION__ << "\n"
            << params.str() << std::flush;

  const Ensemble ensemble = LoadOrGenerateEnsemble(o.ensemble, (std::filesystem::path(o.out) / "ensemble").string(), std::cout);
  std::cout << "ensemble: mean plaquette " << std::setprecision(8) << ensemble.MeanPlaquette() << " ("
            << std::setprecision(3) << ensemble.seconds << " s)\n";

  std::mutex log_mutex;
  CriticalMassResult critical;
  std::vector<double> masses, fractions;
  if (!o.explicit_masses.empty()) {
    masses = o.explicit_masses;
    fractions.assign(masses.size(), std::nan(""));
  } else {
    critical = FindCriticalMass(ensemble, o);
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

  // Tasks, the most expensive first (lightest mass, CG before the others) so that the threads finish together.
  const int n_configs = static_cast<int>(ensemble.members.size());
  std::vector<int> mass_order(masses.size()), variant_order;
  for (std::size_t i = 0; i < masses.size(); ++i) mass_order[i] = static_cast<int>(i);
  std::sort(mass_order.begin(), mass_order.end(), [&](int a, int b) { return masses[a] < masses[b]; });
  for (int pass = 0; pass < 2; ++pass) {
    for (int v = 0; v < static_cast<int>(o.variants.size()); ++v) {
      if ((o.variants[v].method == SolverMethod::kCg) == (pass == 0)) variant_order.push_back(v);
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
  std::cout << "tables: " << tasks.size() << " solves (" << masses.size() << " masses x " << o.variants.size()
            << " variants x " << n_configs << " configurations x " << o.sources << " sources) on " << o.threads
            << " threads\n"
            << std::flush;

  std::vector<SolveRow> rows(tasks.size());
  std::atomic<int> finished{0};
  const auto solve_start = std::chrono::steady_clock::now();
  RunParallel(static_cast<int>(tasks.size()), o.threads, [&](int i) {
    const Task& t = tasks[i];
    const GaugeField<double>& u = ensemble.members[t.config].u;
    SpinorField<double> b(u.lattice());
    FillGaussian(b, SourceSeed(t.config, t.source));
    solvers::SolverParams p;
    p.tolerance = o.tolerance;
    p.max_iterations = o.max_iterations;
    p.record_history = false;
    rows[i].outcome = RunVariant(o.variants[t.variant], u, masses[t.mass_index], b, p);
    rows[i].done = true;
    const solvers::SolveResult& r = rows[i].outcome.result;
    std::lock_guard<std::mutex> lock(log_mutex);
    std::cout << "[" << std::setw(4) << ++finished << "/" << tasks.size() << "] m = " << std::setprecision(6)
              << masses[t.mass_index] << " cfg " << t.config << " src " << t.source << "  " << std::left
              << std::setw(34) << o.variants[t.variant].Label() << std::right << " " << std::setw(11)
              << solvers::ToString(r.status) << "  it " << std::setw(5) << r.iterations << "  upd " << std::setw(3)
              << r.high_precision_updates << "  res " << std::scientific << std::setprecision(2)
              << rows[i].outcome.true_residual << std::defaultfloat << "  " << std::setprecision(3) << r.seconds
              << " s\n"
              << std::flush;
  });
  const double solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - solve_start).count();

  {
    std::ofstream f(std::filesystem::path(o.out) / "solves.csv");
    f << "config,config_sweep,source,source_seed,mass_index,mass,kappa,mass_fraction,m_minus_mc,table,solver,precision,"
         "parameter_name,parameter,iterations,krylov_iterations,updates,restarts,operator_applications,"
         "low_precision_applications,true_residual,iterated_residual,seconds,gflops,status,reason\n";
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const Task& t = tasks[i];
      const SolverVariant& v = o.variants[t.variant];
      const solvers::SolveResult& r = rows[i].outcome.result;
      const double m = masses[t.mass_index];
      f << t.config << "," << ensemble.members[t.config].sweep << "," << t.source << ","
        << SourceSeed(t.config, t.source) << "," << t.mass_index << "," << Num(m) << "," << Num(1 / (2 * (4 + m)))
        << "," << Num(fractions[t.mass_index]) << "," << Num(have_mc ? m - critical.critical_mass : std::nan("")) << ","
        << v.PaperTable() << "," << ToString(v.method) << "," << ToString(v.precision) << "," << v.ParameterName()
        << "," << Num(v.parameter) << "," << r.iterations << "," << r.krylov_iterations << ","
        << r.high_precision_updates << "," << r.restarts << "," << r.operator_applications << ","
        << r.low_precision_applications << "," << Num(rows[i].outcome.true_residual) << ","
        << Num(r.iterated_residual) << "," << Num(r.seconds) << ","
        << Num(r.seconds > 0 ? r.flops / r.seconds * 1e-9 : 0) << "," << solvers::ToString(r.status) << ","
        << Cell(r.reason) << "\n";
    }
  }
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
      << "threads," << o.threads << "\n"
      << "machine," << Cell(machine) << "\n"
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
  for (const SolveRow& r : rows) failed += r.outcome.result.converged() ? 0 : 1;
  if (failed > 0) std::cout << "solver_tables: " << failed << " solves did not converge (status in solves.csv)\n";
  return 0;
}

}  // namespace
}  // namespace lqcd::experiments

int main(int argc, char** argv) {
  lqcd::experiments::Options options;
  try {
    options = lqcd::experiments::ParseOptions(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "solver_tables: error: " << e.what() << "\n" << lqcd::experiments::kUsage;
    return 2;
  }
  try {
    return lqcd::experiments::Run(options);
  } catch (const std::exception& e) {
    std::cerr << "solver_tables: error: " << e.what() << "\n";
    return 1;
  }
}
