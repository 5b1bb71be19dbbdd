// solver_throughput_benchmark: the rate of the solvers next to the rate of the matrix-vector product they are
// built on, the paper's Table 2 analogue, for every precision (double, single, half) x link reconstruction
// (18, 12, 8) on the even-odd Wilson operator M_ee = 1 - kappa^2 D_eo D_oe (GpuWilsonSchur, even parity,
// antiperiodic in t, periodic in space), or with --fermion=clover on the Schur complement of the Wilson-clover
// matrix S_ee = T_ee - D_eo T_oo^{-1} D_oe / 4 (GpuCloverSchur, m-normalised: the same solves up to the factor
// 2 kappa; c_sw = --csw, traceless field strength, the clover term built once per lattice on the host).
//
//   solver_throughput_benchmark [--lattices=24x24x24x48,32x32x32x32] [--kappa=0.24] [--repetitions=50]
//                               [--iterations=200] [--solver-repetitions=3] [--seed=1] [--gauge=PATH] [--csv=PATH]
//                               [--fermion=wilson|clover] [--csw=0.1] [--fused=on|off|both]
//
// --fused=off switches the operator's fused reductions off (set_fused_dot_products(false): ApplyDotNorm is Apply
// then a separate DotNorm, ApplyDaggerAxpyNorm ApplyDagger then a separate AxpyNorm; both operators have both), so
// that one binary measures the solvers with and without them in one run; "both" measures every row twice, fused
// first. The clover term's values do not change the work of any kernel; on Haar-random links |A| <= 4 c_sw, so a
// small --csw keeps T well conditioned at kappa near the Wilson critical value (an ill-conditioned T is refused
// naming kappa and c_sw).
//
// Per lattice and row (one precision x reconstruction; every field and the links in that precision):
//   M_ee      median of --repetitions Apply calls, each between CUDA events after a warm-up call (which tunes
//             the Dslash launches). GFLOPS = FlopsPerApply() (2 x 1320 + 48 per even site; the clover Schur
//             complement 3696) / time; GB/s = Cost().bytes (the Dslash byte model of gpu/wilson_dslash.h, both
//             launches, clover terms included) / time.
//   CG        solvers::ConjugateGradient on solvers::NormalOperator<M_ee> (A = M_ee^dag M_ee, applied as M_ee then
//             M_ee^dag: two M_ee-type applications, 2 x FlopsPerApply; M_ee^dag runs the dagger Dslash variants,
//             which the M_ee column does not time), the source a Gaussian even field, x0 = 0.
//   BiCGstab  solvers::BiCGstab on M_ee itself, same source.
//   Each solve runs exactly --iterations iterations (tolerance 1e-30, no restart: status max-iterations); one
//   untimed solve first (the launch tuner meets every kernel then), then the median of --solver-repetitions.
//   GFLOPS = the solver's own count / its own wall-clock time (SolveResult::flops / seconds): operator flops
//   counted with the operator's FlopsPerApply, the vector operations of solvers/vector_flops.h, and the
//   solve's setup (|b|^2, the initial and the final true residual: one operator application each, about 1%
//   of 200 iterations). CG/M_ee and BiCGstab/M_ee divide that rate by the M_ee rate above, so both count an
//   operator application identically; a ratio below 1 is what the vector kernels, the reductions' host round
//   trips and the launch gaps cost. A solver that stops early (breakdown, not finite, non-positive
//   curvature) is listed under the table with its status and reason; its row uses its actual iterations.
//
// Byte model per iteration (the memory traffic of one iteration as the kernels are written), in MB (1e6 bytes):
//   operator  2 x Cost().bytes of M_ee: CG applies M_ee and M_ee^dag (same bytes), BiCGstab M_ee twice.
//   vectors   the fused vector kernels each iteration launches, blas::Cost(op).bytes (every field read once and
//             written once, 24 reals per site, + a 4-byte norm per site in half):
//               CG:       (p, q) = |M_ee p|^2 fused into M_ee p (nothing more); r -= alpha q and |r|^2 fused
//                         into M_ee^dag (NormalOperator::ApplyCurvatureUpdate: r read and written there, q
//                         never written: net + 1 on the operator's model), CgSolutionDirection (x += alpha p,
//                         p = r + beta p) 3 + 2                                                   =  6 fields
//               BiCGstab: (v, r0), |v|^2 fused into v = M_ee p (r0 read once), CaxpyNorm 2 + 1, (t, s), |t|^2
//                         fused into t = M_ee s (nothing more), BicgstabResidual 3 + 1, BicgstabSolution 3 + 1,
//                         BicgstabDirection 3 + 1                                                 = 16 fields
//               --fused=off: each fused sum is a DotNorm reading two fields (CG 10 fields, BiCGstab 19).
//             (solvers/cg.h and bicgstab.h: x is updated in its own kernel after the host has tested the
//             scalars, so no kernel waits for the host).
//   us/it = solve seconds / iterations; GB/s = model bytes per iteration / us/it; % copy = that GB/s over the
//   copy-kernel bandwidth measured at the start of this run (gpu/copy_bandwidth.h).
//
// Links: Haar-random (ParallelRandomGaugeField, exactly reference/su3_random.h's RandomGaugeField, --seed) on
// each lattice, or --gauge=PATH read with reference/io/gauge_io.h (NERSC, LIME or MILC, detected from the
// file): then the file's lattice is the only one (a --lattices that differs is refused before any GPU work).
// Source: Gaussian (FillGaussian, seed + 1). Writes every row to --csv=PATH as well when given (the same
// columns, bytes unscaled, plus each solver's status). A row that throws (e.g. out of device memory) is printed
// as "error: ..." and the table goes on; the exit status is then 1. Measures and prints; asserts nothing about
// speed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/blas.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "reference/cli/command_line.h"
#include "reference/clover.h"
#include "reference/io/gauge_io.h"
#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/operators.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using solvers::SolveResult;

struct Options {
  std::vector<Coordinates> lattices{{24, 24, 24, 48}, {32, 32, 32, 32}};
  double kappa = 0.24;  // near the critical kappa of Haar-random links: 200 iterations do not reach 1e-30
  int repetitions = 50;
  int iterations = 200;
  int solver_repetitions = 3;
  std::uint64_t seed = 1;
  std::string gauge, csv;
  bool clover = false;
  double c_sw = 0.1;                 // clover only
  std::vector<bool> fused = {true};  // --fused: on {true}, off {false}, both {true, false}
};

// The clover parameters of --kappa and --csw; std::invalid_argument naming both if they are refused.
CloverParams CloverParamsOf(const Options& o) {
  try {
    return CloverParams::FromKappa(o.kappa, o.c_sw);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--csw=" + std::to_string(o.c_sw) + " at --kappa=" + std::to_string(o.kappa) + ": " +
                                e.what());
  }
}

// Bytes of one iteration under the model of the file comment; fused: the operator's fused sums and update are on.
double CgBytes(double operator_bytes, Precision precision, double sites, bool fused) {
  auto bytes = [&](blas::Operation op) { return blas::Cost(op, precision, sites).bytes; };
  using blas::Operation;
  const double solution_direction = bytes(Operation::kCgSolutionDirection);
  if (!fused) return 2 * operator_bytes + bytes(Operation::kDotNorm) + bytes(Operation::kAxpyNorm) + solution_direction;
  // (p, q) = (p, M^dag M p) = |M p|^2 is fused into M p: no field pass. r -= alpha q is fused into M^dag's last
  // Dslash (NormalOperator::ApplyCurvatureUpdate): r read and written there instead of q written, one field more
  // than the operator's model.
  return 2 * operator_bytes + bytes(Operation::kNorm2) + solution_direction;
}

double BicgstabBytes(double operator_bytes, Precision precision, double sites, bool fused) {
  auto bytes = [&](blas::Operation op) { return blas::Cost(op, precision, sites).bytes; };
  using blas::Operation;
  // Fused into the operator (ApplyDotNorm): (v, r0), |v|^2 read r0 once more, (t, s) and |t|^2 re-read s at the
  // site the xpay has just read (a cache hit, not counted). Not fused: two DotNorms of two fields each.
  const double sums = fused ? bytes(Operation::kNorm2) : 2 * bytes(Operation::kDotNorm);
  const double vectors = sums + bytes(Operation::kCaxpyNorm) + bytes(Operation::kBicgstabResidual) +
                         bytes(Operation::kBicgstabSolution) + bytes(Operation::kBicgstabDirection);
  return 2 * operator_bytes + vectors;
}

// A solver's measurement: the median record and what follows from it.
struct SolverRate {
  SolveResult result;
  double bytes = 0;  // per iteration, the model
  double gflops = 0;
  double us_per_iteration = NAN;  // NaN when the solve stopped before its first iteration
  double gbs = NAN;
};

SolverRate RateOf(const SolveResult& r, double bytes) {
  SolverRate s;
  s.result = r;
  s.bytes = bytes;
  s.gflops = r.seconds > 0 ? r.flops / r.seconds / 1e9 : NAN;
  if (r.iterations > 0 && r.seconds > 0) {
    s.us_per_iteration = 1e6 * r.seconds / r.iterations;
    s.gbs = bytes / s.us_per_iteration / 1e3;
  }
  return s;
}

struct Row {
  Precision precision = Precision::kDouble;
  Reconstruct links = Reconstruct::k18;
  bool fused = true;
  double mee_gflops = 0, mee_gbs = 0;
  SolverRate cg, bicgstab;
  std::string error;  // non-empty: the row could not be measured
};

// The row of operator m (GpuWilsonSchur<P> or GpuCloverSchur<P>, even parity) with its fused sums on or off.
template <typename Op>
Row MeasureOperator(Op& m, const SpinorField<double>& source, const Options& o, bool fused) {
  using P = typename Op::Precision;
  using Field = typename Op::Field;
  Row row;
  row.precision = DevicePrecisionOf<P>::kValue;
  row.fused = fused;
  m.set_fused_dot_products(fused);
  Field b = m.NewField(), out = m.NewField();
  b.Upload(source);

  const double ms = MedianMilliseconds(o.repetitions, [&] { m.Apply(out, b); });
  const KernelCost cost = m.Cost();
  row.mee_gflops = m.FlopsPerApply() / ms / 1e6;
  row.mee_gbs = cost.bytes / ms / 1e6;

  solvers::SolverParams params;
  params.tolerance = 1e-30;  // never met: every solve runs --iterations iterations unless it breaks down
  params.max_iterations = o.iterations;
  params.max_restarts = 0;
  params.record_history = false;
  const double sites = source.lattice().half_volume();
  const solvers::NormalOperator<Op> normal(m);
  row.cg = RateOf(MedianSolve(o.solver_repetitions,
                              [&] {
                                Field x = m.NewField();
                                return solvers::ConjugateGradient(normal, x, b, params);
                              }),
                  CgBytes(cost.bytes, row.precision, sites, fused));
  row.bicgstab = RateOf(MedianSolve(o.solver_repetitions,
                                    [&] {
                                      Field x = m.NewField();
                                      return solvers::BiCGstab(m, x, b, params);
                                    }),
                        BicgstabBytes(cost.bytes, row.precision, sites, fused));
  return row;
}

// The rows of one precision x reconstruction, one per --fused value, on the Wilson or (clover != null) the clover
// operator.
template <typename P>
std::vector<Row> Measure(const GaugeField<double>& u, const CloverField<double>* clover,
                         const SpinorField<double>& source, Reconstruct links, const Options& o) {
  GpuOperatorLayout layout;
  layout.reconstruct = links;
  const auto gauge = UploadGauge<P>(u, layout);
  std::vector<Row> rows;
  if (clover != nullptr) {
    GpuCloverSchur<P> m(gauge, UploadClover<P>(*clover), CloverSchurForm::kComplement, Parity::kEven);
    for (bool fused : o.fused) rows.push_back(MeasureOperator(m, source, o, fused));
  } else {
    GpuWilsonSchur<P> m(gauge, WilsonParams::FromKappa(o.kappa), Parity::kEven);
    for (bool fused : o.fused) rows.push_back(MeasureOperator(m, source, o, fused));
  }
  for (Row& r : rows) r.links = links;
  return rows;
}

void PrintHeader() {
  const char* format = "%-6s %5s %5s %9s %8s %9s %6s %9s %6s | %5s %10s %8s %7s %6s | %5s %10s %8s %7s %6s\n";
  std::printf(format, "", "", "", "M_ee", "M_ee", "CG", "CG/", "BiCGstab", "BiCG/", "CG", "CG MB/it", "CG", "CG",
              "CG %", "BiCG", "BiCG MB/it", "BiCG", "BiCG", "BiCG %");
  std::printf(format, "prec", "links", "fused", "GFLOPS", "GB/s", "GFLOPS", "M_ee", "GFLOPS", "M_ee", "iters", "model",
              "us/it", "GB/s", "copy", "iters", "model", "us/it", "GB/s", "copy");
}

void PrintRow(const Row& r, double copy_gbs) {
  const char* fused = r.fused ? "on" : "off";
  if (!r.error.empty()) {
    std::printf("%-6s %5s %5s error: %s\n", ToString(r.precision), ToString(r.links), fused, r.error.c_str());
    return;
  }
  const SolverRate& c = r.cg;
  const SolverRate& b = r.bicgstab;
  std::printf(
      "%-6s %5s %5s %9.1f %8.1f %9.1f %6.3f %9.1f %6.3f | %5d %10.1f %8.1f %7.1f %5.1f%% | %5d %10.1f %8.1f %7.1f "
      "%5.1f%%\n",
      ToString(r.precision), ToString(r.links), fused, r.mee_gflops, r.mee_gbs, c.gflops, c.gflops / r.mee_gflops,
      b.gflops, b.gflops / r.mee_gflops, c.result.iterations, c.bytes / 1e6, c.us_per_iteration, c.gbs,
      100 * c.gbs / copy_gbs, b.result.iterations, b.bytes / 1e6, b.us_per_iteration, b.gbs, 100 * b.gbs / copy_gbs);
}

template <typename P>
void MeasureAll(const GaugeField<double>& u, const CloverField<double>* clover, const SpinorField<double>& source,
                const Options& o, double copy_gbs, std::vector<Row>& rows) {
  for (Reconstruct links : {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8}) {
    std::vector<Row> measured;
    try {
      measured = Measure<P>(u, clover, source, links, o);
    } catch (const std::exception& e) {  // the row says why; go on with the next
      Row row;
      row.precision = DevicePrecisionOf<P>::kValue;
      row.links = links;
      row.fused = o.fused.front();
      row.error = e.what();
      measured = {row};
    }
    for (const Row& r : measured) {
      rows.push_back(r);
      PrintRow(r, copy_gbs);
    }
    std::fflush(stdout);
  }
}

constexpr const char* kCsvHeader =
    "lattice,kappa,links_source,precision,links,mee_gflops,mee_gbs,cg_gflops,cg_over_mee,bicgstab_gflops,"
    "bicgstab_over_mee,cg_status,cg_iterations,cg_bytes_per_iteration,"
    "cg_us_per_iteration,cg_gbs,cg_percent_of_copy,bicgstab_status,bicgstab_iterations,"
    "bicgstab_bytes_per_iteration,bicgstab_us_per_iteration,bicgstab_gbs,"
    "bicgstab_percent_of_copy,copy_gbs,error,fermion,csw,fused\n";

void CsvRow(std::ofstream& csv, const Lattice& lattice, const Options& o, const std::string& links_source, const Row& r,
            double copy_gbs) {
  const SolverRate& c = r.cg;
  const SolverRate& b = r.bicgstab;
  std::string source = links_source;
  std::replace(source.begin(), source.end(), ',', ';');
  csv << lattice.ToString() << "," << o.kappa << "," << source << "," << ToString(r.precision) << ","
      << ToString(r.links) << ",";
  if (r.error.empty()) {
    csv << r.mee_gflops << "," << r.mee_gbs << "," << c.gflops << "," << c.gflops / r.mee_gflops << "," << b.gflops
        << "," << b.gflops / r.mee_gflops << "," << solvers::ToString(c.result.status) << "," << c.result.iterations
        << "," << c.bytes << "," << c.us_per_iteration << "," << c.gbs << ","
        << 100 * c.gbs / copy_gbs << "," << solvers::ToString(b.result.status) << "," << b.result.iterations << ","
        << b.bytes << "," << b.us_per_iteration << "," << b.gbs << ","
        << 100 * b.gbs / copy_gbs << "," << copy_gbs << ",";
  } else {
    std::string what = r.error;
    std::replace(what.begin(), what.end(), ',', ';');
    std::replace(what.begin(), what.end(), '\n', ' ');
    csv << std::string(18, ',') << copy_gbs << "," << what;
  }
  csv << "," << (o.clover ? "clover" : "wilson") << ",";
  if (o.clover) csv << o.c_sw;
  csv << "," << (r.fused ? "on" : "off") << "\n";
}

// Under the table: every solve that did not run its full budget, and every row that failed.
void PrintNotes(const std::vector<Row>& rows, int iterations) {
  for (const Row& r : rows) {
    const std::string name =
        std::string(ToString(r.precision)) + "/" + ToString(r.links) + (r.fused ? "" : " (fusion off)");
    if (!r.error.empty()) continue;  // already in its row
    for (const SolverRate* s : {&r.cg, &r.bicgstab}) {
      if (s->result.status == solvers::SolveStatus::kMaxIterations && s->result.iterations == iterations) continue;
      std::printf("note: %s %s stopped after %d of %d iterations: %s (%s)\n", name.c_str(), s->result.solver.c_str(),
                  s->result.iterations, iterations, solvers::ToString(s->result.status), s->result.reason.c_str());
    }
  }
}

// Returns the number of rows that could not be measured.
int RunLattice(const GaugeField<double>& u, const std::string& links_source, const Options& o, double copy_gbs,
               std::ofstream* csv) {
  const Lattice& lattice = u.lattice();
  SpinorField<double> source(lattice, Subset::kEven);
  FillGaussian(source, o.seed + 1);
  std::unique_ptr<CloverField<double>> clover;
  if (o.clover) clover = std::make_unique<CloverField<double>>(u, CloverParamsOf(o));
  std::printf(
      "\nlattice %s (%d even sites), kappa %g, boundary %s (x y z t; A = antiperiodic), links %s, "
      "Gaussian source (seed %llu)\n",
      lattice.ToString().c_str(), lattice.half_volume(), o.kappa,
      WilsonParams::FromKappa(o.kappa).boundary.ToString().c_str(), links_source.c_str(),
      static_cast<unsigned long long>(o.seed + 1));
  if (clover) {
    std::printf("Wilson-clover, c_sw %g (traceless F): M_ee below is the Schur complement T_ee - D T_oo^-1 D / 4, "
                "T's eigenvalues in [%.3f, %.3f]\n",
                o.c_sw, clover->min_eigenvalue(), clover->max_eigenvalue());
  }
  std::printf(
      "M_ee: median of %d; CG (on M_ee^dag M_ee) and BiCGstab (on M_ee): %d iterations from x = 0, median of "
      "%d after a warm-up solve; %% copy of %.0f GB/s\n",
      o.repetitions, o.iterations, o.solver_repetitions, copy_gbs);
  PrintHeader();
  std::fflush(stdout);
  std::vector<Row> rows;
  MeasureAll<double>(u, clover.get(), source, o, copy_gbs, rows);
  MeasureAll<float>(u, clover.get(), source, o, copy_gbs, rows);
  MeasureAll<Half>(u, clover.get(), source, o, copy_gbs, rows);
  PrintNotes(rows, o.iterations);
  int failed = 0;
  for (const Row& r : rows) {
    if (!r.error.empty()) failed += 1;
    if (csv != nullptr) CsvRow(*csv, lattice, o, links_source, r, copy_gbs);
  }
  if (csv != nullptr) csv->flush();
  return failed;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  using namespace lqcd;
  using namespace lqcd::gpu;
  return command_line::RunMain("solver_throughput_benchmark", [&] {
    Options o;
    command_line::FlagSet flags(
        "solver_throughput_benchmark",
        "Solver rate next to the matrix-vector rate (the paper's Table 2 analogue): M_ee, CG on M_ee^dag M_ee and\n"
        "BiCGstab on M_ee for every precision x link reconstruction, in GFLOPS, with a per-iteration byte model\n"
        "against the copy bandwidth measured in the same run. Measures; asserts nothing.");
    flags.ExtentsList("lattices", &o.lattices, "lattices (with --gauge: the file's lattice only)");
    flags.Double("kappa", &o.kappa, "hopping parameter", command_line::Range::Open(0, 0.25));
    flags.Int("repetitions", &o.repetitions, 1, 100000, "timed M_ee applications per row (the median is reported)");
    flags.Int("iterations", &o.iterations, 1, 1000000, "iterations of every solve");
    flags.Int("solver-repetitions", &o.solver_repetitions, 1, 1000,
              "timed solves per solver and row after one untimed solve (the median is reported)");
    flags.Unsigned64("seed", &o.seed,
                     "seed of the random links (seed) and of the source (seed + 1; with --gauge only that)");
    flags.String("gauge", &o.gauge, "PATH",
                 "read the links from this configuration file (NERSC, LIME or MILC) instead of Haar-random ones");
    flags.String("csv", &o.csv, "PATH", "also write every row to this CSV file");
    std::string fermion = "wilson", fused = "on";
    flags.String("fermion", &fermion, "wilson|clover",
                 "the even-odd Wilson operator, or the Schur complement of the Wilson-clover matrix");
    flags.Double("csw", &o.c_sw, "clover coefficient (--fermion=clover)", command_line::Range::Open(0, 1e3));
    flags.String("fused", &fused, "on|off|both",
                 "the operators' fused reductions on, off (a separate DotNorm / AxpyNorm), or each row both ways");
    if (!flags.Parse(argc, argv, std::cout)) return 0;
    if (fermion != "wilson" && fermion != "clover") {
      throw std::invalid_argument("--fermion=" + fermion + ": wilson or clover");
    }
    o.clover = fermion == "clover";
    if (flags.Given("csw") && !o.clover) {
      throw std::invalid_argument("--csw needs --fermion=clover (the Wilson action has no clover term)");
    }
    if (fused == "on") {
      o.fused = {true};
    } else if (fused == "off") {
      o.fused = {false};
    } else if (fused == "both") {
      o.fused = {true, false};
    } else {
      throw std::invalid_argument("--fused=" + fused + ": on, off or both");
    }
    if (o.clover) CloverParamsOf(o);  // refused before any work

    // The configuration file is read, and its lattice checked, before the GPU is looked for.
    std::unique_ptr<GaugeConfiguration> file;
    if (!o.gauge.empty()) {
      file = std::make_unique<GaugeConfiguration>(ReadGaugeConfiguration(o.gauge));
      const Coordinates& extents = file->field.lattice().extents();
      if (flags.Given("lattices") && (o.lattices.size() != 1 || o.lattices.front() != extents)) {
        std::string given;
        for (const Coordinates& c : o.lattices) {
          given += given.empty() ? "" : ",";
          for (int mu = 0; mu < kDims; ++mu) given += (mu > 0 ? "x" : "") + std::to_string(c[mu]);
        }
        throw std::invalid_argument("--lattices=" + given + " differs from the lattice of --gauge=" + o.gauge + " (" +
                                    file->field.lattice().ToString() + "): leave --lattices out or give that one");
      }
      o.lattices = {extents};
    }
    if (const std::string why = NoDeviceReason(); !why.empty()) {
      std::printf("solver_throughput_benchmark: %s\n", why.c_str());
      return 1;
    }
    std::unique_ptr<std::ofstream> csv;
    if (!o.csv.empty()) {
      csv = std::make_unique<std::ofstream>(o.csv);
      if (!*csv) throw std::runtime_error("cannot write --csv=" + o.csv);
      csv->precision(8);
      *csv << kCsvHeader;
    }
    std::printf("solver_throughput_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
    if (file) std::printf("links: read from %s\n%s\n", o.gauge.c_str(), file->metadata.Describe().c_str());
    const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
    std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
    int failed = 0;
    for (const Coordinates& extents : o.lattices) {
      if (file) {
        failed += RunLattice(file->field, std::string("read from ") + o.gauge, o, copy.kernel_gbs, csv.get());
      } else {
        const Lattice lattice(extents);
        const GaugeField<double> u = ParallelRandomGaugeField(lattice, o.seed, DefaultThreads());
        failed += RunLattice(u, "Haar-random (seed " + std::to_string(o.seed) + ")", o, copy.kernel_gbs, csv.get());
      }
    }
    if (failed > 0) std::printf("\n%d row(s) could not be measured (see 'error:' above)\n", failed);
    return failed > 0 ? 1 : 0;
  });
}
