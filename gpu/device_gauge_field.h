// device_gauge_field.h: a gauge field in device memory: 18, 12 or 8 reals per link (the paper's
// Appendix A) in double, single or half precision, optionally marked as temporally gauge fixed.
//
// Host-only header (no CUDA types). Storage: gauge_accessor.cuh (structure of arrays per parity and
// direction, stride V/2 + pad). Links are gauge fields, not spinors: no basis change applies.
//
// What upload checks, and why (each failure throws std::invalid_argument naming the link):
//   - 12 and 8 reals: every link must be in SU(3), since the dropped reals are rebuilt from unitarity and
//     det U = 1: max |(U U^dag - 1)_ij| and |det U - 1| at most kSu3Tolerance = 2^-18 (= 64 single-precision
//     ulps). That admits fields stored in single precision, as configuration files often are; the rebuilt
//     link then differs from the stored one by about that deviation. Reunitarize in double to remove it.
//   - 8 reals: N = sqrt(|U_01|^2 + |U_02|^2) >= kMinimum8ParameterN = 2^-10. The 8-parameter form divides
//     by N (su3_reconstruct.cuh), so rounding of the stored reals grows like 1/N; below 2^-10 it would
//     exceed 1000 ulps. Below it only the singular form diag(a1, a1^*, 1) is kept (to kSu3Tolerance; unit
//     links exactly, so the free field works with 8 reals): it is stored as a2 = a3 = b1 = 0 and rebuilt
//     exactly from arg a1, as reference/su3_compression.h does (every 8-real kernel handles N = 0 exactly,
//     su3_reconstruct.cuh). Any other link with N < 2^-10 is refused (its lower-right 2x2 block
//     is lost at N = 0). For Haar-random links the chance of N < x is x^4, about 1e-12 per link at the limit.
//   - half precision: every real in [-1, 1] (fixed point with full scale 1); checked to 2^-20 so that
//     rounding can never leave the 16-bit range.
//   - temporal_gauge_fixed: U_t(n) = 1 for every n with t < Lt - 1, to kUnitLinkTolerance = 2^-40 in
//     max |U - 1|. The kernels use an exact unit matrix there and never load those links; a temporal gauge
//     fix in double (products of up to Lt <= 512 links) leaves rounding far below this, while a field not
//     gauge fixed misses it by O(1). Those links are exempt from the 8-parameter check.
#pragma once

#include <cstddef>

#include "gpu/device_buffer.h"
#include "gpu/field_views.h"
#include "gpu/precision.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"

namespace lqcd::gpu {

inline constexpr double kSu3Tolerance = 0x1p-18;
inline constexpr double kMinimum8ParameterN = 0x1p-10;
inline constexpr double kUnitLinkTolerance = 0x1p-40;

// The 8-real form near its singular point (above), for every packer of 8-real links (this field, the 9-number
// staggered long links): whether a link is kept in the singular form (N = |(u_01, u_02)| < kMinimum8ParameterN),
// and that form, diag(a1, a1^*, 1) with a1 = u_00 / |u_00|.
bool KeptInSingularForm8(const ColorMatrix<double>& u);
ColorMatrix<double> SingularForm8(const ColorMatrix<double>& u);

struct GaugeLayout {
  Precision precision = Precision::kDouble;
  Reconstruct reconstruct = Reconstruct::k18;
  bool temporal_gauge_fixed = false;
  int pad = 0;  // extra sites per sub-array (>= 0)
};

class DeviceGaugeField {
 public:
  // Allocates and uploads; validates the links as the file comment says.
  DeviceGaugeField(const GaugeField<double>& host, const GaugeLayout& layout);
  DeviceGaugeField(const GaugeField<float>& host, const GaugeLayout& layout);

  // The paper's padding (DeviceSpinorField::PaperPad): one time slice of one parity.
  static int PaperPad(const Lattice& lattice) { return lattice.extent(0) * lattice.extent(1) * lattice.extent(2) / 2; }

  const Lattice& lattice() const { return lattice_; }
  const GaugeLayout& layout() const { return layout_; }
  int stride() const { return lattice_.half_volume() + layout_.pad; }
  std::size_t bytes() const { return data_.bytes(); }
  GaugeView View() const;

  // The links as the kernels see them: rebuilt from 12 or 8 reals in the arithmetic precision, exact
  // unit t-links where the field is gauge fixed.
  GaugeField<double> Download() const;

 private:
  template <typename T>
  void Upload(const GaugeField<T>& host);
  Lattice lattice_;
  GaugeLayout layout_;
  DeviceBuffer data_;
};

}  // namespace lqcd::gpu
