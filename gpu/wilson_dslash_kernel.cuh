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
// The stencil sees fields only through SpinorAccessor / GaugeAccessor (precision, layout and the 18/12/8
// link forms live there). Arithmetic is in the accessors' Real (double, or float for single and half).
#pragma once

#include <type_traits>

#include "gpu/checkerboard.cuh"
#include "gpu/gauge_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"

namespace lqcd::gpu {

// Two choices made by measurement on the H100 (docs/gpu_results.md, "Half precision: where the time
// goes"), for the half kernels with 12 or 8 reals per link only:
//   fast division: checkerboard indices divided by multiply-high (checkerboard.cuh);
//   fused mat-vec: the colour products as FusedDot3 chains (register_types.cuh).
// Half with 18 reals measured fastest with neither (plain division, separate products), and double and
// single keep their code unchanged; for those the divisors are an empty base, so that the argument struct
// (and hence the generated code) is the same as without them.
constexpr bool UsesFastDslashArithmetic(Precision p, Reconstruct r) {
  return p == Precision::kHalf && r != Reconstruct::k18;
}

template <bool kFastDivision>
struct DslashDivisors {};
template <>
struct DslashDivisors<true> {
  CheckerboardDivisors divisors;  // of the extents
};

// Everything one Dslash launch needs. The template flags fix the variant at compile time.
template <Precision P, Reconstruct R, bool kGaugeFixedFlag, bool kDaggerFlag, bool kXpayFlag, bool kSingular8 = false>
struct WilsonDslashArg : DslashDivisors<UsesFastDslashArithmetic(P, R)> {
  using Real = typename SpinorStorage<P>::Real;
  static constexpr Precision kPrecision = P;
  static constexpr Reconstruct kReconstruct = R;
  static constexpr bool kFastArithmetic = UsesFastDslashArithmetic(P, R);  // see DslashDivisors
  static constexpr bool kGaugeFixed = kGaugeFixedFlag;  // skip unit t-links (temporal gauge)
  static constexpr bool kDagger = kDaggerFlag;          // D^dag instead of D
  static constexpr bool kXpay = kXpayFlag;              // out = a x + b D in instead of out = D in

  SpinorAccessor<P> out;
  SpinorAccessor<P> in;  // read only (the accessor type is shared with the writable output)
  SpinorAccessor<P> x;   // read only; used when kXpay
  GaugeAccessor<P, R, kSingular8> gauge;  // kSingular8: some 8-real links in the singular form
  int extents[4];        // Lx, Ly, Lz, Lt
  int sites;             // V / 2: output sites, one thread each
  int parity;            // of the output sites
  bool antiperiodic[4];  // hops wrapping around direction mu take a factor -1
  Real a, b;             // xpay coefficients
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

template <typename Real>
__device__ __forceinline__ void Negate(HalfSpinor<Real>& h) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) h.v[s][c] = -h.v[s][c];
  }
}

// The coefficient a hop's result is accumulated with. Double and single: 1 (the boundary sign has been
// applied to the half spinor, Negate); half: the boundary sign times the raw scales of the neighbour's
// spinor and of the link (Real), applied in the fused multiply-add that accumulates the hop.
struct UnitCoefficient {};

template <typename Real>
__device__ __forceinline__ DeviceComplex<Real> MultiplyAdd(UnitCoefficient, DeviceComplex<Real> a,
                                                           DeviceComplex<Real> out) {
  return out + a;
}
template <typename Real>
__device__ __forceinline__ DeviceComplex<Real> MultiplyAdd(Real k, DeviceComplex<Real> a, DeviceComplex<Real> out) {
  return {fma(k, a.re, out.re), fma(k, a.im, out.im)};
}
__device__ __forceinline__ UnitCoefficient Twice(UnitCoefficient k) { return k; }  // see AccumulateTemporal
template <typename Real>
__device__ __forceinline__ Real Twice(Real k) {
  return Real(2) * k;
}

// out += k (r, s A_mu^dag r): adds the full spinor rebuilt from the multiplied half spinor.
template <int mu, int sign, typename Real, typename K>
__device__ __forceinline__ void AccumulateSpatial(ColorSpinor<Real>& out, const HalfSpinor<Real>& r, K k) {
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

// Adds 2 k r to spins (first_spin, first_spin + 1) of out; the factor 2 of the temporal projectors is
// exact, so it is applied here rather than on the loaded spinor (for the unit coefficient, as 2 * r).
template <int first_spin, typename Real, typename K>
__device__ __forceinline__ void AccumulateTemporal(ColorSpinor<Real>& out, const HalfSpinor<Real>& r, K k) {
  HalfSpinor<Real> two_r = r;
  if constexpr (std::is_same_v<K, UnitCoefficient>) {
#pragma unroll
    for (int s = 0; s < 2; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) two_r.v[s][c] = Real(2) * r.v[s][c];
    }
  }
  const auto two_k = Twice(k);
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) out.v[first_spin + s][c] = MultiplyAdd(two_k, two_r.v[s][c], out.v[first_spin + s][c]);
  }
}

// Whether the colour products use FusedDot3 chains (see DslashDivisors).
template <class Arg>
constexpr bool FusedMatVec() {
  return Arg::kFastArithmetic;
}

// A neighbour's half spinor (spatial: projected; temporal: the spin pair) as Real and the coefficient of
// its hop. Half projects the raw integer levels (exact), converts the 12 results and folds the boundary
// sign, the neighbour's scale and the link unit into the coefficient; double and single negate the half
// spinor on an antiperiodic wrap and accumulate with coefficient 1.
template <class Arg, typename LinkUnit>
__device__ __forceinline__ auto Coefficient(const Arg& arg, int mu, bool wraps, int neighbour, LinkUnit link_unit,
                                            HalfSpinor<typename Arg::Real>& h) {
  using Real = typename Arg::Real;
  if constexpr (decltype(arg.in)::kScaled) {
    const Real scale = arg.in.RawScale(neighbour) * link_unit;
    return wraps && arg.antiperiodic[mu] ? -scale : scale;
  } else {
    if (wraps && arg.antiperiodic[mu]) Negate(h);
    return UnitCoefficient{};
  }
}

// One spatial direction mu: the forward hop (projector 1 - s gamma_mu, link U_mu(n)) and the backward
// hop (1 + s gamma_mu, link U_mu(n - mu)^dag), s = +1 for D and -1 for D^dag. The neighbour is projected
// in its raw numbers (half: integer levels), then converted to Real.
template <int mu, class Arg>
__device__ __forceinline__ void SpatialHops(const Arg& arg, const SiteGeometry& site, int cb,
                                            ColorSpinor<typename Arg::Real>& out) {
  using Real = typename Arg::Real;
  using In = decltype(arg.in);
  constexpr Real kLinkUnit = decltype(arg.gauge)::kRawUnit;
  constexpr int kForwardSign = Arg::kDagger ? +1 : -1;
  constexpr int kBackwardSign = -kForwardSign;
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = In::RawToReal(ProjectSpatial<mu, kForwardSign>(arg.in.LoadRaw(neighbour)));
    const auto k = Coefficient(arg, mu, wraps, neighbour, kLinkUnit, h);
    const Link<Real> u = arg.gauge.LoadRaw(mu, arg.parity, cb);
    AccumulateSpatial<mu, kForwardSign>(out, Multiply<FusedMatVec<Arg>()>(u, h), k);
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = In::RawToReal(ProjectSpatial<mu, kBackwardSign>(arg.in.LoadRaw(neighbour)));
    const auto k = Coefficient(arg, mu, wraps, neighbour, kLinkUnit, h);
    const Link<Real> u = arg.gauge.LoadRaw(mu, 1 - arg.parity, neighbour);
    AccumulateSpatial<mu, kBackwardSign>(out, MultiplyAdjoint<FusedMatVec<Arg>()>(u, h), k);
  }
}

// The time direction. Forward hop: 1 - s gamma_4 keeps the lower spins for D (s = +1), the upper ones
// for D^dag; backward hop the opposite. Only those spins of the neighbour are loaded. With temporal gauge
// fixing the link (and its unit) enters only on the boundary slices.
template <class Arg>
__device__ __forceinline__ void TemporalHops(const Arg& arg, const SiteGeometry& site, int cb,
                                             ColorSpinor<typename Arg::Real>& out) {
  using Real = typename Arg::Real;
  using In = decltype(arg.in);
  constexpr Real kLinkUnit = decltype(arg.gauge)::kRawUnit;
  constexpr int mu = 3;
  constexpr int kForwardSpins = Arg::kDagger ? 0 : 2;
  constexpr int kBackwardSpins = 2 - kForwardSpins;
  const int last = arg.extents[3] - 1;
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    const bool with_link = !Arg::kGaugeFixed || site.coords[3] == last;
    HalfSpinor<Real> h = In::RawToReal(arg.in.template LoadSpinPairRaw<kForwardSpins>(neighbour));
    const auto k = Coefficient(arg, mu, wraps, neighbour, with_link ? kLinkUnit : Real(1), h);
    if (with_link) h = Multiply<FusedMatVec<Arg>()>(arg.gauge.LoadRaw(mu, arg.parity, cb), h);
    AccumulateTemporal<kForwardSpins>(out, h, k);
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    const bool with_link = !Arg::kGaugeFixed || site.coords[3] == 0;
    HalfSpinor<Real> h = In::RawToReal(arg.in.template LoadSpinPairRaw<kBackwardSpins>(neighbour));
    const auto k = Coefficient(arg, mu, wraps, neighbour, with_link ? kLinkUnit : Real(1), h);
    if (with_link) h = MultiplyAdjoint<FusedMatVec<Arg>()>(arg.gauge.LoadRaw(mu, 1 - arg.parity, neighbour), h);
    AccumulateTemporal<kBackwardSpins>(out, h, k);
  }
}

// The site functor: computes and stores the output spinor of checkerboard site cb.
template <class Arg>
struct WilsonDslashSite {
  __device__ __forceinline__ void operator()(const Arg& arg, int cb) const {
    using Real = typename Arg::Real;
    SiteGeometry site;
    if constexpr (Arg::kFastArithmetic) {
      site = CheckerboardSite(cb, arg.parity, arg.extents, arg.divisors);
    } else {
      site = CheckerboardSite(cb, arg.parity, arg.extents);
    }
    ColorSpinor<Real> out;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#pragma unroll
      for (int c = 0; c < 3; ++c) out.v[s][c] = {Real(0), Real(0)};
    }
    SpatialHops<0>(arg, site, cb, out);
    SpatialHops<1>(arg, site, cb, out);
    SpatialHops<2>(arg, site, cb, out);
    TemporalHops(arg, site, cb, out);
    if constexpr (Arg::kXpay) {
      // a x = (a * raw scale) * raw x: the scale of a half x joins a (exactly a when the scale is 1).
      const ColorSpinor<Real> x = decltype(arg.x)::RawToReal(arg.x.LoadRaw(cb));
      const Real a = decltype(arg.x)::kScaled ? arg.a * arg.x.RawScale(cb) : arg.a;
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#pragma unroll
        for (int c = 0; c < 3; ++c) out.v[s][c] = a * x.v[s][c] + arg.b * out.v[s][c];
      }
    }
    arg.out.Store(cb, out);
  }
};

template <class Arg>
__global__ void WilsonDslashKernel(const Arg arg) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= arg.sites) return;
  WilsonDslashSite<Arg>{}(arg, cb);
}

}  // namespace lqcd::gpu
