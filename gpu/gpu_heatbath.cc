// gpu_heatbath.cc: GpuSweeps (gpu_heatbath.h), the host side of heatbath_kernels.cu.
#include "gpu/gpu_heatbath.h"

#include <stdexcept>
#include <string>

#include "gpu/device.h"
#include "gpu/heatbath_launch.h"
#include "reference/ensemble/heatbath.h"
#include "reference/ensemble/su2_subgroup.h"

namespace lqcd::gpu {

static_assert(kHeatbathSubgroups == kNumSubgroups, "the kernels transcribe su2_subgroup.h's three subgroups");
static_assert(kHeatbathCreutzBelow == kCreutzBelow, "the kernels switch samplers where su2_subgroup.h does");
static_assert(kHeatbathNegligibleNorm == kNegligibleQuaternionNorm, "the kernels skip the subgroups heatbath.h skips");
static_assert(sizeof(ColorMatrix<double>) == 18 * sizeof(double), "a link is 9 packed complex doubles");

namespace {

SweepLaunch LaunchOf(DeviceBuffer& links, const Lattice& lattice) {
  SweepLaunch a{};
  a.links = static_cast<double*>(links.data());
  for (int d = 0; d < 4; ++d) a.extents[d] = lattice.extent(d);
  a.volume = lattice.volume();
  return a;
}

}  // namespace

void GpuSweeps::Load(const GaugeField<double>& u) {
  const std::size_t bytes = u.links().size() * sizeof(ColorMatrix<double>);
  if (!loaded_ || !(u.lattice() == lattice_)) links_ = DeviceBuffer(bytes);
  lattice_ = u.lattice();
  links_.CopyFromHost(u.links().data(), bytes);
  loaded_ = true;
}

void GpuSweeps::Store(GaugeField<double>& u) {
  RequireLoaded("GpuSweeps::Store");
  if (!(u.lattice() == lattice_)) {
    throw std::invalid_argument("GpuSweeps::Store: the field lives on " + u.lattice().ToString() +
                                ", the engine's on " + lattice_.ToString());
  }
  links_.CopyToHost(u.links().data(), u.links().size() * sizeof(ColorMatrix<double>));
}

void GpuSweeps::RequireLoaded(const char* where) const {
  if (!loaded_) throw std::logic_error(std::string(where) + ": no field loaded (call Load first)");
}

void GpuSweeps::Heatbath(double beta, std::uint64_t seed, std::uint64_t sweep) {
  RequireLoaded("GpuSweeps::Heatbath");
  CheckBeta(beta);  // the CPU sweep's checks, before any device work
  const int volume = lattice_.volume();
  HeatbathStreamId(sweep, kDims - 1, volume - 1, kNumSubgroups - 1, volume);  // the CPU's range check: throws
  SweepLaunch a = LaunchOf(links_, lattice_);
  a.beta = beta;
  a.seed = seed;
  a.sweep = sweep;
  LaunchHeatbathSweep(a);
}

void GpuSweeps::Overrelax() {
  RequireLoaded("GpuSweeps::Overrelax");
  LaunchOverrelaxationSweep(LaunchOf(links_, lattice_));
}

std::string GpuSweeps::Describe() const { return "GPU: " + gpu::Describe(CurrentDeviceInfo()); }

}  // namespace lqcd::gpu
