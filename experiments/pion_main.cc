// pion: the main job. Takes a gauge configuration (generated here by default: quenched SU(3), Wilson
// plaquette action, 8^3 x 16 at beta = 6.0, cached in the output directory; or read from --config in any
// format reference/io/gauge_io.h reads), computes the point-source quark propagator S(x; 0) (12 even-odd
// solves, Wilson or clover), and the zero-momentum pion correlator C(t) = sum_x tr[S(x,t;0) S(x,t;0)^dag]
// with its effective masses. Prints the machine, lattice, plaquette, parameters, normalisation, every
// solve's record and the correlator; writes into the output directory
//     pion_correlator.csv   t, C (m-normalised, of M^{-1}), C_kappa = C / (4 kappa^2), C_folded =
//                           (C(t) + C(T - t)) / 2, m_eff_log, m_eff_cosh (of C), m_eff_cosh_folded (of C_folded)
//     solves.csv            one row per solve: status, iterations, true residual, the solver's time (seconds),
//                           flops, and the column's wall time with its transfers and checks (column_seconds),
//                           of which moving b, the guess and x between host and device (transfer_seconds) and
//                           recomputing the true residual (check_seconds)
//     pion.png              log C(t) and the effective masses (experiments/plot_pion.py, matplotlib)
//     run.log               everything printed
//     quenched_*.nersc, quenched_*_plaquette.csv   the generated configuration and its plaquette history
// docs/main_job.md explains the physics, the flags and the output of the default run.
//
// On several GPUs (--grid=PXxPYxPZxPT, launched by mpirun with that many ranks, one GPU each, or sharing
// GPUs with --share-gpu): every rank holds the whole configuration (each generates it with the same seed,
// or reads the same --config file: "read in parallel"; only rank 0 writes the cache), and every solve is
// split over the ranks (experiments/dirac_solver.h, "Domain decomposition"): the source is scattered, each
// rank solves its sub-lattice on its GPU with faces exchanged and global reductions, and the solution is
// gathered onto every rank. Every rank then computes the same correlator; only rank 0 prints it and writes
// the files. Wilson and Wilson-clover alike (every rank builds the clover term on the global links and keeps
// its piece).
//
//   bazel run //experiments:pion                      # the default run, output in ./pion_out
//   bazel run //experiments:pion -- --help
//   mpirun -np 4 bazel-bin/experiments/pion --backend=gpu --grid=1x1x2x2   # 4 GPUs
//   mpirun -np 2 bazel-bin/experiments/pion --grid=1x1x1x2 --fermion=clover --csw=1.0 --kappa=0.135
#include <omp.h>

#include <algorithm>
#include <cerrno>
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
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpu/comm/mpi_communicator.h"
#include "gpu/comm/process_grid.h"
#include "gpu/device_rank_sum.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/rank_device.h"
#include "reference/cli/command_line.h"
#include "reference/cli/machine_info.h"
#include "reference/io/gauge_io.h"
#include "reference/ensemble/heatbath.h"  // kQuenchedChainVersion: the cache name changes with the chain
#include "reference/io/nersc_io.h"
#include "reference/plaquette.h"
#include "reference/observables/propagator.h"
#include "reference/ensemble/quenched_generator.h"
#include "experiments/correlator_bounds.h"
#include "experiments/dirac_solver.h"
#include "experiments/distributed_propagator.h"
#include "experiments/fermion_action.h"
#include "experiments/inverse_norm.h"
#include "experiments/plot_runner.h"
#include "experiments/propagator_driver.h"
#include "experiments/stopwatch.h"
#include "experiments/sweep_engine.h"
#include "experiments/text_format.h"
#include "gpu/device_buffer.h"
#include "reference/clover.h"
#include "solvers/solver_spec.h"
#include "solvers/spec_solve.h"

namespace lqcd {
namespace {

namespace fs = std::filesystem;
using experiments::FindPlotScript;
using experiments::Fixed;
using experiments::RunPython;
using experiments::UserPath;
using experiments::BackendChoice;
using experiments::BackendKind;
using experiments::ChooseBackend;
using experiments::ComputePropagator;
using experiments::FermionAction;
using experiments::FermionKind;
using experiments::PropagatorRun;
using experiments::PropagatorSolveRecord;
using experiments::VerifyOn;
using solvers::SolverSpec;

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
  std::streambuf* first() const { return a_; }
  void set_first(std::streambuf* a) { a_ = a; }
  void set_second(std::streambuf* b) { b_ = b; }

 private:
  std::streambuf* a_;
  std::streambuf* b_;
};

// Where the ranks other than 0 print: nowhere (rank 0 prints the report for all).
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? !EOF : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// ---- flags ----

constexpr char kSummary[] = R"(The main job: a gauge configuration (generated, or read with --config), the point-source quark
propagator S(x; x0) (12 even-odd solves, Wilson or Wilson-clover) on the GPU or the CPU oracle, and the
zero-momentum pion correlator C(t) = sum_x tr[S S^dag] with its effective masses. Writes
pion_correlator.csv, solves.csv, pion.png and run.log to --output (docs/main_job.md).

Cost, measured on an H100 host (docs/main_job.md): the generator takes 6 us per site and sweep on 16
cores (50 sweeps: 24^3x48 4.3 min, 32^3x64 13 min); a column's solve takes 0.17 s (24^3x48) and 0.51 s
(32^3x64) in double on the GPU, plus host transfers (~0.5 s and ~2 s). GPU memory: 1.3 GB (24^3x48) and
4.0 GB (32^3x64) for double BiCGstab. Host memory, from the field sizes: ~3.3 kB a site (24^3x48 2.2 GB,
32^3x64 7 GB). The CPU oracle solves 8^3x16 in ~35 s on 2 cores; 32^3x64 would take hours.)";

struct Options {
  std::string config;
  QuenchedOptions generator;
  double kappa = 0.153, mass = 0;
  FermionKind fermion = FermionKind::kWilson;
  double c_sw = 1.0;
  double clover_u0 = 1.0;
  CloverTrace clover_trace = CloverTrace::kTraceless;
  CloverSchurForm clover_form = CloverSchurForm::kComplement;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  Coordinates source{0, 0, 0, 0};
  SolverSpec spec;
  BackendKind backend = BackendKind::kAuto;
  VerifyOn verify = VerifyOn::kAuto;
  int inverse_norm_steps = 0;
  double inverse_norm = 0;
  std::string output = "pion_out";
  bool no_plot = false;
  std::string plot_script;
  int threads = 0;
  std::string grid_text = "1x1x1x1";
  comm::ProcessGrid grid{{1, 1, 1, 1}};  // from grid_text
  bool share_gpu = false;
  gpu::HaloTransport transport = gpu::HaloTransport::kDevice;
  bool device_sums = true;  // --global-sums=device (the default without --share-gpu)
  int rhs_block = 1;     // columns per solve (> 1: one lockstep block solve per group of columns)
  FermionAction action;  // from the flags above, validated
};

// Throws std::invalid_argument unless the --source site lies on a lattice with these extents.
void CheckSource(const Coordinates& source, const Coordinates& extents) {
  for (int mu = 0; mu < kDims; ++mu) {
    if (source[mu] < 0 || source[mu] >= extents[mu]) {
      throw std::invalid_argument("--source: coordinate " + std::to_string(source[mu]) + " is off the lattice " +
                                  Lattice(extents).ToString());
    }
  }
}

// Throws std::invalid_argument, naming --grid, unless the grid splits a lattice with these extents
// (every rank the same local lattice, every local extent even: gpu/comm/process_grid.h).
void CheckGrid(const comm::ProcessGrid& grid, const Coordinates& extents) {
  try {
    grid.LocalExtents(extents);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--grid=" + grid.ToString() + " does not split the lattice " +
                                Lattice(extents).ToString() + ": " + e.what());
  }
}

// Parses and checks every flag; nothing expensive happens before this returns. False: --help was printed.
bool ParseOptions(int argc, char** argv, Options* out) {
  Options& o = *out;
  o.generator.thermalisation_sweeps = 49;  // + 1 separation sweep = 50 sweeps before the configuration
  o.generator.separation_sweeps = 1;
  o.generator.configurations = 1;
  o.generator.progress_every = 10;
  o.spec.tolerance = 1e-10;
  o.spec.max_iterations = 10000;
  int sweeps = 50;
  std::string solver = "bicgstab", bc = "PPPA";
  command_line::FlagSet flags("pion", kSummary);
  flags.Section("Configuration (default: generate one, or reuse the one an earlier run cached in --output)");
  flags.String("config", &o.config, "FILE",
               "read this gauge configuration (NERSC, ILDG/SciDAC LIME or MILC v5, detected from the file's bytes) "
               "instead of generating one");
  flags.Extents("lattice", &o.generator.extents, "generator: lattice extents");
  flags.Double("beta", &o.generator.beta, "generator: Wilson gauge coupling", command_line::Range::AtLeast(0));
  flags.Unsigned64("seed", &o.generator.seed, "generator: Philox seed");
  flags.Int("sweeps", &sweeps, 1, 1000000,
            "generator: update sweeps from a cold start (one sweep = 1 heatbath + --or overrelaxation sweeps)");
  flags.Int("or", &o.generator.overrelaxation_steps, 0, 100, "generator: overrelaxation sweeps per heatbath sweep");
  flags.Int("threads", &o.threads, 0, 1024,
            "threads: OpenMP threads of the generator, and (CPU backend) propagator columns solved at once; 0 = all "
            "cores. The results do not depend on it");
  flags.Section("Fermions");
  flags.Double("kappa", &o.kappa, "hopping parameter", command_line::Range::Positive());
  flags.Double("mass", &o.mass, "bare mass m of M = (4 + m) - D/2 instead of --kappa (kappa = 1 / (2 (4 + m)))",
               command_line::Range{-4, std::numeric_limits<double>::infinity(), true, false});
  flags.Choice<FermionKind>("fermion", &o.fermion, {{"wilson", FermionKind::kWilson}, {"clover", FermionKind::kClover}},
                            "fermion action");
  flags.Double("csw", &o.c_sw, "clover coefficient (clover only; 1.0 = tree level)");
  flags.Double("clover-u0", &o.clover_u0,
               "tadpole factor u0: the clover coefficient becomes --csw / u0^3 (MILC's clov_c / u0^3; clover only)",
               command_line::Range::Positive());
  flags.Choice<CloverTrace>("clover-trace", &o.clover_trace,
                            {{"traceless", CloverTrace::kTraceless}, {"with-trace", CloverTrace::kWithTrace}},
                            "clover field strength: traceless, or with the trace of (Q - Q^dag)/(8i) kept as Chroma "
                            "and MILC do (clover only; docs/conventions.md, \"Clover term\")");
  flags.Choice<CloverSchurForm>("clover-form", &o.clover_form,
                                {{"complement", CloverSchurForm::kComplement},
                                 {"unit-diagonal", CloverSchurForm::kUnitDiagonal}},
                                "even-odd form of the clover matrix");
  flags.String("bc", &bc, "XYZT",
               "fermion boundary conditions, one letter per direction, P periodic or A antiperiodic");
  flags.Choice<GammaBasis>("basis", &o.basis,
                           {{"degrand-rossi", GammaBasis::kDeGrandRossi}, {"ukqcd", GammaBasis::kUkqcd}},
                           "gamma basis (C(t) does not depend on it)");
  flags.Custom("source", "x,y,z,t", "0,0,0,0", "point-source site", [&](const std::string& v) {
    const std::vector<long> s = command_line::ParseLongList("source", v, ',', 4, 0, Lattice::kMaxExtent - 1);
    o.source = {static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]), static_cast<int>(s[3])};
  });
  flags.Section("Solver (every solve is even-odd; convergence is judged by |b - M x| / |b| on the full lattice)");
  flags.String("solver", &solver, "SPEC",
               "<solver>[:<precision>[/<links>][/gf]][:<parameter>] (solvers/solver_spec.h), e.g. bicgstab, cg, "
               "bicgstab-reliable:half/12:0.1, cg-dc:single:1e-3, bicgstab:double/8/gf; 12/8-real links need the GPU");
  flags.Double("tolerance", &o.spec.tolerance, "tolerance |b - M x| / |b|", command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.spec.max_iterations, 1, 100000000, "iteration budget per solve");
  flags.Int("rhs-block", &o.rhs_block, 1, 12,
            "columns solved together as one lockstep block: each M_ee application serves every column of the "
            "block, the links read once per site for all (one GPU, Wilson or clover, any --solver). Default 1: "
            "on a first run the block's kernel tuning costs more than it saves (docs/multi_rhs.md)");
  flags.Choice<BackendKind>("backend", &o.backend,
                            {{"auto", BackendKind::kAuto}, {"cpu", BackendKind::kCpu}, {"gpu", BackendKind::kGpu}},
                            "where the solves run: auto = the GPU when one is usable (and the action has a GPU "
                            "operator), else the CPU oracle");
  flags.Choice<VerifyOn>("verify", &o.verify,
                         {{"auto", VerifyOn::kAuto}, {"host", VerifyOn::kHost}, {"device", VerifyOn::kDevice}},
                         "where each column's true residual is recomputed in double: auto = device on the GPU, host "
                         "(the reference operators) on the CPU");
  flags.Int("inverse-norm-steps", &o.inverse_norm_steps, 0, 1000,
            "steps of inverse iteration (2 double BiCGstab solves each) that estimate ||M^{-1}|| for the "
            "correlator's error bound where no a-priori bound exists (m <= 0); 0 = no estimate");
  flags.Double("inverse-norm", &o.inverse_norm,
               "take ||M^{-1}|| as given for the error bound (e.g. another run's estimate of the same matrix from "
               "its summary.csv); 0 = a priori or --inverse-norm-steps",
               command_line::Range::AtLeast(0));
  flags.Section("Several GPUs (domain decomposition; run under mpirun with one rank per grid point)");
  flags.String("grid", &o.grid_text, "PXxPYxPZxPT",
               "split the lattice over this process grid, one MPI rank and GPU per grid point (launch with mpirun "
               "-np PX*PY*PZ*PT); every local extent must be even. GPU only (Wilson or clover)");
  flags.Switch("share-gpu", &o.share_gpu,
               "allow more ranks on a node than it has GPUs (device = local rank mod count; for checks, not timings)");
  flags.Custom("transport", "host|device|nccl", "device",
               "how faces travel between ranks: host = staged through pinned host memory and MPI; device = "
               "device-to-device copies (CUDA IPC between the ranks of one node; the default, measured 4-11x "
               "faster per Dslash than host staging on one node, docs/multi_gpu.md; host is needed across nodes); nccl = NCCL "
               "send / receive on the comm stream, no host wait per call (needs one GPU per rank)",
               [&](const std::string& value) {
                 try {
                   o.transport = gpu::ParseHaloTransport(value);
                 } catch (const std::invalid_argument& e) {
                   throw std::invalid_argument(std::string("--transport: ") + e.what());
                 }
               });
  std::string global_sums;
  flags.String("global-sums", &global_sums, "host|device",
               "how the solvers' global sums add the ranks' partials: device = NCCL all-gather and a rank-order sum "
               "on the devices, no host round trip (the default; needs one GPU per rank); host = MPI through the "
               "host (the default with --share-gpu). The same bits either way");
  flags.Section("Output");
  flags.String("output", &o.output, "DIR",
               "output directory (relative paths are relative to the directory bazel run was invoked from)");
  flags.Switch("no-plot", &o.no_plot, "skip the matplotlib PNG");
  flags.String("plot-script", &o.plot_script, "FILE", "plot_pion.py to use (default: found in the runfiles)");
  if (!flags.Parse(argc, argv, std::cout)) return false;

  // Cross-flag checks, then the action, the solver and the backend: all before any expensive work.
  if (flags.Given("kappa") && flags.Given("mass")) throw std::invalid_argument("give --kappa or --mass, not both");
  if (flags.Given("csw") && o.fermion == FermionKind::kWilson) {
    throw std::invalid_argument("--csw needs --fermion=clover (the Wilson action has no clover term)");
  }
  if (flags.Given("inverse-norm") && flags.Given("inverse-norm-steps")) {
    throw std::invalid_argument("give --inverse-norm or --inverse-norm-steps, not both");
  }
  for (const char* clover_flag : {"clover-form", "clover-trace", "clover-u0"}) {
    if (flags.Given(clover_flag) && o.fermion == FermionKind::kWilson) {
      throw std::invalid_argument(std::string("--") + clover_flag + " needs --fermion=clover");
    }
  }
  if (!o.config.empty()) {
    for (const char* generator_flag : {"lattice", "beta", "seed", "sweeps", "or"}) {
      if (flags.Given(generator_flag)) {
        throw std::invalid_argument(std::string("--") + generator_flag +
                                    " sets up the generator; it conflicts with --config (the file has its own)");
      }
    }
  }
  o.generator.thermalisation_sweeps = sweeps - 1;
  if (bc.size() != 4) throw std::invalid_argument("--bc needs 4 letters (P or A), e.g. PPPA; got '" + bc + "'");
  for (int mu = 0; mu < kDims; ++mu) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(bc[mu])));
    if (c != 'P' && c != 'A') throw std::invalid_argument("--bc: letter '" + bc.substr(mu, 1) + "' is not P or A");
    o.boundary.condition[mu] = c == 'P' ? BoundaryCondition::kPeriodic : BoundaryCondition::kAntiperiodic;
  }
  const double tolerance = o.spec.tolerance;
  const int max_iterations = o.spec.max_iterations;
  try {
    o.spec = SolverSpec::Parse(solver);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--solver: ") + e.what());
  }
  o.spec.tolerance = tolerance;
  o.spec.max_iterations = max_iterations;
  o.spec.Validate();
  o.action.kind = o.fermion;
  o.action.c_sw = o.fermion == FermionKind::kClover ? o.c_sw : 0.0;
  if (flags.Given("clover-u0")) {
    try {
      o.action.c_sw = MilcCloverCsw(o.c_sw, o.clover_u0);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--csw / --clover-u0^3: ") + e.what());
    }
  }
  o.action.clover_trace = o.fermion == FermionKind::kClover ? o.clover_trace : CloverTrace::kTraceless;
  o.action.mass = flags.Given("mass") ? o.mass : WilsonParams::FromKappa(o.kappa).mass;
  o.action.basis = o.basis;
  o.action.boundary = o.boundary;
  o.action.schur_form = o.clover_form;
  o.action.Validate();
  o.grid = comm::ProcessGrid::Parse("grid", o.grid_text);
  o.device_sums = gpu::GlobalSumsOnDevices(global_sums, o.share_gpu);
  gpu::RequireTransportForSharing(o.transport, o.share_gpu);
  if (o.grid.size() > 1) {
    const std::string grid = "--grid=" + o.grid.ToString();
    if (o.backend == BackendKind::kCpu) {
      throw std::invalid_argument(grid + " splits the lattice over " + std::to_string(o.grid.size()) +
                                  " GPUs; it needs --backend=gpu (the CPU oracle runs in one process)");
    }
    o.backend = BackendKind::kGpu;  // auto: a split lattice only runs on GPUs
  } else {
    for (const char* multi_flag : {"share-gpu", "transport", "global-sums"}) {
      if (flags.Given(multi_flag)) {
        throw std::invalid_argument(std::string("--") + multi_flag + " needs a --grid of more than one rank");
      }
    }
  }
  if (o.config.empty()) {
    ValidateQuenchedOptions(o.generator);
    CheckSource(o.source, o.generator.extents);
    CheckGrid(o.grid, o.generator.extents);
  }
  return true;
}

// ---- environment ----

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return buffer;
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

// With several ranks (`communicator`), every rank loads or generates the configuration itself (the same
// file, or the same seed: the generator's result does not depend on the machine or the thread count), so
// all hold the same field; only rank 0 writes the cache. Each rank decides whether the cache exists before a
// barrier and rank 0 writes it only after it, so no rank reads a file that is being written.
Configuration LoadOrGenerate(const Options& o, const fs::path& output, comm::Communicator* communicator,
                             SweepEngine* sweeps_on) {
  const bool root = communicator == nullptr || communicator->rank() == 0;
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
  const bool cached = fs::exists(cache);
  if (communicator != nullptr) communicator->Barrier();
  if (cached) {
    GaugeConfiguration c = ReadGaugeConfiguration(cache.string());
    std::cout << "configuration: reusing " << cache.string() << " (cached by an earlier run with the same "
              << "generator parameters; delete it to regenerate; its checksum, plaquette and link trace were "
              << "verified on reading)\n";
    return {std::move(c.field), "generated earlier, cached in " + cache.string()};
  }
  std::cout << "configuration: generating (quenched SU(3), Wilson plaquette action, cold start):\n";
  GaugeField<double> field(Lattice(g.extents));
  const QuenchedSummary summary = GenerateQuenched(
      g, std::cout, [&](const GaugeField<double>& u, int, long) { field = u; }, nullptr, nullptr, sweeps_on);
  if (!root) return {std::move(field), "generated in " + Fixed(summary.seconds, 1) + " s (on every rank)"};
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

// Every rank's `line` in rank order, on every rank (one AllGather of fixed-size records; longer lines are
// cut).
std::vector<std::string> AllGatherLines(comm::Communicator& communicator, const std::string& line) {
  constexpr std::size_t kRecord = 512;
  std::vector<char> mine(kRecord, '\0'), all(kRecord * communicator.size());
  std::copy_n(line.begin(), std::min(line.size(), kRecord - 1), mine.begin());
  communicator.AllGather(mine.data(), kRecord, all.data());
  std::vector<std::string> lines;
  for (int r = 0; r < communicator.size(); ++r) lines.emplace_back(all.data() + r * kRecord);
  return lines;
}

// The job after the flags: `communicator` is null on one process (no MPI), else MPI_COMM_WORLD on o.grid.
int Run(const Options& o, const char* argv0, TeeBuffer& tee, comm::Communicator* communicator,
        const experiments::Stopwatch& job_time) {
  const bool root = communicator == nullptr || communicator->rank() == 0;
  NullBuffer discard;
  struct Restore {  // the other ranks print to stdout again however Run is left
    TeeBuffer& tee;
    std::streambuf* out;
    ~Restore() { tee.set_first(out); }
  } restore{tee, tee.first()};
  if (!root) tee.set_first(&discard);  // rank 0 prints the report for every rank
  // Which backend and which GPU, before anything expensive: --backend=gpu without a device is an error here,
  // and with several ranks every rank refuses together (PlaceRankOnDevice).
  const bool partitioned = communicator != nullptr && communicator->size() > 1;
  std::optional<gpu::RankPlacement> place;
  if (partitioned) place = gpu::PlaceRankOnDevice(*communicator, o.share_gpu);
  // Built by every rank together after each selected its GPU (refused on every rank when NCCL is missing).
  const std::unique_ptr<gpu::DeviceRankSum> device_sums =
      partitioned && o.device_sums ? std::make_unique<gpu::DeviceRankSum>(*communicator) : nullptr;
  BackendChoice backend = ChooseBackend(o.backend, o.verify);
  if (partitioned) {
    backend.communicator = communicator;
    backend.transport = o.transport;
    backend.device_sums = device_sums.get();
    backend.reason += ", --grid=" + o.grid.ToString() + ": the lattice split over " +
                      std::to_string(communicator->size()) + " ranks";
  }
  solvers::RequireSupported(o.spec, CapabilitiesOf(backend), o.action.clover());
  // Several ranks with the residuals recomputed on the devices: every rank keeps only its own sites of the
  // propagator (the host recompute, --verify=host, needs the global fields on every rank).
  const bool distributed = partitioned && backend.verify == VerifyOn::kDevice;
  // Block solves: one GPU and the Wilson action (every spec has a block form).
  std::string no_block;
  if (backend.kind != BackendKind::kGpu) {
    no_block = "the backend is the CPU";
  } else if (partitioned) {
    no_block = "the lattice is split over several GPUs";
  }
  if (o.rhs_block > 1 && !no_block.empty()) {
    throw std::invalid_argument("--rhs-block=" + std::to_string(o.rhs_block) +
                                ": columns are solved as a block only on one GPU; here " +
                                no_block);
  }
  const int rhs_block = o.rhs_block;
  // One GPU solving the columns one by one keeps of them only the same sums as the ranks, with the whole lattice
  // as its one piece (24 GB of host memory fewer at 48^3 x 96); the CPU, whose workers solve several columns at
  // once, and block solves keep the whole propagator.
  const bool in_pieces = distributed || (backend.kind == BackendKind::kGpu && !partitioned && rhs_block == 1);
  // Ranks on one node share its cores for the generator (its result does not depend on the thread count);
  // a rank the launcher bound to some cores uses those (rank_device.h HostThreads).
  const int threads = o.threads > 0 ? o.threads : place ? place->HostThreads() : UsableCores();
  omp_set_num_threads(threads);
  const int solve_threads = backend.kind == BackendKind::kGpu ? 1 : std::min(threads, 12);
  const fs::path output = UserPath(o.output);
  std::ofstream log;
  if (root) {
    fs::create_directories(output);
    log.open((output / "run.log").string());
    if (!log) throw std::runtime_error("cannot write " + (output / "run.log").string());
  }
  struct Detach {  // stop teeing into run.log before `log` is destroyed, however Run is left
    TeeBuffer& tee;
    ~Detach() {
      std::cout.flush();
      tee.set_second(nullptr);
    }
  } detach{tee};
  if (root) tee.set_second(log.rdbuf());
  std::vector<std::string> placements;
  if (partitioned) placements = AllGatherLines(*communicator, place->Describe());

  std::cout << "pion: point-source propagator and zero-momentum pion correlator (lqcd experiments/pion)\n"
            << "date: " << UtcNow() << "\n"
            << "machine: " << CpuModelName() << ", " << std::thread::hardware_concurrency() << " hardware threads ("
            << UsableCores() << " usable by " << (partitioned ? "rank 0" : "this process") << "); "
            << "generator OpenMP threads " << omp_get_max_threads() << "\n"
            << "backend: " << ToString(backend.kind) << " (" << backend.reason << "); "
            << (partitioned ? "columns solved one after the other, each split over the ranks"
                : backend.kind == BackendKind::kGpu
                    ? (in_pieces ? "columns solved one after the other on the device; the job keeps of each only its "
                                   "|S(x)|^2 per site and its norm, not the whole propagator"
                                 : "columns solved in blocks on the device; the job holds the whole propagator")
                    : std::to_string(solve_threads) + " columns solved at a time, one thread each (CPU oracle)")
            << "\n"
            << (backend.kind == BackendKind::kGpu && !partitioned ? "device: " + backend.device + "\n" : std::string());
  if (partitioned) {
    std::cout << "grid: " << o.grid.ToString() << ", " << communicator->size() << " MPI ranks"
              << (o.share_gpu ? " (GPUs shared: --share-gpu)" : ", one GPU each") << "; faces by the "
              << gpu::ToString(o.transport) << " transport, global sums "
              << (o.device_sums ? "on the devices (NCCL)" : "through the host")
              << "; every rank holds the whole configuration and "
              << (distributed ? "only its own sites of the propagator" : "the whole propagator")
              << ", rank 0 prints and writes the files\n";
    for (const std::string& line : placements) std::cout << "  " << line << "\n";
  }
  std::cout
            << "true residuals recomputed in double on the " << ToString(backend.verify)
            << (backend.verify == VerifyOn::kHost ? " (reference operators)" : (o.action.clover() ? " (double/18 GpuClover, original links)" : " (double/18 GpuWilson, original links)"))
            << "\n"
            << "compiler: " << __VERSION__ << "\n"
            << "output directory: " << output.string() << "\n\n";

  // Configuration.
  const std::unique_ptr<SweepEngine> sweeps_on = experiments::MakeSweepEngine(backend);  // generation follows --backend
  const experiments::Stopwatch configuration_time;
  Configuration config = LoadOrGenerate(o, output, partitioned ? communicator : nullptr, sweeps_on.get());
  const GaugeField<double>& u = config.field;
  const Lattice& lattice = u.lattice();
  CheckGrid(o.grid, lattice.extents());  // a --config file's lattice is known only now
  const PlaquetteAverages plaq = MeasurePlaquette(u);
  std::cout << "\nlattice: " << lattice.ToString() << " (" << lattice.volume() << " sites)\n"
            << "configuration: " << config.description << "\n"
            << "plaquette <Re Tr U_p>/3: " << Fixed(plaq.total, 8) << " (spatial " << Fixed(plaq.spatial, 8)
            << ", temporal " << Fixed(plaq.temporal, 8) << "); link trace <Re Tr U>/3: " << Fixed(LinkTrace(u), 8)
            << "\n";
  // Reading (or generating) and checking the configuration, and its plaquette above: the job's time before any
  // solve (printed with the others at the end).
  const double configuration_seconds = configuration_time.Seconds();
  if (partitioned) {
    std::cout << "domain decomposition: grid " << o.grid.ToString() << ", local lattice per rank "
              << Lattice(o.grid.LocalExtents(lattice.extents())).ToString() << "\n";
  }

  // Parameters.
  const FermionAction& action = o.action;
  const double kappa = action.kappa();
  CheckSource(o.source, lattice.extents());
  const int source = lattice.Index(o.source);
  std::cout << "fermions: " << action.Describe() << "\n";
  if (o.clover_u0 != 1.0) {
    std::cout << "clover coefficient: c_sw = --csw / u0^3 = " << o.c_sw << " / " << o.clover_u0
              << "^3 (MILC's clov_c / u0^3)\n";
  }
  std::cout << "source: point source at (x,y,z,t) = (" << o.source[0] << "," << o.source[1] << "," << o.source[2]
            << "," << o.source[3] << "), all 4 spins x 3 colours\n"
            << "solver: " << o.spec.Name() << ": " << o.spec.Describe() << "\n"
            << "columns: "
            << (rhs_block > 1 ? "in blocks of " + std::to_string(rhs_block) +
                                    ", each block one lockstep block BiCGstab (every M_ee application shared, the "
                                    "links read once per site for all its columns)"
                              : std::string("one solve each"))
            << "\n"
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
  std::cout << "solves (" << o.spec.Name() << ", backend " << ToString(backend.kind) << "):\n"
            << " spin colour  status      iterations  true |b-Mx|/|b|  seconds  Gflop/s\n";
  const auto print_record = [](const PropagatorSolveRecord& r) {
    std::cout << std::setw(5) << r.spin << std::setw(7) << r.colour << "  " << std::left << std::setw(11)
              << solvers::ToString(r.result.status) << std::right << std::setw(11) << r.result.iterations
              << std::setw(17) << Sci(r.true_residual, 3) << std::setw(9) << Fixed(r.result.seconds, 2) << std::setw(9)
              << Fixed(r.result.seconds > 0 ? r.result.flops / r.result.seconds * 1e-9 : 0.0, 2) << "\n";
    std::cout.flush();
  };
  // What the job keeps of the propagator: the records, the correlator and the columns' norms (the bound's |x|).
  // On several ranks with the residuals recomputed on the devices, every rank keeps only its own sites' pieces
  // (distributed_propagator.h), and one GPU solving column by column the same for the whole lattice as its one
  // piece; else the process holds the whole propagator.
  struct Solved {
    std::vector<PropagatorSolveRecord> solves;
    double seconds = 0;
    bool all_converged = false;
    std::vector<double> correlator, column_norms;
  } run;
  // The propagator's time: the host fields and the solver (made before the solves' timer starts on one GPU and on
  // several ranks, inside it for the CPU's workers and block solves), the 12 solves (`run.seconds`, wall time),
  // then the correlator and the columns' norms from what the solves kept.
  const experiments::Stopwatch propagator_time;
  double contraction_seconds = 0;
  if (in_pieces) {
    const std::unique_ptr<experiments::DistributedDiracSolver> solver =
        distributed ? experiments::MakeDistributedDiracSolver(backend, u)
                    : experiments::MakeWholeLatticeSolver(experiments::MakeDiracSolver(backend, u), lattice);
    const experiments::DistributedPropagatorRun pieces =
        experiments::ComputeDistributedPropagator(*solver, lattice, action, o.spec, source, print_record);
    const experiments::Stopwatch contraction_time;
    run = {pieces.solves, pieces.seconds, pieces.all_converged(),
           experiments::PionCorrelator(pieces, solver->communicator()),
           experiments::ColumnNorms(pieces, solver->communicator())};
    contraction_seconds = contraction_time.Seconds();
  } else {
    const PropagatorRun whole =
        ComputePropagator(u, action, o.spec, backend, solve_threads, source, print_record, rhs_block);
    const experiments::Stopwatch contraction_time;
    run = {whole.solves, whole.seconds, whole.all_converged(), PionCorrelator(whole.propagator),
           experiments::ColumnNorms(whole)};
    contraction_seconds = contraction_time.Seconds();
  }
  const double propagator_seconds = propagator_time.Seconds();
  if (backend.kind == BackendKind::kGpu) {
    std::cout << "device memory of the fields: peak " << Fixed(gpu::DeviceBufferPeakBytes() / 1e9, 2)
              << " GB (links in every layout used, solver and transfer fields" << (partitioned ? "; rank 0's GPU" : "")
              << ")\n";
  }
  long iterations = 0;
  double flops = 0;
  for (const PropagatorSolveRecord& r : run.solves) {
    iterations += r.result.iterations;
    flops += r.result.flops;
  }
  std::cout << "12 solves: " << iterations << " iterations, " << Fixed(run.seconds, 1) << " s, "
            << Fixed(flops / run.seconds * 1e-9, 2) << " Gflop/s; solver: " << run.solves.front().result.solver
            << "\n";
  if (!run.all_converged) {
    std::cout << "WARNING: not every solve converged; the correlator below is NOT reliable:\n";
    for (const PropagatorSolveRecord& r : run.solves) {
      if (!r.result.converged()) std::cout << "  (" << r.spin << "," << r.colour << "): " << r.result.Summary() << "\n";
    }
  }

  // The correlator's error bound (correlator_bounds.h): ||M^{-1}|| a priori where one exists, else estimated.
  double inverse_norm = 0;
  std::string inverse_norm_source, inverse_norm_kind = "none";
  const double t_norm = experiments::SiteTermNorm(u, action);
  if (o.inverse_norm > 0) {
    inverse_norm = o.inverse_norm;
    inverse_norm_source = "given by --inverse-norm";
    inverse_norm_kind = "given";
  } else if (!action.clover() && action.mass > 0) {
    inverse_norm = 1 / action.mass;
    inverse_norm_source = "a priori 1 / m (Wilson, m > 0, any unitary field)";
    inverse_norm_kind = "a-priori";
  } else if (o.inverse_norm_steps > 0) {
    SolverSpec spec = SolverSpec::Parse("bicgstab");
    spec.tolerance = 1e-10;
    spec.max_iterations = o.spec.max_iterations;
    const std::unique_ptr<experiments::DiracSolver> solver = experiments::MakeDiracSolver(backend, u);
    const experiments::InverseNormEstimate e =
        experiments::EstimateInverseNorm(*solver, action, spec, lattice, o.inverse_norm_steps, 12345);
    inverse_norm = e.norm;
    std::ostringstream why;
    why << "estimated by " << o.inverse_norm_steps << " steps of inverse iteration (a lower estimate; last step changed it by "
        << Sci(e.last_relative_change, 1) << "; " << e.iterations << " iterations, " << Fixed(e.seconds, 1) << " s)";
    inverse_norm_source = why.str();
    inverse_norm_kind = "estimated";
  }
  const double eps =
      inverse_norm > 0 ? experiments::PropagatorError(run.solves, run.column_norms, inverse_norm, t_norm) : 0;

  // Correlator.
  const std::vector<double>& c = run.correlator;
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
            << "  t            C(t)   bound |dC(t)|       C_kappa(t)     C_folded(t)       log      cosh    folded\n";
  std::vector<double> bound(lt, std::nan(""));
  for (int t = 0; t < lt; ++t) {
    if (inverse_norm > 0) bound[t] = experiments::CorrelatorBound(c[t], eps, lattice);
    std::cout << std::setw(3) << t << std::setw(16) << Sci(c[t], 6) << std::setw(16)
              << (inverse_norm > 0 ? Sci(bound[t], 1) : std::string("-")) << std::setw(17) << Sci(c_kappa[t], 6)
              << std::setw(16) << Sci(folded[t], 6);
    if (t + 1 < lt) {
      std::cout << std::setw(10) << mass(m_log[t]) << std::setw(10) << mass(m_cosh[t]);
      if (2 * t < lt) std::cout << std::setw(10) << mass(m_folded[t]);
    }
    std::cout << "\n";
  }
  if (inverse_norm > 0) {
    std::cout << "bound |dC(t)| = eps (2 sqrt(C) + eps) + gamma_{12V} C on the difference from the exact C(t) "
                 "(docs/main_job.md), eps = "
              << Sci(eps, 3) << " from the true residuals and ||M^{-1}|| = " << Sci(inverse_norm, 4) << ", "
              << inverse_norm_source << "\n";
  } else {
    std::cout << "bound |dC(t)|: not computed (m <= 0 or clover: no a-priori ||M^{-1}||; --inverse-norm-steps=N "
                 "estimates it)\n";
  }

  // Files: every rank computed the same correlator from the same gathered columns; rank 0 writes them.
  if (!root) return run.all_converged ? 0 : 2;
  {
    std::ofstream csv((output / "pion_correlator.csv").string());
    // Empty cells where a quantity is undefined (last t; folded masses past the midpoint; no cosh solution).
    auto cell = [](bool defined, double v) {
      std::ostringstream s;
      s << std::setprecision(17);
      if (defined && !std::isnan(v)) s << v;
      return s.str();
    };
    csv << "t,C,C_bound,C_kappa,C_folded,m_eff_log,m_eff_cosh,m_eff_cosh_folded\n" << std::setprecision(17);
    for (int t = 0; t < lt; ++t) {
      const bool has_mass = t + 1 < lt;
      csv << t << "," << c[t] << "," << cell(true, bound[t]) << "," << c_kappa[t] << "," << folded[t] << ","
          << cell(has_mass, has_mass ? m_log[t] : 0)
          << "," << cell(has_mass, has_mass ? m_cosh[t] : 0) << ","
          << cell(has_mass && 2 * t < lt, has_mass ? m_folded[t] : 0) << "\n";
    }
    if (!csv) throw std::runtime_error("error writing pion_correlator.csv");
    std::ofstream solves((output / "solves.csv").string());
    solves << "spin,colour,status,iterations,krylov_iterations,restarts,high_precision_updates,true_residual,"
              "solver_true_residual,seconds,flops,verified_on,column_seconds,transfer_seconds,check_seconds\n"
           << std::setprecision(10);
    for (const PropagatorSolveRecord& r : run.solves) {
      solves << r.spin << "," << r.colour << "," << solvers::ToString(r.result.status) << "," << r.result.iterations
             << "," << r.result.krylov_iterations << "," << r.result.restarts << ","
             << r.result.high_precision_updates << "," << r.true_residual << "," << r.result.true_residual << ","
             << r.result.seconds << "," << r.result.flops << "," << ToString(r.verified_on) << ","
             << r.column_seconds << "," << r.transfer_seconds << "," << r.check_seconds << "\n";
    }
    if (!solves) throw std::runtime_error("error writing solves.csv");
  }
  {
    std::ofstream summary((output / "summary.csv").string());
    summary << std::setprecision(10) << "key,value\n"
            << "lattice," << lattice.ToString() << "\n"
            << "plaquette," << plaq.total << "\n"
            << "kappa," << kappa << "\n"
            << "mass," << action.mass << "\n"
            << "solver," << o.spec.Name() << "\n"
            << "tolerance," << o.spec.tolerance << "\n"
            << "backend," << ToString(backend.kind) << "\n"
            << "verified_on," << ToString(backend.verify) << "\n"
            << "iterations," << iterations << "\n"
            << "solve_seconds," << run.seconds << "\n"
            << "configuration_seconds," << configuration_seconds << "\n"
            << "propagator_seconds," << propagator_seconds << "\n"
            << "contraction_seconds," << contraction_seconds << "\n"
            << "gflops," << flops / run.seconds * 1e-9 << "\n"
            << "all_converged," << (run.all_converged ? 1 : 0) << "\n"
            << "inverse_norm," << inverse_norm << "\n"
            << "inverse_norm_source," << inverse_norm_kind << "\n"
            << "eps," << eps << "\n"
            << "grid," << o.grid.ToString() << "\n"
            << "ranks," << (communicator != nullptr ? communicator->size() : 1) << "\n";
    if (partitioned) {
      summary << "transport," << gpu::ToString(o.transport) << "\n"
              << "global_sums," << (o.device_sums ? "device" : "host") << "\n";
    }
    if (backend.kind == BackendKind::kGpu) summary << "device_peak_bytes," << gpu::DeviceBufferPeakBytes() << "\n";
    if (!summary) throw std::runtime_error("error writing summary.csv");
  }
  std::cout << "\nwrote " << (output / "pion_correlator.csv").string() << ", " << (output / "solves.csv").string()
            << ", " << (output / "summary.csv").string() << ", " << (output / "run.log").string() << "\n";

  if (!o.no_plot) {
    const fs::path script = FindPlotScript("plot_pion.py", o.plot_script, argv0);
    const fs::path png = output / "pion.png";
    const int status = RunPython(script, {(output / "pion_correlator.csv").string(), png.string(),
                                          "--title", lattice.ToString() + " plaquette " + Fixed(plaq.total, 5) + ", " +
                                                         action.Describe().substr(0, action.Describe().find(';')) +
                                                         ", kappa " + Fixed(kappa, 5)});
    if (status != 0) throw std::runtime_error("the plot script failed (exit status " + std::to_string(status) + ")");
    std::cout << "wrote " << png.string() << " (log C(t) and both effective masses)\n";
  }
  const double total = job_time.Seconds();
  std::cout << "total time: " << Fixed(total, 1) << " s (configuration read or generated and checked "
            << Fixed(configuration_seconds, 1) << " s; propagator " << Fixed(propagator_seconds, 1)
            << " s: the 12 solves " << Fixed(run.seconds, 1) << " s, correlator and column norms "
            << Fixed(contraction_seconds, 1) << " s, setting up (host fields, making the solver) "
            << Fixed(propagator_seconds - run.seconds - contraction_seconds, 1) << " s; the rest of the job "
            << Fixed(total - configuration_seconds - propagator_seconds, 1) << " s)\n";
  return run.all_converged ? 0 : 2;
}

// True when a launcher started this process as one rank of an MPI job (Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, PMIx launchers PMIX_RANK): the job then initialises MPI even on a one-rank grid, so
// that a rank count other than the grid's is refused instead of N copies of the job writing one directory.
bool LaunchedAsMpiRank() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

// "pion" on one process, "pion: rank R of N" under mpirun (every rank prints its own errors).
std::string ProgramName() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (rank == nullptr || size == nullptr) return "pion";
  return std::string("pion: rank ") + rank + " of " + size;
}

int Main(int argc, char** argv, TeeBuffer& tee, const std::string& program) {
  const experiments::Stopwatch job_time;
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 0;
  // MPI only for a split lattice or under a launcher; a plain single-process run never touches it. A grid of
  // several ranks started without mpirun becomes a one-rank MPI job (a singleton) and is refused below.
  std::optional<comm::MpiSession> mpi;
  if (o.grid.size() > 1 || LaunchedAsMpiRank()) mpi.emplace(nullptr, nullptr);
  std::unique_ptr<comm::MpiCommunicator> communicator;
  // Errors are printed here, while MPI is live: a rank that finalised and exited first would have mpirun
  // kill the others before they say why.
  auto print = [&](const std::exception& e) {
    std::cout.flush();
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::cerr << program + ": error: " + what + "\n" << std::flush;
  };
  try {
    if (mpi) communicator = std::make_unique<comm::MpiCommunicator>(o.grid);  // every rank checks the rank count
    return Run(o, argv[0], tee, communicator.get(), job_time);
  } catch (const std::invalid_argument& e) {
    // Bad input: every rank refuses it together before any collective, and leaves through MPI_Finalize.
    if (!mpi) throw;
    print(e);
    return 1;
  } catch (const std::exception& e) {
    // Anything else may have hit one rank only while the others wait in a collective: stop them all.
    if (!mpi) throw;
    print(e);
    if (communicator != nullptr && communicator->size() > 1) comm::MpiCommunicator::AbortJob(1);
    return 1;
  }
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  lqcd::TeeBuffer tee(std::cout.rdbuf(), nullptr);
  std::streambuf* original = std::cout.rdbuf(&tee);
  const std::string program = lqcd::ProgramName();
  const int status =
      lqcd::command_line::RunMain(program.c_str(), [&] { return lqcd::Main(argc, argv, tee, program); });
  std::cout.flush();
  std::cout.rdbuf(original);
  return status;
}
