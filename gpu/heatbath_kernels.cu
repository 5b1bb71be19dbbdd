// heatbath_kernels.cu: the quenched heatbath and overrelaxation sweeps on the GPU (heatbath_launch.h,
// gpu_heatbath.h): one launch per (mu, parity), one thread per site of that parity, each running the transcribed
// CPU update of heatbath_math.cuh on its link. Compiled with --fmad=false (gpu/BUILD).
#include "gpu/heatbath_launch.h"

#include <cuda_runtime.h>

#include "gpu/cuda_check.h"
#include "gpu/heatbath_math.cuh"

namespace lqcd::gpu {
namespace {

using namespace heatbath_math;  // NOLINT: the transcription's types and functions

struct HeatbathSite {
  SweepLaunch a;
  __device__ void operator()(int cb) const {
    int n[4];
    const int site = SiteOf(a, cb, n);
    Mat link = LoadLink(a.links, site, a.mu);
    const std::uint64_t first_stream_id =
        ((a.sweep * 4 + a.mu) * static_cast<std::uint64_t>(a.volume) + site) * kHeatbathSubgroups;
    HeatbathUpdate(link, StapleSum(a, n, site), a.beta, a.seed, first_stream_id);
    StoreLink(a.links, site, a.mu, link);
  }
};

struct OverrelaxSite {
  SweepLaunch a;
  __device__ void operator()(int cb) const {
    int n[4];
    const int site = SiteOf(a, cb, n);
    Mat link = LoadLink(a.links, site, a.mu);
    OverrelaxUpdate(link, StapleSum(a, n, site));
    StoreLink(a.links, site, a.mu, link);
  }
};

template <typename Functor>
__global__ void SitesKernel(Functor f, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb < sites) f(cb);
}

// One kernel per (mu, parity), in heatbath.cc's order; waits for the device.
template <typename Functor>
void Sweep(SweepLaunch a) {
  const int sites = a.volume / 2;
  constexpr int kBlock = 128;
  for (int mu = 0; mu < 4; ++mu) {
    for (int parity = 0; parity < 2; ++parity) {
      a.mu = mu;
      a.parity = parity;
      SitesKernel<<<(sites + kBlock - 1) / kBlock, kBlock>>>(Functor{a}, sites);
      LQCD_CUDA_CHECK_LAUNCH();
    }
  }
  LQCD_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

void LaunchHeatbathSweep(const SweepLaunch& launch) { Sweep<HeatbathSite>(launch); }
void LaunchOverrelaxationSweep(const SweepLaunch& launch) { Sweep<OverrelaxSite>(launch); }

}  // namespace lqcd::gpu
