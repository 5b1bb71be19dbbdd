// staggered_blas_launch.h: the vector operations of the staggered solvers on device colour-vector fields
// (staggered_dslash_launch.h's storage), as plain structs for the launcher in staggered_blas.cu.
//
// Host-only header with no CUDA and no Eigen types. The host API is staggered_blas.h.
//
// An operation runs over the 3 V/2 complex components of one parity (colour c of site cb: word c * stride + cb
// of each field, each field with its own stride), in the fields' precision with the scalars rounded to it;
// reductions accumulate in double. Half (16-bit levels, a norm per site): over the V/2 sites instead, since a
// site's components share its norm: each input real is loaded as level * (norm * (1 / 32767)) in float (each
// product rounded), the update computed in float exactly as in single precision, and each written site
// quantised anew (norm = its largest |real|, each real the nearest level of real * 32767 / norm, as the
// Dslash's stores); the sums are of the values as stored (AxpyNorm's |y|^2 is the Norm2 of the y it wrote),
// in colour order within a site. Deterministic: a fixed grid of kColourBlasBlocks blocks of
// kColourBlasThreads threads, each thread summing its items (components, or half sites) in index order (the
// kernel loads kColourBlasUnroll of them at a time, which changes no sum), a fixed tree in each block, and the
// block partials added by the last block to finish (thread t those of blocks t, t + threads, ..., then the same
// tree), which writes the result where the launch says: a ScalarSlot's two copies (device_scalar.h; the caller
// reads it when it needs it, and later kernels may read the device copy), or, without one, pinned host memory
// that LaunchColourBlas reads after waiting for the kernel. The scalars a and b are numbers in the launch, or
// the programs of deferred values that the kernel evaluates (device_scalar.h: the device computes CG's alpha
// and beta from its own reductions, so the host never holds the device up between two kernels); the kernel rounds
// them to the fields' precision as the host rounds numbers. RunColourBlasOnHost does exactly the same loops on
// host memory (the check without a GPU).
#pragma once

#include <array>
#include <cstdint>

#include "gpu/scalar_program.h"
#include "gpu/staggered_dslash_launch.h"

namespace lqcd::gpu {

inline constexpr int kColourBlasThreads = 256;
// 4 blocks per SM of an H100 / H200 (132 SMs): with 2, a thread's four items' loads left too few bytes in flight to
// cover the memory latency (a deferred single-precision Norm2 at 52% of the copy bandwidth, 62% with 4); 8 gained
// no more and made double's CG iteration 2% slower (double's element-wise kernels lose 2-4% with 4 or 8). Fixed,
// not taken from the device, so that sums do not move.
inline constexpr int kColourBlasBlocks = 528;
inline constexpr int kColourBlasUnroll = 4;    // items whose loads a thread issues together (same sums)

// The kernels' loop items for `sites` sites per colour: the 3 complex components of each site in double and
// single, the sites in half (one norm per site).
inline long ColourBlasItems(Precision precision, int sites) {
  return precision == Precision::kHalf ? sites : 3L * sites;
}
// Whether the fixed grid covers that many items in one pass (each thread's kColourBlasUnroll loads issued
// together): then a kernel is short, and it evaluates deferred scalars itself (scalar_program.h's ScalarSource).
inline bool ColourBlasInOnePass(Precision precision, int sites) {
  const long one_pass = static_cast<long>(kColourBlasUnroll) * kColourBlasBlocks * kColourBlasThreads;
  return ColourBlasItems(precision, sites) <= one_pass;
}

enum class ColourBlasOp {
  kAxpy,                 // y += a x
  kCaxpy,                // y += (a + i b) x
  kXpay,                 // y = x + a y
  kAxpyNorm,             // y += a x; returns |y|^2
  kCgSolutionDirection,  // y += a z; z = x + b z  (CG: solution x_sol = y, direction p = z, residual r = x)
  kNorm2,                // returns |x|^2
  kReDot,                // returns Re (x, y)
  kDot,                  // returns (x, y) = sum conj(x) y: {Re, Im}
  kNonFinite,            // returns sum 0 * x: 0 when every component is finite, NaN otherwise
};

struct ColourBlasLaunch {
  ColourBlasOp op = ColourBlasOp::kNorm2;
  ConstColourVectorView x;
  ColourVectorView y;  // read only for kReDot and kDot
  ColourVectorView z;
  double a = 0, b = 0;
  // Device only, deferred values (device_scalar.h) instead of the numbers above: a and b are the real parts of
  // the values of these programs (device_scalars), or of those at scalar_values[0] and [2] (not null: evaluated
  // there by a kernel queued before). Not for kCaxpy, whose a and b are one complex number.
  bool device_scalars = false;
  ScalarPair scalar_programs;
  const double* scalar_values = nullptr;
  // Device only. Reductions: the device copy and the device address of the pinned host copy of a ScalarSlot
  // that receives the result ({Re, Im} or {value, 0}); both null: LaunchColourBlas waits and returns it.
  double* result_device = nullptr;
  double* result_host = nullptr;
};

// The reduction's values ({0, 0} for the operations without one, and without waiting when the launch names
// where the result goes).
std::array<double, 2> LaunchColourBlas(const ColourBlasLaunch& launch);
std::array<double, 2> RunColourBlasOnHost(const ColourBlasLaunch& launch);

// y = x rounded to y's precision (IEEE round to nearest; to half: rounded to float, then the site quantised as
// above), the two on one lattice and parity, any precisions (double, single, half; from half: the stored values,
// exactly); the mixed-precision solvers' Convert.
void LaunchColourConvert(const ColourVectorView& y, const ConstColourVectorView& x);
void RunColourConvertOnHost(const ColourVectorView& y, const ConstColourVectorView& x);

// y = Z2 noise: colour c of the site with lexicographic index s is (+1, 0) or (-1, 0) as the lowest bit of word c
// of Philox stream (seed, s) is 1 or 0 (philox_stream.cuh), i.e. solvers/staggered_pbp.h's FillZ2Noise on y's
// parity, exactly, in any precision (half: levels +-32767 with norm 1). The stochastic estimators' sources made
// where they are used instead of on the host.
void LaunchColourZ2Noise(const ColourVectorView& y, std::uint64_t seed);
void RunColourZ2NoiseOnHost(const ColourVectorView& y, std::uint64_t seed);

}  // namespace lqcd::gpu
