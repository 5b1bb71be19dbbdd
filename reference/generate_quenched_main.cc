// generate_quenched: makes a quenched SU(3) ensemble with the Wilson plaquette action (Cabibbo-Marinari
// heatbath + overrelaxation, reference/heatbath.h) and writes
//     <output>/plaquette.csv        the plaquette after every sweep (quenched_generator.h has the columns)
//     <output>/run_info.txt         the parameters, the machine, the timing and the plaquette summary
//     <output>/config_<n>.nersc     the configuration after n sweeps (sweeps 0 .. n-1), NERSC format (nersc_io.h)
// and prints the parameters, the plaquette and the time of every sweep, and a summary.
//
// Example (8^3 x 16 at beta = 6.0, 10 configurations):
//   bazel run //reference:generate_quenched -- --lattice=8x8x8x16 --beta=6.0 --output=/tmp/ensemble
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

#include "reference/command_line.h"
#include "reference/gauge_io.h"
#include "reference/machine_info.h"
#include "reference/nersc_io.h"
#include "reference/quenched_generator.h"

namespace lqcd {
namespace {

constexpr char kUsage[] = R"(usage: generate_quenched [options]
  --lattice=LXxLYxLZxLT      lattice extents, each even (default 8x8x8x16)
  --beta=B                   Wilson gauge coupling beta = 6/g^2 (default 6.0)
  --seed=N                   64-bit seed of the Philox streams (default 1)
  --start=cold|hot           unit links or Haar-random links (default cold)
  --therm=N                  thermalisation sweeps (default 200)
  --sep=N                    sweeps between saved configurations (default 10)
  --configs=N                number of configurations to save (default 10)
  --or=N                     overrelaxation sweeps per heatbath sweep (default 4)
  --reunitarize-every=N      reunitarise the links every N sweeps (default 1)
  --progress-every=N         print a line every N sweeps, 0 = never (default 1)
  --threads=N                OpenMP threads (default: OMP_NUM_THREADS or all cores)
  --load=PATH                start from this configuration (NERSC, ILDG/SciDAC or MILC, detected from
                             its bytes) instead of a cold or hot start
  --first-sweep=N            number of the first sweep (default 0); to continue a run that ended after
                             sweep n-1 bit-identically, --load its last (double precision) file and give n
  --output=DIR               output directory, created if needed (default: write nothing)
  --precision=double|single  NERSC storage precision (default double)
One sweep = one heatbath sweep + the overrelaxation sweeps; the plaquette is measured after each.
)";

int Main(int argc, char** argv) {
  QuenchedOptions options;
  std::string output, load;
  FloatPrecision precision = FloatPrecision::kDouble;
  command_line::FlagReader flags(argc, argv, {"help"});
  for (command_line::Flag flag; flags.Next(&flag);) {
    const std::string& key = flag.key;
    const std::string& value = flag.value;
    if (key == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (key == "lattice") {
      options.extents = command_line::ParseExtents(key, value);
    } else if (key == "beta") {
      options.beta = command_line::ParseFiniteDouble(key, value);
    } else if (key == "seed") {
      options.seed = static_cast<std::uint64_t>(
          command_line::ParseLong(key, value, 0, std::numeric_limits<long>::max()));
    } else if (key == "start") {
      if (value != "cold" && value != "hot") throw std::invalid_argument("--start must be cold or hot, got " + value);
      options.hot_start = value == "hot";
    } else if (key == "therm") {
      options.thermalisation_sweeps = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "sep") {
      options.separation_sweeps = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "configs") {
      options.configurations = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "or") {
      options.overrelaxation_steps = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "reunitarize-every") {
      options.reunitarize_every = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "progress-every") {
      options.progress_every = static_cast<int>(command_line::ParseLong(key, value, -1000000000L, 1000000000L));
    } else if (key == "threads") {
      omp_set_num_threads(static_cast<int>(command_line::ParseLong(key, value, 1, 1024)));
    } else if (key == "output") {
      output = value;
    } else if (key == "load") {
      load = value;
    } else if (key == "first-sweep") {
      options.first_sweep = command_line::ParseLong(key, value, 0, std::numeric_limits<long>::max());
    } else if (key == "precision") {
      if (value != "double" && value != "single") throw std::invalid_argument("--precision must be double or single");
      precision = value == "double" ? FloatPrecision::kDouble : FloatPrecision::kSingle;
    } else {
      throw std::invalid_argument("unknown option --" + key + " (see --help)");
    }
  }
  ValidateQuenchedOptions(options);

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
  const QuenchedSummary summary = GenerateQuenched(options, std::cout, sink, nullptr, start ? &start->field : nullptr);

  if (!output.empty()) {
    WritePlaquetteHistoryCsv(output + "/plaquette.csv", summary.history);
    std::ofstream info(output + "/run_info.txt");
    info << "generate_quenched\n" << machine.str() << DescribeQuenchedOptions(options, start != nullptr);
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

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  try {
    return lqcd::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "generate_quenched: error: %s\n", e.what());
    return 1;
  }
}
