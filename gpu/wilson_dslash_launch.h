// wilson_dslash_launch.h: the plain-struct interface between the host API (wilson_dslash.h, which has
// validated everything) and the CUDA launchers, one per precision (wilson_dslash_{double,single,half}.cu).
// Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include <array>

#include "gpu/field_views.h"

namespace lqcd::gpu {

// out = D in                  (xpay false)
// out = a x + b D in          (xpay true)
// with D the hopping term D_{p,p'} from in's parity p' to out's parity p, or its dagger.
struct WilsonDslashLaunch {
  SpinorView out;
  ConstSpinorView in;
  ConstSpinorView x;  // xpay only
  GaugeView gauge;
  bool dagger = false;
  bool xpay = false;
  double a = 0, b = 0;
  // Per direction: true where a hop that wraps around the lattice takes a factor -1 (antiperiodic).
  std::array<bool, 4> antiperiodic{false, false, false, true};
};

void LaunchWilsonDslashDouble(const WilsonDslashLaunch& launch);
void LaunchWilsonDslashSingle(const WilsonDslashLaunch& launch);
void LaunchWilsonDslashHalf(const WilsonDslashLaunch& launch);

}  // namespace lqcd::gpu
