// precision.h: the three working precisions of the solvers and what each one can resolve.
//
// A precision is a type tag used as a template parameter of fields and operators:
//   double  IEEE binary64, unit roundoff u = 2^-53
//   float   IEEE binary32, unit roundoff u = 2^-24
//   Half    the paper's 16-bit format (section 4.6): every real is a 16-bit fixed-point number scaled by
//           one float norm per site; arithmetic happens in float, the result is quantised when stored.
//           The relative resolution per site is 1 / (2 * 32767) of the site's largest component
//           (half a quantisation step after round-to-nearest), so u = 2^-16 is a safe upper bound.
// `PrecisionTraits<P>::kUnitRoundoff` is what tolerances, breakdown thresholds and the reliable-update delta
// are compared against (delta must satisfy u_low < delta < 1, the paper's section 5.3).
#pragma once

namespace lqcd::solvers {

// Tag type of the emulated GPU half-precision format (see half_spinor_field.h for the exact rounding).
struct Half {};

template <typename P>
struct PrecisionTraits;

template <>
struct PrecisionTraits<double> {
  static constexpr const char* kName = "double";
  static constexpr double kUnitRoundoff = 0x1p-53;
};

template <>
struct PrecisionTraits<float> {
  static constexpr const char* kName = "single";
  static constexpr double kUnitRoundoff = 0x1p-24;
};

template <>
struct PrecisionTraits<Half> {
  static constexpr const char* kName = "half";
  // 1 / (2 * 32767) < 2^-16: half a fixed-point step relative to the site norm.
  static constexpr double kUnitRoundoff = 0x1p-16;
};

}  // namespace lqcd::solvers
