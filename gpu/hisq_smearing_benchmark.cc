// hisq_smearing_benchmark: the HISQ and asqtad link construction on the GPU (hisq_smearing.h) against the oracle
// on this machine's cores (OpenMP), after checking that both give the same links bit for bit.
//
//   hisq_smearing_benchmark [--lattice=64x64x64x16] [--links=hisq|asqtad]
//
// From Haar-random links (the smearing's cost does not depend on the values): one construction on each side,
// wall-clock seconds, transfers and (HISQ) the U(3) projection on the host included, as a job pays them; and the
// projection alone on the host. Flops counted per site and direction: a fat level is 336 staple passes of two
// 3x3 complex matrix products (198 flops each; hisq_smearing.h), the Naik link two products; the accumulations,
// the combination and the projection are not counted. Measures and prints; asserts nothing about speed.
#include <omp.h>

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

int Main(int argc, char** argv) {
  Coordinates extents{64, 64, 64, 16};
  std::string links = "hisq";
  command_line::FlagSet flags(
      "hisq_smearing_benchmark",
      "The HISQ (or asqtad) link construction on the GPU (gpu/hisq_smearing.h) against the oracle on this\n"
      "machine's cores, after checking that both give the same links bit for bit. Needs a GPU: without one it\n"
      "prints why and exits 1.");
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
  const double fat_seconds = Seconds([&] { FatLinkOnGpu(u, Fat7Coefficients()); });
  const bool same = Identical(host.fat, device.fat) && Identical(host.naik, device.naik);
  // Per site and direction: 336 staple passes x 2 products x 198 flops per fat level, the Naik path 2 products.
  const double fat_flops = 4.0 * lattice.volume() * 336 * 2 * 198;
  const double flops = (hisq ? 2 : 1) * fat_flops + 4.0 * lattice.volume() * 2 * 198;
  std::printf("links on the host (oracle):  %8.2f s  (%.1f GFLOPS)\n", host_seconds, flops / host_seconds / 1e9);
  std::printf("links on the GPU, first:     %8.2f s  (%.1f GFLOPS; includes the CUDA context's start)\n",
              device_seconds, flops / device_seconds / 1e9);
  std::printf("links on the GPU, again:     %8.2f s  (%.1f GFLOPS)\n", again_seconds, flops / again_seconds / 1e9);
  if (hisq) std::printf("of which the U(3) projection on the host takes about %.2f s\n", projection_seconds);
  std::printf("one fat level on the GPU (FatLinkOnGpu, transfers included): %.2f s (%.1f GFLOPS)\n", fat_seconds,
              fat_flops / fat_seconds / 1e9);
  std::printf("speed-up %.1fx; links identical bit for bit: %s\n", host_seconds / again_seconds, same ? "yes" : "NO");
  return same ? 0 : 1;
}

}  // namespace
}  // namespace lqcd::gpu

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("hisq_smearing_benchmark", [&] { return lqcd::gpu::Main(argc, argv); });
}
