// staggered_dslash_launch.h: the plain structs that cross from the host API of the staggered fields and Dslash
// (device_colour_vector_field.h, staggered_dslash.h) into the kernel launcher (staggered_dslash.cu).
//
// Host-only header with no CUDA and no Eigen types.
//
// Colour-vector storage (one parity): structure of arrays, one complex number per word,
//     word c (colour 0, 1, 2) of checkerboard site cb at data[c * stride + cb],   stride = sites + pad,
// a word being double2 (double) or float2 (single): consecutive threads (sites) read consecutive words.
#pragma once

#include "gpu/field_views.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

inline constexpr int kMaxStaggeredRhs = 16;

// Long links stored as 13 numbers (reference/staggered/u3_compression.h): X = L / scale is unitary; per link the
// first two rows a, b (12 reals) and theta = arg det X, padded to 14 reals (7 complex words: double2 / float2),
// word w of link (parity, mu, cb) at data[((parity * 4 + mu) * 7 + w) * stride + cb]. The kernel rebuilds
// c = e^{i theta} conj(a x b) and multiplies the link by scale.
inline constexpr int kU3Words = 7;
struct U3LinkView {
  Precision precision = Precision::kDouble;
  int stride = 0;  // V/2
  double scale = 1;
  void* data = nullptr;
};

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

// out[j] = D_{p,p'} in[j] (or -that: dagger) for j < rhs, every field in the precision of the links; with xpay,
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
  GaugeView long_links;  // data null: no long links (naive staggered), or they are in long_links_13
  U3LinkView long_links_13;  // data non-null: the long links in 13 numbers
  bool antiperiodic[4] = {false, false, false, true};
  bool dagger = false;
  int rhs_per_thread = 0;  // 0: chosen by the launcher; 1, 2 or 4: pinned (tests)
};

void LaunchStaggeredDslash(const StaggeredDslashLaunch& launch);

// The check without a GPU: the kernel's per-site functor run on the host over every site and group of
// right-hand sides, on views of HOST memory (same Arg, same arithmetic: the per-site code the kernel runs).
void RunStaggeredDslashOnHost(const StaggeredDslashLaunch& launch);
// Links in host memory laid out as the device stores 18 reals per link (gauge_accessor.cuh, through its Store):
// `canonical` holds 18 doubles per link, ordered (parity, mu, checkerboard index) as DeviceGaugeField uploads
// them; destination.data must hold 2 x 4 x 18 x stride reals of destination.precision (double or single).
void PackEighteenRealLinksOnHost(const GaugeView& destination, const double* canonical);
// Long links in host memory in the 13-number layout above: `canonical` holds 2 x kU3Words doubles per link (the
// 12 row reals, theta, 0), ordered (parity, mu, checkerboard index); destination.stride = V/2 (no pad).
void PackU3LinksOnHost(const U3LinkView& destination, const double* canonical);

}  // namespace lqcd::gpu
