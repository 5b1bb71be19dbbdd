// precision.h: how a device field stores its numbers: the precision of the stored reals and, for gauge
// fields, how many reals per link (the SU(3) reconstruction of the paper's Appendix A).
//
// Host-only header (no CUDA types), shared by the field classes, the kernels' dispatch and the tests.
//
//   Precision     stored real                         arithmetic   unit roundoff of the storage
//   kDouble       IEEE binary64                       double       2^-53 (relative)
//   kSingle       IEEE binary32                       float        2^-24 (relative)
//   kHalf         16-bit signed fixed point, q/32767  float        1/65534 of the full scale (absolute): spinors
//                 (spinors: times a per-site float norm, the                   relative to the site's norm,
//                 largest |real| of that site; links: full scale 1)            links relative to 1
//
// Half precision rounds to the nearest of the 65535 levels q/32767, q = -32767..32767: the error is at
// most half a level, 1/65534 (just above 2^-16) of the full scale. This is the paper's section 4.6 format.
// Dynamic range of half spinors (the norm is a float): storing keeps the relative resolution for any site
// norm (tiny sites are rescaled by 2^64 first); decoding multiplies by the float norm / 32767, which is
// subnormal for norms below ~3.9e-34, and so is the Dslash's hop coefficient (norm / 32767 times a link
// unit of about 1, gauge_accessor.cuh). Below that norm the relative accuracy of a site degrades gradually
// (the absolute error stays below ~2^-150 times the levels); the tests run every kernel at norms ~4e-35.
//
//   Reconstruct   reals stored per link    rebuilt in registers
//   k18           18 (all of U)            nothing
//   k12           12 (rows a, b)           c = (a x b)^*                      (Appendix A.1)
//   k8            8 (a2, a3, b1, arg a1, arg c1)   a1, c1 from unitarity, then b, c from an SU(2)
//                                                  rotation of the plane orthogonal to a (Appendix A.2)
#pragma once

#include <stdexcept>
#include <string>

namespace lqcd::gpu {

enum class Precision { kDouble, kSingle, kHalf };
enum class Reconstruct { k18 = 18, k12 = 12, k8 = 8 };

inline const char* ToString(Precision p) {
  switch (p) {
    case Precision::kDouble: return "double";
    case Precision::kSingle: return "single";
    case Precision::kHalf: return "half";
  }
  return "?";
}

inline const char* ToString(Reconstruct r) {
  switch (r) {
    case Reconstruct::k18: return "18";
    case Reconstruct::k12: return "12";
    case Reconstruct::k8: return "8";
  }
  return "?";
}

inline int RealsPerLink(Reconstruct r) { return static_cast<int>(r); }

// Bytes of one stored real: 8, 4 or 2.
inline int BytesPerReal(Precision p) { return p == Precision::kDouble ? 8 : p == Precision::kSingle ? 4 : 2; }

// The unit roundoff of the arithmetic the kernels do for fields of this precision (half computes in float).
inline double ArithmeticRoundoff(Precision p) { return p == Precision::kDouble ? 0x1p-53 : 0x1p-24; }

// Half a quantisation level of the storage: relative for double and single, of the full scale for half
// (the site norm for spinors, 1 for links).
inline double StorageRoundoff(Precision p) {
  return p == Precision::kDouble ? 0x1p-53 : p == Precision::kSingle ? 0x1p-24 : 0.5 / 32767.0;
}

// The device accessors index a field with 32-bit ints, word * stride + site (spinor_accessor.cuh,
// gauge_accessor.cuh, clover_accessor.cuh), which is fast and enough for any lattice one GPU holds in the
// common layouts. A field whose largest index, words_per_site * stride, would pass INT_MAX is refused here,
// before any allocation, instead of wrapping in a kernel: 18-real links in double (72 words per site of one
// parity, both parities and four directions) allow up to 29.8M sites per parity, V <= 59.6M per GPU.
inline void RequireIntIndexable(const char* what, long long words_per_site, long long stride) {
  if (words_per_site * stride > 2147483647LL) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(words_per_site) + " words x stride " +
                                std::to_string(stride) + " sites exceeds the 32-bit index range of the device " +
                                "accessors (2^31 - 1); split the lattice over more ranks (or use fewer reals per link)");
  }
}

// Half precision's fixed-point scale: a stored short q means q / kHalfScale of the full scale.
inline constexpr float kHalfScale = 32767.0f;

inline Precision ParsePrecision(const std::string& s) {
  if (s == "double") return Precision::kDouble;
  if (s == "single") return Precision::kSingle;
  if (s == "half") return Precision::kHalf;
  throw std::invalid_argument("unknown precision '" + s + "' (expected double, single or half)");
}

inline Reconstruct ParseReconstruct(const std::string& s) {
  if (s == "18") return Reconstruct::k18;
  if (s == "12") return Reconstruct::k12;
  if (s == "8") return Reconstruct::k8;
  throw std::invalid_argument("unknown reconstruction '" + s + "' (expected 18, 12 or 8)");
}

}  // namespace lqcd::gpu
