// staggered_dslash.h: the improved (asqtad / HISQ) or naive staggered hopping term on the GPU, for one or
// several right-hand sides at once: out_j = D_{p,p'} in_j (or (D^dag)_{p,p'} in_j = -D_{p,p'} in_j), the
// operator of reference/staggered/staggered_dslash.h restricted to one parity (ApplyStaggeredDslashParity).
//
// Host-only header (no CUDA types). The kernel and its mapping: staggered_dslash.cu. Links: fat links F and
// long links L (absent: naive) in the fields' precision, 18 reals each (neither is SU(3): fat links are sums of
// paths, HISQ's Naik links are c_naik times a U(3) product; their 13- and 9-number forms,
// reference/staggered/u3_compression.h, are not implemented on the GPU yet). Double and single precision.
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

namespace lqcd::gpu {

// The staggered links on the device: F and, for improved actions, L.
class DeviceStaggeredLinks {
 public:
  // Checks the links (reference RequireUsableLinks) and uploads them in `precision` (double or single).
  DeviceStaggeredLinks(const StaggeredLinks<double>& links, Precision precision);

  const Lattice& lattice() const { return fat_.lattice(); }
  Precision precision() const { return fat_.layout().precision; }
  const DeviceGaugeField& fat() const { return fat_; }
  const DeviceGaugeField* long_links() const { return long_links_.get(); }  // null: naive
  bool improved() const { return long_links_ != nullptr; }

 private:
  DeviceGaugeField fat_;
  std::unique_ptr<DeviceGaugeField> long_links_;
};

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

// Flops and the kernel's byte model of one call on n right-hand sides (staggered_dslash_cost.h).
KernelCost StaggeredDslashKernelCost(const DeviceStaggeredLinks& links, int rhs);

}  // namespace lqcd::gpu
