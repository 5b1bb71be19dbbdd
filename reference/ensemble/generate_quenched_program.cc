// generate_quenched_program.cc: the generate_quenched program (generate_quenched_program.h). It makes a quenched SU(3) ensemble with the Wilson plaquette action (Cabibbo-Marinari
// heatbath + overrelaxation, reference/ensemble/heatbath.h) and writes
//     <output>/plaquette.csv        the plaquette after every sweep (quenched_generator.h has the columns)
//     <output>/run_info.txt         the parameters, the machine, the timing and the plaquette summary
//     <output>/config_<n>.nersc     the configuration after n sweeps (sweeps 0 .. n-1), NERSC format (nersc_io.h)
// and prints the parameters, the plaquette and the time of every sweep, and a summary.
//
// Example (8^3 x 16 at beta = 6.0, 10 configurations):
//   bazel run //reference/ensemble:generate_quenched -- --lattice=8x8x8x16 --beta=6.0 --output=/tmp/ensemble
#include "reference/ensemble/generate_quenched_program.h"

#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "reference/cli/command_line.h"
#include "reference/io/gauge_io.h"
#include "reference/cli/machine_info.h"
#include "reference/io/nersc_io.h"
#include "reference/ensemble/quenched_generator.h"

namespace lqcd {

int GenerateQuenchedProgram(int argc, char** argv, const SweepBackends& backends) {
  if (backends.names.empty() || !backends.make) throw std::logic_error("GenerateQuenchedProgram: no backends");
  QuenchedOptions options;
  std::string output, load;
  FloatPrecision precision = FloatPrecision::kDouble;
  int threads = 0;
  std::string start_kind = "cold";
  std::string backend = backends.names.front();
  command_line::FlagSet flags(
      "generate_quenched",
      "Quenched SU(3) configurations with the Wilson plaquette action (Cabibbo-Marinari heatbath +\n"
      "overrelaxation). One sweep = one heatbath sweep + the overrelaxation sweeps; the plaquette is\n"
      "measured after each. Writes plaquette.csv, run_info.txt and config_<n>.nersc to --output.");
  flags.Section("Ensemble");
  flags.Extents("lattice", &options.extents, "lattice extents, each even");
  flags.Double("beta", &options.beta, "Wilson gauge coupling beta = 6/g^2", command_line::Range::AtLeast(0));
  flags.Unsigned64("seed", &options.seed, "64-bit seed of the Philox streams");
  flags.Choice<std::string>("start", &start_kind, {{"cold", "cold"}, {"hot", "hot"}},
                            "unit links or Haar-random links");
  flags.Int("therm", &options.thermalisation_sweeps, 0, 100000000, "thermalisation sweeps");
  flags.Int("sep", &options.separation_sweeps, 1, 100000000, "sweeps between saved configurations");
  flags.Int("configs", &options.configurations, 0, 100000000, "number of configurations to save");
  flags.Int("or", &options.overrelaxation_steps, 0, 100, "overrelaxation sweeps per heatbath sweep");
  flags.Int("reunitarize-every", &options.reunitarize_every, 1, 100000000, "reunitarise the links every N sweeps");
  flags.Int("progress-every", &options.progress_every, 0, 100000000, "print a line every N sweeps, 0 = never");
  flags.Int("threads", &threads, 0, 1024, "OpenMP threads (0: OMP_NUM_THREADS or all cores)");
  std::vector<std::pair<std::string, std::string>> backend_choices;
  for (const std::string& name : backends.names) backend_choices.emplace_back(name, name);
  flags.Choice<std::string>("backend", &backend, backend_choices, backends.help);
  flags.String("load", &load, "PATH",
               "start from this configuration (NERSC, ILDG/SciDAC or MILC, detected from its bytes) instead of a "
               "cold or hot start");
  flags.Custom("first-sweep", "N", "0",
               "number of the first sweep; to continue a run that ended after sweep n-1 bit-identically, --load its "
               "last (double precision) file and give n",
               [&](const std::string& v) {
                 options.first_sweep = command_line::ParseLong("first-sweep", v, 0, std::numeric_limits<long>::max());
               });
  flags.Section("Output");
  flags.String("output", &output, "DIR", "output directory, created if needed (none: write nothing)");
  flags.Choice<FloatPrecision>("precision", &precision,
                               {{"double", FloatPrecision::kDouble}, {"single", FloatPrecision::kSingle}},
                               "NERSC storage precision");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  options.hot_start = start_kind == "hot";
  if (threads > 0) omp_set_num_threads(threads);
  ValidateQuenchedOptions(options);
  // The sweeps' engine before any work: a backend that cannot run here is refused with the reason.
  const std::unique_ptr<SweepEngine> engine = backends.make(backend);

  std::ostringstream machine;
  machine << "machine = " << DescribeMachine() << "\n";
  std::cout << "generate_quenched: quenched SU(3), Wilson plaquette action\n" << machine.str();
  if (!output.empty()) {
    std::filesystem::create_directories(output);
    std::cout << "output = " << output << " (plaquette.csv, run_info.txt, config_<n>.nersc after n sweeps, NERSC "
              << ToString(precision) << ")\n";
  } else {
    std::cout << "output = none (no --output given: nothing is written)\n";
  }

  ConfigurationSink sink;
  if (!output.empty()) {
    sink = [&](const GaugeField<double>& u, int index, long sweep) {
      NerscWriteOptions write;
      write.precision = precision;
      write.storage = NerscStorage::kThreeRows;
      std::ostringstream id;
      id << "quenched_wilson_b" << options.beta << "_" << Lattice(options.extents).ToString() << "_seed" << options.seed;
      write.ensemble_id = id.str();
      write.ensemble_label = "lqcd reference/generate_quenched";
      write.sequence_number = static_cast<int>(sweep + 1);
      write.creator = "lqcd generate_quenched";
      const std::string path = output + "/config_" + std::to_string(sweep + 1) + ".nersc";
      WriteNersc(path, u, write);
      std::cout << "saved configuration " << index << " (after sweep " << sweep << ") to " << path << "\n";
    };
  }
  std::unique_ptr<GaugeConfiguration> start;
  if (!load.empty()) {
    start = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(load));
    if (start->field.lattice().extents() != options.extents) {
      throw std::invalid_argument("--load: " + load + " is " + start->field.lattice().ToString() + ", --lattice says " +
                                  Lattice(options.extents).ToString());
    }
    std::cout << "start = " << load << " (" << ToString(start->metadata.format) << ", "
              << ToString(start->metadata.precision) << ")\n";
  }
  const QuenchedSummary summary =
      GenerateQuenched(options, std::cout, sink, nullptr, start ? &start->field : nullptr, engine.get());

  if (!output.empty()) {
    WritePlaquetteHistoryCsv(output + "/plaquette.csv", summary.history);
    std::ofstream info(output + "/run_info.txt");
    info << "generate_quenched\n" << machine.str() << DescribeQuenchedOptions(options, start != nullptr)
         << "sweeps on = " << (engine ? engine->Describe() : "CPU (in place)") << "\n";
    if (start) info << "loaded = " << load << "\n";
    info.precision(10);
    info << "seconds = " << summary.seconds << "\n"
         << "seconds_per_sweep = " << summary.seconds_per_sweep << "\n"
         << "microseconds_per_site_sweep = " << 1e6 * summary.seconds_per_site_sweep << "\n";
    if (summary.production_plaquette.bins >= 2) {
      info << "production_plaquette = " << summary.production_plaquette.mean << "\n"
           << "production_plaquette_error = " << summary.production_plaquette.error << "\n"
           << "production_plaquette_tau_int = " << summary.production_plaquette.TauIntegrated() << "\n";
    }
    if (!info) throw std::runtime_error("error while writing " + output + "/run_info.txt");
    std::cout << "wrote " << output << "/plaquette.csv and " << output << "/run_info.txt\n";
  }
  return 0;
}

}  // namespace lqcd
