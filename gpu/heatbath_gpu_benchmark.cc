// heatbath_gpu_benchmark: the quenched update on the GPU (gpu_heatbath.h) against the CPU generator on this
// machine's cores and against the memory-bandwidth bound of a sweep; and, on the way, that both produce the same
// links bit for bit at this size.
//
//   heatbath_gpu_benchmark [--lattice=24x24x24x64] [--repetitions=5] [--beta=6.0]
//
// From a hot start: one heatbath and one overrelaxation sweep on each backend, compared bit for bit; then the
// GPU sweeps timed --repetitions times each (median; each sweep waits for the device). Rates in link updates per
// second (4 V per sweep) and GFLOPS at heatbath.h's nominal 3315 flops per update (random numbers and the
// samplers' elementary functions not counted). Bandwidth bound: a sweep is 8 launches, each updating the V/2
// links of one (mu, parity) and reading their staples; at best each launch reads the whole field once and writes
// its links, 8 x 144 + 144 = 1296 bytes per update, against the copy kernel's bandwidth measured in this run
// (kLinkUpdateBytes = 20 x 144 is the traffic without any cache). Measures and prints; asserts nothing about speed.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "gpu/copy_bandwidth.h"
#include "gpu/benchmark_support.h"
#include "gpu/device.h"
#include "gpu/gpu_heatbath.h"
#include "reference/cli/command_line.h"
#include "reference/ensemble/heatbath.h"
#include "reference/gauge_field.h"

namespace lqcd::gpu {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Identical(const GaugeField<double>& a, const GaugeField<double>& b) {
  return std::memcmp(a.links().data(), b.links().data(), a.links().size() * sizeof(ColorMatrix<double>)) == 0;
}

int Main(int argc, char** argv) {
  Coordinates extents{24, 24, 24, 64};
  int repetitions = 5;
  double beta = 6.0;
  command_line::FlagSet flags(
      "heatbath_gpu_benchmark",
      "The quenched heatbath and overrelaxation sweeps on the GPU (gpu/gpu_heatbath.h) against the CPU generator\n"
      "on this machine's cores (OpenMP) and the sweep's memory-bandwidth bound, after checking that both give the\n"
      "same links bit for bit. Needs a GPU: without one it prints why and exits 1.");
  flags.Extents("lattice", &extents, "lattice extents");
  flags.Int("repetitions", &repetitions, 1, 1000, "timed GPU sweeps of each kind (median)");
  flags.Double("beta", &beta, "Wilson gauge coupling", command_line::Range::AtLeast(0));
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("heatbath_gpu_benchmark: %s\n", why.c_str());
    return 1;
  }
  const Lattice lattice(extents);
  std::printf("heatbath_gpu_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  std::printf("lattice %s, beta %.4f, hot start; CPU: %d OpenMP threads\n", lattice.ToString().c_str(), beta,
              omp_get_max_threads());
  const CopyBandwidth copy = MeasureCopyBandwidth(std::size_t{1} << 30, 10);

  GaugeField<double> cpu(lattice);
  HotStart(cpu, 1);
  GpuSweeps engine;
  engine.Load(cpu);
  const double cpu_heatbath = WallSeconds([&] { HeatbathSweep(cpu, beta, 1, 0); });
  const double cpu_overrelax = WallSeconds([&] { OverrelaxationSweep(cpu); });
  engine.Heatbath(beta, 1, 0);
  engine.Overrelax();
  GaugeField<double> gpu(lattice);
  engine.Store(gpu);
  std::printf("one heatbath + one overrelaxation sweep: GPU and CPU links %s\n",
              Identical(cpu, gpu) ? "identical bit for bit" : "DIFFER");

  std::vector<double> heatbath, overrelax;
  for (int k = 0; k < repetitions; ++k) {
    heatbath.push_back(WallSeconds([&] { engine.Heatbath(beta, 1, 1 + k); }));
    overrelax.push_back(WallSeconds([&] { engine.Overrelax(); }));
  }
  const double updates = 4.0 * lattice.volume();
  const double bound = copy.kernel_gbs * 1e9 / 1296;  // link updates per second at the copy bandwidth
  std::printf("copy kernel %.0f GB/s: bandwidth bound %.3g link updates/s (1296 bytes each)\n", copy.kernel_gbs,
              bound);
  std::printf("%-16s %12s %16s %10s %14s\n", "sweep", "seconds", "link updates/s", "GFLOPS", "of the bound");
  auto row = [&](const char* name, double seconds) {
    const double rate = updates / seconds;
    std::printf("%-16s %12.4f %16.4g %10.1f %13.1f%%\n", name, seconds, rate, rate * kLinkUpdateFlops * 1e-9,
                100 * rate / bound);
  };
  row("GPU heatbath", Median(heatbath));
  row("GPU overrelax", Median(overrelax));
  row("CPU heatbath", cpu_heatbath);
  row("CPU overrelax", cpu_overrelax);
  std::printf("GPU / CPU: heatbath %.1fx, overrelaxation %.1fx\n", cpu_heatbath / Median(heatbath),
              cpu_overrelax / Median(overrelax));
  return 0;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("heatbath_gpu_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
