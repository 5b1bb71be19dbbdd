// heatbath_benchmark: time per link update of the heatbath and overrelaxation sweeps (heatbath.h) on this
// CPU, for 1 thread and for all OpenMP threads. Prints wall time and, for one thread, also the process CPU
// time, which stays meaningful when other jobs share the machine (the wall time then includes the time the
// thread waited for a core). Prints; asserts nothing.
//
// Usage: heatbath_benchmark [--lattice=LXxLYxLZxLT] [--beta=X] [--sweeps=N]   (defaults 8x8x8x16, 6.0, 10)
#include <omp.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "reference/cli/command_line.h"
#include "reference/ensemble/heatbath.h"
#include "reference/cli/machine_info.h"
#include "reference/plaquette.h"

namespace lqcd {
namespace {

double Seconds(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

void Run(const Coordinates& extents, double beta, int sweeps) {
  const Lattice lat(extents);
  const double links = static_cast<double>(kDims) * lat.volume();
  std::printf("heatbath_benchmark: lattice %s, beta %.4f, %d sweeps per measurement\nmachine: %s\n",
              lat.ToString().c_str(), beta, sweeps, DescribeMachine().c_str());
  std::printf("nominal work per link update: %.0f flops, %.0f bytes\n", kLinkUpdateFlops, kLinkUpdateBytes);
  GaugeField<double> u(lat);
  HotStart(u, 1);
  for (int s = 0; s < 5; ++s) HeatbathSweep(u, beta, 1, s);  // leave the trivial hot start behind
  const int max_threads = omp_get_max_threads();
  for (int threads : {1, max_threads}) {
    omp_set_num_threads(threads);
    double cpu = CpuSeconds();
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < sweeps; ++s) HeatbathSweep(u, beta, 1, 100 + s);
    const double heatbath = Seconds(start) / sweeps;
    const double heatbath_cpu = (CpuSeconds() - cpu) / sweeps;
    cpu = CpuSeconds();
    start = std::chrono::steady_clock::now();
    for (int s = 0; s < sweeps; ++s) OverrelaxationSweep(u);
    const double overrelax = Seconds(start) / sweeps;
    const double overrelax_cpu = (CpuSeconds() - cpu) / sweeps;
    start = std::chrono::steady_clock::now();
    ReunitarizeField(u);
    const double reunitarize = Seconds(start);
    start = std::chrono::steady_clock::now();
    const double plaquette = MeasurePlaquette(u).total;
    const double measure = Seconds(start);
    std::printf("threads %d: heatbath sweep %.4f s (%.3f us/link, %.2f us/site, %.2f GFlop/s); "
                "overrelaxation sweep %.4f s (%.3f us/link, %.2f us/site, %.2f GFlop/s); reunitarize %.4f s; "
                "plaquette %.4f s (P = %.6f)\n",
                threads, heatbath, 1e6 * heatbath / links, 1e6 * heatbath / lat.volume(),
                kLinkUpdateFlops * links / heatbath * 1e-9, overrelax, 1e6 * overrelax / links,
                1e6 * overrelax / lat.volume(), kLinkUpdateFlops * links / overrelax * 1e-9, reunitarize, measure,
                plaquette);
    std::printf("threads %d: process CPU time per site: heatbath %.2f us, overrelaxation %.2f us (summed over threads)\n",
                threads, 1e6 * heatbath_cpu / lat.volume(), 1e6 * overrelax_cpu / lat.volume());
  }
  omp_set_num_threads(max_threads);
}

int Main(int argc, char** argv) {
  Coordinates extents{8, 8, 8, 16};
  double beta = 6.0;
  int sweeps = 10;
  command_line::FlagSet flags(
      "heatbath_benchmark",
      "Times the Cabibbo-Marinari heatbath and the overrelaxation sweeps (reference/ensemble/heatbath.h) per link update\n"
      "on this CPU, for 1 thread and for all OpenMP threads (OMP_NUM_THREADS), after 5 sweeps away from a hot\n"
      "start. Prints wall time per sweep, per link and per site, GFlop/s of the nominal work, the process CPU\n"
      "time per site, and the reunitarisation and plaquette times. Asserts nothing.");
  flags.Extents("lattice", &extents, "lattice extents, each even");
  flags.Double("beta", &beta, "Wilson gauge coupling beta = 6/g^2", command_line::Range::AtLeast(0));
  flags.Int("sweeps", &sweeps, 1, 100000, "sweeps per measurement");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  Run(extents, beta, sweeps);
  return 0;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("heatbath_benchmark", [&] { return lqcd::Main(argc, argv); });
}
