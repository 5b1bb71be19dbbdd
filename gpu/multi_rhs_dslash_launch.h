// multi_rhs_dslash_launch.h: the plain-struct interface between the host API of the multi-RHS Dslash
// (multi_rhs_dslash.h, which has validated everything) and its CUDA launchers, one per precision
// (multi_rhs_dslash_{double,single,half}.cu). Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include <array>

#include "gpu/clover_view.h"
#include "gpu/field_views.h"
#include "gpu/wilson_dslash_launch.h"

namespace lqcd::gpu {

// One launch: out[j] = epilogue(D in[j]) for j < rhs, every field on the gauge field's lattice and precision.
struct MultiRhsDslashLaunch {
  int rhs = 0;
  std::array<SpinorView, kMaxRhsPerLaunch> out{};
  std::array<ConstSpinorView, kMaxRhsPerLaunch> in{};
  std::array<ConstSpinorView, kMaxRhsPerLaunch> x{};  // epilogues with x only
  GaugeView gauge;
  CloverView clover;  // clover epilogues only
  bool dagger = false;
  DslashEpilogue epilogue = DslashEpilogue::kNone;  // kNone, kXpay or a clover epilogue
  double a = 0, b = 0;
  std::array<bool, 4> antiperiodic{false, false, false, true};
  // Right-hand sides per thread (1, 2 or 4; 0: the tuner chooses them with the block shape). Benchmarks pin
  // it to measure each mapping.
  int rhs_per_thread = 0;
};

// The epilogues kNone and kXpay (multi_rhs_dslash_{double,single,half}.cu).
void LaunchMultiRhsDslashDouble(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsDslashSingle(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsDslashHalf(const MultiRhsDslashLaunch& launch);
// The clover epilogues kClover, kCloverXpay and kXpayClover (multi_rhs_clover_dslash_{double,single,half}.cu).
void LaunchMultiRhsCloverDslashDouble(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsCloverDslashSingle(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsCloverDslashHalf(const MultiRhsDslashLaunch& launch);

}  // namespace lqcd::gpu
