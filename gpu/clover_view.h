// clover_view.h: the non-owning description of one parity of a device clover field (T or T^{-1}), the plain
// struct that crosses from the host API (device_clover_field.h) into the packing and kernel launchers.
//
// Host-only header with no CUDA and no Eigen types, so .cu files include it without pulling in the CPU
// oracle. A view is valid while the DeviceCloverField it came from lives; it never owns memory. The storage
// layout (which word holds which real, the half-precision norms) is documented in clover_accessor.cuh.
#pragma once

#include "gpu/field_views.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

struct CloverView {
  Precision precision = Precision::kDouble;
  int parity = 0;        // 0 even, 1 odd: the parity of the sites this view holds
  bool inverse = false;  // the view holds T^{-1} = ((4 + m) + A)^{-1} rather than T
  Extents extents{};     // of the whole lattice
  int sites = 0;         // V / 2
  int stride = 0;        // sites + pad: distance, in words, between the sub-arrays
  // 36 double2, 18 float4 or 18 short4 words per site. Kernels only read; the pointers are mutable
  // because the packing kernel writes through the same view.
  void* data = nullptr;
  float* norm = nullptr;  // half: 2 floats per site, the chiral block's at norm[chirality * stride + cb]
};

}  // namespace lqcd::gpu
