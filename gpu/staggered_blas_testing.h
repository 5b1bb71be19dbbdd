// staggered_blas_testing.h: what the tests of the staggered vector operations in half precision share
// (staggered_blas_host_test.cc runs the operations' code on the host, staggered_blas_test.cc on a GPU): the
// operations computed in double on the values the half storage represents, and the derived bound of a half
// result against them.
//
// The bound, per real r_i of an output site (derived, not tuned; u = 2^-24, the float unit roundoff of half's
// arithmetic, u_d = 2^-53):
//   Arithmetic. The operation runs in float on the stored input values (exact: the host decodes them as the
//   kernel does) with its scalars rounded to float. With T_i the sum of the absolute terms of r_i:
//     Axpy y + a x, Xpay x + a y, CgSolutionDirection's x + alpha p and r + beta p: one rounded scalar and one
//       fused multiply-add: |float - exact| <= 2 u T_i (1 + u), T_i = |a| |x_i| + |y_i| (the terms of each);
//     Caxpy y + (a + i b) x per real part: two rounded scalars and two fused steps: 3 u T_i (1 + u),
//       T_re = |a| |x_re| + |b| |x_im| + |y_re|, T_im = |a| |x_im| + |b| |x_re| + |y_im|;
//     Convert from double: one rounding to float, u |x_i|.
//   The double computation here adds at most 3 u_d T_i. So B_i = (k u (1 + u) + 3 u_d) T_i, k = 2, 3 or 1.
//   Storage (colour_vector_accessor.cuh QuantizeColourSite and the decode): the site is stored as levels of its
//   computed largest |real| N: level = round(r fl(32767 / N)), decoded as fl(level fl(N fl(1 / 32767))). Each
//   real comes back within 0.5 N / 32767 (the rounding to a level) + 5 u |r| (two roundings before it, three in
//   the decode; first order, 1.01 covers the rest) of the computed r, |r| <= N, and N <= M + B, M the exact
//   result's largest |real| at the site and B the largest B_i there:
//     |stored_i - exact_i| <= B_i + (0.5 / 32767 + 5 u) (M + B) 1.01.
//   (Rounding to a level by truncation, or a norm other than the site's largest |real|, breaks it: an error of up
//   to one level is twice the rounding's half level.)
//   Reductions (Norm2, ReDot, Dot, AxpyNorm's norm) are of the stored values, accumulated in double: against the
//   same sum of the same stored values in another order, within (n + 2) u_d S per side, n the number of terms
//   and S the sum of their absolute values (a complex dot: |Re|, |Im| each <= sum |x_c| |y_c| sqrt(2)).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>

#include "gpu/staggered_blas_launch.h"
#include "reference/staggered/colour_vector_field.h"

namespace lqcd::gpu::testing {

// An operation's exact outputs (double arithmetic on the given input values) and B_i of the file comment: the
// bound of the float arithmetic per real, in the real and imaginary parts of `*_bound`. y (and z) are the
// outputs the operation writes: y for Axpy, AxpyNorm, Caxpy, Xpay and Convert (y = x), y (x_sol) and z (p) for
// CgSolutionDirection (r = x).
struct ColourBlasExact {
  ColourVectorField<double> y, y_bound, z, z_bound;
};
ColourBlasExact ExactColourBlas(ColourBlasOp op, double a, double b, const ColourVectorField<double>& x,
                                const ColourVectorField<double>& y, const ColourVectorField<double>& z);
// Convert from double to half: y = x.
ColourBlasExact ExactColourConvert(const ColourVectorField<double>& x);

// Checks every real of the half result `stored` against `exact` within the file comment's bound (one gtest
// failure per offending real, at most 5); returns the largest error / bound.
double CheckHalfWithinBound(const ColourVectorField<double>& stored, const ColourVectorField<double>& exact,
                            const ColourVectorField<double>& arithmetic_bound, const std::string& what);

// The reduction of `op` (kNorm2: of x; kReDot, kDot: of x and y; kAxpyNorm: |y|^2) summed in double in site
// order, and the bound of the difference of two such sums in different orders: 2 (n + 2) u_d S.
struct ExactSum {
  std::array<double, 2> value;
  double bound;
};
ExactSum ExactColourReduction(ColourBlasOp op, const ColourVectorField<double>& x, const ColourVectorField<double>& y);

// An even-parity field of Gaussian values scaled per site over 27 decades (1e3 down to 1e-25, below the 2^-64 at
// which a site's reals are scaled before quantising) with site 11 + offset zero: a half site keeps its
// resolution relative to its own largest real, whatever the others hold. offset shifts the pattern.
ColourVectorField<double> MixedScaleField(const Lattice& lattice, std::uint64_t seed, int offset);

}  // namespace lqcd::gpu::testing
