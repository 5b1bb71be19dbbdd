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
  DslashEpilogue epilogue = DslashEpilogue::kNone;  // kNone, kXpay, a clover epilogue, or a dot-norm form of those
  double a = 0, b = 0;
  std::array<bool, 4> antiperiodic{false, false, false, true};
  // Right-hand sides per thread (1, 2 or 4; 0: the tuner chooses them with the block shape). Benchmarks pin
  // it to measure each mapping.
  int rhs_per_thread = 0;
  // Dot-norm epilogues only (SumsDotNorm): w[j], and for right-hand side j the partial sums Re (out_j, w_j),
  // Im (out_j, w_j), |out_j|^2 per group of kDotNormGroup consecutive output sites at
  // partials + 3 (j partial_groups + group).
  std::array<ConstSpinorView, kMaxRhsPerLaunch> w{};
  double* partials = nullptr;
  int partial_groups = 0;
};

// The n whose tuning a launch on n right-hand sides shares: the smallest of 1, 2, 3, 4, 6, 8, 12, 16 that is at least
// n. A lockstep block solver applies the operator to fewer systems as they converge (12, 11, ..., 1 for the
// propagator), and tuning every count anew (each mapping m x every block width x several launches of the whole
// block) cost more than the block saved. Any tuned width is valid for any count (the launcher fits as many groups
// per block as the width allows), but the mapping and width tuned for one count are not always good for a larger
// one: with power-of-two buckets, n = 16 used what n = 12 had tuned (the first count of 9..16 a benchmark or a
// propagator meets) and took 87 instead of 70 us per right-hand side (an H100, Wilson single/12 at 32^4).
// Each bucket's smallest count is at least two thirds of its largest (9..12, 13..16).
constexpr int MultiRhsTuneBucket(int rhs) {
  constexpr int kBuckets[] = {1, 2, 3, 4, 6, 8, 12, 16};
  for (int bucket : kBuckets) {
    if (rhs <= bucket) return bucket;
  }
  return rhs;  // beyond kMaxRhsPerLaunch: not launched as one block
}

// The epilogues kNone, kXpay and kXpayDotNorm (D only) (multi_rhs_dslash_{double,single,half}.cu).
void LaunchMultiRhsDslashDouble(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsDslashSingle(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsDslashHalf(const MultiRhsDslashLaunch& launch);
// The clover epilogues kClover, kCloverXpay, kXpayClover and the dot-norm forms of the last two (D only)
// (multi_rhs_clover_dslash_{double,single,half}.cu).
void LaunchMultiRhsCloverDslashDouble(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsCloverDslashSingle(const MultiRhsDslashLaunch& launch);
void LaunchMultiRhsCloverDslashHalf(const MultiRhsDslashLaunch& launch);

}  // namespace lqcd::gpu
