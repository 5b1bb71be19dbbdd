// quenched_ensemble.h: a small quenched ensemble for the experiments, generated with the heatbath
// generator (reference/ensemble/quenched_generator.h) and cached on disk as NERSC files (reference/io/nersc_io.h), so a
// rerun with the same parameters reads the files instead of regenerating them.
//
// Cache layout: <directory>/<Tag()>/config_<sweep>.nersc, sweep counted from 1 as generate_quenched does
// (configuration k is the field after sweep therm + (k + 1) * separation), and plaquette.csv (the
// generator's history) when the ensemble was generated here. The tag names every parameter that changes
// the Markov chain (lattice, beta, seed, start, thermalisation, separation, overrelaxation steps, and the
// generator's chain version kQuenchedChainVersion, so files made by an older generator are not reused) and not
// the number of configurations: configuration k is the same field whatever the count, so a larger count
// regenerates the chain and rewrites identical files for the first ones.
// Reading a cached file checks everything the NERSC reader checks (checksum, plaquette, link trace, SU(3))
// and that its lattice matches; a mismatch or a damaged file throws (lqcd::GaugeFileError or
// std::runtime_error naming the file) rather than silently regenerating over it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/ensemble/heatbath.h"  // kQuenchedChainVersion
#include "reference/ensemble/quenched_generator.h"

namespace lqcd::experiments {

struct EnsembleSpec {
  QuenchedOptions generator;  // extents, beta, seed, start, thermalisation, separation, count, OR steps

  // "quenched_b5.7_6x6x6x12_seed1_cold_therm100_sep20_or4_chain2".
  std::string Tag() const;
  // Sweep (counted from 1) after which configuration k is saved.
  long SweepOf(int k) const;
};

struct EnsembleMember {
  GaugeField<double> u;
  long sweep = 0;        // counted from 1
  std::string path;      // the NERSC file
  double plaquette = 0;  // <Re Tr U_p> / 3
};

struct Ensemble {
  std::vector<EnsembleMember> members;
  bool generated = false;   // false: every configuration came from the cache
  double seconds = 0;       // time to generate or read
  double MeanPlaquette() const;
};

// Reads the configurations from <directory>/<Tag()> if all are there, else generates the chain and writes
// them. `log` gets what was done.
// `sweeps_on` runs the generator's sweeps (sweep_engine.h; null: the CPU); the configurations do not depend on it.
Ensemble LoadOrGenerateEnsemble(const EnsembleSpec& spec, const std::string& directory, std::ostream& log,
                                SweepEngine* sweeps_on = nullptr);

}  // namespace lqcd::experiments
