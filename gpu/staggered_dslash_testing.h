// staggered_dslash_testing.h: what the GPU staggered Dslash tests share (staggered_dslash_test.cc on the device,
// staggered_dslash_host_test.cc on the host): test links, the derived rounding bound and its check.
//
// The bound, per output component i of site n (derived, not tuned): the kernel forms each hop's (X v)_i as one
// chain of 6 fused multiply-adds per real part (register_types.cuh FusedDot3) and adds the H hops (16 with
// long links, 8 without) one after another, so its rounding error is at most gamma_{6+H} times the sum of the
// absolute terms, A_i = sum over hops and colours j of |X_ij| |v_j| (times 2: the real and imaginary parts of a
// complex product each bounded by it); in single precision the stored links and inputs are each rounded once
// (2 u more). The oracle in double makes the same kind of error in u_double. So
//     |gpu_i - oracle_i| <= sqrt(2) * 2 * ((6 + H + 2) u + (6 + H) u_double) * A_i * 1.01,
// with u the unit roundoff of the kernel's precision (1.01 covers gamma_k = k u / (1 - k u)).
#pragma once

#include <string>
#include <vector>

#include "gpu/precision.h"
#include "reference/staggered/colour_vector_field.h"
#include "reference/staggered/staggered_dslash.h"

namespace lqcd::gpu::testing {

// HISQ links (epsilon_naik = 0) smeared from Haar-random thin links; naive links = Haar-random thin links.
StaggeredLinks<double> RandomHisqLinks(const Lattice& lattice, std::uint64_t seed);
StaggeredLinks<double> RandomNaiveLinks(const Lattice& lattice, std::uint64_t seed);

// A_i of the file comment at every site of `out_parity` (stored in the real parts).
ColourVectorField<double> AbsoluteTerms(const StaggeredLinks<double>& links, const ColourVectorField<double>& in,
                                        Parity out_parity);

// Checks every component of `computed` against `oracle` with the bound above (one gtest failure per
// offending component, at most 5); returns the largest error / bound. The xpay form a x + b D in: the Dslash
// bound times |b| plus the epilogue's own rounding, sqrt(2) * 3 (u + u_double) (|a| |x_i| + |b| |(D in)_i|)
// (two products and a sum per real part, in the kernel and in the oracle); pass x and D in (the oracle's) then.
double CheckWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                        const ColourVectorField<double>& terms, Precision precision, int hops,
                        const std::string& what);
// The part of the bound that long links stored in 13 numbers add (u3_compression.h: each rebuilt entry within
// 27 u of the scale): per component of `out_parity`, sqrt(2) 27 u |scale| times the sum of |v_j| over the 8 long
// hops and the colours j, in the real parts; `in` on the other parity.
ColourVectorField<double> U3ReconstructionBound(const ColourVectorField<double>& in, Parity out_parity, double scale,
                                                Precision precision);

// max_ij |L_device(i, j) - L(i, j)| for a long link L stored in 9 numbers (scale: X = L / scale unitary), derived
// in staggered_dslash_testing.cc from the 8-real link bound of S = e^{-i theta / 3} X (LinkErrorBound) and the
// phase factor's roundings.
double NineNumberLinkErrorBound(const ColorMatrix<double>& long_link, double scale, Precision precision);
// The part of the bound that long links stored in 9 numbers add: per component of `out_parity`, the sum over the
// 8 long hops of NineNumberLinkErrorBound(the hop's link) times sum_j |v_j| (a complex modulus: |sum_j dL_ij v_j|
// <= sum_j |dL_ij| |v_j|), in the real parts; `in` on the other parity.
ColourVectorField<double> U9ReconstructionBound(const ColourVectorField<double>& in, const GaugeField<double>& long_links,
                                                Parity out_parity, double scale, Precision precision);

// The Dslash bound plus `extra` (per component, in the real parts): e.g. the long links' 13-number reconstruction.
double CheckWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                        const ColourVectorField<double>& terms, const ColourVectorField<double>& extra,
                        Precision precision, int hops, const std::string& what);
double CheckXpayWithinBound(const ColourVectorField<double>& computed, const ColourVectorField<double>& oracle,
                            const ColourVectorField<double>& terms, const ColourVectorField<double>& x,
                            const ColourVectorField<double>& d_in, double a, double b, Precision precision, int hops,
                            const std::string& what,
                            const ColourVectorField<double>* extra = nullptr);

// The Dslash part of the bound per component (in the real parts): the file comment's factor times A_i.
ColourVectorField<double> DslashArithmeticBound(const ColourVectorField<double>& terms, Precision precision, int hops);
// The xpay form's bound per component (in the real parts), CheckXpayWithinBound's without `extra`.
ColourVectorField<double> XpayArithmeticBound(const ColourVectorField<double>& terms, const ColourVectorField<double>& x,
                                              const ColourVectorField<double>& d_in, double a, double b,
                                              Precision precision, int hops);

// What storing a result in half precision adds (colour_vector_accessor.cuh). A site is stored as 16-bit levels
// of its largest |real| N: level = round(r fl(32767 / N)), decoded as fl(level fl(N fl(1 / 32767))). With u the
// float unit roundoff, each real comes back within 0.5 N / 32767 (the rounding to a level) + 5 u |r| (two
// roundings before it, three in the decode; first order, 1.01 covers the rest) of the computed r, |r| <= N.
// N is the computed site's largest |real|, at most M + B, M the oracle's largest |real| at the site and B the
// largest arithmetic bound there (`arithmetic`, per component in the real parts). Per complex component (two
// reals):
//     extra = sqrt(2) (M + B) (0.5 / 32767 + 5 u) 1.01,
// in the real parts of the result.
ColourVectorField<double> HalfStorageBound(const ColourVectorField<double>& oracle,
                                           const ColourVectorField<double>& arithmetic);

// Re (x, v) = sum of x.re v.re + x.im v.im over the sites [begin, end) of two fields, in long double, and the sum of
// the terms' magnitudes (the fused sums' bounds are relative to it).
struct ReDotTerms {
  long double sum = 0, magnitude = 0;
};
ReDotTerms SumReDotTerms(const ColourVectorField<double>& x, const ColourVectorField<double>& v, int begin, int end);

// Chunk sums of Re (x, out) of one right-hand side (partials[chunk], chunks of kCurvatureChunkSites sites,
// staggered_dslash_launch.h; with x = out the fused update's |r|^2) against the terms of the stored x and out: each
// within 11 u_double (x 1.01) of its chunk's magnitude (per site 6 products and 5 additions in double, then a tree of
// 5 levels over the chunk). One gtest failure per offending chunk; returns the largest error / bound.
double CheckReDotChunks(const double* partials, const ColourVectorField<double>& x,
                            const ColourVectorField<double>& out, const std::string& what);

// The fused norm's partials (StaggeredSum::kNormWithForwardX) of one right-hand side against the terms
// |out(n)|^2 + weight |in(n + x^)|^2 of the stored fields (out on the output parity, in on the other): each within
// 13 u_double (x 1.01) of its chunk's sum, the terms being non-negative (per site 6 products and 5 additions for each
// norm, the weight's product and one addition, then a tree of 5 levels over the chunk). One gtest failure per
// offending chunk; returns the largest error / bound.
double CheckNormWithForwardXChunks(const double* partials, const ColourVectorField<double>& out,
                                   const ColourVectorField<double>& in, double weight, const std::string& what);

}  // namespace lqcd::gpu::testing
