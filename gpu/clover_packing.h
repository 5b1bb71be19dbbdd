// clover_packing.h: moving one parity of a clover field (T or T^{-1}) between a plain host array of doubles and
// the device storage of clover_accessor.cuh. Internal to gpu/ (DeviceCloverField calls these); no CUDA or Eigen
// types, implemented in clover_packing.cu.
//
// Canonical host array: 72 doubles per checkerboard site, index 72 * cb + 36 * chirality + r, with r the order
// of clover_accessor.cuh (6 real diagonal entries, then Re, Im of the 15 lower-triangle entries by rows) of the
// DeGrand-Rossi chiral block B_chirality itself (not halved).
// Pack rounds to the storage on the device, through CloverAccessor::Store (which stores B / 2); Unpack returns
// exactly the B = 2 C the kernels use (CloverAccessor::LoadBlock).
#pragma once

#include "gpu/clover_view.h"

namespace lqcd::gpu {

inline constexpr int kCloverRealsPerSite = 72;

void PackClover(const CloverView& destination, const double* canonical);
void UnpackClover(const CloverView& source, double* canonical);

}  // namespace lqcd::gpu
