// wilson_benchmark: what the CPU oracle costs. Times the matrix-free Wilson Dslash (full lattice and one
// parity) and the Schur operator M_ee of wilson.h on L^4 lattices in double and float, and the SparseLU
// ground truth of sparse_wilson.h on 4^4 and 4^3x8. Measures and prints; asserts nothing.
//
// Flop counts (the paper's convention, per output site):
//   Dslash                1320 (kHoppingFlopsPerSite)
//   M_ee = 1 - k^2 D D    2 x 1320 + 48 = 2688 per even site: two parity hops (each 1320 per site of its
//                         output parity) and the final Xpay with a real scalar (12 complex components,
//                         a multiply by a real and a complex add: 4 flops each) -> 1344 V for the call.
// Memory-traffic model (no cache reuse, every operand read from memory once per use):
//   Dslash, per output site: 8 neighbour spinors (24 reals) + 8 links (18 reals) + 1 spinor written
//                         = 8 (24 + 18) + 24 = 360 reals (the paper's 1440 bytes in single precision)
//   M_ee, per even site:  2 x 360 (the two hops) + 3 x 24 (Xpay: read in, read the hop result, write)
//                         = 792 reals.
// Usage: wilson_benchmark [--sizes=8,12,16] [--min-seconds=0.5] [--no-direct]   (--help lists the flags)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>

#include "reference/cli/command_line.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "reference/cli/wall_timing.h"

namespace lqcd {
namespace {

constexpr double kDslashRealsPerSite = 8 * (24 + 18) + 24;                  // 360
constexpr double kSchurFlopsPerEvenSite = 2 * kHoppingFlopsPerSite + 48;    // 2688
constexpr double kSchurRealsPerEvenSite = 2 * kDslashRealsPerSite + 3 * 24;  // 792

std::string FirstLineWith(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s.empty() ? "unknown" : s;
}

void PrintRow(const char* precision, const Lattice& lattice, const char* op, double seconds, double flops,
              double bytes) {
  std::printf("%-6s  %-10s  %-14s  %10.3f  %8.3f  %10.1f  %8.2f\n", precision, lattice.ToString().c_str(), op,
              seconds * 1e3, flops / seconds * 1e-9, bytes * 1e-6, bytes / seconds * 1e-9);
}

template <typename T>
void BenchmarkOperators(const Lattice& lattice, double min_seconds, const char* precision) {
  const GaugeField<T> u = RandomGaugeField<T>(lattice, 20240101);
  SpinorField<T> x(lattice);
  FillGaussian(x, 17);
  const SpinorField<T> x_odd = Extract(x, Parity::kOdd), x_even = Extract(x, Parity::kEven);
  WilsonParams params;  // m = 0 (kappa = 1/8), DeGrand-Rossi, antiperiodic in time
  params.mass = 0.0;
  const double v = lattice.volume();
  const double real_bytes = sizeof(T);

  SpinorField<T> out(lattice);
  const double full = SecondsPerCall(
      [&] { ApplyHopping(out, u, x, params.basis, params.boundary, Dagger::kNo); }, min_seconds);
  PrintRow(precision, lattice, "Dslash full", full, kHoppingFlopsPerSite * v, kDslashRealsPerSite * real_bytes * v);

  SpinorField<T> out_even(lattice, Subset::kEven);
  const double parity = SecondsPerCall(
      [&] { ApplyHoppingParity(out_even, u, x_odd, params.basis, params.boundary, Dagger::kNo); }, min_seconds);
  PrintRow(precision, lattice, "Dslash parity", parity, kHoppingFlopsPerSite * v / 2,
           kDslashRealsPerSite * real_bytes * v / 2);

  const double schur = SecondsPerCall([&] { ApplySchur(out_even, u, x_even, params, Dagger::kNo); }, min_seconds);
  PrintRow(precision, lattice, "M_ee", schur, kSchurFlopsPerEvenSite * v / 2, kSchurRealsPerEvenSite * real_bytes * v / 2);
}

void BenchmarkDirectSolver(const Lattice& lattice) {
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 20240102);
  WilsonParams params;
  params.mass = 0.1;
  SpinorField<double> b(lattice);
  FillGaussian(b, 18);
  for (int parity_form = 0; parity_form < 2; ++parity_form) {
    const auto start = std::chrono::steady_clock::now();
    const DirectWilsonSolver solver =
        parity_form == 0 ? DirectWilsonSolver(u, params) : DirectWilsonSolver(u, params, Parity::kEven);
    const double factorise = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const SpinorField<double> rhs = parity_form == 0 ? b : Extract(b, Parity::kEven);
    const double solve = SecondsPerCall([&] { solver.Solve(rhs); }, 0.2);
    // Memory of the factors: a complex<double> value and an int row index per non-zero, plus the
    // supernode bookkeeping (small): 20 bytes per non-zero.
    std::printf("%-10s  %-5s  %6ld  %8.2f  %10.2f  %9.1f  %8.1f\n", lattice.ToString().c_str(),
                parity_form == 0 ? "M" : "M_ee", static_cast<long>(solver.matrix().rows()), factorise,
                solver.FactorNonZeros() * 1e-6, solver.FactorNonZeros() * 20e-6, solve * 1e3);
  }
}

int Main(int argc, char** argv) {
  std::vector<int> sizes = {8, 12, 16};
  double min_seconds = 0.5;
  bool no_direct = false;
  command_line::FlagSet flags(
      "wilson_benchmark",
      "What the CPU oracle costs, single thread: times the matrix-free Wilson Dslash (full lattice and one parity)\n"
      "and the Schur operator M_ee (reference/wilson.h) on L^4 lattices in double and float, then the SparseLU\n"
      "ground truth (reference/sparse_wilson.h) on 4^4 and 4^3x8. Prints ms per call, GFLOPS and the modelled\n"
      "bytes and their rate. Asserts nothing.");
  flags.Custom("sizes", "L,...", "8,12,16",
               "extents L of the L^4 lattices of the Dslash and M_ee rows, each even, in [2, 64]",
               [&](const std::string& value) {
                 std::vector<int> out;
                 for (const std::string& item : command_line::SplitList("sizes", value)) {
                   const int l = static_cast<int>(command_line::ParseLong("sizes", item, 2, 64));
                   if (l % 2 != 0) {
                     throw std::invalid_argument("--sizes: L = " + item +
                                                 " is odd; every extent must be even for the even-odd split");
                   }
                   out.push_back(l);
                 }
                 sizes = out;
               });
  flags.Double("min-seconds", &min_seconds, "time each row for at least this long (and at least 3 calls)",
               command_line::Range::Closed(0, 3600));
  flags.Switch("no-direct", &no_direct, "skip the SparseLU (DirectWilsonSolver) rows");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  const bool direct = !no_direct;
  std::printf("wilson_benchmark: the CPU oracle (reference/wilson.h, reference/sparse_wilson.h); the hopping term's\n"
              "loops on %d OpenMP threads (OMP_NUM_THREADS), the SparseLU rows on one\n",
              omp_get_max_threads());
  std::printf("machine: %s, %u hardware threads, load average %s\n",
              FirstLineWith("/proc/cpuinfo", "model name").c_str(), std::thread::hardware_concurrency(),
              ReadAll("/proc/loadavg").c_str());
  std::printf("compiler: %s, -O2 (tools/copts.bzl)\n", __VERSION__);
  std::printf("operator: m = 0, DeGrand-Rossi, antiperiodic t, Haar-random links; min %.2f s of calls per row\n",
              min_seconds);
  std::printf("flops/site: Dslash %.0f, M_ee %.0f per even site; model bytes/site: Dslash %.0f reals, M_ee %.0f reals\n\n",
              kHoppingFlopsPerSite, kSchurFlopsPerEvenSite, kDslashRealsPerSite, kSchurRealsPerEvenSite);
  std::printf("%-6s  %-10s  %-14s  %10s  %8s  %10s  %8s\n", "prec", "lattice", "operator", "ms/call", "GFLOPS",
              "model MB", "GB/s");
  for (const char* precision : {"double", "float"}) {
    for (int l : sizes) {
      const Lattice lattice(l, l, l, l);
      if (std::string(precision) == "double") {
        BenchmarkOperators<double>(lattice, min_seconds, precision);
      } else {
        BenchmarkOperators<float>(lattice, min_seconds, precision);
      }
    }
  }
  if (direct) {
    std::printf("\nDirectWilsonSolver (SparseLU, m = 0.1, Haar-random links): factorisation, memory, one solve\n");
    std::printf("%-10s  %-5s  %6s  %8s  %10s  %9s  %8s\n", "lattice", "op", "n", "LU s", "nnz(L+U)M", "~MB",
                "solve ms");
    BenchmarkDirectSolver(Lattice(4, 4, 4, 4));
    BenchmarkDirectSolver(Lattice(4, 4, 4, 8));
  }
  return 0;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("wilson_benchmark", [&] { return lqcd::Main(argc, argv); });
}
