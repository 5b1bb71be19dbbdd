// wilson_dslash_launch.h: the plain-struct interface between the host API (wilson_dslash.h, which has
// validated everything) and the CUDA launchers, one per precision (wilson_dslash_{double,single,half}.cu).
// Internal to gpu/; no CUDA or Eigen types.
#pragma once

#include <array>

#include "gpu/clover_view.h"
#include "gpu/field_views.h"

namespace lqcd::gpu {

// What a Dslash launch does with D in at each output site before storing it, with D the hopping term
// D_{p,p'} from in's parity p' to out's parity p (or its dagger) and C the clover view's T_pp or T_pp^{-1}.
enum class DslashEpilogue {
  kNone,        // out = D in
  kXpay,        // out = a x + b D in
  kClover,      // out = C D in                  (even-odd clover: T^{-1} D in)
  kCloverXpay,  // out = a C x + b D in          (clover M = T - D/2; the Schur complement T - D T^{-1} D / 4)
  kXpayClover,  // out = a x + b C D in          (the unit-diagonal form 1 - T^{-1} D T^{-1} D / 4)
  kXpayDotNorm,  // out = a x + b D in, and per 32 consecutive output sites (out, w) and |out|^2 of the stored
                 // out into `partials` (the dot products BiCGstab needs after an M_pp application)
  kXpayAxpyNorm,  // q = a x + b D in, then out = out + c q with c = *axpy_coefficient (a value on the device), and
                  // per 32 consecutive output sites |out|^2 of the stored out into `partials` (as kXpayDotNorm's
                  // third number; the dot slots hold 0): CG's r -= alpha M^dag M p without storing M^dag M p
  kCloverXpayDotNorm,  // kCloverXpay with kXpayDotNorm's sums (the clover Schur complement's fused dot products)
  kXpayCloverDotNorm,  // kXpayClover with kXpayDotNorm's sums (the unit-diagonal form's)
  kCloverXpayAxpyNorm,  // q = a C x + b D in (kCloverXpay), then kXpayAxpyNorm's update of out: the clover Schur
                        // complement's CG step (D^dag)
};
// The epilogues that also sum (out, w) and |out|^2 of the stored out per kDotNormGroup sites.
constexpr bool SumsDotNorm(DslashEpilogue e) {
  return e == DslashEpilogue::kXpayDotNorm || e == DslashEpilogue::kCloverXpayDotNorm ||
         e == DslashEpilogue::kXpayCloverDotNorm;
}
// The epilogues that add c q to out instead of storing q, summing |out|^2.
constexpr bool UpdatesWithAxpyNorm(DslashEpilogue e) {
  return e == DslashEpilogue::kXpayAxpyNorm || e == DslashEpilogue::kCloverXpayAxpyNorm;
}
// The plain epilogue a fused one forms before its sums or its update (kXpay, kCloverXpay, kXpayClover); any other
// epilogue itself.
constexpr DslashEpilogue PlainForm(DslashEpilogue e) {
  switch (e) {
    case DslashEpilogue::kXpayDotNorm:
    case DslashEpilogue::kXpayAxpyNorm: return DslashEpilogue::kXpay;
    case DslashEpilogue::kCloverXpayDotNorm:
    case DslashEpilogue::kCloverXpayAxpyNorm: return DslashEpilogue::kCloverXpay;
    case DslashEpilogue::kXpayCloverDotNorm: return DslashEpilogue::kXpayClover;
    default: return e;
  }
}
// The dot-norm form of kXpay, kCloverXpay or kXpayClover (kNone for the others, which have none).
constexpr DslashEpilogue DotNormForm(DslashEpilogue e) {
  switch (e) {
    case DslashEpilogue::kXpay: return DslashEpilogue::kXpayDotNorm;
    case DslashEpilogue::kCloverXpay: return DslashEpilogue::kCloverXpayDotNorm;
    case DslashEpilogue::kXpayClover: return DslashEpilogue::kXpayCloverDotNorm;
    default: return DslashEpilogue::kNone;
  }
}
// The axpy-norm form of kXpay or kCloverXpay (kNone for the others, which have none).
constexpr DslashEpilogue AxpyNormForm(DslashEpilogue e) {
  switch (e) {
    case DslashEpilogue::kXpay: return DslashEpilogue::kXpayAxpyNorm;
    case DslashEpilogue::kCloverXpay: return DslashEpilogue::kCloverXpayAxpyNorm;
    default: return DslashEpilogue::kNone;
  }
}
constexpr bool UsesClover(DslashEpilogue e) {
  const DslashEpilogue s = PlainForm(e);
  return s == DslashEpilogue::kClover || s == DslashEpilogue::kCloverXpay || s == DslashEpilogue::kXpayClover;
}
constexpr bool UsesX(DslashEpilogue e) {
  const DslashEpilogue s = PlainForm(e);
  return s == DslashEpilogue::kXpay || s == DslashEpilogue::kCloverXpay || s == DslashEpilogue::kXpayClover;
}
// The epilogues that write kDotNormGroup partial sums.
constexpr bool WritesPartials(DslashEpilogue e) { return SumsDotNorm(e) || UpdatesWithAxpyNorm(e); }
// Sites per partial sum of kXpayDotNorm: one warp, summed in a fixed shuffle tree, so the partials and their
// order depend only on the site numbering, not on the tuned block size (a multiple of 32).
inline constexpr int kDotNormGroup = 32;

// Right-hand sides of one multi-RHS launch at most (multi_rhs_dslash_launch.h); the host API splits larger
// blocks into launches of at most this many, and WilsonDslashCost counts the links once per launch. 16 keeps
// the kernel's argument struct small (three accessors per right-hand side) and the threads of one site's
// right-hand sides within one block.
inline constexpr int kMaxRhsPerLaunch = 16;

inline const char* ToString(DslashEpilogue e) {
  switch (e) {
    case DslashEpilogue::kNone: return "none";
    case DslashEpilogue::kXpay: return "xpay";
    case DslashEpilogue::kClover: return "clover";
    case DslashEpilogue::kCloverXpay: return "clover-xpay";
    case DslashEpilogue::kXpayClover: return "xpay-clover";
    case DslashEpilogue::kXpayDotNorm: return "xpay-dotnorm";
    case DslashEpilogue::kXpayAxpyNorm: return "xpay-axpynorm";
    case DslashEpilogue::kCloverXpayDotNorm: return "clover-xpay-dotnorm";
    case DslashEpilogue::kXpayCloverDotNorm: return "xpay-clover-dotnorm";
    case DslashEpilogue::kCloverXpayAxpyNorm: return "clover-xpay-axpynorm";
  }
  return "unknown";
}

// Which sites a partitioned Dslash launch computes (partitioned_dslash.h): the interior, whose hops all
// stay on this rank, while the faces travel; then the exterior, every site with a hop into a ghost zone,
// listed in exterior_sites. Each site is computed whole by one of the two launches, with the hops in the
// order of the unpartitioned kernel, so the result is bit for bit that kernel's.
enum class DslashRegion { kInterior, kExterior };

// The ghost zones of one rank's sub-lattice (halo.cuh has the formats): per direction mu and side
// (0 backward, 1 forward) the input-parity sites one step beyond that face, and per direction the links
// U_mu of the sites beyond the backward face (both parities).
struct DslashHaloView {
  std::array<bool, 4> partitioned{};                 // hops across these faces read ghosts
  std::array<std::array<bool, 2>, 4> global_face{};  // [mu][side]: this face is on the global boundary
  std::array<std::array<ConstSpinorView, 2>, 4> ghost{};  // [mu][side]; stride = face sites per parity
  std::array<const void*, 4> ghost_links{};
  int face_sites[4] = {0, 0, 0, 0};                  // per parity, = the ghosts' strides
  DslashRegion region = DslashRegion::kInterior;
  const int* exterior_sites = nullptr;               // checkerboard indices (kExterior)
  int exterior_count = 0;
};

struct WilsonDslashLaunch {
  SpinorView out;
  ConstSpinorView in;
  ConstSpinorView x;  // epilogues with x only
  GaugeView gauge;
  CloverView clover;  // clover epilogues only
  ConstSpinorView w;  // kXpayDotNorm only: the second field of the dot product
  double* partials = nullptr;  // WritesPartials: 3 doubles (Re, Im (out, w), |out|^2) per group of sites
  const double* axpy_coefficient = nullptr;  // UpdatesWithAxpyNorm only: c, on the device (read by every thread)
  bool dagger = false;
  DslashEpilogue epilogue = DslashEpilogue::kNone;
  double a = 0, b = 0;
  // Per direction: true where a hop that wraps around the lattice takes a factor -1 (antiperiodic).
  std::array<bool, 4> antiperiodic{false, false, false, true};
  // A partitioned launch (one region of it), or null.
  const DslashHaloView* halo = nullptr;
  // The stream to launch on (a cudaStream_t; null: the default stream).
  void* stream = nullptr;
};

// The epilogues kNone and kXpay (wilson_dslash_{double,single,half}.cu).
void LaunchWilsonDslashDouble(const WilsonDslashLaunch& launch);
void LaunchWilsonDslashSingle(const WilsonDslashLaunch& launch);
void LaunchWilsonDslashHalf(const WilsonDslashLaunch& launch);
// The clover epilogues (clover_dslash_{double,single,half}.cu).
void LaunchCloverDslashDouble(const WilsonDslashLaunch& launch);
void LaunchCloverDslashSingle(const WilsonDslashLaunch& launch);
void LaunchCloverDslashHalf(const WilsonDslashLaunch& launch);

}  // namespace lqcd::gpu
