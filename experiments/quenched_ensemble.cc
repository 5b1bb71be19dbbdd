#include "experiments/quenched_ensemble.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "reference/lattice.h"
#include "reference/io/nersc_io.h"
#include "reference/plaquette.h"

namespace lqcd::experiments {

std::string EnsembleSpec::Tag() const {
  const QuenchedOptions& o = generator;
  char beta[32];
  std::snprintf(beta, sizeof beta, "%.4g", o.beta);
  std::ostringstream s;
  s << "quenched_b" << beta << "_" << Lattice(o.extents).ToString() << "_seed" << o.seed << "_"
    << (o.hot_start ? "hot" : "cold") << "_therm" << o.thermalisation_sweeps << "_sep" << o.separation_sweeps << "_or"
    << o.overrelaxation_steps << "_chain" << kQuenchedChainVersion;
  return s.str();
}

long EnsembleSpec::SweepOf(int k) const {
  // The generator saves configuration k after sweep therm + (k + 1) * sep - 1, counted from 0.
  return static_cast<long>(generator.thermalisation_sweeps) + static_cast<long>(k + 1) * generator.separation_sweeps;
}

double Ensemble::MeanPlaquette() const {
  if (members.empty()) throw std::invalid_argument("Ensemble::MeanPlaquette: empty ensemble");
  double sum = 0;
  for (const EnsembleMember& m : members) sum += m.plaquette;
  return sum / static_cast<double>(members.size());
}

Ensemble LoadOrGenerateEnsemble(const EnsembleSpec& spec, const std::string& directory, std::ostream& log,
                                SweepEngine* sweeps_on) {
  ValidateQuenchedOptions(spec.generator);
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path dir = std::filesystem::path(directory) / spec.Tag();
  const int count = spec.generator.configurations;
  auto path_of = [&](int k) { return (dir / ("config_" + std::to_string(spec.SweepOf(k)) + ".nersc")).string(); };

  bool cached = true;
  for (int k = 0; k < count; ++k) cached = cached && std::filesystem::exists(path_of(k));

  Ensemble ensemble;
  if (cached) {
    log << "ensemble: reading " << count << " cached configurations from " << dir.string() << "\n";
    for (int k = 0; k < count; ++k) {
      GaugeConfiguration c = ReadNersc(path_of(k));  // verifies checksum, plaquette, link trace, SU(3)
      if (c.field.lattice() != Lattice(spec.generator.extents)) {
        throw std::runtime_error(path_of(k) + ": lattice " + c.field.lattice().ToString() + " differs from the requested " +
                                 Lattice(spec.generator.extents).ToString());
      }
      const double plaquette = MeasurePlaquette(c.field).total;
      ensemble.members.push_back({std::move(c.field), spec.SweepOf(k), path_of(k), plaquette});
    }
  } else {
    log << "ensemble: generating " << count << " configurations into " << dir.string() << "\n"
        << DescribeQuenchedOptions(spec.generator);
    std::filesystem::create_directories(dir);
    QuenchedOptions options = spec.generator;
    ConfigurationSink sink = [&](const GaugeField<double>& u, int index, long sweep) {
      NerscWriteOptions write;
      write.storage = NerscStorage::kThreeRows;
      write.precision = FloatPrecision::kDouble;
      write.ensemble_id = spec.Tag();
      write.ensemble_label = "lqcd experiments/solver_tables";
      write.sequence_number = static_cast<int>(sweep + 1);
      write.creator = "lqcd experiments/quenched_ensemble";
      const std::string path = path_of(index);
      WriteNersc(path, u, write);
      // Keep exactly what a later run will read back (double storage: the round trip is exact).
      ensemble.members.push_back({ReadNersc(path).field, sweep + 1, path, MeasurePlaquette(u).total});
      log << "ensemble: saved configuration " << index << " (after sweep " << sweep + 1 << ") to " << path << "\n";
    };
    const QuenchedSummary summary = GenerateQuenched(options, log, sink, nullptr, nullptr, sweeps_on);
    WritePlaquetteHistoryCsv((dir / "plaquette.csv").string(), summary.history);
    ensemble.generated = true;
  }
  ensemble.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ensemble;
}

}  // namespace lqcd::experiments
