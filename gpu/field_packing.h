// field_packing.h: moving fields between a plain host array of doubles and the device storage formats.
// Internal to gpu/ (the field classes in device_spinor_field.h / device_gauge_field.h call these); no
// CUDA or Eigen types, implemented in field_packing.cu.
//
// Canonical host arrays (what the field classes build from the oracle's fields; the basis is UKQCD):
//   spinors, one parity: 24 doubles per checkerboard site, index 24 * cb + 2 * (3 * spin + colour) + reim;
//   gauge: 18 doubles per link, row-major (re, im), index 18 * ((parity * 4 + mu) * V/2 + cb) + 2 * (3i + j) + reim.
// Pack rounds to the storage precision on the device (through the same accessors the kernels use);
// Unpack returns exactly what a kernel would load: spinors in the arithmetic precision, converted to
// double; links rebuilt from 12 or 8 reals, and for a temporally gauge-fixed field the unit matrix for
// the t-links that kernels never load (t < Lt - 1).
#pragma once

#include "gpu/field_views.h"

namespace lqcd::gpu {

void PackSpinors(const SpinorView& destination, const double* canonical);
void UnpackSpinors(const ConstSpinorView& source, double* canonical);

void PackGauge(const GaugeView& destination, const double* canonical);
void UnpackGauge(const GaugeView& source, double* canonical);

}  // namespace lqcd::gpu
