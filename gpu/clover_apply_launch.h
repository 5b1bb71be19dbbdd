// clover_apply_launch.h: the plain-struct interface between the host API (clover_apply.h, which has validated
// everything) and the CUDA launcher (clover_apply.cu). Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include "gpu/clover_view.h"
#include "gpu/field_views.h"

namespace lqcd::gpu {

// out = T in on the sites of one parity (T^{-1} if the clover view holds the inverse); all in one precision.
struct CloverApplyLaunch {
  SpinorView out;
  ConstSpinorView in;
  CloverView clover;
};

void LaunchCloverApply(const CloverApplyLaunch& launch);

}  // namespace lqcd::gpu
