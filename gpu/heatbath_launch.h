// heatbath_launch.h: the launchers of heatbath_kernels.cu (one heatbath or overrelaxation sweep of links on the
// device), for gpu_heatbath.cc. Plain types only: no Eigen, no CUDA.
#pragma once

#include <cstdint>

namespace lqcd::gpu {

// The constants of the CPU update the kernels transcribe (gpu_heatbath.cc checks them against
// reference/ensemble/su2_subgroup.h and heatbath.h): the three SU(2) subgroups (rows (0,1), (0,2), (1,2)), the
// coupling below which Creutz's sampler is used instead of Kennedy-Pendleton's, and the negligible quaternion norm.
inline constexpr int kHeatbathSubgroups = 3;
inline constexpr double kHeatbathCreutzBelow = 2.0;
inline constexpr double kHeatbathNegligibleNorm = 1e-100;

struct SweepLaunch {
  double* links;    // device: GaugeField<double>'s layout, link (site, mu) at 18 (4 site + mu) doubles
  int extents[4];   // Lx, Ly, Lz, Lt (Lx even)
  int volume;
  int mu = 0;       // set per launch by the sweep
  int parity = 0;   // 0 even, 1 odd
  double beta = 0;  // heatbath only
  std::uint64_t seed = 0, sweep = 0;
};

// One sweep (every mu, even then odd sites), waiting for the device at the end. The caller checks beta and the
// stream-id range (heatbath.h) first.
void LaunchHeatbathSweep(const SweepLaunch& launch);
void LaunchOverrelaxationSweep(const SweepLaunch& launch);

}  // namespace lqcd::gpu
