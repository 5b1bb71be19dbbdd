// dslash_ladder_launch.h: the plain-struct interface between the ladder's host side (dslash_ladder.cc) and
// the kernels it runs that are not the production ones (dslash_ladder_kernels.cu: rungs 1-3, 4a and 9a of
// dslash_ladder.h). No CUDA and no Eigen types.
//
// All compute out_p = D_{p,p'} in_{p'} for D only (no dagger, no epilogue: the production kernel has those).
// Rungs 1-3 compute in double in the DeGrand-Rossi basis the oracle uses (the device holds the host's numbers
// unchanged); rungs 4a and 9a in the UKQCD basis of the production storage.
#pragma once

#include "gpu/field_views.h"

namespace lqcd::gpu {

enum class LadderKernel {
  kNaiveAos,                  // rung 1: whole spinor and link per hop from arrays of structs, 4x4 projector
  kNaiveSoa,                  // rung 2: the same arithmetic on the production storage (structure of arrays)
  kHalfSpinorDeGrandRossi,    // rung 3: spin projection before the colour multiply, DeGrand-Rossi basis
  kUkqcdWholeTemporalLoads,   // rung 4a: the production hops in the UKQCD basis, temporal ones loading 24 reals
  kHalfOnValues,              // rung 9a: the production kernel's half/8/gauge-fixed variant, on loaded values
};

struct LadderKernelLaunch {
  LadderKernel kernel = LadderKernel::kNaiveAos;
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

  // The other rungs: the production storage (spinor_accessor.cuh, gauge_accessor.cuh) -- double with 18 reals
  // per link for rungs 2, 3 and 4a, half with 8 reals in temporal gauge for rung 9a.
  SpinorView out;
  ConstSpinorView in;
  GaugeView gauge;
};

// Launches the kernel (block size from the tuner) on the default stream. Throws CudaError, and
// std::logic_error if the storage does not suit the kernel.
void LaunchLadderKernel(const LadderKernelLaunch& launch);

}  // namespace lqcd::gpu
