// staggered_dslash_benchmark: the GPU staggered Dslash (staggered_dslash.h) on n right-hand sides per launch, and
// the even-odd block CG (gpu_staggered.h) per right-hand side: the paper-003 (Bielefeld HISQ) table.
//
//   staggered_dslash_benchmark [--lattice=32x32x32x32,64x64x64x16] [--rhs=1,2,4,8,16] [--repetitions=N]
//                              [--precision=double|single|half|all] [--cg-rhs=1,2,4,8|0] [--mass=M]
//                              [--cg-solver=cg|cg-reliable:single:DELTA|cg-reliable:half:DELTA]
//                              [--long-links=18,13,9,0] [--csv=FILE]
//
// Dslash rows, per lattice x precision x links (fat + long links of 18 reals or of 13 or 9 numbers: the improved
// operator; 0, fat only: naive; 13 and 9 in double and single) x n:
// microseconds per right-hand side for each pinned mapping (1, 2 or 4 right-hand sides per thread) and the
// launcher's choice, GFLOPS of the call (all its right-hand sides; 1146 flops per site and right-hand side with
// long links, 570 without), the kernel
// model's and the minimum bytes per site per right-hand side (staggered_dslash_cost.h), flop/byte of the kernel
// model, the fraction of the minimum-bytes roofline at the copy bandwidth measured in the same run, and the
// per-right-hand-side speed-up over n = 1. CG rows (improved links): the block CG on M_ee to 1e-10 from Gaussian
// even sources, in double or, with --cg-solver=cg-reliable:single|half:DELTA, the block reliable-update CG with its
// iterations in single or half precision (gpu_staggered.h), seconds per right-hand side (the solver's own time;
// nothing verified on the host; the largest iteration and update counts and whether every system converged are
// printed), the GFLOPS of the whole block and the speed-up over n = 1. Links are Haar random (values do not change
// the timing; the CG's iteration count does depend on them and is printed). Medians of --repetitions calls with
// CUDA events after a warm-up call that tunes. Measures and prints; asserts nothing about speed. Needs a GPU:
// without one it prints why and exits 1.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/benchmark_support.h"
#include "gpu/copy_bandwidth.h"
#include "gpu/device.h"
#include "gpu/gpu_staggered.h"
#include "gpu/staggered_dslash.h"
#include "gpu/staggered_dslash_cost.h"
#include "reference/cli/command_line.h"
#include "reference/su3_random.h"
#include "solvers/block_cg.h"
#include "solvers/block_reliable_update.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {
namespace {

struct Options {
  std::vector<Precision> precisions{Precision::kDouble, Precision::kSingle, Precision::kHalf};
  std::vector<int> rhs{1, 2, 4, 8, 16};
  std::vector<int> cg_rhs{1, 2, 4, 8};
  std::vector<int> long_links{18, 13, 9, 0};  // how the Dslash rows store the long links (0: none, naive)
  int repetitions = 20;
  double mass = 0.02;
  std::string cg_solver = "cg";  // a staggered solver spec (solvers/solver_spec.h StaggeredSolveFormOf)
  std::string csv;
};

constexpr char kCsvHeader[] =
    "kind,lattice,precision,links,rhs,m1_us,m2_us,m4_us,best_us,gflops,kernel_bytes_per_site_per_rhs,"
    "minimum_bytes_per_site_per_rhs,kernel_flop_per_byte,minimum_roofline_fraction,speedup,copy_gbs,iterations";

void DslashRows(const Lattice& lattice, const Options& o, double copy_gbs, std::ofstream* csv) {
  const GaugeField<double> fat = ParallelRandomGaugeField(lattice, 1, DefaultThreads());
  const GaugeField<double> long_links = ParallelRandomGaugeField(lattice, 2, DefaultThreads());
  const Extents extents{lattice.extent(0), lattice.extent(1), lattice.extent(2), lattice.extent(3)};
  const double sites = HalfVolume(extents);
  int max_n = 1;
  for (int n : o.rhs) max_n = std::max(max_n, n);
  std::vector<ColourVectorField<double>> sources;
  for (int j = 0; j < max_n; ++j) {
    sources.emplace_back(lattice, Subset::kEven);
    FillGaussian(sources.back(), 10 + j);
  }
  std::printf("\nDslash, lattice %s, %d repetitions, median; roofline = minimum bytes at %.0f GB/s\n",
              lattice.ToString().c_str(), o.repetitions, copy_gbs);
  std::printf("%-7s %-10s %3s | %9s %9s %9s | %9s %8s %8s %8s %6s %6s %7s\n", "prec", "links", "n", "m=1 us",
              "m=2 us", "m=4 us", "best us", "GFLOPS", "B/site", "minB/st", "F/B", "roof%", "speedup");
  for (Precision precision : o.precisions) {
    std::vector<std::unique_ptr<DeviceColourVectorField>> in, out;
    for (int j = 0; j < max_n; ++j) {
      in.push_back(std::make_unique<DeviceColourVectorField>(lattice, Parity::kEven, precision));
      in.back()->Upload(sources[j]);
      out.push_back(std::make_unique<DeviceColourVectorField>(lattice, Parity::kOdd, precision));
    }
    // Long links in 18 reals, in 13 or 9 numbers (Haar-random links are unitary: scale 1), or none (naive).
    for (const int long_reals : o.long_links) {
      const bool compressed = long_reals == 13 || long_reals == 9;
      if (precision == Precision::kHalf && compressed) continue;  // 13 and 9 numbers: double and single only
      const bool improved = long_reals != 0;
      const StaggeredLinks<double> host_links =
          improved ? StaggeredLinks<double>{fat, long_links} : StaggeredLinks<double>::Naive(fat);
      const U3Compression form = long_reals == 13  ? U3Compression::k13
                                 : long_reals == 9 ? U3Compression::k9
                                                   : U3Compression::k18;
      const DeviceStaggeredLinks links(host_links, precision, LongLinkStorage{form, 1.0});
      const std::string link_name = long_reals == 18 ? "fat+long"
                                    : compressed     ? "fat+long" + std::to_string(long_reals)
                                                     : "fat";
      double single_us = 0;
      for (int n : o.rhs) {
        std::vector<DeviceColourVectorField*> o_ptr;
        std::vector<const DeviceColourVectorField*> i_ptr;
        for (int j = 0; j < n; ++j) {
          o_ptr.push_back(out[j].get());
          i_ptr.push_back(in[j].get());
        }
        auto time_with = [&](int m) {
          return MedianMilliseconds(o.repetitions, [&] {
            ApplyStaggeredDslashBlock(o_ptr, links, i_ptr, FermionBoundary::AntiperiodicTime(), Dagger::kNo, m);
          });
        };
        double pinned[3] = {-1, -1, -1};
        const int choices[3] = {1, 2, 4};
        for (int c = 0; c < 3; ++c) {
          if (choices[c] <= n) pinned[c] = time_with(choices[c]);
        }
        const double best_ms = time_with(0);
        const double best_us = 1e3 * best_ms / n;
        if (n == 1) single_us = best_us;
        const KernelCost cost = StaggeredDslashKernelCost(links, n);
        const auto per_rhs = [&](double ms) { return ms < 0 ? -1.0 : 1e3 * ms / n; };
        const double gflops = cost.flops / (best_ms * 1e6);  // the whole call
        const double roof = cost.minimum_bytes / (best_ms * 1e-3) / 1e9 / copy_gbs;
        const double speedup = single_us > 0 ? single_us / best_us : 0;
        std::printf("%-7s %-10s %3d | %9.1f %9.1f %9.1f | %9.1f %8.0f %8.0f %8.0f %6.2f %5.1f%% %6.2fx\n",
                    ToString(precision), link_name.c_str(), n, per_rhs(pinned[0]), per_rhs(pinned[1]),
                    per_rhs(pinned[2]), best_us, gflops, cost.bytes / n / sites, cost.minimum_bytes / n / sites,
                    cost.flops / cost.bytes, 100 * roof, speedup);
        if (csv != nullptr) {
          *csv << "dslash," << lattice.ToString() << "," << ToString(precision) << ","
               << link_name << "," << n << "," << per_rhs(pinned[0]) << ","
               << per_rhs(pinned[1]) << "," << per_rhs(pinned[2]) << "," << best_us << "," << gflops << ","
               << cost.bytes / n / sites << "," << cost.minimum_bytes / n / sites << "," << cost.flops / cost.bytes
               << "," << roof << "," << speedup << "," << copy_gbs << ",\n";
          csv->flush();
        }
      }
    }
  }
}

void CgRows(const Lattice& lattice, const Options& o, double copy_gbs, std::ofstream* csv) {
  if (o.cg_rhs.empty()) return;
  const GaugeField<double> fat = ParallelRandomGaugeField(lattice, 3, DefaultThreads());
  const GaugeField<double> long_links = ParallelRandomGaugeField(lattice, 4, DefaultThreads());
  const StaggeredLinks<double> host_links{fat, long_links};
  const auto links = std::make_shared<const DeviceStaggeredLinks>(host_links, Precision::kDouble);
  const solvers::StaggeredSolveForm form = solvers::StaggeredSolveFormOf(solvers::SolverSpec::Parse(o.cg_solver));
  // The reliable-update CG's iterations run on the links in their own precision (half: 18-real long links).
  const Precision inner_precision =
      form.inner == solvers::OperatorPrecision::kHalf ? Precision::kHalf : Precision::kSingle;
  const auto inner_links =
      form.reliable ? std::make_shared<const DeviceStaggeredLinks>(host_links, inner_precision) : nullptr;
  StaggeredParams params;
  params.mass = o.mass;
  const GpuStaggeredSchur<double> op(links, params, Parity::kEven);
  std::optional<GpuStaggeredSchur<float>> single_op;
  std::optional<GpuStaggeredSchur<solvers::Half>> half_op;
  if (form.reliable && inner_precision == Precision::kSingle) single_op.emplace(inner_links, params, Parity::kEven);
  if (form.reliable && inner_precision == Precision::kHalf) half_op.emplace(inner_links, params, Parity::kEven);
  solvers::SolverParams solver;
  solver.tolerance = 1e-10;
  solver.max_iterations = 100000;
  if (form.reliable) solver.delta = form.delta;  // CG in double keeps SolverParams' default (BlockCg checks it)
  const std::string what =
      form.reliable ? std::string("reliable-update CG, ") + solvers::ToString(form.inner) + " iterations, delta " +
                          std::to_string(form.delta)
                    : std::string("CG, double");
  std::printf("\nblock %s on M_ee, fat+long links, m = %g, tolerance %g, lattice %s\n", what.c_str(), o.mass,
              solver.tolerance, lattice.ToString().c_str());
  std::printf("%3s | %10s %10s %10s %8s %8s  %s\n", "n", "iterations", "s per RHS", "GFLOPS", "speedup", "updates",
              "status");
  double single = 0;
  for (int n : o.cg_rhs) {
    std::vector<GpuColourVectorField<double>> b, x;
    for (int j = 0; j < n; ++j) {
      ColourVectorField<double> source(lattice, Subset::kEven);
      FillGaussian(source, 100 + j);
      b.push_back(op.NewField());
      b.back().Upload(source);
      x.push_back(op.NewField());
    }
    auto solve = [&] {
      for (auto& xj : x) GpuStaggeredBackend::Zero(xj);
      if (half_op) return solvers::BlockReliableCg(op, *half_op, x, b, solver);
      if (single_op) return solvers::BlockReliableCg(op, *single_op, x, b, solver);
      return solvers::BlockCg(op, x, b, solver);
    };
    (void)solve();  // tunes every kernel
    solvers::BlockSolveResult r = solve();
    double seconds = 0, flops = 0;
    int iterations = 0, updates = 0;
    const char* status = "converged";  // the first system that did not converge, if any
    for (const solvers::SolveResult& s : r.systems) {
      seconds = std::max(seconds, s.seconds);
      flops += s.flops;
      iterations = std::max(iterations, s.iterations);
      updates = std::max(updates, s.high_precision_updates);
      if (!s.converged() && std::string(status) == "converged") status = solvers::ToString(s.status);
    }
    const double per_rhs = seconds / n;
    if (n == 1) single = per_rhs;
    std::printf("%3d | %10d %10.4f %10.0f %7.2fx %8d  %s\n", n, iterations, per_rhs, flops / seconds * 1e-9,
                single > 0 ? single / per_rhs : 0.0, updates, status);
    if (csv != nullptr) {
      *csv << (form.reliable ? "cg-reliable," : "cg,") << lattice.ToString() << "," << solvers::ToString(form.inner)
           << ",fat+long," << n << ",,,," << 1e6 * per_rhs << ","
           << flops / seconds * 1e-9 << ",,,,," << (single > 0 ? single / per_rhs : 0.0) << "," << copy_gbs << ","
           << iterations << "\n";
      csv->flush();
    }
  }
}

int Main(int argc, char** argv) {
  std::vector<Coordinates> lattices = {{32, 32, 32, 32}, {64, 64, 64, 16}};
  Options o;
  std::string precision = "all";
  command_line::FlagSet flags(
      "staggered_dslash_benchmark",
      "The GPU staggered Dslash on n right-hand sides per launch (each link loaded once per site for a group of\n"
      "1, 2 or 4 of them) and the even-odd block CG per right-hand side: microseconds and GFLOPS per right-hand\n"
      "side, the kernel and minimum byte models (gpu/staggered_dslash_cost.h), the fraction of the minimum-bytes\n"
      "roofline at the copy bandwidth measured in the same run, and the speed-up over n = 1. Needs a GPU.");
  flags.ExtentsList("lattice", &lattices, "lattices to time, in this order; each extent even and >= 4");
  flags.IntList("rhs", &o.rhs, 1, kMaxStaggeredRhs, "right-hand sides per Dslash call, a list");
  flags.IntList("cg-rhs", &o.cg_rhs, 0, 64, "right-hand sides per block CG, a list (0 alone: no CG rows)");
  flags.Int("repetitions", &o.repetitions, 1, 1000000, "timed Dslash calls per row; the median is reported");
  flags.Choice<std::string>("precision", &precision,
                            {{"all", "all"}, {"double", "double"}, {"single", "single"}, {"half", "half"}},
                            "precision of the Dslash rows (the CG rows: --cg-solver)");
  flags.Double("mass", &o.mass, "staggered mass of the CG rows", command_line::Range::Positive());
  flags.String("cg-solver", &o.cg_solver, "SPEC",
               "the CG rows' solver: cg (double), cg-reliable:single:DELTA or cg-reliable:half:DELTA (the iterations "
               "in single or half precision, double reliable updates)");
  flags.IntList("long-links", &o.long_links, 0, 18,
                "how the Dslash rows store the long links, a list of 18, 13, 9 (reals or numbers) and 0 (none)");
  flags.String("csv", &o.csv, "FILE", "also write every row to this CSV");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  for (const int reals : o.long_links) {
    if (reals != 18 && reals != 13 && reals != 9 && reals != 0) {
      std::cerr << "staggered_dslash_benchmark: error: --long-links: each entry must be 18, 13, 9 or 0, got " << reals
                << "\n";
      return 2;
    }
  }
  if (std::find(o.cg_rhs.begin(), o.cg_rhs.end(), 0) != o.cg_rhs.end()) {
    if (o.cg_rhs.size() != 1) {
      std::cerr << "staggered_dslash_benchmark: error: --cg-rhs: 0 (no CG rows) cannot be combined with counts\n";
      return 2;
    }
    o.cg_rhs.clear();
  }
  if (precision != "all") o.precisions = {ParsePrecision(precision)};
  (void)solvers::StaggeredSolveFormOf(solvers::SolverSpec::Parse(o.cg_solver));  // a bad spec: refused before any work
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("staggered_dslash_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("staggered_dslash_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);
  std::printf("copy kernel %.0f GB/s (read + write, 1 GiB buffers, best of 10)\n", copy.kernel_gbs);
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw std::runtime_error("cannot write " + o.csv);
    csv << std::setprecision(9) << kCsvHeader << "\n";
  }
  for (const Coordinates& extents : lattices) {
    const Lattice lattice(extents);
    DslashRows(lattice, o, copy.kernel_gbs, o.csv.empty() ? nullptr : &csv);
    CgRows(lattice, o, copy.kernel_gbs, o.csv.empty() ? nullptr : &csv);
  }
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("staggered_dslash_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
