// wilson_dslash_kernel.cuh: the Wilson hopping term of the paper's Eq. (1) on one parity, in the UKQCD
// basis, one thread per output site: the argument struct, the per-site computation and the kernel.
//
// Device-side header (included by the launchers wilson_dslash_{double,single,half}.cu).
//
// Computes, for every site n of the output parity,
//     (D psi)(n) = sum_mu [ P^{-s}_mu U_mu(n) psi(n + mu) + P^{+s}_mu U_mu(n - mu)^dag psi(n - mu) ],
//     P^{+-}_mu = 1 +- gamma_mu,   s = +1 (D) or -1 (D^dag: the projectors swap),
// times -1 for hops that wrap around an antiperiodic direction, and optionally out = a x + b D psi.
//
// The UKQCD basis (docs/conventions.md): gamma_4 = diag(1, 1, -1, -1) and, in 2x2 spin blocks,
//     gamma_k = [[0, A_k], [A_k^dag, 0]],   A_1 = -i sigma_x,  A_2 = i sigma_y,  A_3 = -i sigma_z,
// so each row of A_k has a single entry, a power of i. For a spinor with upper spins u and lower l,
//     (1 + s gamma_k) psi = ( h , s A_k^dag h ),   h = u + s A_k l,
// hence each spatial hop projects to the half spinor h (2 spins x 3 colours), multiplies it by the link
// (two colour mat-vecs instead of four) and rebuilds the lower spins from the product with no flops.
// The temporal projectors are diagonal: 1 + gamma_4 = diag(2, 2, 0, 0) keeps the upper spins,
// 1 - gamma_4 = diag(0, 0, 2, 2) the lower ones, so only those 12 reals of the neighbour are loaded.
// With temporal gauge fixing, U_t = 1 except on the last time slice: the t-link is loaded only for the
// forward hop from t = Lt - 1 and the backward hop from t = 0, and the product is skipped elsewhere.
//
// Every hop, in every precision, is one line of the formula:
//     out += k * U * h,   h = the neighbour's projection, U = the link (or U^dag), k = the hop's coefficient:
// half precision computes on its stored levels and carries the neighbour's scale, the link's unit and the
// boundary sign in k (DslashArithmetic); on values k is 1 and the sign of a hop that wraps around an
// antiperiodic direction is put on h (HopCoefficient). The stencil sees fields only
// through SpinorAccessor / GaugeAccessor (precision, layout and the 18/12/8 link forms live there);
// arithmetic is in the accessors' Real (double, or float for single and half).
//
// Partitioned variants (one rank's sub-lattice of a process grid; DslashSites): one launch computes the
// interior sites, a second the exterior ones. The interior launch is the unpartitioned code that skips the
// exterior sites: none of its hops crosses a partitioned face, so it carries no ghost code (registers). In
// the exterior launch (kReadsGhosts) a hop across a partitioned face reads the neighbour from the ghost zone
// instead (halo.cuh: the same numbers, already projected in double and single), the link of a backward hop
// from the link ghost, and the antiperiodic sign and the gauge-fixed t-links apply only where the face is on
// the global boundary. Everything else is the code above.
#pragma once

#include <type_traits>
#include <utility>

#include "gpu/checkerboard.cuh"
#include "gpu/clover_accessor.cuh"
#include "gpu/gauge_accessor.cuh"
#include "gpu/halo.cuh"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"
#include "gpu/wilson_dslash_launch.h"

namespace lqcd::gpu {

// How a kernel computes with what it loads.
//   kValues  on the loaded values: the only form for double and single (whose stored numbers are the
//            values), and half's plain form (the teaching ladder's rung 9a);
//   kLevels  half only, the production form: on the stored 16-bit levels. A neighbour is projected in
//            integers (exact) and converted once, the link is used in its own units (gauge_accessor.cuh,
//            LoadRaw), and the neighbour's scale times the link's unit becomes the hop's coefficient, applied
//            in the fused multiply-add that accumulates the hop; with 12 or 8 reals also checkerboard
//            indices by multiply-high division (checkerboard.cuh) and colour products as fma chains
//            (register_types.cuh, FusedDot3). Half with 18 reals measured fastest without the last two
//            (docs/gpu_results.md, "Half precision: where the time goes").
enum class DslashArithmetic { kValues, kLevels };
constexpr DslashArithmetic ProductionArithmetic(Precision p) {
  return p == Precision::kHalf ? DslashArithmetic::kLevels : DslashArithmetic::kValues;
}

// The multiply-high divisors where the arithmetic uses them, else an empty base, so that the argument
// struct (and hence the generated code) of the other variants is the same as without them.
template <bool kFastIndexing>
struct DslashDivisors {};
template <>
struct DslashDivisors<true> {
  CheckerboardDivisors divisors;  // of the extents
};

// The clover field of the clover epilogues (T_pp or T_pp^{-1} on the output parity), else nothing.
template <Precision P, bool kWithClover>
struct DslashCloverTerm {};
template <Precision P>
struct DslashCloverTerm<P, true> {
  CloverAccessor<P> clover;
};

// The second field and the partial sums of the dot-norm epilogues (SumsDotNorm), else nothing.
template <Precision P, bool kWithDotNorm>
struct DslashDotNorm {};
template <Precision P>
struct DslashDotNorm<P, true> {
  SpinorAccessor<P> w;
  double* partials;  // 3 per group of kDotNormGroup sites: Re (out, w), Im (out, w), |out|^2
};

// The coefficient and the partial sums of the axpy-norm epilogues (UpdatesWithAxpyNorm), else nothing.
template <bool kWithAxpyNorm>
struct DslashAxpyNorm {};
template <>
struct DslashAxpyNorm<true> {
  const double* coefficient;  // c of out = out + c q, on the device
  double* partials;           // 3 per group of kDotNormGroup sites: 0, 0, |out|^2
};

// Which sites a launch computes: all (one GPU), or one region of a partitioned Dslash (wilson_dslash_launch.h's
// DslashRegion).
enum class DslashSites { kAll, kInterior, kExterior };

// What a region needs: the interior, which directions are partitioned (to skip the exterior sites); the
// exterior, the ghost zones (halo.cuh).
template <Precision P, Reconstruct R, DslashSites kSites>
struct DslashHalo {};
template <Precision P, Reconstruct R>
struct DslashHalo<P, R, DslashSites::kInterior> {
  DslashInteriorArg interior;
};
template <Precision P, Reconstruct R>
struct DslashHalo<P, R, DslashSites::kExterior> {
  DslashHaloArg<P, R> halo;
};

constexpr bool UsesFastIndexing(DslashArithmetic a, Reconstruct r) {
  return a == DslashArithmetic::kLevels && r != Reconstruct::k18;
}

// Everything one Dslash launch needs. The template parameters fix the variant at compile time.
template <Precision P, Reconstruct R, bool kGaugeFixedFlag, bool kDaggerFlag, DslashEpilogue kEpilogueKind,
          DslashArithmetic kArithmetic = ProductionArithmetic(P), DslashSites kSitesKind = DslashSites::kAll>
struct WilsonDslashArg : DslashDivisors<UsesFastIndexing(kArithmetic, R)>,
                         DslashCloverTerm<P, UsesClover(kEpilogueKind)>,
                         DslashDotNorm<P, SumsDotNorm(kEpilogueKind)>,
                         DslashAxpyNorm<UpdatesWithAxpyNorm(kEpilogueKind)>,
                         DslashHalo<P, R, kSitesKind> {
  static_assert(kArithmetic == DslashArithmetic::kValues || P == Precision::kHalf, "levels exist in half only");
  using Real = typename SpinorStorage<P>::Real;
  static constexpr Precision kPrecision = P;
  static constexpr Reconstruct kReconstruct = R;
  static constexpr bool kOnLevels = kArithmetic == DslashArithmetic::kLevels;
  static constexpr bool kFastIndexing = UsesFastIndexing(kArithmetic, R);  // divisors and fma-chain products
  static constexpr bool kGaugeFixed = kGaugeFixedFlag;  // skip unit t-links (temporal gauge)
  static constexpr bool kDagger = kDaggerFlag;          // D^dag instead of D
  static constexpr DslashEpilogue kEpilogue = kEpilogueKind;
  static constexpr DslashSites kSites = kSitesKind;
  static constexpr bool kReadsGhosts = kSitesKind == DslashSites::kExterior;  // ghost zones (halo.cuh)
  // The unit of the links the stencil multiplies with: LoadRaw's on levels, else 1 (values).
  static constexpr Real kLinkUnit = kOnLevels ? GaugeAccessor<P, R>::kRawUnit : Real(1);

  SpinorAccessor<P> out;
  SpinorAccessor<P> in;  // read only (the accessor type is shared with the writable output)
  SpinorAccessor<P> x;   // read only; the x of the epilogues that have one
  GaugeAccessor<P, R> gauge;
  int extents[4];        // Lx, Ly, Lz, Lt
  int sites;             // output sites, one thread each: V / 2 (a partitioned exterior: its site count)
  int parity;            // of the output sites
  bool antiperiodic[4];  // hops wrapping around direction mu take a factor -1
  Real a, b;             // the epilogue's coefficients
};

// One row of a 2x2 spin block with a single non-zero entry i^power in column `column`.
struct SpinBlockRow {
  int column;
  int power;
};

// A_mu (upper-right block of gamma_mu in the UKQCD basis) and A_mu^dag, row by row, mu = 0, 1, 2.
//   A_1 = -i sigma_x = [[0, -i], [-i, 0]]   A_1^dag = [[0, i], [i, 0]]
//   A_2 =  i sigma_y = [[0,  1], [-1, 0]]   A_2^dag = [[0, -1], [1, 0]]
//   A_3 = -i sigma_z = [[-i, 0], [0,  i]]   A_3^dag = [[i, 0], [0, -i]]
// (powers of i: 0 = 1, 1 = i, 2 = -1, 3 = -i).
constexpr SpinBlockRow UpperBlockRow(int mu, int row) {
  constexpr SpinBlockRow table[3][2] = {{{1, 3}, {0, 3}}, {{1, 0}, {0, 2}}, {{0, 3}, {1, 1}}};
  return table[mu][row];
}
constexpr SpinBlockRow LowerBlockRow(int mu, int row) {
  constexpr SpinBlockRow table[3][2] = {{{1, 1}, {0, 1}}, {{1, 2}, {0, 0}}, {{0, 1}, {1, 3}}};
  return table[mu][row];
}

// h = u + s A_mu l: the upper half of (1 + s gamma_mu) psi. Exact (additions only).
template <int mu, int sign, typename Real>
__device__ __forceinline__ HalfSpinor<Real> ProjectSpatial(const ColorSpinor<Real>& psi) {
  constexpr SpinBlockRow row0 = UpperBlockRow(mu, 0), row1 = UpperBlockRow(mu, 1);
  constexpr int power0 = (row0.power + (sign < 0 ? 2 : 0)) % 4;
  constexpr int power1 = (row1.power + (sign < 0 ? 2 : 0)) % 4;
  HalfSpinor<Real> h;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    h.v[0][c] = psi.v[0][c] + TimesIPower<power0>(psi.v[2 + row0.column][c]);
    h.v[1][c] = psi.v[1][c] + TimesIPower<power1>(psi.v[2 + row1.column][c]);
  }
  return h;
}

// The coefficient of a hop computed on values (double, single, half's plain form): exactly 1, the
// boundary sign having been applied to h (HopCoefficient), so the hop is simply added. (Carrying the sign as
// a +-1 coefficient in a fused multiply-add gives the same numbers, but measured 9% slower for double with
// 18 reals on the H100: docs/gpu_results.md, "Production kernel: one formula, measured".)
struct UnitCoefficient {};

// out + k a: one fused multiply-add per part for a Real k (half on levels), an addition for the unit.
template <typename Real>
__device__ __forceinline__ DeviceComplex<Real> MultiplyAdd(Real k, DeviceComplex<Real> a, DeviceComplex<Real> out) {
  return {fma(k, a.re, out.re), fma(k, a.im, out.im)};
}
template <typename Real>
__device__ __forceinline__ DeviceComplex<Real> MultiplyAdd(UnitCoefficient, DeviceComplex<Real> a,
                                                           DeviceComplex<Real> out) {
  return out + a;
}

// out += k (r, s A_mu^dag r): adds the full spinor rebuilt from the multiplied half spinor.
template <int mu, int sign, typename Real, typename K>
__device__ __forceinline__ void AccumulateSpatial(ColorSpinor<Real>& out, K k, const HalfSpinor<Real>& r) {
  constexpr SpinBlockRow row0 = LowerBlockRow(mu, 0), row1 = LowerBlockRow(mu, 1);
  constexpr int power0 = (row0.power + (sign < 0 ? 2 : 0)) % 4;
  constexpr int power1 = (row1.power + (sign < 0 ? 2 : 0)) % 4;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    out.v[0][c] = MultiplyAdd(k, r.v[0][c], out.v[0][c]);
    out.v[1][c] = MultiplyAdd(k, r.v[1][c], out.v[1][c]);
    out.v[2][c] = MultiplyAdd(k, TimesIPower<power0>(r.v[row0.column][c]), out.v[2][c]);
    out.v[3][c] = MultiplyAdd(k, TimesIPower<power1>(r.v[row1.column][c]), out.v[3][c]);
  }
}

// out += k (2 r) on spins (first_spin, first_spin + 1): the temporal projectors are 2 on the spins they
// keep; the exact factor 2 goes into k when there is one, else onto r.
template <int first_spin, typename Real, typename K>
__device__ __forceinline__ void AccumulateTemporal(ColorSpinor<Real>& out, K k, const HalfSpinor<Real>& r) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      if constexpr (std::is_same_v<K, UnitCoefficient>) {
        out.v[first_spin + s][c] = out.v[first_spin + s][c] + Real(2) * r.v[s][c];
      } else {
        out.v[first_spin + s][c] = MultiplyAdd(Real(2) * k, r.v[s][c], out.v[first_spin + s][c]);
      }
    }
  }
}

// The neighbour's projection h = (1 + s gamma_mu) psi (spatial, upper half) in Real: on levels the integers
// are projected (exact) and then converted. `in` is the input field, or a ghost holding whole sites.
template <int mu, int sign, class Arg, class In>
__device__ __forceinline__ HalfSpinor<typename Arg::Real> ProjectedNeighbour(const In& in, int neighbour) {
  if constexpr (Arg::kOnLevels) {
    return In::RawToReal(ProjectSpatial<mu, sign>(in.LoadRaw(neighbour)));
  } else {
    return ProjectSpatial<mu, sign>(in.Load(neighbour));
  }
}

// Spins (first_spin, first_spin + 1) of the neighbour, all a temporal projector keeps, in Real.
template <int first_spin, class Arg, class In>
__device__ __forceinline__ HalfSpinor<typename Arg::Real> NeighbourSpinPair(const In& in, int neighbour) {
  if constexpr (Arg::kOnLevels) {
    return In::RawToReal(in.template LoadSpinPairRaw<first_spin>(neighbour));
  } else {
    return in.template LoadSpinPair<first_spin>(neighbour);
  }
}

// The link in the stencil's units (Arg::kLinkUnit).
template <class Arg>
__device__ __forceinline__ Link<typename Arg::Real> LinkOf(const Arg& arg, int mu, int parity, int cb) {
  if constexpr (Arg::kOnLevels) {
    return arg.gauge.LoadRaw(mu, parity, cb);
  } else {
    return arg.gauge.Load(mu, parity, cb);
  }
}

// The coefficient a hop is accumulated with. On levels: the neighbour's scale times the unit of the link it
// was multiplied with (1 where none was), negated where the hop wraps around an antiperiodic direction. On
// values: the unit, with that sign applied to h itself (exact).
template <class Arg, class In>
__device__ __forceinline__ auto HopCoefficient(const In& in, bool negative, int neighbour,
                                               typename Arg::Real link_unit, HalfSpinor<typename Arg::Real>& h) {
  if constexpr (Arg::kOnLevels) {
    const typename Arg::Real k = in.RawScale(neighbour) * link_unit;
    return negative ? -k : k;
  } else {
    if (negative) Negate(h);
    return UnitCoefficient{};
  }
}

// A hop's neighbour, read and projected, with the coefficient it is accumulated with; `index` is its
// checkerboard index, or its face position where it came from a ghost (then from_ghost).
template <class Arg>
struct ProjectedHop {
  HalfSpinor<typename Arg::Real> h;
  decltype(HopCoefficient<Arg>(std::declval<const decltype(Arg::in)&>(), false, 0, typename Arg::Real(1),
                               std::declval<HalfSpinor<typename Arg::Real>&>())) k;
  int index;
  bool from_ghost;
};

// True where the hop from a site whose coordinate mu `wraps` leaves a partitioned face: read the ghost.
template <class Arg>
__device__ __forceinline__ bool HopReadsGhost(const Arg& arg, int mu, bool wraps) {
  if constexpr (Arg::kReadsGhosts) {
    return wraps && arg.halo.partitioned[mu];
  } else {
    return false;
  }
}

// Whether the hop across face (mu, side) of this rank crosses the global boundary, given that it wraps.
template <class Arg>
__device__ __forceinline__ bool OnGlobalFace(const Arg& arg, int mu, int side) {
  if constexpr (Arg::kReadsGhosts) {
    return arg.halo.global_face[mu][side];
  } else {
    return true;
  }
}

// The spatial hop in direction mu (kForward: to n + mu, else to n - mu) with projection sign `sign`.
template <int mu, int sign, bool kForward, class Arg>
__device__ __forceinline__ ProjectedHop<Arg> SpatialNeighbour(const Arg& arg, const SiteGeometry& site) {
  constexpr int kSide = kForward ? kForwardSide : kBackwardSide;
  ProjectedHop<Arg> hop;
  bool wraps;
  hop.index = NeighbourCheckerboardIndex<kForward>(site, mu, arg.extents, wraps);
  hop.from_ghost = HopReadsGhost(arg, mu, wraps);
  if constexpr (Arg::kReadsGhosts) {
    if (hop.from_ghost) {
      const auto& ghost = arg.halo.ghost[mu][kSide];
      hop.index = FacePosition(site.coords, mu, arg.extents);
      if constexpr (kSpatialGhostProjected<Arg::kPrecision>) {
        hop.h = ghost.template LoadSpinPair<0>(hop.index);  // projected by the sender (halo.cuh)
      } else {
        hop.h = ProjectedNeighbour<mu, sign, Arg>(ghost, hop.index);
      }
      hop.k = HopCoefficient<Arg>(ghost, wraps && arg.antiperiodic[mu] && OnGlobalFace(arg, mu, kSide), hop.index, Arg::kLinkUnit, hop.h);
      return hop;
    }
  }
  hop.h = ProjectedNeighbour<mu, sign, Arg>(arg.in, hop.index);
  hop.k = HopCoefficient<Arg>(arg.in, wraps && arg.antiperiodic[mu] && OnGlobalFace(arg, mu, kSide), hop.index, Arg::kLinkUnit, hop.h);
  return hop;
}

// The temporal hop (kForward: to n + t) keeping spins (first_spin, first_spin + 1), whose link enters with
// unit link_unit (1 where none does).
template <int first_spin, bool kForward, class Arg>
__device__ __forceinline__ ProjectedHop<Arg> TemporalNeighbour(const Arg& arg, const SiteGeometry& site,
                                                               typename Arg::Real link_unit) {
  constexpr int mu = 3;
  constexpr int kSide = kForward ? kForwardSide : kBackwardSide;
  ProjectedHop<Arg> hop;
  bool wraps;
  hop.index = NeighbourCheckerboardIndex<kForward>(site, mu, arg.extents, wraps);
  hop.from_ghost = HopReadsGhost(arg, mu, wraps);
  if constexpr (Arg::kReadsGhosts) {
    if (hop.from_ghost) {
      const auto& ghost = arg.halo.ghost[mu][kSide];
      hop.index = FacePosition(site.coords, mu, arg.extents);
      hop.h = NeighbourSpinPair<0, Arg>(ghost, hop.index);  // the kept spins, stored as spins 0, 1
      hop.k = HopCoefficient<Arg>(ghost, wraps && arg.antiperiodic[mu] && OnGlobalFace(arg, mu, kSide), hop.index, link_unit, hop.h);
      return hop;
    }
  }
  hop.h = NeighbourSpinPair<first_spin, Arg>(arg.in, hop.index);
  hop.k = HopCoefficient<Arg>(arg.in, wraps && arg.antiperiodic[mu] && OnGlobalFace(arg, mu, kSide), hop.index, link_unit, hop.h);
  return hop;
}

// U_mu(n - mu) of a backward hop, from the field or, across a partitioned face, from the link ghost.
template <class Arg>
__device__ __forceinline__ Link<typename Arg::Real> BackwardLinkOf(const Arg& arg, int mu, const ProjectedHop<Arg>& hop) {
  if constexpr (Arg::kReadsGhosts) {
    if (hop.from_ghost) {
      if constexpr (Arg::kOnLevels) {
        return arg.halo.ghost_links[mu].LoadRaw(0, 1 - arg.parity, hop.index);
      } else {
        return arg.halo.ghost_links[mu].Load(0, 1 - arg.parity, hop.index);
      }
    }
  }
  return LinkOf(arg, mu, 1 - arg.parity, hop.index);
}

// One spatial direction mu: the forward hop (projector 1 - s gamma_mu, link U_mu(n)) and the backward
// hop (1 + s gamma_mu, link U_mu(n - mu)^dag), s = +1 for D and -1 for D^dag. Each is
//     out += k U h,   h the projected neighbour, k = HopCoefficient.
template <int mu, class Arg>
__device__ __forceinline__ void SpatialHops(const Arg& arg, const SiteGeometry& site, int cb,
                                            ColorSpinor<typename Arg::Real>& out) {
  constexpr int kForwardSign = Arg::kDagger ? +1 : -1;
  constexpr int kBackwardSign = -kForwardSign;
  constexpr bool kFused = Arg::kFastIndexing;
  {
    const ProjectedHop<Arg> hop = SpatialNeighbour<mu, kForwardSign, true>(arg, site);
    AccumulateSpatial<mu, kForwardSign>(out, hop.k, Multiply<kFused>(LinkOf(arg, mu, arg.parity, cb), hop.h));
  }
  {
    const ProjectedHop<Arg> hop = SpatialNeighbour<mu, kBackwardSign, false>(arg, site);
    AccumulateSpatial<mu, kBackwardSign>(out, hop.k, MultiplyAdjoint<kFused>(BackwardLinkOf(arg, mu, hop), hop.h));
  }
}

// The time direction. Forward hop: 1 - s gamma_4 keeps the lower spins for D (s = +1), the upper ones
// for D^dag; backward hop the opposite. Only those spins of the neighbour are loaded. With temporal gauge
// fixing the link (and its unit) enters only on the boundary slices.
template <class Arg>
__device__ __forceinline__ void TemporalHops(const Arg& arg, const SiteGeometry& site, int cb,
                                             ColorSpinor<typename Arg::Real>& out) {
  using Real = typename Arg::Real;
  constexpr int mu = 3;
  constexpr int kForwardSpins = Arg::kDagger ? 0 : 2;
  constexpr int kBackwardSpins = 2 - kForwardSpins;
  constexpr bool kFused = Arg::kFastIndexing;
  const int last = arg.extents[3] - 1;
  {
    // With gauge fixing the only t-links that are not 1 sit on the global last time slice.
    const bool with_link = !Arg::kGaugeFixed || (site.coords[3] == last && OnGlobalFace(arg, mu, kForwardSide));
    ProjectedHop<Arg> hop = TemporalNeighbour<kForwardSpins, true>(arg, site, with_link ? Arg::kLinkUnit : Real(1));
    if (with_link) hop.h = Multiply<kFused>(LinkOf(arg, mu, arg.parity, cb), hop.h);
    AccumulateTemporal<kForwardSpins>(out, hop.k, hop.h);
  }
  {
    const bool with_link = !Arg::kGaugeFixed || (site.coords[3] == 0 && OnGlobalFace(arg, mu, kBackwardSide));
    ProjectedHop<Arg> hop = TemporalNeighbour<kBackwardSpins, false>(arg, site, with_link ? Arg::kLinkUnit : Real(1));
    if (with_link) hop.h = MultiplyAdjoint<kFused>(BackwardLinkOf(arg, mu, hop), hop.h);
    AccumulateTemporal<kBackwardSpins>(out, hop.k, hop.h);
  }
}

// a x + b y, component by component.
template <typename Real>
__device__ __forceinline__ ColorSpinor<Real> LinearCombination(Real a, const ColorSpinor<Real>& x, Real b,
                                                               const ColorSpinor<Real>& y) {
  ColorSpinor<Real> r;
#pragma unroll
  for (int s = 0; s < 4; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) r.v[s][c] = a * x.v[s][c] + b * y.v[s][c];
  }
  return r;
}

// The epilogue (wilson_dslash_launch.h's DslashEpilogue) on d = D in at site cb; C = arg.clover. A fused
// epilogue forms what its PlainForm forms (the sums and the update are the site functor's).
template <class Arg>
__device__ __forceinline__ void ApplyEpilogue(const Arg& arg, int cb, ColorSpinor<typename Arg::Real>& d) {
  using Real = typename Arg::Real;
  using X = decltype(arg.x);
  constexpr DslashEpilogue kForm = PlainForm(Arg::kEpilogue);
  if constexpr (kForm == DslashEpilogue::kXpay) {
    // a x = (a * raw scale) * raw x: the scale of a half x joins a (exactly a when the scale is 1).
    const ColorSpinor<Real> x = X::RawToReal(arg.x.LoadRaw(cb));
    const Real a = X::kScaled ? arg.a * arg.x.RawScale(cb) : arg.a;
    d = LinearCombination(a, x, arg.b, d);
  } else if constexpr (kForm == DslashEpilogue::kClover) {
    d = arg.clover.Apply(cb, d);
  } else if constexpr (kForm == DslashEpilogue::kCloverXpay) {
    d = LinearCombination(arg.a, arg.clover.Apply(cb, arg.x.Load(cb)), arg.b, d);
  } else if constexpr (kForm == DslashEpilogue::kXpayClover) {
    d = LinearCombination(arg.a, arg.x.Load(cb), arg.b, arg.clover.Apply(cb, d));
  }
}

// (out, w) = sum conj(out) w and |out|^2 of one site, added to acc[0..2] in double in a fixed order with explicit
// fused multiply-adds (as gpu/blas.cu accumulates).
template <typename Real>
__device__ __forceinline__ void AddSiteDotNorm(double* acc, const ColorSpinor<Real>& o, const ColorSpinor<Real>& w) {
#pragma unroll
  for (int s = 0; s < 4; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const double orr = o.v[s][c].re, oi = o.v[s][c].im, wr = w.v[s][c].re, wi = w.v[s][c].im;
      acc[0] = fma(orr, wr, acc[0]);
      acc[0] = fma(oi, wi, acc[0]);
      acc[1] = fma(orr, wi, acc[1]);
      acc[1] = fma(-oi, wr, acc[1]);
      acc[2] = fma(orr, orr, acc[2]);
      acc[2] = fma(oi, oi, acc[2]);
    }
  }
}

// |o|^2 of one site added to acc in double, in AddSiteDotNorm's order.
template <typename Real>
__device__ __forceinline__ void AddSiteNorm(double& acc, const ColorSpinor<Real>& o) {
#pragma unroll
  for (int s = 0; s < 4; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const double orr = o.v[s][c].re, oi = o.v[s][c].im;
      acc = fma(orr, orr, acc);
      acc = fma(oi, oi, acc);
    }
  }
}

// The site functor: computes and stores the output spinor of the site of thread `thread`: checkerboard
// index cb = thread, or for a partitioned exterior launch the thread-th exterior site (an interior launch
// skips the exterior sites). The dot-norm epilogues add the site's (out, w) and |out|^2 of the stored out to acc;
// the axpy-norm epilogues store out + c q instead of q and add |out|^2 of the stored out to acc[2].
template <class Arg>
struct WilsonDslashSite {
  __device__ __forceinline__ void operator()(const Arg& arg, int thread, double* acc = nullptr) const {
    using Real = typename Arg::Real;
    int cb = thread;
    if constexpr (Arg::kSites == DslashSites::kExterior) cb = arg.halo.exterior_sites[thread];
    SiteGeometry site;
    if constexpr (Arg::kFastIndexing) {
      site = CheckerboardSite(cb, arg.parity, arg.extents, arg.divisors);
    } else {
      site = CheckerboardSite(cb, arg.parity, arg.extents);
    }
    if constexpr (Arg::kSites == DslashSites::kInterior) {
      if (OnPartitionedFace(arg.interior, site.coords, arg.extents)) return;
    }
    ColorSpinor<Real> out = ColorSpinor<Real>::Zero();
    SpatialHops<0>(arg, site, cb, out);
    SpatialHops<1>(arg, site, cb, out);
    SpatialHops<2>(arg, site, cb, out);
    TemporalHops(arg, site, cb, out);
    ApplyEpilogue(arg, cb, out);
    if constexpr (SumsDotNorm(Arg::kEpilogue)) {
      AddSiteDotNorm(acc, arg.out.StoreReturningStored(cb, out), arg.w.Load(cb));
    } else if constexpr (UpdatesWithAxpyNorm(Arg::kEpilogue)) {
      // As blas::AxpyNorm does it: the coefficient rounded to Real, y + c q in Real, |y|^2 of the stored y.
      const Real c = static_cast<Real>(*arg.coefficient);
      ColorSpinor<Real> y = arg.out.Load(cb);
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#pragma unroll
        for (int k = 0; k < 3; ++k) {
          y.v[s][k].re = y.v[s][k].re + c * out.v[s][k].re;
          y.v[s][k].im = y.v[s][k].im + c * out.v[s][k].im;
        }
      }
      AddSiteNorm(acc[2], arg.out.StoreReturningStored(cb, y));
    } else {
      arg.out.Store(cb, out);
    }
  }
};

template <class Arg>
__global__ void WilsonDslashKernel(const Arg arg) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  if (thread >= arg.sites) return;
  WilsonDslashSite<Arg>{}(arg, thread);
}

// The dot-norm and axpy-norm epilogues: every thread of a warp takes part (a thread past the last site adds nothing); the warp's 32
// sites are summed in a fixed shuffle tree and lane 0 writes the group's partials. Block sizes are multiples
// of 32 (tune.h), so a warp is always the group of sites 32 g .. 32 g + 31: the partials do not depend on the
// block size, and gpu/blas.cu sums them in a fixed order.
template <class Arg>
__global__ void WilsonDslashDotNormKernel(const Arg arg) {
  static_assert(WritesPartials(Arg::kEpilogue) && Arg::kSites == DslashSites::kAll,
                "unpartitioned xpay-dotnorm or xpay-axpynorm");
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  double acc[3] = {0, 0, 0};
  if (thread < arg.sites) WilsonDslashSite<Arg>{}(arg, thread, acc);
#pragma unroll
  for (int offset = kDotNormGroup / 2; offset > 0; offset /= 2) {
#pragma unroll
    for (int k = 0; k < 3; ++k) acc[k] += __shfl_down_sync(0xffffffffu, acc[k], offset);
  }
  const int group = thread / kDotNormGroup;
  if (thread % kDotNormGroup == 0 && group * kDotNormGroup < arg.sites) {
#pragma unroll
    for (int k = 0; k < 3; ++k) arg.partials[3 * group + k] = acc[k];
  }
}

}  // namespace lqcd::gpu
