// staggered_pbp: the chiral condensate pbp = (1/V) Re tr M^{-1} of the staggered matrix M = 2m + D
// (solvers/staggered_pbp.h) on one quenched configuration, for several masses.
//
// The configuration is generated here (quenched SU(3), Wilson plaquette action, cold start, the generator of
// reference/ensemble/quenched_generator.h, its sweeps on the GPU with --backend=gpu, the same field bit for bit;
// default 4^4 at beta = 6.0, 10 sweeps) or read with --config (any
// format reference/io/gauge_io.h reads). The staggered links are naive (F = U), asqtad (tadpole factor
// --u0) or HISQ (epsilon = 0), from reference/staggered/hisq_links.h; fermion boundary: antiperiodic in time.
// Per mass: the Z2-noise estimate with its standard error (EstimateChiralCondensate: --vectors even-odd CG
// solves to --tolerance, --block right-hand sides at a time through block CG), the disconnected
// susceptibility piece chi_disc = (Re tr M^{-1})^2 / V from the distinct pairs of samples with its jackknife
// error (EstimateDisconnectedSusceptibility), the CG iterations, and, on small lattices (--exact), the exact
// values from the sparse LU of M (ExactChiralCondensate, ExactDisconnectedSusceptibility) with the estimates'
// deviations in standard errors.
// Writes into --output:
//     pbp.csv: mass,links,vectors,estimate,standard_error,cg_iterations,max_full_residual,all_converged,
//              exact,exact_error_bound,deviation_sigma,block,chi_disc,chi_disc_error,exact_chi_disc,
//              chi_disc_deviation_sigma        (the exact and deviation columns empty without an exact value)
//     pbp.md: the same numbers as a markdown table
//     pbp_running.csv: mass,vectors,estimate,standard_error,exact: the estimate from the first n vectors,
//              n = 2..N (exact empty without an exact value)
//     pbp_blocks.csv: mass,block_index,first_vector,vectors,cg_iterations,max_full_residual,seconds: one row per
//              block of solves (the first block's time includes the GPU kernels' first-use tuning)
//     pbp_running.png: that running estimate per mass with the exact value as a line
//              (experiments/plot_staggered_pbp.py through /usr/bin/python3; --no-plot skips it)
// --backend=gpu runs the solves on the GPU (gpu/gpu_staggered.h: the links uploaded once in double, CG on the
// even Schur operator, --block right-hand sides through the block Dslash; --solver=cg-reliable:single:DELTA or
// cg-reliable:half:DELTA: reliable-update CG with its iterations in single or half precision, the links uploaded
// once more in that precision). --verify says where each solve's true residual |eta - M x| / |eta| is recomputed in
// double: on the device (the GPU default: the noise, the solve, the sample and the residual all stay on the GPU,
// gpu/gpu_staggered.h StaggeredNoiseSolveOnGpu) or on the host with the oracle (noise made on the host, each
// solution downloaded; the CPU's only choice). Default backend cpu (the oracle, which solves in double); auto =
// the GPU when one is usable.
// Exit status 0, or 2 if some solve did not converge.
//
//   bazel run //experiments:staggered_pbp
//   bazel run //experiments:staggered_pbp -- --links=asqtad --masses=0.02,0.05 --vectors=64 --block=8
#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/plot_runner.h"
#include "experiments/stopwatch.h"
#include "experiments/sweep_engine.h"
#include "gpu/gpu_staggered.h"
#include "gpu/hisq_smearing.h"
#include "experiments/text_format.h"
#include "reference/cli/command_line.h"
#include "reference/cli/machine_info.h"
#include "reference/ensemble/quenched_generator.h"
#include "reference/io/gauge_io.h"
#include "reference/plaquette.h"
#include "reference/staggered/hisq_links.h"
#include "reference/staggered/staggered_dslash.h"
#include "solvers/solver_spec.h"
#include "solvers/staggered_pbp.h"

namespace lqcd {
namespace {

namespace fs = std::filesystem;
using experiments::FindPlotScript;
using experiments::Fixed;
using experiments::RunPython;
using experiments::UserPath;

enum class LinkKind { kNaive, kAsqtad, kHisq };
enum class ExactMode { kAuto, kYes, kNo };
enum class SmearOn { kAuto, kHost, kGpu };  // --smearing

const char* ToString(LinkKind k) {
  switch (k) {
    case LinkKind::kNaive:
      return "naive";
    case LinkKind::kAsqtad:
      return "asqtad";
    case LinkKind::kHisq:
      return "hisq";
  }
  return "?";
}

// --exact=auto computes the exact value up to this volume (3V x 3V dense inverse from the LU: ~0.24 GB per
// dense matrix at 6^4); --exact=yes up to kExactMaxVolume (4^4 x 16 sites: several GB, minutes).
constexpr long kExactAutoVolume = 6L * 6 * 6 * 6;
constexpr long kExactMaxVolume = 4L * 4 * 4 * 4 * 16;

constexpr char kSummary[] = R"(The chiral condensate pbp = (1/V) Re tr M^{-1} of the staggered matrix M = 2m + D (solvers/staggered_pbp.h)
on one quenched configuration (generated: Wilson plaquette action, cold start; or read with --config), for each
mass of --masses: the Z2-noise estimate +- its standard error (--vectors even-odd CG solves per mass) and, on
small lattices, the exact value from the sparse LU of M with the estimate's deviation in standard errors; and
the disconnected susceptibility piece chi_disc = (Re tr M^{-1})^2 / V from distinct pairs of noise vectors
(jackknife error), with its exact value where pbp's is computed.
Links: naive, asqtad or HISQ (reference/staggered/hisq_links.h); fermion boundary antiperiodic in time.
Writes pbp.csv, pbp.md, pbp_running.csv, pbp_blocks.csv (each block's solves and time) and pbp_running.png
(running estimate) to --output.)";

struct Options {
  std::string config;
  QuenchedOptions generator;
  LinkKind links = LinkKind::kHisq;
  double u0 = 1.0;
  std::vector<double> masses{0.05, 0.1, 0.2};
  int vectors = 32;
  int block = 1;
  bool no_plot = false;
  bool progress = false;
  std::string plot_script;
  std::uint64_t seed = 1;
  double tolerance = 1e-10;
  int max_iterations = 100000;
  ExactMode exact = ExactMode::kAuto;
  std::string output = "pbp_out";
  experiments::BackendKind backend = experiments::BackendKind::kCpu;
  experiments::VerifyOn verify = experiments::VerifyOn::kAuto;
  // --solver=cg-reliable:single:DELTA or cg-reliable:half:DELTA: reliable-update CG with its iterations in that
  // precision (GPU); kDouble: CG in double.
  solvers::OperatorPrecision inner = solvers::OperatorPrecision::kDouble;
  double delta = 0;
  U3Compression long_links = U3Compression::k18;  // --long-links: how the GPU stores the Naik links
  SmearOn smearing = SmearOn::kAuto;
};

bool ParseOptions(int argc, char** argv, Options* out) {
  Options& o = *out;
  o.generator.extents = {4, 4, 4, 4};
  o.generator.beta = 6.0;
  o.generator.separation_sweeps = 1;
  o.generator.configurations = 1;
  o.generator.overrelaxation_steps = 1;
  o.generator.progress_every = 0;
  int sweeps = 10;
  command_line::FlagSet flags("staggered_pbp", kSummary);
  flags.Section("Configuration (default: generate one)");
  flags.String("config", &o.config, "FILE",
               "read this gauge configuration (NERSC, ILDG/SciDAC LIME or MILC v5, detected from the file's bytes) "
               "instead of generating one");
  flags.Extents("lattice", &o.generator.extents, "generator: lattice extents (each >= 4 for asqtad and hisq)");
  flags.Double("beta", &o.generator.beta, "generator: Wilson gauge coupling", command_line::Range::AtLeast(0));
  flags.Int("sweeps", &sweeps, 1, 1000000,
            "generator: update sweeps from a cold start (one sweep = 1 heatbath + --or overrelaxation sweeps)");
  flags.Int("or", &o.generator.overrelaxation_steps, 0, 100, "generator: overrelaxation sweeps per heatbath sweep");
  flags.Unsigned64("seed", &o.seed, "seed of the generator's Philox streams and of the Z2 noise");
  flags.Section("Fermions and estimate");
  flags.Choice<LinkKind>("links", &o.links,
                         {{"naive", LinkKind::kNaive}, {"asqtad", LinkKind::kAsqtad}, {"hisq", LinkKind::kHisq}},
                         "staggered links: naive (F = U), asqtad (tadpole factor --u0) or HISQ (epsilon = 0)");
  flags.Double("u0", &o.u0, "asqtad tadpole factor u0 (asqtad only)", command_line::Range::Positive());
  flags.DoubleList("masses", &o.masses, "bare masses m of M = 2m + D, each > 0", command_line::Range::Positive());
  flags.Int("vectors", &o.vectors, 3, 1000000, "Z2 noise vectors per mass (>= 3: the susceptibility's jackknife)");
  flags.Int("block", &o.block, 1, 1024,
            "right-hand sides per block CG solve (same results for every value; 1 is the plain CG)");
  flags.Double("tolerance", &o.tolerance, "CG tolerance |b - A x| / |b| of the even Schur system",
               command_line::Range::Open(0, 1));
  flags.Int("max-iterations", &o.max_iterations, 1, 100000000, "CG iteration budget per solve");
  flags.Choice<experiments::BackendKind>(
      "backend", &o.backend,
      {{"cpu", experiments::BackendKind::kCpu}, {"gpu", experiments::BackendKind::kGpu},
       {"auto", experiments::BackendKind::kAuto}},
      "where the solves run: cpu = the oracle (double CG), gpu = gpu/gpu_staggered.h (double CG, or --solver's "
      "reliable-update CG; --block through the block Dslash), auto = the GPU when one is usable");
  flags.Choice<experiments::VerifyOn>(
      "verify", &o.verify,
      {{"auto", experiments::VerifyOn::kAuto}, {"host", experiments::VerifyOn::kHost},
       {"device", experiments::VerifyOn::kDevice}},
      "where each solve's true residual |eta - M x| / |eta| is recomputed in double: auto = device on the GPU (noise, "
      "samples and residuals made there, nothing of the lattice's size crossing to the host), host on the CPU; "
      "host = the oracle on the host (the GPU's noise made on the host and every solution downloaded)");
  std::string solver_text = "cg";
  flags.String("solver", &solver_text, "SPEC",
               "the solver as a spec (solvers/solver_spec.h StaggeredSolveFormOf): cg = CG on the even Schur "
               "operator in double; cg-reliable:single:DELTA or cg-reliable:half:DELTA = its iterations in single "
               "or half precision with double reliable updates when the iterated residual has dropped by DELTA "
               "(--backend=gpu; the block form with --block; half: not with --long-links=13 or 9)");
  std::string long_links = "18";
  flags.Choice<std::string>("long-links", &long_links, {{"18", "18"}, {"13", "13"}, {"9", "9"}},
                            "how the GPU stores the long (Naik) links: 18 reals, 13 numbers (two rows of "
                            "L / c_naik and arg det) or 9 (the 8 reals of its SU(3) part and arg det; "
                            "gpu/staggered_dslash.h LongLinkStorage). --backend=gpu and --links=asqtad|hisq only");
  flags.Choice<SmearOn>("smearing", &o.smearing,
                         {{"auto", SmearOn::kAuto}, {"host", SmearOn::kHost}, {"gpu", SmearOn::kGpu}},
                         "where the asqtad or HISQ links are built: host = the oracle (every core), gpu = "
                         "gpu/hisq_smearing.h (the same asqtad links bit for bit; HISQ's U(3) projection by other "
                         "rounding; --backend=gpu only), auto = gpu with "
                         "--backend=gpu, else host");
  flags.Choice<ExactMode>("exact", &o.exact, {{"auto", ExactMode::kAuto}, {"yes", ExactMode::kYes}, {"no", ExactMode::kNo}},
                          "exact pbp from the sparse LU: auto = when V <= 6^4, yes = always (V <= 4^4 x 16), no = never");
  flags.Section("Output");
  flags.String("output", &o.output, "DIR",
               "output directory (relative paths are relative to the directory bazel run was invoked from)");
  flags.Switch("no-plot", &o.no_plot, "skip the matplotlib PNG of the running estimate");
  flags.Switch("progress", &o.progress,
               "print a line per block of solves (vectors, CG iterations, largest true residual, seconds) as it ends");
  flags.String("plot-script", &o.plot_script, "FILE",
               "plot_staggered_pbp.py to use (default: found in the runfiles)");
  if (!flags.Parse(argc, argv, std::cout)) return false;

  if (!o.config.empty()) {
    for (const char* generator_flag : {"lattice", "beta", "sweeps", "or"}) {
      if (flags.Given(generator_flag)) {
        throw std::invalid_argument(std::string("--") + generator_flag +
                                    " sets up the generator; it conflicts with --config (the file has its own)");
      }
    }
  }
  if (flags.Given("u0") && o.links != LinkKind::kAsqtad) throw std::invalid_argument("--u0 needs --links=asqtad");
  const solvers::StaggeredSolveForm form = solvers::StaggeredSolveFormOf(solvers::SolverSpec::Parse(solver_text));
  o.inner = form.inner;
  o.delta = form.delta;
  if (form.reliable && o.backend != experiments::BackendKind::kGpu) {
    throw std::invalid_argument("--solver=" + solver_text + " needs --backend=gpu (the CPU solves in double" +
                                (o.inner == solvers::OperatorPrecision::kHalf
                                     ? "; its staggered backend has no half colour vectors)"
                                     : ")"));
  }
  if (o.smearing == SmearOn::kGpu && o.backend != experiments::BackendKind::kGpu) {
    throw std::invalid_argument("--smearing=gpu needs --backend=gpu");
  }
  o.long_links = long_links == "13" ? U3Compression::k13 : long_links == "9" ? U3Compression::k9 : U3Compression::k18;
  const bool compressed = o.long_links != U3Compression::k18;
  if (compressed && o.backend != experiments::BackendKind::kGpu) {
    throw std::invalid_argument("--long-links=" + long_links + " needs --backend=gpu (the CPU keeps 18 reals)");
  }
  if (compressed && o.links == LinkKind::kNaive) {
    throw std::invalid_argument("--long-links=" + long_links + " needs long links: --links=asqtad or hisq");
  }
  if (compressed && o.inner == solvers::OperatorPrecision::kHalf) {
    throw std::invalid_argument("--long-links=" + long_links + " cannot be combined with --solver=" + solver_text +
                                ": half-precision links keep the long links in 18 reals (gpu/staggered_dslash.h)");
  }
  o.generator.seed = o.seed;
  o.generator.thermalisation_sweeps = sweeps - 1;
  if (o.config.empty()) {
    ValidateQuenchedOptions(o.generator);
    const long volume = Lattice(o.generator.extents).volume();
    if (o.links != LinkKind::kNaive) {
      for (int mu = 0; mu < kDims; ++mu) {
        if (o.generator.extents[mu] < 4) {
          throw std::invalid_argument(std::string("--lattice: --links=") + ToString(o.links) +
                                      " needs every extent >= 4 (the Naik 3-hop)");
        }
      }
    }
    if (o.exact == ExactMode::kYes && volume > kExactMaxVolume) {
      throw std::invalid_argument("--exact=yes: the lattice has " + std::to_string(volume) + " sites, more than " +
                                  std::to_string(kExactMaxVolume) + " (4^4 x 16) the dense inverse allows");
    }
  }
  return true;
}

std::string Sci(double v, int digits) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(digits) << v;
  return s.str();
}

int Main(int argc, char** argv) {
  const experiments::Stopwatch job;
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 0;
  const fs::path output = UserPath(o.output);
  const bool reliable = o.inner != solvers::OperatorPrecision::kDouble;  // --solver=cg-reliable:...

  // The backend is chosen (and a missing GPU refused) before any work.
  const experiments::BackendChoice backend = experiments::ChooseBackend(o.backend, o.verify);
  std::cout << "staggered_pbp: chiral condensate (1/V) Re tr (2m + D)^{-1} (lqcd experiments/staggered_pbp)\n"
            << "machine: " << DescribeMachine() << "\n"
            << "backend: " << experiments::ToString(backend.kind) << " (" << backend.reason << "; " << backend.device
            << ")\n";

  GaugeField<double> u(Lattice(o.generator.extents));
  if (!o.config.empty()) {
    const fs::path path = UserPath(o.config);
    GaugeConfiguration c = ReadGaugeConfiguration(path.string());
    std::cout << "configuration: read " << path.string() << "\n" << c.metadata.Describe() << "\n";
    u = std::move(c.field);
  } else {
    std::cout << "configuration: generating (quenched SU(3), Wilson plaquette action, cold start, "
              << (o.generator.thermalisation_sweeps + o.generator.separation_sweeps) << " sweeps)\n";
    // The sweeps run where the solves do (the GPU's sweeps give the CPU's field bit for bit, sweep_engine.h).
    const std::unique_ptr<SweepEngine> sweeps_on = experiments::MakeSweepEngine(backend);
    std::ostringstream generator_log;
    const QuenchedSummary summary = GenerateQuenched(
        o.generator, generator_log, [&](const GaugeField<double>& f, int, long) { u = f; }, nullptr, nullptr,
        sweeps_on.get());
    std::cout << "  beta = " << o.generator.beta << ", seed = " << o.generator.seed
              << ", overrelaxation sweeps per sweep = " << o.generator.overrelaxation_steps << ", sweeps on "
              << (sweeps_on ? sweeps_on->Describe() : std::string("the CPU")) << ", " << Fixed(summary.seconds, 2)
              << " s\n";
  }
  const Lattice& lattice = u.lattice();
  const long volume = lattice.volume();
  const PlaquetteAverages plaq = MeasurePlaquette(u);
  std::cout << "lattice: " << lattice.ToString() << " (V = " << volume << ")\n"
            << "plaquette <Re Tr U_p>/3 = " << Fixed(plaq.total, 8) << "\n";
  if (o.links != LinkKind::kNaive) {
    for (int mu = 0; mu < kDims; ++mu) {
      if (lattice.extent(mu) < 4) {
        throw std::invalid_argument(std::string("--links=") + ToString(o.links) + " needs every extent >= 4; the "
                                    "configuration is " + lattice.ToString());
      }
    }
  }
  bool exact = false;
  if (o.exact == ExactMode::kYes) {
    if (volume > kExactMaxVolume) {
      throw std::invalid_argument("--exact=yes: the configuration has " + std::to_string(volume) +
                                  " sites, more than 4^4 x 16");
    }
    exact = true;
  } else if (o.exact == ExactMode::kAuto) {
    exact = volume <= kExactAutoVolume;
  }

  StaggeredLinks<double> links = StaggeredLinks<double>::Naive(u);
  const bool smear_on_gpu = o.smearing == SmearOn::kGpu ||
                            (o.smearing == SmearOn::kAuto && backend.kind == experiments::BackendKind::kGpu);
  const experiments::Stopwatch smearing;
  if (o.links == LinkKind::kAsqtad) {
    SmearedLinks s = smear_on_gpu ? gpu::AsqtadLinksOnGpu(u, o.u0) : AsqtadLinks(u, o.u0);
    links = StaggeredLinks<double>{std::move(s.fat), std::move(s.naik)};
  } else if (o.links == LinkKind::kHisq) {
    SmearedLinks s = smear_on_gpu ? gpu::HisqLinksOnGpu(u, 0.0) : HisqLinks(u, 0.0);
    links = StaggeredLinks<double>{std::move(s.fat), std::move(s.naik)};
  }
  const double smearing_seconds = smearing.Seconds();
  const FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  std::cout << "links: " << ToString(o.links);
  if (o.links == LinkKind::kAsqtad) std::cout << " (u0 = " << o.u0 << ")";
  if (o.links == LinkKind::kHisq) std::cout << " (epsilon = 0)";
  if (o.links != LinkKind::kNaive) {
    std::cout << ", built on the " << (smear_on_gpu ? "GPU" : "host") << " in " << Fixed(smearing_seconds, 2) << " s";
  }
  std::cout << "; fermion boundary (x,y,z,t) = PPPA\n"
            << "noise: " << o.vectors << " Z2 vectors per mass, seed " << o.seed << "\n"
            << "solver: even-odd "
            << (reliable ? "reliable-update " : "")
            << (o.block > 1 ? "block CG, " + std::to_string(o.block) + " right-hand sides per block" : std::string("CG"))
            << (reliable ? std::string(", ") + solvers::ToString(o.inner) + "-precision iterations, delta " +
                               Fixed(o.delta, 3)
                         : std::string())
            << (o.long_links == U3Compression::k13  ? ", long links in 13 numbers on the GPU"
                : o.long_links == U3Compression::k9 ? ", long links in 9 numbers on the GPU"
                                                    : "")
            << ", tolerance " << Sci(o.tolerance, 1) << ", max iterations " << o.max_iterations
            << "\n"
            << "true residuals: recomputed in double on the " << experiments::ToString(backend.verify)
            << (backend.verify == experiments::VerifyOn::kHost ? " (the oracle)" : " (the double links, with the noise "
                                                                                 "and samples made there)")
            << "\n"
            << "exact: " << (exact ? "yes (sparse LU of M, 3V = " + std::to_string(3 * volume) + " columns)"
                                   : std::string("no"))
            << "\n\n";

  fs::create_directories(output);
  const fs::path csv_path = output / "pbp.csv";
  std::ofstream csv(csv_path.string());
  if (!csv) throw std::runtime_error("cannot write " + csv_path.string());
  csv << "mass,links,vectors,estimate,standard_error,cg_iterations,max_full_residual,all_converged,exact,"
         "exact_error_bound,deviation_sigma,block,chi_disc,chi_disc_error,exact_chi_disc,chi_disc_deviation_sigma\n"
      << std::setprecision(17);
  const fs::path running_path = output / "pbp_running.csv";
  std::ofstream running(running_path.string());
  if (!running) throw std::runtime_error("cannot write " + running_path.string());
  running << "mass,vectors,estimate,standard_error,exact\n" << std::setprecision(17);
  const fs::path blocks_path = output / "pbp_blocks.csv";
  std::ofstream blocks(blocks_path.string());
  if (!blocks) throw std::runtime_error("cannot write " + blocks_path.string());
  blocks << "mass,block_index,first_vector,vectors,cg_iterations,max_full_residual,seconds\n" << std::setprecision(17);
  std::ostringstream md;
  md << "| mass | links | vectors | pbp estimate | std error | exact pbp | dev/sigma | chi_disc | std error | "
        "exact chi_disc | dev/sigma |\n|---|---|---|---|---|---|---|---|---|---|---|\n";

  std::cout << std::setw(8) << "mass" << std::setw(16) << "estimate" << std::setw(13) << "std error" << std::setw(10)
            << "CG iters" << std::setw(12) << "max resid";
  if (exact) std::cout << std::setw(18) << "exact" << std::setw(11) << "bound" << std::setw(11) << "dev/sigma";
  std::cout << "\n";
  struct ChiRow {
    double mass;
    solvers::SusceptibilityEstimate chi;
    bool has_exact;
    solvers::ExactPbp exact;
  };
  std::vector<ChiRow> chi_rows;
  double solve_seconds = 0;
  bool all_converged = true;
  solvers::SolverParams solver;
  solver.tolerance = o.tolerance;
  solver.max_iterations = o.max_iterations;
  // On the GPU the links are uploaded once, in double, for every mass.
  std::shared_ptr<const gpu::DeviceStaggeredLinks> device_links, inner_links;
  if (backend.kind == experiments::BackendKind::kGpu) {
    // The Naik links over their coefficient are unitary (hisq_links.h), which the 13- and 9-number forms need.
    const double naik_scale = o.links == LinkKind::kAsqtad ? AsqtadNaikCoefficient(o.u0) : HisqNaikCoefficient(0.0);
    const gpu::LongLinkStorage storage{o.long_links, naik_scale};
    device_links = std::make_shared<const gpu::DeviceStaggeredLinks>(links, gpu::Precision::kDouble, storage);
    if (reliable) {
      // The iterations' links in their precision (half: 18-real long links; --long-links=13 or 9 was refused above).
      const gpu::Precision inner =
          o.inner == solvers::OperatorPrecision::kHalf ? gpu::Precision::kHalf : gpu::Precision::kSingle;
      inner_links = std::make_shared<const gpu::DeviceStaggeredLinks>(links, inner, storage);
      solver.delta = o.delta;
    }
  }
  for (double mass : o.masses) {
    const StaggeredParams params{mass, boundary};
    const experiments::Stopwatch solve_time;
    // The solves of one block of noise vectors: on the CPU (the oracle, SolveStaggeredEvenOdd[Block]), on the GPU
    // with the noise, samples and residuals there (--verify=device), or on the GPU fed and checked by the host.
    solvers::NoiseBlockSolve solve;
    if (backend.kind == experiments::BackendKind::kCpu) {
      solve = solvers::CpuNoiseSolve(links, params, solver);
    } else if (backend.verify == experiments::VerifyOn::kDevice) {
      solve = gpu::StaggeredNoiseSolveOnGpu(device_links, params, solver, inner_links);
    } else {
      solve = solvers::HostNoiseSolve(lattice, [&](const std::vector<ColourVectorField<double>>& eta) {
        return gpu::SolveStaggeredEvenOddBlockOnGpu(device_links, links, params, eta, solver, inner_links);
      });
    }
    std::ostringstream mass_text;
    mass_text << mass;  // as given (6 significant digits), not 17
    int block_index = 0, first_vector = 0;
    const solvers::PbpEstimate est = solvers::EstimateChiralCondensate(
        o.vectors, o.seed, o.block, [&](const std::vector<std::uint64_t>& noise_seeds) {
          const experiments::Stopwatch block_time;
          const std::vector<solvers::NoiseSolve> results = solve(noise_seeds);
          const double seconds = block_time.Seconds();
          int iterations = 0;
          double max_residual = 0;
          for (const solvers::NoiseSolve& r : results) {
            iterations += r.schur.iterations;
            max_residual = std::max(max_residual, r.full_residual);
          }
          const int n = static_cast<int>(noise_seeds.size());
          blocks << mass_text.str() << "," << block_index << "," << first_vector << "," << n << "," << iterations
                 << "," << max_residual << "," << seconds << "\n";
          if (o.progress) {
            std::cout << "  block " << block_index << ": vectors " << first_vector << "-" << first_vector + n - 1
                      << ", " << iterations << " CG iterations, max resid " << Sci(max_residual, 1) << ", "
                      << Fixed(seconds, 3) << " s (" << Fixed(seconds / n, 3) << " s per vector)" << std::endl;
          }
          ++block_index;
          first_vector += n;
          return results;
        });
    solve_seconds += solve_time.Seconds();
    const solvers::SusceptibilityEstimate chi =
        solvers::EstimateDisconnectedSusceptibility(est.samples, static_cast<double>(volume));
    all_converged = all_converged && est.all_converged;
    std::cout << std::setw(8) << mass << std::setw(16) << Fixed(est.mean, 8) << std::setw(13)
              << Fixed(est.standard_error, 8) << std::setw(10) << est.total_iterations << std::setw(12)
              << Sci(est.max_full_residual, 1);
    csv << mass_text.str() << "," << ToString(o.links) << "," << o.vectors << "," << est.mean << "," << est.standard_error << ","
        << est.total_iterations << "," << est.max_full_residual << "," << (est.all_converged ? 1 : 0) << ",";
    solvers::ExactPbp ex, ex_chi;
    double dev = 0, chi_dev = 0;
    if (exact) {
      ex = solvers::ExactChiralCondensate(links, params);
      ex_chi = solvers::ExactDisconnectedSusceptibility(ex, static_cast<double>(volume));
      dev = (est.mean - ex.value) / est.standard_error;
      chi_dev = (chi.value - ex_chi.value) / chi.standard_error;
      std::cout << std::setw(18) << Fixed(ex.value, 12) << std::setw(11) << Sci(ex.error_bound, 1) << std::setw(11)
                << Fixed(dev, 2);
      csv << ex.value << "," << ex.error_bound << "," << dev << ",";
    } else {
      csv << ",,,";
    }
    csv << o.block << "," << chi.value << "," << chi.standard_error << ",";
    if (exact) {
      csv << ex_chi.value << "," << chi_dev << "\n";
    } else {
      csv << ",\n";
    }
    chi_rows.push_back(ChiRow{mass, chi, exact, ex_chi});
    // The running estimate from the first n samples (the mean and standard error of EstimateChiralCondensate).
    double sum = 0, sum2 = 0;
    for (int n = 1; n <= o.vectors; ++n) {
      const double v = est.samples[n - 1];
      sum += v;
      sum2 += v * v;
      if (n < 2) continue;
      const double mean = sum / n, var = std::max(0.0, (sum2 - n * mean * mean) / (n - 1));
      running << mass_text.str() << "," << n << "," << mean << "," << std::sqrt(var / n) << ",";
      if (exact) running << ex.value;
      running << "\n";
    }
    md << "| " << mass_text.str() << " | " << ToString(o.links) << " | " << o.vectors << " | " << Fixed(est.mean, 8)
       << " | " << Fixed(est.standard_error, 8) << " | " << (exact ? Fixed(ex.value, 10) : std::string("-")) << " | "
       << (exact ? Fixed(dev, 2) : std::string("-")) << " | " << Fixed(chi.value, 6) << " | "
       << Fixed(chi.standard_error, 6) << " | " << (exact ? Fixed(ex_chi.value, 6) : std::string("-")) << " | "
       << (exact ? Fixed(chi_dev, 2) : std::string("-")) << " |\n";
    if (!est.all_converged) std::cout << "  (NOT CONVERGED)";
    std::cout << "\n";
    std::cout.flush();
  }
  csv.close();
  if (!csv) throw std::runtime_error("error writing " + csv_path.string());
  running.close();
  if (!running) throw std::runtime_error("error writing " + running_path.string());
  blocks.close();
  if (!blocks) throw std::runtime_error("error writing " + blocks_path.string());

  std::cout << "\ndisconnected susceptibility chi_disc = (Re tr M^-1)^2 / V (pairs k != l of the samples, "
               "jackknife error)\n"
            << std::setw(8) << "mass" << std::setw(16) << "chi_disc" << std::setw(13) << "std error";
  if (exact) std::cout << std::setw(18) << "exact" << std::setw(11) << "dev/sigma";
  std::cout << "\n";
  for (const ChiRow& r : chi_rows) {
    std::cout << std::setw(8) << r.mass << std::setw(16) << Fixed(r.chi.value, 6) << std::setw(13)
              << Fixed(r.chi.standard_error, 6);
    if (r.has_exact) {
      std::cout << std::setw(18) << Fixed(r.exact.value, 8) << std::setw(11)
                << Fixed((r.chi.value - r.exact.value) / r.chi.standard_error, 2);
    }
    std::cout << "\n";
  }
  std::cout << "solve time (all masses, block " << o.block << ", residuals on the " << experiments::ToString(backend.verify)
            << "): " << Fixed(solve_seconds, 2) << " s, "
            << Fixed(solve_seconds / (static_cast<double>(o.vectors) * o.masses.size()), 3) << " s per vector\n";

  const fs::path md_path = output / "pbp.md";
  std::ofstream md_file(md_path.string());
  if (!md_file) throw std::runtime_error("cannot write " + md_path.string());
  md_file << "staggered_pbp on " << lattice.ToString() << ", plaquette " << Fixed(plaq.total, 8) << ", "
          << ToString(o.links) << " links, " << o.vectors << " Z2 vectors, seed " << o.seed << ", block " << o.block
          << "\n\n"
          << md.str();
  md_file.close();
  if (!md_file) throw std::runtime_error("error writing " + md_path.string());
  std::cout << "\nwrote " << csv_path.string() << ", " << running_path.string() << ", " << blocks_path.string() << ", "
            << md_path.string() << "\n";
  if (!o.no_plot) {
    const fs::path script = FindPlotScript("plot_staggered_pbp.py", o.plot_script, argv[0]);
    const fs::path png = output / "pbp_running.png";
    const int status = RunPython(script, {running_path.string(), png.string(), "--title",
                                          lattice.ToString() + " plaquette " + Fixed(plaq.total, 5) + ", " +
                                              ToString(o.links) + " links, seed " + std::to_string(o.seed)});
    if (status != 0) throw std::runtime_error("the plot script failed (exit status " + std::to_string(status) + ")");
    std::cout << "wrote " << png.string() << " (running estimate of pbp)\n";
  }
  const double total = job.Seconds();
  std::cout << "total time: " << Fixed(total, 1) << " s\n";
  return all_converged ? 0 : 2;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("staggered_pbp", [&] { return lqcd::Main(argc, argv); });
}
