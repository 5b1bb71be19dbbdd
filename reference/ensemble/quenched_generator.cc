// quenched_generator.cc: see quenched_generator.h.
#include "reference/ensemble/quenched_generator.h"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "reference/ensemble/heatbath.h"
#include "reference/plaquette.h"

namespace lqcd {
namespace {

double SecondsSince(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("quenched generator: " + message);
}

std::string FormatSeconds(double s) {
  char buffer[32];
  if (s < 120) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", s);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f min", s / 60);
  }
  return buffer;
}

}  // namespace

void ValidateQuenchedOptions(const QuenchedOptions& o) {
  Lattice lattice(o.extents);  // throws std::invalid_argument naming a bad extent
  Require(std::isfinite(o.beta) && o.beta >= 0, "beta must be finite and >= 0");
  Require(o.thermalisation_sweeps >= 0, "thermalisation sweeps must be >= 0");
  Require(o.configurations >= 0, "number of configurations must be >= 0");
  Require(o.separation_sweeps >= 1, "separation sweeps must be >= 1");
  Require(o.overrelaxation_steps >= 0, "overrelaxation steps must be >= 0");
  Require(o.reunitarize_every >= 1, "reunitarize-every must be >= 1");
  Require(o.progress_every >= 0, "progress-every must be >= 0");
  Require(o.first_sweep >= 0, "first sweep must be >= 0");
  const long total = static_cast<long>(o.thermalisation_sweeps) + static_cast<long>(o.configurations) * o.separation_sweeps;
  Require(total <= 100000000L, "thermalisation + configurations * separation must be <= 1e8 sweeps");
}

std::string DescribeQuenchedOptions(const QuenchedOptions& o, bool given_start) {
  std::ostringstream out;
  out << std::setprecision(10);
  out << "action = Wilson plaquette, S = beta sum_p (1 - Re Tr U_p / 3)\n"
      << "lattice = " << Lattice(o.extents).ToString() << "\n"
      << "beta = " << o.beta << "\n"
      << "seed = " << o.seed << "\n"
      << "start = "
      << (given_start ? "the given field (continuing a run)" : (o.hot_start ? "hot (Haar random links)" : "cold (unit links)"))
      << "\n"
      << "update = Cabibbo-Marinari heatbath (3 SU(2) subgroups) + " << o.overrelaxation_steps
      << " overrelaxation sweeps per sweep, checkerboarded\n"
      << "reunitarize_every = " << o.reunitarize_every << " sweeps\n"
      << "thermalisation_sweeps = " << o.thermalisation_sweeps << "\n"
      << "separation_sweeps = " << o.separation_sweeps << "\n"
      << "configurations = " << o.configurations << "\n"
      << "total_sweeps = " << (static_cast<long>(o.thermalisation_sweeps) + static_cast<long>(o.configurations) * o.separation_sweeps)
      << "\n"
      << "first_sweep = " << o.first_sweep << "\n"
      << "openmp_threads = " << omp_get_max_threads() << " (hardware threads " << std::thread::hardware_concurrency()
      << "; results do not depend on it)\n";
  return out.str();
}

void CpuSweeps::Heatbath(double beta, std::uint64_t seed, std::uint64_t sweep) { HeatbathSweep(u_, beta, seed, sweep); }
void CpuSweeps::Overrelax() { OverrelaxationSweep(u_); }
std::string CpuSweeps::Describe() const { return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads"; }

QuenchedSummary GenerateQuenched(const QuenchedOptions& o, std::ostream& log, const ConfigurationSink& sink,
                                 GaugeField<double>* final_field, const GaugeField<double>* initial_field,
                                 SweepEngine* engine) {
  ValidateQuenchedOptions(o);
  const auto run_start = std::chrono::steady_clock::now();
  const Lattice lattice(o.extents);
  GaugeField<double> u(lattice);
  if (initial_field != nullptr) {
    Require(initial_field->lattice() == lattice, "the starting field is " + initial_field->lattice().ToString() +
                                                     ", the options say " + lattice.ToString());
    Require(!o.hot_start, "a starting field and a hot start exclude each other");
    u = *initial_field;
  } else if (o.hot_start) {
    HotStart(u, o.seed);
  }

  QuenchedSummary summary;
  const PlaquetteAverages start_plaquette = MeasurePlaquette(u);
  SweepRecord start;
  start.sweep = o.first_sweep - 1;
  start.plaquette = start_plaquette.total;
  start.spatial = start_plaquette.spatial;
  start.temporal = start_plaquette.temporal;
  summary.history.push_back(start);
  log << DescribeQuenchedOptions(o, initial_field != nullptr);
  if (engine != nullptr) log << "sweeps on = " << engine->Describe() << "\n";
  log << std::fixed << std::setprecision(8) << "start plaquette = " << start.plaquette << "\n";

  const long total = static_cast<long>(o.thermalisation_sweeps) + static_cast<long>(o.configurations) * o.separation_sweeps;
  double update_seconds = 0;
  std::vector<double> production;
  bool engine_loaded = false;  // whether the engine holds u
  for (long step = 0; step < total; ++step) {
    const long sweep = o.first_sweep + step;
    SweepRecord record;
    record.sweep = sweep;
    record.thermalisation = step < o.thermalisation_sweeps;
    auto t0 = std::chrono::steady_clock::now();
    if (engine != nullptr) {
      if (!engine_loaded) engine->Load(u);
      engine_loaded = true;
      engine->Heatbath(o.beta, o.seed, static_cast<std::uint64_t>(sweep));
    } else {
      HeatbathSweep(u, o.beta, o.seed, static_cast<std::uint64_t>(sweep));
    }
    record.heatbath_seconds = SecondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < o.overrelaxation_steps; ++k) {
      if (engine != nullptr) {
        engine->Overrelax();
      } else {
        OverrelaxationSweep(u);
      }
    }
    if (engine != nullptr) engine->Store(u);
    if ((sweep + 1) % o.reunitarize_every == 0) {
      ReunitarizeField(u);
      engine_loaded = false;  // the engine's copy is stale
    }
    record.overrelaxation_seconds = SecondsSince(t0);
    update_seconds += record.heatbath_seconds + record.overrelaxation_seconds;

    const PlaquetteAverages p = MeasurePlaquette(u);
    record.plaquette = p.total;
    record.spatial = p.spatial;
    record.temporal = p.temporal;
    if (!record.thermalisation) production.push_back(p.total);
    const long after_thermalisation = step + 1 - o.thermalisation_sweeps;
    if (after_thermalisation > 0 && after_thermalisation % o.separation_sweeps == 0) {
      record.saved = true;
      const int index = static_cast<int>(after_thermalisation / o.separation_sweeps) - 1;
      if (sink) sink(u, index, sweep);
    }
    summary.history.push_back(record);

    if (o.progress_every > 0 && ((step + 1) % o.progress_every == 0 || step + 1 == total)) {
      const double per_sweep = update_seconds / (step + 1);
      log << "sweep " << std::setw(6) << sweep << " " << (record.thermalisation ? "therm" : "prod ") << "  P = "
          << std::setprecision(8) << record.plaquette << "  (s " << std::setprecision(6) << record.spatial << ", t "
          << record.temporal << ")  hb " << std::setprecision(4) << record.heatbath_seconds << " s  or "
          << record.overrelaxation_seconds << " s  " << std::setprecision(3)
          << 1e6 * (record.heatbath_seconds + record.overrelaxation_seconds) / lattice.volume() << " us/site"
          << (record.saved ? "  [saved]" : "") << "  eta " << FormatSeconds(per_sweep * (total - step - 1)) << "\n";
      log.flush();
    }
  }

  summary.seconds = SecondsSince(run_start);
  summary.seconds_per_sweep = total > 0 ? update_seconds / total : 0;
  summary.seconds_per_site_sweep = summary.seconds_per_sweep / lattice.volume();
  log << std::setprecision(8) << "done: " << total << " sweeps in " << FormatSeconds(summary.seconds) << "; "
      << std::setprecision(4) << summary.seconds_per_sweep << " s per sweep, " << 1e6 * summary.seconds_per_site_sweep
      << " us per site-sweep (heatbath + " << o.overrelaxation_steps << " overrelaxation)\n";
  if (production.size() >= 2) {
    summary.production_plaquette = BinnedMean(production);
    const BinnedEstimate& e = summary.production_plaquette;
    log << std::setprecision(8) << "production plaquette = " << e.mean << " +- " << e.error << " (" << production.size()
        << " sweeps, " << e.bins << " bins of " << e.bin_size << "; naive error " << e.naive_error
        << ", tau_int ~ " << std::setprecision(2) << e.TauIntegrated() << " sweeps)\n";
  }
  if (final_field != nullptr) *final_field = u;
  return summary;
}

void WritePlaquetteHistoryCsv(const std::string& path, const std::vector<SweepRecord>& history) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot open " + path + " for writing");
  out << "sweep,phase,plaquette,spatial,temporal,heatbath_seconds,overrelaxation_seconds,saved\n";
  out << std::setprecision(17);
  for (const SweepRecord& r : history) {
    const bool is_start = &r == &history.front();
    out << r.sweep << "," << (is_start ? "start" : (r.thermalisation ? "thermalisation" : "production")) << ","
        << r.plaquette << "," << r.spatial << "," << r.temporal << "," << r.heatbath_seconds << ","
        << r.overrelaxation_seconds << "," << (r.saved ? 1 : 0) << "\n";
  }
  out.close();
  if (!out) throw std::runtime_error("error while writing " + path);
}

}  // namespace lqcd
