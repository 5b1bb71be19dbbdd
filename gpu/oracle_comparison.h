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
//
// The clover term (gpu/clover_apply.h) and the clover epilogues of the Dslash (wilson_dslash.h's
// ApplyCloverDslash), derived in docs/error_bounds.md, "GPU clover term" and "GPU clover Dslash":
// 7. Clover term. For a block B (the Hermitian matrix as read: real diagonal, lower triangle, its conjugate
//    above) rho(B) = max_i sum_j (|Re B_ij| + |Im B_ij|), the sum of |terms| of any real of B x per unit of
//    x's largest real. DeviceCloverError: the device's C psi (UKQCD, C = B / 2 stored, before the store)
//    against exact arithmetic; OracleError: reference/clover.h's B psi_DR in double (gamma_11); OutputStoreError.
// 8. Separate accounts. A launch's error is kept as two per-site parts against exact arithmetic on the
//    REFERENCE inputs (the host values the oracle used): `device`, per UKQCD real of the stored device result
//    (input and link errors, the kernel's roundings, the store), and `oracle`, per DR real of the oracle's result
//    (its own roundings only). The device then differs from the oracle by <= device + sqrt 2 oracle per UKQCD
//    real: that is the input error of a next launch whose reference input is the oracle's result (Propagated),
//    and CompareWithBound takes device + oracle / sqrt 2 (Compared; it multiplies by sqrt 2 for DR).
//    DslashEpilogueErrors splits items 3-5 this way for every epilogue and composes them with item 7:
//      kNone, kXpay      items 3-5 (device: 14 u_c per hop and the link error; oracle: 15 u_d per hop);
//      kClover           C applied to the device's D in: DeviceCloverError with input size |D in| and input
//                        error the Dslash's own (before the store); the oracle's B of its D in, plus its D
//                        error through B (rho(B) per real);
//      kCloverXpay       a (C x) + b (D in): DeviceCloverError of x, item 4's combination;
//      kXpayClover       a x + b (C D in): the kClover value in item 4's combination.
//    Item 4's combination counts 4 u_c on the device and 3 u_d in the oracle, each relative to |a| P + |b| Q
//    with P, Q the sizes of the combined values (the oracle's magnitudes plus their errors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/precision.h"
#include "gpu/wilson_dslash.h"  // DslashEpilogue
#include "reference/clover.h"
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
// One Dslash variant of the oracle tests and the parity of its output, e.g. "single/12/gf/xpay odd".
struct DslashCase {
  Precision precision;
  Reconstruct reconstruct;
  bool gauge_fixed;
  Dagger dagger;
  bool xpay;
  Parity out_parity;
  std::string Name() const {
    return DslashVariant{precision, reconstruct, gauge_fixed, dagger, xpay}.Name() +
           (out_parity == Parity::kEven ? " even" : " odd");
  }
};

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

// The inputs above for one Dslash on the oracle's (DR) fields: `in` on the input parity, `d` = the oracle's
// D in, `out` = its result (d itself without xpay), and for out = a x + b D in also x, a, b; the upload errors
// of in and x in `precision` and the link errors of `layout`.
DslashBoundInputs DslashBoundInputsOf(Precision precision, Parity out_parity, const GaugeField<double>& u,
                                      const GaugeLayout& layout, const SpinorField<double>& in,
                                      const SpinorField<double>& d, const SpinorField<double>& out,
                                      const SpinorField<double>* x = nullptr, double a = 0, double b = 0);

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

// An axpy-norm update fused into a Dslash kernel (r = r + c q, q never stored) against the separate one (q stored,
// then blas::AxpyNorm), in half precision: the separate path rounds q to half first (within 0.5 N_q / 32767 per
// real, N_q the site's largest |real| of the stored q; the computed q's largest is then at most N_q (1 + 2 level)),
// so before r's own rounding the two differ by at most |c| 0.5 N_q / 32767 plus one float rounding of each side's
// r + c q (u_f (|r| + |c q|)), and each side's storage adds at most 0.5 N / 32767 with N its site's largest |real|.
// Returns the number of reals of `fused` farther than that from `separate` (every field downloaded in the UKQCD
// basis; r_start: r before the update). In double and single both paths are the same arithmetic, bit for bit.
long RealsBeyondHalfAxpyNormBound(const SpinorField<double>& fused, const SpinorField<double>& separate,
                                  const SpinorField<double>& q, const SpinorField<double>& r_start, double c);

// ---- The clover term and the clover epilogues (items 7 and 8) ----

// Hermitian blocks of small integers: diagonal in [diagonal_low, diagonal_low + 4], off-diagonal parts in
// [-2, 2], per lexicographic site (for DeviceCloverField's block constructor).
std::vector<CloverSiteBlocks> IntegerBlocks(const Lattice& lattice, std::uint64_t seed, int diagonal_low);
// T_UKQCD = (1/2) H diag(B_+, B_-) H, H = [[1, 1], [1, -1]] (x) 1_2 (x) 1_colour (= sqrt 2 times the oracle's S),
// built from the Hermitian read of the blocks: for integer blocks every entry is an exact half-integer.
SpinColorMatrix<double> UkqcdMatrix(const CloverSiteBlocks& blocks);
// The two blocks of T(n) (inverse = false) or T(n)^{-1} of the oracle's field at a lexicographic site, and at
// every site.
CloverSiteBlocks SiteBlocks(const CloverField<double>& clover, int site, bool inverse);
std::vector<CloverSiteBlocks> AllSiteBlocks(const CloverField<double>& clover, bool inverse);

// A block as the device and the oracle read it: the real diagonal and the lower triangle, completed Hermitian.
ChiralBlock<double> HermitianRead(const ChiralBlock<double>& b);
// nu(z) = |Re z| + |Im z|, and rho(B) = max_i sum_j nu(B_ij) (item 7).
double Nu(const Complex<double>& z);
double RowSum(const ChiralBlock<double>& b);
double LargestReal(const ChiralBlock<double>& b);
// Item 7: the device's T psi (UKQCD reals, before the output store) against exact arithmetic with the host
// blocks on the exact input, per real, for an input whose largest real (either basis) is m and whose device
// copy is off by e per real.
double DeviceCloverError(Precision p, const CloverSiteBlocks& blocks, double m, double e);
// The rounding of the output store, per real, for an output of size r with error `error` (exact for double and
// single, which store their own arithmetic; half quantises, plus its absolute term).
double OutputStoreError(Precision p, double r, double error);
// The oracle's own rounding of B psi_DR in double, per DR real, for an input of size m: 12 u_d rho(B) m.
double OracleError(const CloverSiteBlocks& blocks, double m);

// Item 8: a launch's two error accounts, per lexicographic site (0 where the launch writes nothing).
struct SiteErrors {
  std::vector<double> device;  // per UKQCD real of the stored device result, against exact arithmetic
  std::vector<double> oracle;  // per DR real of the oracle's result, against the same exact value
  // device + oracle / sqrt 2: the ukqcd_bound of CompareWithBound against the oracle's result.
  std::vector<double> Compared() const;
  // device + sqrt 2 oracle: the device's error against the oracle's result per UKQCD real, the input error of
  // a launch that reads this result (its reference input being the oracle's result).
  std::vector<double> Propagated() const;
};

// The inputs of one Dslash launch with any epilogue (wilson_dslash_launch.h): out_p = epilogue(D_{p,p'} in).
// Magnitudes are per lexicographic site, max |real| over both bases of the REFERENCE values (Magnitudes of the
// oracle's fields); errors are the device copies' per-real errors against them.
struct EpilogueBoundInputs {
  Precision precision = Precision::kDouble;
  Parity out_parity = Parity::kEven;
  DslashEpilogue epilogue = DslashEpilogue::kNone;
  std::vector<double> in_magnitude, in_error;  // per site of in's parity
  std::vector<double> link_error;              // per link (LinkErrorBounds)
  // The blocks of C (T or T^{-1} as the view holds it) per lexicographic site: clover epilogues only.
  const std::vector<CloverSiteBlocks>* clover = nullptr;
  std::vector<double> d_magnitude;           // the oracle's |D in| per out site
  std::vector<double> x_magnitude, x_error;  // epilogues with x
  // The oracle's |B x| (kCloverXpay) or |B D in| (kXpayClover) per out site; unused otherwise.
  std::vector<double> clover_magnitude;
  std::vector<double> out_magnitude;  // the oracle's |out| per out site
  double a = 0, b = 0;                // epilogues with x
};
SiteErrors DslashEpilogueErrors(const Lattice& lattice, const EpilogueBoundInputs& in);

// ApplyCloverTerm on the sites of `parity`: out = C in, with in's reference magnitudes and device errors, and
// the oracle's output magnitudes.
SiteErrors CloverTermErrors(const Lattice& lattice, Precision precision, Parity parity,
                            const std::vector<CloverSiteBlocks>& clover, const std::vector<double>& in_magnitude,
                            const std::vector<double>& in_error, const std::vector<double>& out_magnitude);

}  // namespace lqcd::gpu::testing
