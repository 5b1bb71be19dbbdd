// multi_rhs_dslash_kernel.cuh: the Wilson hopping term applied to n right-hand sides in one launch, so that
// each link is read from memory once per site for all n (papers 003 and QUDA's multi-RHS Dslash: the gauge
// field is most of a Dslash's bytes, and it is the same for every right-hand side).
//
// Device-side header (included by the launchers multi_rhs_dslash_{double,single,half}.cu and
// multi_rhs_clover_dslash_{double,single,half}.cu).
//
// Computes, for every right-hand side j < n and every site of the output parity, exactly what
// wilson_dslash_kernel.cuh computes for one: out_j = D in_j, or an epilogue of it (a x_j + b D in_j, the
// clover forms), D or D^dag, in the same order of hops and operations, within the same error bound (the tests
// check every right-hand side against the oracle; the bits may differ from the single-RHS kernel's where the
// compiler contracts the colour products into fma differently, which it decides per kernel: with 12 reals on
// values it did). The per-hop pieces are that file's: the projection, the link in
// the stencil's units, the hop coefficient, the accumulation, the epilogue; only the loop over right-hand
// sides is new.
//
// Mapping (chosen by the tuner per variant, n and volume; multi_rhs_dslash_launcher.cuh):
//   threadIdx.x   one output site;
//   threadIdx.y   a group of kRhsPerThread right-hand sides: a thread loads each link once into registers
//                 and applies it to its group's neighbours ("RHS inside a thread"); the groups of one site
//                 sit in the same thread block, so their loads of the same link hit the L1 cache ("RHS across
//                 threads"), or, where a block cannot hold them all, in consecutive blocks (the kernel's
//                 comment). kRhsPerThread = 1 is the second mapping alone.
// The fields of the n right-hand sides are n ordinary spinor fields (any padding each): a right-hand side is
// a field the solvers' per-RHS linear algebra already works on, and only the operator sees the block.
#pragma once

#include "gpu/multi_rhs_dslash_launch.h"
#include "gpu/wilson_dslash_kernel.cuh"

namespace lqcd::gpu {

// What the epilogue of one right-hand side needs, in the shape ApplyEpilogue reads from an argument struct.
template <Precision P, DslashEpilogue kEpilogueKind>
struct RhsEpilogue : DslashCloverTerm<P, UsesClover(kEpilogueKind)> {
  using Real = typename SpinorStorage<P>::Real;
  static constexpr DslashEpilogue kEpilogue = kEpilogueKind;
  SpinorAccessor<P> x;
  Real a, b;
};

// The second fields and the partial sums of the dot-norm epilogues (SumsDotNorm), else nothing.
template <Precision P, bool kWithDotNorm>
struct MultiRhsDotNorm {};
template <Precision P>
struct MultiRhsDotNorm<P, true> {
  SpinorAccessor<P> w[kMaxRhsPerLaunch];  // read only
  double* partials;    // right-hand side j: 3 per group of kDotNormGroup sites from partials + 3 j groups
  int partial_groups;  // ceil(sites / kDotNormGroup)
};

template <Precision P, Reconstruct R, bool kGaugeFixedFlag, bool kDaggerFlag, DslashEpilogue kEpilogueKind,
          int kRhsPerThreadValue>
struct MultiRhsDslashArg : DslashDivisors<UsesFastIndexing(ProductionArithmetic(P), R)>,
                           DslashCloverTerm<P, UsesClover(kEpilogueKind)>,
                           MultiRhsDotNorm<P, SumsDotNorm(kEpilogueKind)> {
  using Real = typename SpinorStorage<P>::Real;
  static constexpr Precision kPrecision = P;
  static constexpr Reconstruct kReconstruct = R;
  static constexpr bool kOnLevels = ProductionArithmetic(P) == DslashArithmetic::kLevels;
  static constexpr bool kFastIndexing = UsesFastIndexing(ProductionArithmetic(P), R);
  static constexpr bool kGaugeFixed = kGaugeFixedFlag;
  static constexpr bool kDagger = kDaggerFlag;
  static constexpr DslashEpilogue kEpilogue = kEpilogueKind;
  static constexpr bool kReadsGhosts = false;
  static constexpr int kRhsPerThread = kRhsPerThreadValue;
  static constexpr Real kLinkUnit = kOnLevels ? GaugeAccessor<P, R>::kRawUnit : Real(1);

  SpinorAccessor<P> out[kMaxRhsPerLaunch];
  SpinorAccessor<P> in[kMaxRhsPerLaunch];  // read only
  SpinorAccessor<P> x[kMaxRhsPerLaunch];   // read only; epilogues with an x
  GaugeAccessor<P, R> gauge;
  int rhs;               // n
  int chunks;            // thread blocks per group of sites: ceil(groups / blockDim.y)
  int extents[4];
  int sites;             // output sites per right-hand side: V / 2
  int parity;            // of the output sites
  bool antiperiodic[4];
  Real a, b;             // the epilogue's coefficients, the same for every right-hand side
};

// One spatial direction for the `count` right-hand sides from `first` (count <= kRhsPerThread): per hop the
// neighbour index, the boundary sign and the link once, then per right-hand side the single kernel's line
// out += k U h.
template <class Arg>
using RhsGroupSpinors = ColorSpinor<typename Arg::Real>[Arg::kRhsPerThread];

template <int mu, class Arg>
__device__ __forceinline__ void BlockSpatialHops(const Arg& arg, const SiteGeometry& site, int cb, int first,
                                                 int count, RhsGroupSpinors<Arg>& out) {
  constexpr int kForwardSign = Arg::kDagger ? +1 : -1;
  constexpr int kBackwardSign = -kForwardSign;
  constexpr bool kFused = Arg::kFastIndexing;
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    const bool negative = wraps && arg.antiperiodic[mu];
    const Link<typename Arg::Real> u = LinkOf(arg, mu, arg.parity, cb);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) {
        const auto& in = arg.in[first + j];
        HalfSpinor<typename Arg::Real> h = ProjectedNeighbour<mu, kForwardSign, Arg>(in, neighbour);
        const auto k = HopCoefficient<Arg>(in, negative, neighbour, Arg::kLinkUnit, h);
        AccumulateSpatial<mu, kForwardSign>(out[j], k, Multiply<kFused>(u, h));
      }
    }
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    const bool negative = wraps && arg.antiperiodic[mu];
    const Link<typename Arg::Real> u = LinkOf(arg, mu, 1 - arg.parity, neighbour);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) {
        const auto& in = arg.in[first + j];
        HalfSpinor<typename Arg::Real> h = ProjectedNeighbour<mu, kBackwardSign, Arg>(in, neighbour);
        const auto k = HopCoefficient<Arg>(in, negative, neighbour, Arg::kLinkUnit, h);
        AccumulateSpatial<mu, kBackwardSign>(out[j], k, MultiplyAdjoint<kFused>(u, h));
      }
    }
  }
}

// The time direction for the same right-hand sides (TemporalHops of the single kernel, the link loaded once).
template <class Arg>
__device__ __forceinline__ void BlockTemporalHops(const Arg& arg, const SiteGeometry& site, int cb, int first,
                                                  int count, RhsGroupSpinors<Arg>& out) {
  using Real = typename Arg::Real;
  constexpr int mu = 3;
  constexpr int kForwardSpins = Arg::kDagger ? 0 : 2;
  constexpr int kBackwardSpins = 2 - kForwardSpins;
  constexpr bool kFused = Arg::kFastIndexing;
  const int last = arg.extents[3] - 1;
  {
    const bool with_link = !Arg::kGaugeFixed || site.coords[3] == last;
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    const bool negative = wraps && arg.antiperiodic[mu];
    Link<Real> u;
    if (with_link) u = LinkOf(arg, mu, arg.parity, cb);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) {
        const auto& in = arg.in[first + j];
        HalfSpinor<Real> h = NeighbourSpinPair<kForwardSpins, Arg>(in, neighbour);
        const auto k = HopCoefficient<Arg>(in, negative, neighbour, with_link ? Arg::kLinkUnit : Real(1), h);
        if (with_link) h = Multiply<kFused>(u, h);
        AccumulateTemporal<kForwardSpins>(out[j], k, h);
      }
    }
  }
  {
    const bool with_link = !Arg::kGaugeFixed || site.coords[3] == 0;
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    const bool negative = wraps && arg.antiperiodic[mu];
    Link<Real> u;
    if (with_link) u = LinkOf(arg, mu, 1 - arg.parity, neighbour);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) {
        const auto& in = arg.in[first + j];
        HalfSpinor<Real> h = NeighbourSpinPair<kBackwardSpins, Arg>(in, neighbour);
        const auto k = HopCoefficient<Arg>(in, negative, neighbour, with_link ? Arg::kLinkUnit : Real(1), h);
        if (with_link) h = MultiplyAdjoint<kFused>(u, h);
        AccumulateTemporal<kBackwardSpins>(out[j], k, h);
      }
    }
  }
}

// The site functor: site cb of right-hand sides first .. first + kRhsPerThread - 1 (those below n). A dot-norm
// epilogue also adds each right-hand side's (out_j, w_j) and |out_j|^2 of the stored out_j to acc[j] (AddSiteDotNorm, the
// single-RHS kernel's order).
template <class Arg>
struct MultiRhsDslashSite {
  __device__ __forceinline__ void operator()(const Arg& arg, int cb, int first,
                                             double (*acc)[3] = nullptr) const {
    using Real = typename Arg::Real;
    constexpr int m = Arg::kRhsPerThread;
    const int count = arg.rhs - first < m ? arg.rhs - first : m;
    SiteGeometry site;
    if constexpr (Arg::kFastIndexing) {
      site = CheckerboardSite(cb, arg.parity, arg.extents, arg.divisors);
    } else {
      site = CheckerboardSite(cb, arg.parity, arg.extents);
    }
    ColorSpinor<Real> out[m];
#pragma unroll
    for (int j = 0; j < m; ++j) out[j] = ColorSpinor<Real>::Zero();
    BlockSpatialHops<0>(arg, site, cb, first, count, out);
    BlockSpatialHops<1>(arg, site, cb, first, count, out);
    BlockSpatialHops<2>(arg, site, cb, first, count, out);
    BlockTemporalHops(arg, site, cb, first, count, out);
#pragma unroll
    for (int j = 0; j < m; ++j) {
      if (j < count) {
        RhsEpilogue<Arg::kPrecision, Arg::kEpilogue> e;
        if constexpr (UsesClover(Arg::kEpilogue)) e.clover = arg.clover;
        e.x = arg.x[first + j];
        e.a = arg.a;
        e.b = arg.b;
        ApplyEpilogue(e, cb, out[j]);
        if constexpr (SumsDotNorm(Arg::kEpilogue)) {
          AddSiteDotNorm(acc[j], arg.out[first + j].StoreReturningStored(cb, out[j]), arg.w[first + j].Load(cb));
        } else {
          arg.out[first + j].Store(cb, out[j]);
        }
      }
    }
  }
};

// Block b covers sites (b / chunks) * blockDim.x + threadIdx.x and the groups of chunk b % chunks: when one
// block cannot hold every group of its sites, the blocks of the same sites are consecutive, so they run at
// about the same time and share the links in L2.
template <class Arg>
__global__ void MultiRhsDslashKernel(const Arg arg) {
  const int cb = (blockIdx.x / arg.chunks) * blockDim.x + threadIdx.x;
  const int first = ((blockIdx.x % arg.chunks) * blockDim.y + threadIdx.y) * Arg::kRhsPerThread;
  if (cb >= arg.sites || first >= arg.rhs) return;
  MultiRhsDslashSite<Arg>{}(arg, cb, first);
}

// The dot-norm epilogues, as the single-RHS WilsonDslashDotNormKernel for each right-hand side of the thread's group: the
// block width is a multiple of 32 (the tuner's granularity), so a warp is the sites 32 g .. 32 g + 31 of one
// group; every lane takes part in the shuffle trees (a site past the last adds nothing) and lane 0 writes the
// group's three partials for each of its right-hand sides. The partials, sums of the stored outputs in a fixed
// order, do not depend on the block shape (with 12 reals on values the outputs themselves may differ in the last
// bits between mappings m: the compiler contracts each kernel's products into fma its own way).
template <class Arg>
__global__ void MultiRhsDslashDotNormKernel(const Arg arg) {
  static_assert(SumsDotNorm(Arg::kEpilogue), "a dot-norm epilogue");
  constexpr int m = Arg::kRhsPerThread;
  const int cb = (blockIdx.x / arg.chunks) * blockDim.x + threadIdx.x;
  const int first = ((blockIdx.x % arg.chunks) * blockDim.y + threadIdx.y) * m;
  if (first >= arg.rhs) return;  // the whole warp: first is the same for its 32 lanes
  double acc[m][3] = {};
  if (cb < arg.sites) MultiRhsDslashSite<Arg>{}(arg, cb, first, acc);
#pragma unroll
  for (int j = 0; j < m; ++j) {
#pragma unroll
    for (int offset = kDotNormGroup / 2; offset > 0; offset /= 2) {
#pragma unroll
      for (int k = 0; k < 3; ++k) acc[j][k] += __shfl_down_sync(0xffffffffu, acc[j][k], offset);
    }
  }
  const int group = cb / kDotNormGroup;
  if (cb % kDotNormGroup == 0 && cb < arg.sites) {
#pragma unroll
    for (int j = 0; j < m; ++j) {
      if (first + j < arg.rhs) {
        double* partials = arg.partials + 3 * (static_cast<long>(first + j) * arg.partial_groups + group);
#pragma unroll
        for (int k = 0; k < 3; ++k) partials[k] = acc[j][k];
      }
    }
  }
}

// The kernel of a variant.
template <class Arg>
constexpr auto MultiRhsKernelOf() {
  if constexpr (SumsDotNorm(Arg::kEpilogue)) {
    return &MultiRhsDslashDotNormKernel<Arg>;
  } else {
    return &MultiRhsDslashKernel<Arg>;
  }
}

}  // namespace lqcd::gpu
