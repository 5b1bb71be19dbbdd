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

// The same straight from and to the host field's own storage, read and written by the kernels over the bus
// (`sites`: the device address of page-locked host memory, device_buffer.h MappedHostPointer), with no
// canonical array in between. Host site layout (reference/types.h SiteSpinor: a column-major 4 x 3 complex
// matrix): 24 doubles per site, index 24 * site + 2 * (spin + 4 * colour) + reim. A whole-lattice field passes
// its even and odd views: the host holds the whole lattice in lexicographic order, site i going to checkerboard
// index i / 2 of its parity's view. A one-parity field passes its view twice: the host holds that parity's
// sites, site = checkerboard index. One kernel moves all the sites, reading or writing runs of consecutive host
// sites (what the bus carries at its rate).
// `change_basis`: the DeGrand-Rossi <-> UKQCD change at each site, (u + l) r and (u - l) r with the host's r =
// 1 / sqrt 2, in double with every operation rounded on its own (no fused multiply-add), as the host computes it:
// the values equal those of the canonical path bit for bit.
void PackSpinorsFromSites(const SpinorView& even, const SpinorView& odd, const double* sites, bool change_basis,
                          double r);
void UnpackSpinorsToSites(const ConstSpinorView& even, const ConstSpinorView& odd, double* sites, bool change_basis,
                          double r);

void PackGauge(const GaugeView& destination, const double* canonical);
void UnpackGauge(const GaugeView& source, double* canonical);

}  // namespace lqcd::gpu
