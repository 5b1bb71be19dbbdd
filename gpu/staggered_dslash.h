// staggered_dslash.h: the improved (asqtad / HISQ) or naive staggered hopping term on the GPU, for one or
// several right-hand sides at once: out_j = D_{p,p'} in_j (or (D^dag)_{p,p'} in_j = -D_{p,p'} in_j), the
// operator of reference/staggered/staggered_dslash.h restricted to one parity (ApplyStaggeredDslashParity).
//
// Host-only header (no CUDA types). The kernel and its mapping: staggered_dslash.cu. Links: fat links F and
// long links L (absent: naive) in the fields' precision, fat links in 18 reals (sums of paths: neither unitary
// nor bounded), long links in 18 reals or in 13 or 9 numbers (LongLinkStorage: HISQ's Naik links are c_naik times
// a U(3) product, reference/staggered/u3_compression.h; 13 and 9 in double and single). Double,
// single and half precision (half: 16-bit levels, colour vectors with a norm per site, links with one scale
// per field; arithmetic in float; 18-real long links only).
//
// The block form loads each link once per site for all n <= 16 right-hand sides (papers 003: the links are
// most of the bytes at n = 1). Every output is within the rounding bound of the oracle (the tests derive it);
// the n outputs of a block are each what a call with that right-hand side alone computes, up to the
// compiler's contraction of the same products.
// Cost per call (gpu/staggered_dslash_cost.h): 1146 flops per output site and right-hand side (570 naive), the
// kernel's bytes 8 x 18 x (1 + long) link reals per site plus per right-hand side 16 (8) neighbour vectors and
// one output of 6 reals.
// Errors (std::invalid_argument, before any launch): no right-hand side or more than 16; fields of another
// lattice than the links'; outputs not all on one parity or inputs not on the other; a precision other than
// the links'; an output that is also an input or another output; long links on an extent below 3.
// Asynchronous on the default stream like every launch.
#pragma once

#include <memory>
#include <vector>

#include "gpu/device_colour_vector_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/kernel_cost.h"
#include "reference/fermion_boundary.h"
#include "reference/staggered/staggered_dslash.h"
#include "reference/staggered/u3_compression.h"

namespace lqcd::gpu {

// How the long links are stored on the device (reference/staggered/u3_compression.h): all 18 reals; 13 numbers
// (the first two rows of X = L / scale and theta = arg det X, padded to 14; the kernel rebuilds the third row);
// or 9 (the 8 reals of the SU(3) matrix e^{-i theta / 3} X and theta, padded to 10; the kernel rebuilds it as
// the Wilson kernels rebuild 8-real links). 13 and 9 need X unitary: scale = HisqNaikCoefficient for HISQ's
// Naik links, AsqtadNaikCoefficient for asqtad's.
struct LongLinkStorage {
  U3Compression form = U3Compression::k18;
  double scale = 1;
};

// 18 doubles per link (row-major, real and imaginary parts), ordered (parity, mu, checkerboard index), as
// DeviceGaugeField uploads them and PackEighteenRealLinksOnHost / PackScaledHalfLinksOnHost read them.
std::vector<double> CanonicalEighteenRealLinks(const GaugeField<double>& u);

// The 13-number form of every long link (2 x kU3Words doubles per link: the 12 row reals, theta, 0), ordered
// (parity, mu, checkerboard index) for PackU3LinksOnHost. std::invalid_argument for a zero or non-finite scale
// and for a link whose X = L / scale is not unitary (naming the site and direction).
std::vector<double> CanonicalU3Links(const GaugeField<double>& long_links, double scale);

// The 9-number form of every long link (2 x kU9Words doubles per link: the 8 reals of S = e^{-i theta / 3} X in
// su3_reconstruct.cuh's order, theta = arg det X, 0), ordered as above. S's 8 reals are computed as the Wilson
// kernels' 8-real links are packed: the general form for N = |(S_01, S_02)| >= kMinimum8ParameterN, else the
// singular form diag(a1, a1^*, 1), which S must then be within kSu3Tolerance. std::invalid_argument for a zero
// or non-finite scale, a link whose X is not unitary, and a link near the singular point that is not in the
// singular form (each naming the site and direction).
std::vector<double> CanonicalU9Links(const GaugeField<double>& long_links, double scale);

// The staggered links on the device: F and, for improved actions, L.
class DeviceStaggeredLinks {
 public:
  // Checks the links (reference RequireUsableLinks) and uploads them in `precision`, the long links in
  // `storage`'s form. Half precision: fat and long links (18 reals) each scaled by their field's largest |real|
  // (staggered_dslash_launch.h, ScaledHalfLinkView); 13- and 9-number long links are refused in half.
  DeviceStaggeredLinks(const StaggeredLinks<double>& links, Precision precision, const LongLinkStorage& storage = {});

  const Lattice& lattice() const { return lattice_; }
  Precision precision() const { return precision_; }
  const DeviceGaugeField* fat() const { return fat_.get(); }                // null in half precision
  const DeviceGaugeField* long_links() const { return long_links_.get(); }  // null: naive, 13 / 9 numbers or half
  bool improved() const { return long_links_ != nullptr || long_u3_.data != nullptr || long_half_.data != nullptr; }
  const LongLinkStorage& long_storage() const { return storage_; }
  const U3LinkView& long_links_u3() const { return long_u3_; }        // data null unless 13 or 9 numbers
  const ScaledHalfLinkView& fat_half() const { return fat_half_; }    // data null unless half
  const ScaledHalfLinkView& long_half() const { return long_half_; }  // data null unless half and improved

 private:
  Lattice lattice_;
  Precision precision_;
  std::unique_ptr<DeviceGaugeField> fat_;
  std::unique_ptr<DeviceGaugeField> long_links_;
  LongLinkStorage storage_;
  DeviceBuffer long_u3_buffer_;
  U3LinkView long_u3_;
  DeviceBuffer fat_half_buffer_, long_half_buffer_;
  ScaledHalfLinkView fat_half_, long_half_;
};

// One field of links in the scaled half layout (staggered_dslash_launch.h) in host memory: `bytes` is resized to
// hold it and the returned view points into it; level_value from the field's largest |real|
// (HalfLinkLevelValue). What a half DeviceStaggeredLinks uploads.
ScaledHalfLinkView PackHalfLinks(const GaugeField<double>& u, std::vector<unsigned char>& bytes);

// The links that half-precision storage represents (what a half DeviceStaggeredLinks computes with): each real
// of `links` the nearest level of HalfLinkLevelValue(largest |real| of the field), times that value in float.
GaugeField<double> HalfPrecisionLinks(const GaugeField<double>& links);
// The same for both fields of a set of links (each field with its own level value; no long links: none).
StaggeredLinks<double> HalfPrecisionLinks(const StaggeredLinks<double>& links);

void ApplyStaggeredDslash(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                          const DeviceColourVectorField& in, const FermionBoundary& boundary,
                          Dagger dagger = Dagger::kNo);

// rhs_per_thread: 0 lets the launcher choose; 1, 2 or 4 pins the kernel's mapping (tests cover each).
void ApplyStaggeredDslashBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                               const std::vector<const DeviceColourVectorField*>& in, const FermionBoundary& boundary,
                               Dagger dagger = Dagger::kNo, int rhs_per_thread = 0);

// out_j = a x_j + b D_{p,p'} in_j (or with (D^dag)_{p,p'}), a and b real (finite), x_j on the outputs' parity and
// precision; x_j may be out_j (each site reads x before it stores out), no other output. The even-odd operator
// and the source and solution maps (staggered_dslash.h's formulas) are made of this.
void ApplyStaggeredDslashXpay(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                              const DeviceColourVectorField& in, const DeviceColourVectorField& x, double a, double b,
                              const FermionBoundary& boundary, Dagger dagger = Dagger::kNo);
void ApplyStaggeredDslashXpayBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                                   const std::vector<const DeviceColourVectorField*>& in,
                                   const std::vector<const DeviceColourVectorField*>& x, double a, double b,
                                   const FermionBoundary& boundary, Dagger dagger = Dagger::kNo,
                                   int rhs_per_thread = 0);

// CG's step with A p never stored (the Schur operator's ApplyCurvatureUpdateBlock), in two calls that each sum a
// term per output site and right-hand side j in chunks of consecutive output sites (in a fixed shuffle tree),
// written to partials[j * StaggeredCurvatureChunks(links) + chunk] (device memory, n x that many doubles;
// blas::SumRealPartialsOfRanges adds each right-hand side's chunks). The chunks' sums do not depend on the launch's
// block size or mapping.
// ApplyStaggeredDslashNormBlock: out_j = D_{p,p'} in_j (D, not D^dag) and the sums of
// |out_j(n)|^2 + weight |in_j(n + x^)|^2 over the stored out_j (each input site is the forward-x neighbour of exactly
// one output site, so the sum is |out_j|^2 + weight |in_j|^2; for the first Dslash of M = 4m^2 - D_{p,p'} D_{p',p} on
// p with weight 4m^2 it is (p, M p), D being antihermitian), at partials[j * StaggeredCurvatureChunks(links) + chunk].
void ApplyStaggeredDslashNormBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                                   const std::vector<const DeviceColourVectorField*>& in, double weight,
                                   const FermionBoundary& boundary, double* partials, int rhs_per_thread = 0);
// ApplyStaggeredDslashXpayAxpyNormBlock: r_j = r_j + c_j (a x_j + b D_{p,p'} in_j) with c_j = -(numerators[j] /
// *denominators[j]) evaluated in double on the device (denominators: device memory, e.g. the slot a sum of the first
// call's partials went to), rounded to the fields' precision, and y + c q formed as the vector kernels' AxpyNorm forms
// it (one rounding per part); a x_j + b D in_j is not stored. Also the chunk sums of |r_j|^2 of the stored r_j, as
// above. r_j is read and written at each site; it must differ from every in_k and from x_j.
// Both: double and single links only (half's iterations were faster with separate reductions: docs/staggered.md);
// errors as the plain or xpay call's, and a null `partials`, half-precision links, a non-finite weight or numerator,
// a null denominator.
void ApplyStaggeredDslashXpayAxpyNormBlock(const std::vector<DeviceColourVectorField*>& r,
                                           const DeviceStaggeredLinks& links,
                                           const std::vector<const DeviceColourVectorField*>& in,
                                           const std::vector<const DeviceColourVectorField*>& x, double a, double b,
                                           const std::vector<double>& numerators,
                                           const std::vector<const double*>& denominators,
                                           const FermionBoundary& boundary, double* partials, int rhs_per_thread = 0);
int StaggeredCurvatureChunks(const DeviceStaggeredLinks& links);

// Flops and the kernel's byte model of one call on n right-hand sides (staggered_dslash_cost.h).
KernelCost StaggeredDslashKernelCost(const DeviceStaggeredLinks& links, int rhs);

}  // namespace lqcd::gpu
