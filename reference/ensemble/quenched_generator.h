// quenched_generator.h: a quenched ensemble run -- start, thermalise, then save configurations separated
// by a fixed number of update sweeps -- with the plaquette measured after every sweep.
//
// One "sweep" here is one heatbath sweep followed by `overrelaxation_steps` overrelaxation sweeps
// (heatbath.h); the links are reunitarised (su3.h) after every sweep s with (s + 1) % reunitarize_every == 0.
// Sweeps are numbered s = first_sweep, first_sweep + 1, ...; sweep s uses the heatbath random streams of
// sweep number s, so the run is a function of the options (and the starting field) alone, not of the thread
// count. Configuration k (k = 0 .. configurations-1) is the field after sweep
// first_sweep + thermalisation_sweeps + (k + 1) * separation_sweeps - 1.
//
// Continuing a run: start from the final field of a run that ended after sweep n - 1 (e.g. read back from
// its double-precision NERSC file) with first_sweep = n and hot_start = false; the continuation is
// bit-identical to one longer run (tested).
//
// The plaquette statistics (BinnedMean, binning.h) use every sweep after thermalisation, not only the saved
// configurations. The CSV history has one row per sweep:
//     sweep,phase,plaquette,spatial,temporal,heatbath_seconds,overrelaxation_seconds,saved
// (phase = thermalisation | production; plaquette = <Re Tr U_p>/3, plaquette.h; saved = 1 where a
// configuration was handed to the callback). The row with phase "start" (sweep first_sweep - 1) holds the
// starting field.
// Bad options throw std::invalid_argument naming the option.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "reference/ensemble/binning.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"

namespace lqcd {

struct QuenchedOptions {
  Coordinates extents{8, 8, 8, 16};
  double beta = 6.0;
  std::uint64_t seed = 1;
  bool hot_start = false;  // false: unit links (cold start)
  int thermalisation_sweeps = 200;
  int separation_sweeps = 10;
  int configurations = 10;
  int overrelaxation_steps = 4;
  int reunitarize_every = 1;
  int progress_every = 1;  // print a progress line every this many sweeps (0: none)
  long first_sweep = 0;    // number of the first sweep (random streams, reunitarisation, file names)
};

// Throws std::invalid_argument if an option is out of range.
void ValidateQuenchedOptions(const QuenchedOptions& options);

struct SweepRecord {
  long sweep = -1;  // first_sweep - 1: the starting field
  bool thermalisation = true;
  double plaquette = 0, spatial = 0, temporal = 0;
  double heatbath_seconds = 0, overrelaxation_seconds = 0;
  bool saved = false;
};

struct QuenchedSummary {
  std::vector<SweepRecord> history;  // starting field, then one record per sweep
  BinnedEstimate production_plaquette;  // over the production sweeps (needs >= 2 of them; else zeros)
  double seconds = 0;                   // wall time of the whole run
  double seconds_per_sweep = 0;         // mean over all sweeps (heatbath + overrelaxation)
  double seconds_per_site_sweep = 0;    // seconds_per_sweep / volume
};

// Called with each configuration to be saved, its index k and the sweep after which it was taken.
using ConfigurationSink = std::function<void(const GaugeField<double>& u, int index, long sweep)>;

// Who carries out the sweeps (heatbath.h's HeatbathSweep and OverrelaxationSweep on a field of its own): the
// CPU (CpuSweeps, the default) or another backend holding the field elsewhere (gpu/gpu_heatbath.h). An engine
// must produce the CPU's field bit for bit; the driver keeps everything else (the start, reunitarisation,
// measurements, saving) on the host. Per sweep the driver calls Load (when the host field changed: at the start
// and after a reunitarisation), Heatbath once, Overrelax overrelaxation_steps times, then Store.
class SweepEngine {
 public:
  virtual ~SweepEngine() = default;
  virtual void Load(const GaugeField<double>& u) = 0;   // the engine's field := u
  virtual void Heatbath(double beta, std::uint64_t seed, std::uint64_t sweep) = 0;
  virtual void Overrelax() = 0;
  virtual void Store(GaugeField<double>& u) = 0;        // u := the engine's field
  virtual std::string Describe() const = 0;             // e.g. "CPU, 16 OpenMP threads"
};

// The CPU engine: heatbath.h's sweeps on a field it holds.
class CpuSweeps : public SweepEngine {
 public:
  void Load(const GaugeField<double>& u) override { u_ = u; }
  void Heatbath(double beta, std::uint64_t seed, std::uint64_t sweep) override;
  void Overrelax() override;
  void Store(GaugeField<double>& u) override { u = u_; }
  std::string Describe() const override;

 private:
  GaugeField<double> u_{Lattice(2, 2, 2, 2)};
};

// Runs the ensemble. `log` receives the parameters, progress lines and a summary; `sink` (may be empty)
// receives the configurations. The final field is left in *final_field if non-null. If initial_field is
// non-null the run starts from it (its lattice must be options.extents and hot_start must be false)
// instead of a cold or hot start. `engine` carries out the sweeps (null: the CPU, updating the driver's field
// in place without copies); the configurations do not depend on it.
QuenchedSummary GenerateQuenched(const QuenchedOptions& options, std::ostream& log, const ConfigurationSink& sink,
                                 GaugeField<double>* final_field = nullptr,
                                 const GaugeField<double>* initial_field = nullptr, SweepEngine* engine = nullptr);

// The parameters as "key = value" lines (also what the run prints first); `given_start` says the run
// starts from a given field rather than a cold or hot start.
std::string DescribeQuenchedOptions(const QuenchedOptions& options, bool given_start = false);

// Writes the history as CSV (format in the file comment). Throws std::runtime_error if the file cannot
// be written.
void WritePlaquetteHistoryCsv(const std::string& path, const std::vector<SweepRecord>& history);

}  // namespace lqcd
