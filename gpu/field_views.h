// field_views.h: non-owning descriptions of device fields (one parity of a spinor field; a gauge field),
// the plain structs that cross from the host API (device_*_field.h, dslash.h) into the kernel launchers.
//
// Host-only header with no CUDA and no Eigen types, so .cu files include it without pulling in the
// CPU oracle. A view is valid while the field it came from lives; it never owns memory.
// Storage layouts are documented in spinor_accessor.cuh and gauge_accessor.cuh.
#pragma once

#include <array>

#include "gpu/precision.h"

namespace lqcd::gpu {

// Lattice extents (x, y, z, t) as the kernels see them.
using Extents = std::array<int, 4>;

inline int HalfVolume(const Extents& e) { return e[0] * e[1] * e[2] * e[3] / 2; }

// One parity of a spinor field on the device.
struct SpinorView {
  Precision precision = Precision::kDouble;
  int parity = 0;      // 0 even, 1 odd: the parity of the sites this view holds
  Extents extents{};   // of the whole lattice
  int sites = 0;       // V / 2
  int stride = 0;      // sites + pad: distance, in words, between the sub-arrays
  void* data = nullptr;
  float* norm = nullptr;  // half precision: one float per site; null otherwise
};

struct ConstSpinorView {
  Precision precision = Precision::kDouble;
  int parity = 0;
  Extents extents{};
  int sites = 0;
  int stride = 0;
  const void* data = nullptr;
  const float* norm = nullptr;

  ConstSpinorView() = default;
  ConstSpinorView(const SpinorView& v)  // NOLINT: a mutable view is usable wherever a const one is
      : precision(v.precision), parity(v.parity), extents(v.extents), sites(v.sites), stride(v.stride),
        data(v.data), norm(v.norm) {}
};

// A gauge field on the device: both parities, four directions.
struct GaugeView {
  Precision precision = Precision::kDouble;
  Reconstruct reconstruct = Reconstruct::k18;
  // The field is in temporal gauge: U_t(n) = 1 for every n with t < Lt - 1. Kernels then load t-links
  // only on the last time slice (forward hops from t = Lt - 1, backward hops into t = 0).
  bool temporal_gauge_fixed = false;
  Extents extents{};
  int stride = 0;  // V/2 + pad
  void* data = nullptr;
};

}  // namespace lqcd::gpu
