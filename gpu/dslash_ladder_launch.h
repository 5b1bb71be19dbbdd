// dslash_ladder_launch.h: the plain-struct interface between the ladder's host side (dslash_ladder.cc) and
// its own kernels (dslash_ladder_kernels.cu, rungs 1-3 of dslash_ladder.h). No CUDA and no Eigen types.
//
// Rungs 1-3 compute out_p = D_{p,p'} in_{p'} in double, in the DeGrand-Rossi basis the oracle uses (the
// device holds the host's numbers unchanged), for D only (no dagger, no xpay: the production kernel has those).
#pragma once

#include "gpu/field_views.h"

namespace lqcd::gpu {

struct LadderKernelLaunch {
  int rung = 0;  // 1, 2 or 3
  Extents extents{};
  int out_parity = 0;
  bool antiperiodic[4] = {false, false, false, false};

  // Rung 1: arrays of structs in double.
  //   spinors:  24 doubles per checkerboard site, index 24 * cb + 2 * (3 * spin + colour) + (0 re, 1 im);
  //   links:    18 doubles per link, index 18 * (4 * (parity * V/2 + cb) + mu) + 2 * (3 * row + column) + reim,
  //             i.e. one struct of 4 links per site, sites of parity 0 first.
  const double* aos_links = nullptr;
  const double* aos_in = nullptr;
  double* aos_out = nullptr;

  // Rungs 2 and 3: the production storage (double2 words, structure of arrays; spinor_accessor.cuh and
  // gauge_accessor.cuh), 18 reals per link.
  SpinorView out;
  ConstSpinorView in;
  GaugeView gauge;
};

// Launches the rung's kernel (block size from the tuner) on the default stream. Throws CudaError.
void LaunchLadderKernel(const LadderKernelLaunch& launch);

}  // namespace lqcd::gpu
