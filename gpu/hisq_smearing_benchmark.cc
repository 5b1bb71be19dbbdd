// hisq_smearing_benchmark: the HISQ and asqtad link construction on the GPU (hisq_smearing.h) against the oracle
// on this machine's cores (OpenMP), with the checks that tie them: asqtad links identical bit for bit; for HISQ,
// the GPU's U(3) projection identical to its host build (u3_projection.h) on the level-1 links, and the largest
// difference of the HISQ links from the oracle's (which projects by another eigen-decomposition).
//
//   hisq_smearing_benchmark [--lattice=64x64x64x16] [--links=hisq|asqtad]
//
// From Haar-random links (the smearing's cost does not depend on the values): one construction on each side,
// wall-clock seconds, transfers included, as a job pays them; the projection alone (the oracle's on the host, the
// GPU's with its transfers). Flops counted per site and direction: a fat level is 336 staple passes of two 3x3
// complex matrix products (198 flops each; hisq_smearing.h), the Naik link two products; the accumulations, the
// combination and the projection are not counted. Measures and prints; asserts nothing about speed.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>

#include "gpu/device.h"
#include "gpu/hisq_smearing.h"
#include "reference/cli/command_line.h"
#include "reference/staggered/hisq_links.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

double Seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool Identical(const GaugeField<double>& a, const GaugeField<double>& b) {
  return std::memcmp(a.links().data(), b.links().data(), a.links().size() * sizeof(ColorMatrix<double>)) == 0;
}

double LargestDifference(const GaugeField<double>& a, const GaugeField<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.links().size(); ++i) d = std::max(d, (a.links()[i] - b.links()[i]).cwiseAbs().maxCoeff());
  return d;
}

int Main(int argc, char** argv) {
  Coordinates extents{64, 64, 64, 16};
  std::string links = "hisq";
  command_line::FlagSet flags(
      "hisq_smearing_benchmark",
      "The HISQ (or asqtad) link construction on the GPU (gpu/hisq_smearing.h) against the oracle on this\n"
      "machine's cores: asqtad links identical bit for bit; for HISQ the GPU's U(3) projection identical to its\n"
      "host build, and the HISQ links' largest difference from the oracle's. Needs a GPU: without one it prints\n"
      "why and exits 1.");
  flags.Extents("lattice", &extents, "lattice extents (each >= 4)");
  flags.Choice<std::string>("links", &links, {{"hisq", "hisq"}, {"asqtad", "asqtad"}},
                            "hisq (epsilon = 0) or asqtad (u0 = 1)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  if (const std::string why = NoDeviceReason(); !why.empty()) {
    std::printf("hisq_smearing_benchmark: %s\n", why.c_str());
    return 1;
  }
  std::printf("hisq_smearing_benchmark: %s\n", Describe(CurrentDeviceInfo()).c_str());
  const Lattice lattice(extents);
  std::printf("lattice %s (V = %d), %s links, host: %d OpenMP threads\n", lattice.ToString().c_str(), lattice.volume(),
              links.c_str(), omp_get_max_threads());
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 7);
  const bool hisq = links == "hisq";
  SmearedLinks host{GaugeField<double>(lattice), GaugeField<double>(lattice)};
  SmearedLinks device{GaugeField<double>(lattice), GaugeField<double>(lattice)};
  const double host_seconds = Seconds([&] { host = hisq ? HisqLinks(u, 0.0) : AsqtadLinks(u, 1.0); });
  const double device_seconds = Seconds([&] { device = hisq ? HisqLinksOnGpu(u, 0.0) : AsqtadLinksOnGpu(u, 1.0); });
  const double again_seconds = Seconds([&] { device = hisq ? HisqLinksOnGpu(u, 0.0) : AsqtadLinksOnGpu(u, 1.0); });
  const double projection_seconds = hisq ? Seconds([&] { ProjectU3(host.fat); }) : 0;
  GaugeField<double> fat7(lattice);
  const double fat_seconds = Seconds([&] { fat7 = FatLinkOnGpu(u, Fat7Coefficients()); });
  bool same = true;
  // Per site and direction: 336 staple passes x 2 products x 198 flops per fat level, the Naik path 2 products.
  const double fat_flops = 4.0 * lattice.volume() * 336 * 2 * 198;
  const double flops = (hisq ? 2 : 1) * fat_flops + 4.0 * lattice.volume() * 2 * 198;
  std::printf("links on the host (oracle):  %8.2f s  (%.1f GFLOPS)\n", host_seconds, flops / host_seconds / 1e9);
  std::printf("links on the GPU, first:     %8.2f s  (%.1f GFLOPS; includes the CUDA context's start)\n",
              device_seconds, flops / device_seconds / 1e9);
  std::printf("links on the GPU, again:     %8.2f s  (%.1f GFLOPS)\n", again_seconds, flops / again_seconds / 1e9);
  std::printf("one fat level on the GPU (FatLinkOnGpu, transfers included): %.2f s (%.1f GFLOPS)\n", fat_seconds,
              fat_flops / fat_seconds / 1e9);
  if (hisq) {
    GaugeField<double> on_gpu(lattice);
    const double gpu_projection_seconds = Seconds([&] { on_gpu = ProjectU3OnGpu(fat7); });
    const bool projection_same = Identical(on_gpu, ProjectU3OnHost(fat7));
    same = projection_same;
    std::printf("U(3) projection: the oracle's on the host %.2f s; the GPU's (ProjectU3OnGpu, transfers included) "
                "%.2f s, identical to its host build: %s\n",
                projection_seconds, gpu_projection_seconds, projection_same ? "yes" : "NO");
    std::printf("HISQ links' largest difference from the oracle's: fat %.3g, Naik %.3g (the projections differ by "
                "rounding)\n",
                LargestDifference(device.fat, host.fat), LargestDifference(device.naik, host.naik));
    std::printf("speed-up %.1fx\n", host_seconds / again_seconds);
  } else {
    same = Identical(host.fat, device.fat) && Identical(host.naik, device.naik);
    std::printf("speed-up %.1fx; links identical bit for bit: %s\n", host_seconds / again_seconds, same ? "yes" : "NO");
  }
  return same ? 0 : 1;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("hisq_smearing_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
