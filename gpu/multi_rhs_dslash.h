// multi_rhs_dslash.h: the Wilson hopping term D on the GPU applied to n right-hand sides at once, each link
// read from memory once per site for all of them (multi_rhs_dslash_kernel.cuh), and its cost model.
//
// Host-only header (no CUDA types). For j < n, with the fields of wilson_dslash.h:
//     ApplyWilsonDslashBlock:      out[j] = D_{p,p'} in[j]                (or D^dag)
//     ApplyWilsonDslashXpayBlock:  out[j] = a x[j] + b D_{p,p'} in[j]     (or with D^dag), the same a, b for all j
//     ApplyCloverDslashBlock:      with a clover epilogue, C = the clover view's T_pp or T_pp^{-1} (clover_view.h),
//                                  the same C, a, b for all j:
//                                    kClover      out[j] = C D in[j]             (even-odd clover: T^{-1} D in)
//                                    kCloverXpay  out[j] = a C x[j] + b D in[j]  (Schur complement: T in - D t / 4)
//                                    kXpayClover  out[j] = a x[j] + b C D in[j]  (D only; the unit-diagonal form)
//     ApplyWilsonDslashXpayDotNormBlock, ApplyCloverDslashDotNormBlock: the xpay and the two clover-xpay forms
//                                  (D only) with the per-right-hand-side partial sums of (out[j], w[j]), |out[j]|^2
//                                  (BiCGstab's dot products fused into the operator's second Dslash)
// Each out[j] is computed by the formula of ApplyWilsonDslash / ApplyWilsonDslashXpay / ApplyCloverDslash in the
// same order (so within the same error bound; the compiler may contract products into fma differently in the two
// kernels, so the bits may differ). Blocks of more than kMaxRhsPerLaunch = 16 are applied in launches of at most 16;
// a launch of one right-hand side (n = 1, or the last of 17) goes to the single-RHS kernel, which is faster
// when there is nothing to share, unless the mapping is pinned.
//
// Arguments are checked (std::invalid_argument, naming the problem and the right-hand side) before anything is
// launched: every field as for the single-RHS call (wilson_dslash.h; for the clover forms also the clover view:
// its precision and lattice those of the fields, on out's parity, a sound layout, norms in half; a clover
// epilogue kind, and kXpayClover with D only), n >= 1, equal lengths (x: n fields for the epilogues with x, none
// for kClover), all out[j] on one parity and all in[j] on the other, no out[j] the same memory as another out,
// any in, or another right-hand side's x (out[j] may be x[j]: out = a out + b D in, or a C out + b D in).
// Fields may have different paddings. Asynchronous.
//
// Cost model of one call on n right-hand sides (V/2 output sites each), with the terms of WilsonDslashCost:
//   flops   n x the single-RHS flops;
//   bytes   the links (and the clover term) once per site and launch (not once per right-hand side; a launch
//           takes at most kMaxRhsPerLaunch) + n x the single-RHS spinor traffic;
//   minimum the links (and the clover term) once per launch + n x (each input and output spinor once, + x).
// WilsonDslashCost(variant, extents, n) in wilson_dslash.h computes it.
#pragma once

#include <vector>

#include "gpu/clover_view.h"
#include "gpu/device_gauge_field.h"
#include "gpu/field_views.h"
#include "gpu/multi_rhs_dslash_launch.h"
#include "gpu/wilson_dslash.h"
#include "reference/fermion_boundary.h"
#include "reference/wilson.h"

namespace lqcd::gpu {

// How the kernel maps right-hand sides onto threads: 0 lets the tuner choose (the default); 1, 2 or 4 (1 or 2 in
// double and with the clover epilogues) pins the right-hand sides per thread, for benchmarks that measure each
// mapping.
struct MultiRhsMapping {
  int rhs_per_thread = 0;
};

void ApplyWilsonDslashBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                            const std::vector<ConstSpinorView>& in, Dagger dagger,
                            const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                            MultiRhsMapping mapping = {});

void ApplyWilsonDslashXpayBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                const std::vector<ConstSpinorView>& in, Dagger dagger,
                                const std::vector<ConstSpinorView>& x, double a, double b,
                                const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                                MultiRhsMapping mapping = {});

// ApplyWilsonDslashXpayBlock (D, not D^dag) that also writes, for each right-hand side j and each group g of
// kDotNormGroup = 32 consecutive output sites, Re (out[j], w[j]), Im (out[j], w[j]) and |out[j]|^2 of the STORED
// out[j] into partials[3 (j G + g) .. 3 (j G + g) + 2], G = ceil(sites / 32): for each j the partials that
// ApplyWilsonDslashXpayDotNorm writes (the same sums in the same order, whatever the mapping or block shape), so
// blas::SumDotNormPartials(partials + 3 j G, G) gives right-hand side j's (out, w) and |out|^2. BiCGstab's fused
// dot products on a block. w[j]: on the outputs' parity, in their precision and lattice, and no output's memory.
// partials: device memory for n G x 3 doubles.
void ApplyWilsonDslashXpayDotNormBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                       const std::vector<ConstSpinorView>& in, const std::vector<ConstSpinorView>& x,
                                       double a, double b, const std::vector<ConstSpinorView>& w, double* partials,
                                       const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                                       MultiRhsMapping mapping = {});

// The clover epilogue of ApplyCloverDslashBlock: wilson_dslash.h's CloverEpilogue with one x per right-hand side.
struct CloverBlockEpilogue {
  DslashEpilogue kind = DslashEpilogue::kClover;  // kClover, kCloverXpay or kXpayClover
  CloverView clover;                               // C, on out's parity, shared by every right-hand side
  std::vector<ConstSpinorView> x;                  // x[j] (kCloverXpay, kXpayClover); empty for kClover
  double a = 0, b = 0;
};

void ApplyCloverDslashBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                            const std::vector<ConstSpinorView>& in, Dagger dagger, const CloverBlockEpilogue& epilogue,
                            const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                            MultiRhsMapping mapping = {});

// ApplyCloverDslashBlock (D, not D^dag) with kind kCloverXpay or kXpayClover that also writes, for each right-hand
// side j, the partial sums of ApplyWilsonDslashXpayDotNormBlock (the layout and the rules for w and partials as
// there): the clover Schur operators' fused BiCGstab dot products on a block.
void ApplyCloverDslashDotNormBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                   const std::vector<ConstSpinorView>& in, const CloverBlockEpilogue& epilogue,
                                   const std::vector<ConstSpinorView>& w, double* partials,
                                   const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                                   MultiRhsMapping mapping = {});

}  // namespace lqcd::gpu
