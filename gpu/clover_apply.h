// clover_apply.h: the clover term on the GPU, out = T in or out = T^{-1} in on one parity of device spinor fields
// (T(n) = (4 + m) + A(n), reference/clover.h), and its cost model.
//
// Host-only header (no CUDA types). The device spinors are in the UKQCD basis and the clover field holds the
// DeGrand-Rossi chiral blocks; the kernel rotates each site to the chiral basis and back (clover_accessor.cuh),
// so the result is S T_DR S in = T_UKQCD in, what reference/clover.h's CloverField applies in the UKQCD basis.
//
//   ApplyCloverTerm(out view, clover, in view, inverse)   out_p = T_pp in_p (or T_pp^{-1} in_p), p = in's parity
//   ApplyCloverTerm(out field, clover, in field, inverse)  the same on every parity the fields hold (both
//                                                          single-parity fields of one parity, or both full)
// Site-local, so out may be the same memory as in (the tuner then saves and restores it while timing).
// Arguments are checked before any work (std::invalid_argument naming the problem): out and in on the parity,
// lattice and precision of each other and of the clover field (spinors and clover in one precision: the kernel
// computes in that precision's arithmetic, half in float), layouts and memory present. CUDA failures throw
// CudaError. Calls are asynchronous (queued on the default stream), like any kernel launch.
//
// Cost model, per site (the paper's conventions: complex multiply 6 flops, complex add 2):
//   flops:         504 for the two Hermitian 6x6 blocks (kCloverFlopsPerSite of reference/clover.h);
//                  the basis change is stated separately: 24 additions into the chiral basis, 24 out = 48
//                  (half also scales the 12 results of each block by its norm, 24 multiplications, not counted,
//                  as the Dslash counts no reconstruction work)
//   bytes:         72 clover reals + 24 spinor reals in + 24 out, reals of 8, 4 or 2 bytes; half adds 2 clover
//                  norms and 2 spinor norms of 4 bytes: 960 (double), 480 (single), 256 (half)
//   minimum bytes: the same (every byte is read or written once)
#pragma once

#include "gpu/device_clover_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/field_views.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

inline constexpr double kCloverBasisChangeFlopsPerSite = 48;

struct CloverApplyKernelCost {
  double flops = 0;               // 504 per site
  double basis_change_flops = 0;  // 48 per site, not in `flops`
  double bytes = 0;               // the kernel's loads and stores
  double minimum_bytes = 0;       // each clover, input and output byte once (equal to bytes here)
};

// Cost of one call on one parity (V/2 sites) of a lattice with these extents.
CloverApplyKernelCost CloverApplyCost(Precision precision, const Extents& extents);

void ApplyCloverTerm(const SpinorView& out, const DeviceCloverField& clover, const ConstSpinorView& in, bool inverse);
void ApplyCloverTerm(DeviceSpinorField& out, const DeviceCloverField& clover, const DeviceSpinorField& in, bool inverse);

}  // namespace lqcd::gpu
