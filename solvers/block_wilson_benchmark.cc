// block_wilson_benchmark: what applying M to a block of n vectors (one gauge field) costs on the CPU,
// against n single applications. Measures and prints; asserts nothing.
//
// For each n it times CpuBlockWilson<T>::ApplyBlock on n vectors (each link fetched once per site for the
// block, cpu_block_wilson.h) and the same n vectors through LoopedBlockOperator<CpuWilson<T>> (n calls of
// the oracle's ApplyWilson), and prints time per vector application, GFLOPS (1368 flops per site per
// vector) and the traffic model of the file comment of cpu_block_wilson.h: bytes per block application
// V sizeof(T) (144 + 240 n), arithmetic intensity n * 1368 / (sizeof(T) (144 + 240 n)) flop/byte.
// On a CPU whose caches hold the whole gauge field (small lattices) the model's saving does not show;
// it is the model for a streaming (bandwidth-bound) device.
// Usage: block_wilson_benchmark [--size=8] [--min-seconds=0.5] [--blocks=1,2,4,8]   (--help lists the flags)
#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/cli/command_line.h"
#include "reference/cli/machine_info.h"
#include "reference/spinor_field.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "solvers/block_operators.h"
#include "solvers/cpu_backend.h"
#include "solvers/cpu_block_wilson.h"
#include "reference/cli/wall_timing.h"

namespace lqcd::solvers {
namespace {

template <typename T>
void Run(const Lattice& lattice, const std::vector<int>& blocks, double min_seconds, const char* name) {
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 1);
  const WilsonParams params = WilsonParams::FromKappa(0.12);
  const CpuBlockWilson<T> block(u, params);
  const CpuWilson<T> single(u, params);
  const LoopedBlockOperator<CpuWilson<T>> looped(single, block.BytesPerApply(1));
  for (int n : blocks) {
    std::vector<SpinorField<T>> in, out(n, SpinorField<T>(lattice));
    for (int k = 0; k < n; ++k) {
      SpinorField<double> f(lattice);
      FillGaussian(f, 10 + k);
      in.push_back(ConvertSpinorField<T>(f));
    }
    std::vector<SpinorField<T>*> o;
    std::vector<const SpinorField<T>*> i;
    for (int k = 0; k < n; ++k) {
      o.push_back(&out[k]);
      i.push_back(&in[k]);
    }
    const double t_block = SecondsPerCall([&] { block.ApplyBlock(o, i); }, min_seconds) / n;
    const double t_looped = SecondsPerCall([&] { looped.ApplyBlock(o, i); }, min_seconds) / n;
    const double flops = block.FlopsPerApply();
    const double intensity = n * flops / block.BytesPerApply(n);
    std::printf("%-6s  %-10s  %3d  %12.3f  %8.3f  %12.3f  %8.3f  %14.1f  %9.3f\n", name, lattice.ToString().c_str(), n,
                t_block * 1e3, flops / t_block * 1e-9, t_looped * 1e3, flops / t_looped * 1e-9,
                block.BytesPerApply(n) / n * 1e-6, intensity);
  }
}

int Main(int argc, char** argv) {
  int size = 8;
  double min_seconds = 0.5;
  std::vector<int> blocks = {1, 2, 4, 8};
  command_line::FlagSet flags(
      "block_wilson_benchmark",
      "What applying the Wilson matrix M to a block of n vectors costs on the CPU (solvers/cpu_block_wilson.h,\n"
      "each link fetched once per site for the whole block) against n single applications of the oracle, on an\n"
      "L^4 lattice in double and float, single thread. Prints ms per vector application, GFLOPS and the\n"
      "traffic model (bytes per vector, flop/byte) for each block size n. Asserts nothing.");
  flags.Int("size", &size, 2, 64, "extent L of the L^4 lattice, even");
  flags.Double("min-seconds", &min_seconds, "time each row for at least this long (and at least 3 calls)",
               command_line::Range::Closed(0, 3600));
  flags.IntList("blocks", &blocks, 1, 64, "block sizes n (vectors per block application)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (size % 2 != 0) {
    throw std::invalid_argument("--size = " + std::to_string(size) +
                                " is odd; every extent must be even for the even-odd split");
  }
  const Lattice lattice(size, size, size, size);
  std::printf("block_wilson_benchmark: M on a block of n vectors (solvers/cpu_block_wilson.h) vs n oracle calls\n");
  std::printf("machine: %s; single thread; compiler %s, -O2\n", DescribeMachine().c_str(), __VERSION__);
  std::printf("operator: kappa = 0.12, DeGrand-Rossi, antiperiodic t, Haar-random links; min %.2f s per row\n",
              min_seconds);
  std::printf("model: bytes per block = V sizeof(T) (144 + 240 n); flops per vector = 1368 V\n\n");
  std::printf("%-6s  %-10s  %3s  %12s  %8s  %12s  %8s  %14s  %9s\n", "prec", "lattice", "n", "block ms/vec",
              "GFLOPS", "looped ms/vec", "GFLOPS", "model MB/vec", "flop/byte");
  Run<double>(lattice, blocks, min_seconds, "double");
  Run<float>(lattice, blocks, min_seconds, "float");
  return 0;
}

}  // namespace
}  // namespace lqcd::solvers

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("block_wilson_benchmark", [&] { return lqcd::solvers::Main(argc, argv); });
}
