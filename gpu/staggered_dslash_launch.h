// staggered_dslash_launch.h: the plain structs that cross from the host API of the staggered fields and Dslash
// (device_colour_vector_field.h, staggered_dslash.h) into the kernel launcher (staggered_dslash.cu).
//
// Host-only header with no CUDA and no Eigen types.
//
// Colour-vector storage (one parity): structure of arrays, one complex number per word,
//     word c (colour 0, 1, 2) of checkerboard site cb at data[c * stride + cb],   stride = sites + pad,
// a word being double2 (double) or float2 (single): consecutive threads (sites) read consecutive words.
// Half: the words are short2 (two 16-bit levels), followed by one float per site, its norm: the 3 x stride
// words, then norm[cb] at reinterpret_cast<float*>(data + 3 * stride)[cb]. A real of the site is
// level * (norm / 32767) (computed in float as level * (norm * (1 / 32767))), the norm being the site's largest
// |real| (colour_vector_accessor.cuh quantises a site at a time). 16 bytes per site.
#pragma once

#include <cstddef>

#include "gpu/field_views.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

inline constexpr int kMaxStaggeredRhs = 16;

// Long links stored as 13 or 9 numbers (reference/staggered/u3_compression.h); X = L / scale is unitary.
//   13 numbers: per link the first two rows a, b of X (12 reals) and theta = arg det X, padded to 14 reals (7
//     complex words: double2 / float2); word w of link (parity, mu, cb) at data[((parity * 4 + mu) * 7 + w) *
//     stride + cb]. The kernel rebuilds c = e^{i theta} conj(a x b) and multiplies the link by scale.
//   9 numbers: the 8 reals of S = e^{-i theta / 3} X (det S = 1) in su3_reconstruct.cuh's order (a2, a3, b1,
//     arg a1, arg c1), then theta, padded to 10 reals (5 words), word w at data[((parity * 4 + mu) * 5 + w) *
//     stride + cb]. The kernel rebuilds S as a Wilson kernel rebuilds its 8-real links and multiplies it by
//     scale e^{i theta / 3}. A link whose S has N = |(S_01, S_02)| < kMinimum8ParameterN is stored in the singular
//     form diag(a1, a1^*, 1) (a2 = a3 = b1 = 0, arg c1 = 0), and must then be that form (unit links are).
inline constexpr int kU3Words = 7;
inline constexpr int kU9Words = 5;
struct U3LinkView {
  Precision precision = Precision::kDouble;
  int numbers = 13;  // 13 or 9: the layout above
  int stride = 0;    // V/2
  double scale = 1;
  void* data = nullptr;
};
// Complex words per link of the layout.
inline int U3WordsPerLink(int numbers) { return numbers == 9 ? kU9Words : kU3Words; }

// Links in half precision (fat links, or long links of 18 reals): neither fat nor HISQ long links are bounded
// by 1, so a field carries one scale: a real is level * level_value (float arithmetic), the level a short in
// [-32767, 32767], level_value the field's largest |real| / 32767 (as a float). Word w (reals 2w, 2w + 1 of the
// 18-real row-major order) of link (parity, mu, cb) at short2 index ((parity * 4 + mu) * 9 + w) * stride + cb.
struct ScaledHalfLinkView {
  int stride = 0;  // V/2
  float level_value = 0;
  void* data = nullptr;
};
// Bytes of one field of links in that layout: 2 parities x 4 directions x 9 words of two 16-bit levels.
inline std::size_t ScaledHalfLinkBytes(int stride) {
  return 2 * 4 * 9 * 2 * sizeof(short) * static_cast<std::size_t>(stride);
}

// Bytes of one parity's colour-vector field with `stride` words per colour: 48, 24 or 16 per stride (half: the
// levels and the norms).
inline std::size_t ColourVectorBytes(Precision precision, int stride) {
  const std::size_t per_stride = precision == Precision::kDouble ? 48 : precision == Precision::kSingle ? 24 : 16;
  return per_stride * static_cast<std::size_t>(stride);
}

// One parity of a colour-vector field on the device.
struct ColourVectorView {
  Precision precision = Precision::kDouble;
  int parity = 0;     // of the sites this view holds
  Extents extents{};  // of the whole lattice
  int sites = 0;      // V / 2
  int stride = 0;     // sites + pad, in words
  void* data = nullptr;
};

struct ConstColourVectorView {
  Precision precision = Precision::kDouble;
  int parity = 0;
  Extents extents{};
  int sites = 0;
  int stride = 0;
  const void* data = nullptr;

  ConstColourVectorView() = default;
  ConstColourVectorView(const ColourVectorView& v)  // NOLINT: a mutable view is usable wherever a const one is
      : precision(v.precision), parity(v.parity), extents(v.extents), sites(v.sites), stride(v.stride),
        data(v.data) {}
};

// The sums a launch can fuse (StaggeredDslashLaunch::sum), each a term per output site n and right-hand side j:
//   kNormWithForwardX (D):   |out_j(n)|^2 + w |in_j(n + x^)|^2 of the stored out_j: each input site is the forward-x
//                            neighbour of exactly one output site, so the sum is |out_j|^2 + w |in_j|^2;
//   kAxpyNorm (xpay):        out_j is read first and replaced by out_j + c_j (a x_j + b D in_j) with
//                            c_j = -(nu_j / delta_j) in double (delta_j read from device memory), as AxpyNorm forms
//                            y + c q; the term is |out_j(n)|^2 of the stored result. a x_j + b D in_j is not stored.
enum class StaggeredSum { kNone, kNormWithForwardX, kAxpyNorm };

// out[j] = D_{p,p'} in[j] (or -that: dagger) for j < rhs, every field in the precision of out[0] (the links'
// too: fat / long_links / long_links_u3 in double and single, fat_half / long_half in half); with xpay,
// out[j] = a x[j] + b D_{p,p'} in[j] (x[j] on the output parity; it may be out[j]). Checked by the host API
// before it gets here.
struct StaggeredDslashLaunch {
  ColourVectorView out[kMaxStaggeredRhs];
  ConstColourVectorView in[kMaxStaggeredRhs];
  ConstColourVectorView x[kMaxStaggeredRhs];  // xpay only
  bool xpay = false;
  double a = 0, b = 1;                         // xpay only
  int rhs = 1;
  GaugeView fat;
  GaugeView long_links;      // data null: no long links (naive staggered), or they are in long_links_u3
  U3LinkView long_links_u3;  // data non-null: the long links in 13 or 9 numbers
  // Half precision (the fields' precision is half): the links here instead of in fat / long_links.
  ScaledHalfLinkView fat_half;
  ScaledHalfLinkView long_half;  // data null: no long links
  bool antiperiodic[4] = {false, false, false, true};
  bool dagger = false;
  int rhs_per_thread = 0;  // 0: chosen by the launcher; 1, 2 or 4: pinned (tests)
  // Optional, CG's fused sums (double and single, not with the dagger): for each right-hand side j, a term per
  // output site summed over chunks of kCurvatureChunkSites consecutive output sites (in a fixed shuffle tree), at
  // partials[j * CurvatureChunks(sites) + chunk]; device memory (host memory for RunStaggeredDslashOnHost).
  StaggeredSum sum = StaggeredSum::kNone;
  double* partials = nullptr;
  double norm_weight = 0;                                  // kNormWithForwardX: w
  double axpy_numerator[kMaxStaggeredRhs] = {};            // kAxpyNorm: nu_j (host numbers)
  const double* axpy_denominator[kMaxStaggeredRhs] = {};  // kAxpyNorm: where delta_j is (device memory)
};

// The fused sums' chunks: kCurvatureChunkSites consecutive checkerboard sites each (the last may be short).
inline constexpr int kCurvatureChunkSites = 32;
inline int CurvatureChunks(int sites) { return (sites + kCurvatureChunkSites - 1) / kCurvatureChunkSites; }

void LaunchStaggeredDslash(const StaggeredDslashLaunch& launch);

// The check without a GPU: the kernel's per-site functor run on the host over every site and group of
// right-hand sides, on views of HOST memory (same Arg, same arithmetic: the per-site code the kernel runs).
void RunStaggeredDslashOnHost(const StaggeredDslashLaunch& launch);
// Links in host memory laid out as the device stores 18 reals per link (gauge_accessor.cuh, through its Store):
// `canonical` holds 18 doubles per link, ordered (parity, mu, checkerboard index) as DeviceGaugeField uploads
// them; destination.data must hold 2 x 4 x 18 x stride reals of destination.precision (double or single).
void PackEighteenRealLinksOnHost(const GaugeView& destination, const double* canonical);
// Long links in host memory in the 13- or 9-number layout above (destination.numbers): `canonical` holds
// 2 x U3WordsPerLink(numbers) doubles per link (CanonicalU3Links / CanonicalU9Links), ordered (parity, mu,
// checkerboard index); destination.stride = V/2 (no pad).
void PackU3LinksOnHost(const U3LinkView& destination, const double* canonical);
// Links in host memory in the scaled half layout above: `canonical` holds 18 doubles per link ordered (parity, mu,
// checkerboard index); destination.stride = V/2, destination.level_value = HalfLinkLevelValue(largest |real|),
// destination.data must hold 2 x 4 x 9 x stride short2 words. Each real becomes the nearest level of
// real / level_value (refused if beyond 32767.5: a level_value too small for these links).
void PackScaledHalfLinksOnHost(const ScaledHalfLinkView& destination, const double* canonical);
// The value of one level for links whose largest |real| is `largest` (> 0, finite): largest / 32767 as a float,
// rounded up so that no real exceeds 32767 levels.
float HalfLinkLevelValue(double largest);
// The level that stores `real`: the nearest integer of real / level_value (std::invalid_argument beyond 32767.5
// levels: a level_value too small for the real).
int HalfLinkLevel(double real, float level_value);
// What a stored level means: level * level_value in float, as the kernel computes it.
inline double HalfLinkValue(int level, float level_value) {
  return static_cast<double>(static_cast<float>(level) * level_value);
}

}  // namespace lqcd::gpu
