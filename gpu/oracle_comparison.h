// oracle_comparison.h (testonly): inputs for the GPU-vs-oracle tests, and derived per-site bounds on the
// difference between a device result and the CPU oracle's (reference/wilson.h, double, DeGrand-Rossi).
//
// Everything here is independent of the device code: the basis change uses the oracle's S matrix
// (reference/gamma.h), and the bounds follow from the arithmetic the kernels and the oracle do, counted
// below. docs/error_bounds.md, "GPU Dslash: tolerances of the oracle tests", repeats the derivation.
//
// Notation: u_c = unit roundoff of the kernel's arithmetic (2^-53, or 2^-24 for single and half), u_d = 2^-53.
// Per site, M = the largest |real component| of a spinor in EITHER basis (the oracle sums in DeGrand-Rossi,
// the device in UKQCD; a bound on both covers both).
//
// 1. Storage. A value written to a device spinor field is off by at most eps_s * (its site's M), with
//    eps_s = 0 (double; the basis change is accounted separately), 2^-24 (single), and for half
//    1/65534 (half a level) + 6 * 2^-24 (the float scale, the product and the decode).
//    Uploads also carry the host basis change in double: (u +- l) * fl(1/sqrt 2) has three roundings,
//    at most 3 u_d (|u| + |l|) / sqrt 2 <= 3 sqrt(2) u_d M per real. Half adds an absolute 32768 * 2^-150
//    for sites so small (M < ~3.9e-34) that the decode scale M / 32767 is a subnormal float.
// 2. Links. LinkErrorBound(U, layout) bounds max_ij |U_device(i,j) - U(i,j)| (see oracle_comparison.cc for
//    the 18/12/8 derivations; 8 grows like 1/N as the paper says).
// 3. One hop, per output real: the half spinor h has reals bounded by 2 M (a sum of two components), and
//    Re/Im of (U h)_i is a sum of 6 products with sum_j (|Re U_ij| + |Im U_ij|) |h| <= sqrt 2 sqrt 3 * 2 M:
//    the sum of |terms| is at most 2 sqrt 6 M in either basis. Rounding depth along any term:
//      device: projection 1 + the 6-term product sum 6 + accumulating 7 hops into a spin 6 = 13,
//              gamma_13 < 14 u_c;
//      oracle: projection 1 + 6 + accumulating 8 hops 7 = 14, gamma_14 < 15 u_d.
//    An input error e (per real, at the neighbour) contributes 2 sqrt 6 e; a link error E contributes
//    sum_j |dU_ij| |h_j| <= 3 E * 2 sqrt 2 M = 6 sqrt 2 E M.
//    So per output real: sum over the 8 hops of
//      2 sqrt 6 e + (2 sqrt 6 (14 u_c + 15 u_d) + 6 sqrt 2 E) (M + e).
// 4. a x + b y: three roundings on each side (scale, scale, add) plus rounding b to the kernel's
//    precision: (4 u_c + 3 u_d) (|a| X + |b| Y), plus |a| times x's own error and |b| times y's.
// 5. Storing the output: eps_out (R + error), R the output's magnitude, eps_out = 2^-53, 2^-24 or half's.
// 6. Download: DR = (a +- b) / sqrt 2 of UKQCD reals: a per-real UKQCD bound e becomes sqrt 2 e, plus
//    3 sqrt 2 u_d R for the conversion.
// All bounds are first order in the unit roundoffs (the neglected terms are below 1e-6 of the kept ones
// for the test fields; for 8 reals they need e / N << 1, and the test fields have N > 0.01).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device_gauge_field.h"
#include "gpu/precision.h"
#include "reference/fermion_boundary.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu::testing {

// Haar-random links (reference/su3_random.h); with temporal_gauge, then gauge fixed by
// reference/gauge_transform.h's TemporalGaugeFix (t-links exactly 1 except on the last time slice, which
// holds the Polyakov lines).
GaugeField<double> RandomLinks(const Lattice& lattice, std::uint64_t seed, bool temporal_gauge);
// A smooth field, every link exp(i epsilon H) (reference/su3_random.h): links near 1 like those of a
// thermalised weak-coupling configuration, the regime where the 8-parameter form's N = |(U_01, U_02)| is small.
GaugeField<double> SmoothLinks(const Lattice& lattice, std::uint64_t seed, double epsilon);
// Every real of every link an integer in [-2, 2] (not SU(3); for 18 reals), t-links 1 where t < Lt - 1 when
// temporal_gauge. All products and sums of the Dslash are then exact in double and single.
GaugeField<double> IntegerLinks(const Lattice& lattice, std::uint64_t seed, bool temporal_gauge);
// Every real an integer in [-3, 3].
SpinorField<double> IntegerSpinors(const Lattice& lattice, Subset subset, std::uint64_t seed);

// psi -> S psi at every site (the oracle's S, reference/gamma.h): DeGrand-Rossi <-> UKQCD.
SpinorField<double> ChangeBasis(const SpinorField<double>& psi);

// Per lexicographic site (size V; zero on sites the field does not hold): max |real| over both bases.
std::vector<double> Magnitudes(const SpinorField<double>& dr);

// Spinor storage error eps_s (item 1): relative to the site's M.
double SpinorStorageRoundoff(Precision precision);
// Its absolute part (item 1: half's subnormal decode scale), per real.
double SpinorStorageAbsoluteError(Precision precision);
// Per site (size V): the error of a field uploaded from `dr` (storage + basis change), item 1.
std::vector<double> UploadErrors(const SpinorField<double>& dr, Precision precision);

// Item 2: bound on max_ij |U_device(i,j) - U(i,j)| for the link u stored with `layout`.
double LinkErrorBound(const ColorMatrix<double>& u, Precision precision, Reconstruct reconstruct);
// Per link (index 4 * site + mu); 0 for the unit t-links of a temporally gauge-fixed field (never loaded).
std::vector<double> LinkErrorBounds(const GaugeField<double>& u, const GaugeLayout& layout);

// The error of out = a x + b D in (xpay) or out = D in, per lexicographic site of out's parity, for the
// UKQCD reals of the device result before download (items 3-5).
struct DslashBoundInputs {
  Precision precision = Precision::kDouble;
  Parity out_parity = Parity::kEven;
  std::vector<double> in_magnitude, in_error;  // per site of the other parity
  std::vector<double> link_error;              // per link
  std::vector<double> d_magnitude;             // max |(D in)(n)| per out site (the oracle's)
  std::vector<double> out_magnitude;           // max |out(n)| per out site (the oracle's)
  bool xpay = false;
  double a = 0, b = 0;
  std::vector<double> x_magnitude, x_error;  // per out site, xpay only
};
std::vector<double> DslashErrorBound(const Lattice& lattice, const DslashBoundInputs& in);

// Compares a downloaded device result with the oracle's (both DR, same subset), with per-site bound
// `ukqcd_bound` (from DslashErrorBound) turned into a DR bound (item 6).
struct Comparison {
  double max_ratio = 0;     // max over reals of |device - oracle| / bound: <= 1 means within the bound
  double max_error = 0;     // max |device - oracle|
  long violations = 0;      // reals beyond their bound (NaN counts)
  std::string first_violation;
};
Comparison CompareWithBound(const SpinorField<double>& device_dr, const SpinorField<double>& oracle_dr,
                            const std::vector<double>& ukqcd_bound, const std::vector<double>& out_magnitude);

}  // namespace lqcd::gpu::testing
