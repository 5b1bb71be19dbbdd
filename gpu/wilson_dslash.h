// wilson_dslash.h: the Wilson hopping term D (the paper's "Dslash", Eq. (1)) on the GPU, between the two
// parities of device spinor fields, and its cost model.
//
// Host-only header (no CUDA types). Computes, in the UKQCD basis the device fields hold,
//     ApplyWilsonDslash:      out_p = D_{p,p'} in_{p'}                (or D^dag)
//     ApplyWilsonDslashXpay:  out_p = a x_p + b D_{p,p'} in_{p'}      (or with D^dag)
//     ApplyCloverDslash:      with a clover epilogue (C = a clover view's T_pp or T_pp^{-1}, clover_view.h):
//                             out_p = C D in  |  a C x_p + b D in  |  a x_p + b C D in   (the last for D only)
// with D exactly as reference/wilson.h defines it (projectors 1 -+ gamma_mu on forward/backward hops,
// hops wrapping around an antiperiodic direction times -1), p = out's parity, p' = in's parity.
// The kernel variant follows from the arguments: precision (of all fields), the gauge field's
// reconstruction and temporal gauge fixing, dagger, xpay. See wilson_dslash_kernel.cuh.
//
// Arguments are checked (std::invalid_argument, naming the problem): every field on the same lattice and
// in the same precision, out and in on opposite parities, x on out's parity, out distinct from in,
// finite a and b. out may be the same memory as x (out = a out + b D in). CUDA failures throw CudaError.
// Calls are asynchronous (queued on the default stream), like any kernel launch.
//
// Cost model, per output site (the paper's conventions):
//   flops: 1320 per Dslash; xpay adds 48 (a x + b y on 24 reals); a clover product C psi adds 504 (two
//   Hermitian 6x6 blocks, reference/clover.h), so C D in costs 1824 and the two clover-xpay forms 1872.
//   Reconstruction work and the clover epilogue's chiral rotation (clover_accessor.cuh) are not counted.
//   bytes (what the kernel loads and stores):
//     spinor reads   6 spatial hops x 24 reals + 2 temporal hops x 12 reals (UKQCD: half spinors)
//                    (+ 8 norms of 4 bytes in half precision)
//     gauge reads    6 spatial links x R reals + 2 t-links x R reals, R = 18, 12 or 8; with temporal gauge
//                    fixing the t-links are read only on the boundary slices: 2 R / Lt on average
//     output         24 reals (+ 1 norm in half); xpay reads x: 24 reals (+ 1 norm)
//     clover         72 reals (+ 2 norms in half) for the clover epilogues
//   minimum bytes (the roofline's: every link, input spinor and output spinor moved once):
//     8 R reals of links per output site (4 V links, V/2 output sites; 6 R + 2 R / Lt with gauge fixing),
//     24 reals in, 24 out (+24 for x, +72 for the clover term), + norms in half.
//   Reals are 8, 4 or 2 bytes.
#pragma once

#include <string>

#include "gpu/clover_view.h"
#include "gpu/device_gauge_field.h"
#include "gpu/field_views.h"
#include "gpu/kernel_cost.h"
#include "gpu/wilson_dslash_launch.h"  // DslashEpilogue
#include "gpu/precision.h"
#include "reference/fermion_boundary.h"
#include "reference/wilson.h"  // enum Dagger only; the device code shares nothing else with the oracle

namespace lqcd::gpu {

inline constexpr double kDslashFlopsPerSite = 1320;
inline constexpr double kXpayFlopsPerSite = 48;

inline constexpr double kCloverFlopsPerSiteOnDevice = 504;  // C psi: two Hermitian 6x6 blocks

struct DslashVariant {
  Precision precision = Precision::kDouble;
  Reconstruct reconstruct = Reconstruct::k18;
  bool temporal_gauge_fixed = false;
  Dagger dagger = Dagger::kNo;
  bool xpay = false;
  DslashEpilogue clover_epilogue = DslashEpilogue::kNone;  // kClover, kCloverXpay or kXpayClover (xpay then unused)
  std::string Name() const;  // e.g. "single/12/gf/dagger/xpay", "half/8/clover-xpay"
};

// Cost of one call on one parity (V/2 output sites) of a lattice with these extents; with rhs > 1, of one
// multi-RHS call (multi_rhs_dslash.h) on rhs right-hand sides: flops and spinor bytes rhs times, links (and
// clover term) once per launch, i.e. once for every kMaxRhsPerLaunch right-hand sides or fewer.
KernelCost WilsonDslashCost(const DslashVariant& variant, const Extents& extents, int rhs = 1);

void ApplyWilsonDslash(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in, Dagger dagger,
                       const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

void ApplyWilsonDslashXpay(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                           Dagger dagger, const ConstSpinorView& x, double a, double b,
                           const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

// ApplyWilsonDslashXpay (D, not D^dag) that also writes, per group of kDotNormGroup = 32 consecutive output
// sites, Re (out, w), Im (out, w) and |out|^2 of the STORED out into partials[3 g .. 3 g + 2] (double
// accumulation, fixed order: each group is one warp summed in a fixed shuffle tree), ceil(sites / 32) groups;
// blas::SumDotNormPartials adds them up. w: a field on out's parity, not out itself. One GPU only (a
// partitioned Dslash has no such epilogue).
void ApplyWilsonDslashXpayDotNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                                  const ConstSpinorView& x, double a, double b, const ConstSpinorView& w,
                                  double* partials, const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

// out = out + c q with q = a x + b D^dag in (D^dag, not D) and c = *coefficient, a double on the device (read
// when the kernel runs: a value computed there by earlier kernels), and per group of kDotNormGroup consecutive
// output sites |out|^2 of the STORED new out into partials[3 g + 2] (partials[3 g], [3 g + 1] = 0; accumulated
// as ApplyWilsonDslashXpayDotNorm's); q is not stored. c q and the sum are formed in out's precision's Real, as
// blas::AxpyNorm forms y + a x. CG's r -= alpha M^dag (M p) in the kernel of M^dag's second Dslash. One GPU only.
void ApplyWilsonDslashDaggerXpayAxpyNorm(const SpinorView& out, const DeviceGaugeField& gauge,
                                         const ConstSpinorView& in, const ConstSpinorView& x, double a, double b,
                                         const double* coefficient, double* partials,
                                         const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

// The clover epilogue of ApplyCloverDslash: kind kClover (x, a, b unused), kCloverXpay or kXpayClover
// (D only). The clover view must be on out's parity, in the fields' precision and lattice.
struct CloverEpilogue {
  DslashEpilogue kind = DslashEpilogue::kClover;
  CloverView clover;
  ConstSpinorView x;
  double a = 0, b = 0;
};
void ApplyCloverDslash(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in, Dagger dagger,
                       const CloverEpilogue& epilogue,
                       const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());
// ApplyCloverDslash (D, not D^dag) with kind kCloverXpay or kXpayClover that also writes the partial sums of
// ApplyWilsonDslashXpayDotNorm: per group of kDotNormGroup consecutive output sites Re (out, w), Im (out, w) and
// |out|^2 of the STORED out (the clover Schur operators' fused BiCGstab dot products). w: on out's parity, not out
// itself. One GPU only.
void ApplyCloverDslashDotNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                              const CloverEpilogue& epilogue, const ConstSpinorView& w, double* partials,
                              const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

// out = out + c q with q = a C x + b D^dag in (the clover-xpay epilogue `epilogue`, D^dag) and c = *coefficient on
// the device, summing |out|^2 of the STORED new out as ApplyWilsonDslashDaggerXpayAxpyNorm does (q not stored):
// CG's r -= alpha S^dag (S p) in the kernel of the clover Schur complement's second dagger Dslash. One GPU only.
void ApplyCloverDslashDaggerAxpyNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                                     const CloverEpilogue& epilogue, const double* coefficient, double* partials,
                                     const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

// For the partitioned Dslash (partitioned_dslash.h), which launches the kernel twice per call with its halo:
// the checked launch of ApplyWilsonDslash (x = nullptr) or ApplyWilsonDslashXpay, or of ApplyCloverDslash
// (errors as there, `where` naming the caller), and the dispatch of a launch to its precision's kernels.
WilsonDslashLaunch CheckedWilsonDslashLaunch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge,
                                             const ConstSpinorView& in, Dagger dagger, const ConstSpinorView* x,
                                             double a, double b, const FermionBoundary& boundary);
WilsonDslashLaunch CheckedCloverDslashLaunch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge,
                                             const ConstSpinorView& in, Dagger dagger, const CloverEpilogue& epilogue,
                                             const FermionBoundary& boundary);
void LaunchWilsonDslash(const WilsonDslashLaunch& launch);
// The dot-norm form of a checked launch of kXpay, kCloverXpay or kXpayClover (D): w checked as
// ApplyWilsonDslashXpayDotNorm and ApplyCloverDslashDotNorm check it (a field of out's precision, lattice and
// parity, not out), then w and partials attached. The multi-RHS calls attach it to each right-hand side's launch.
WilsonDslashLaunch WithDotNorm(const char* where, WilsonDslashLaunch launch, const ConstSpinorView& w,
                               double* partials);

}  // namespace lqcd::gpu
