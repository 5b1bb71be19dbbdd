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

#include "gpu/checkerboard.cuh"
#include "gpu/gauge_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"

namespace lqcd::gpu {

// Everything one Dslash launch needs. The template flags fix the variant at compile time.
template <Precision P, Reconstruct R, bool kGaugeFixedFlag, bool kDaggerFlag, bool kXpayFlag>
struct WilsonDslashArg {
  using Real = typename SpinorStorage<P>::Real;
  static constexpr bool kGaugeFixed = kGaugeFixedFlag;  // skip unit t-links (temporal gauge)
  static constexpr bool kDagger = kDaggerFlag;          // D^dag instead of D
  static constexpr bool kXpay = kXpayFlag;              // out = a x + b D in instead of out = D in

  SpinorAccessor<P> out;
  SpinorAccessor<P> in;  // read only (the accessor type is shared with the writable output)
  SpinorAccessor<P> x;   // read only; used when kXpay
  GaugeAccessor<P, R> gauge;
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

// out += (r, s A_mu^dag r): adds the full spinor rebuilt from the multiplied half spinor.
template <int mu, int sign, typename Real>
__device__ __forceinline__ void AccumulateSpatial(ColorSpinor<Real>& out, const HalfSpinor<Real>& r) {
  constexpr SpinBlockRow row0 = LowerBlockRow(mu, 0), row1 = LowerBlockRow(mu, 1);
  constexpr int power0 = (row0.power + (sign < 0 ? 2 : 0)) % 4;
  constexpr int power1 = (row1.power + (sign < 0 ? 2 : 0)) % 4;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    out.v[0][c] = out.v[0][c] + r.v[0][c];
    out.v[1][c] = out.v[1][c] + r.v[1][c];
    out.v[2][c] = out.v[2][c] + TimesIPower<power0>(r.v[row0.column][c]);
    out.v[3][c] = out.v[3][c] + TimesIPower<power1>(r.v[row1.column][c]);
  }
}

template <typename Real>
__device__ __forceinline__ void Negate(HalfSpinor<Real>& h) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) h.v[s][c] = -h.v[s][c];
  }
}

// One spatial direction mu: the forward hop (projector 1 - s gamma_mu, link U_mu(n)) and the backward
// hop (1 + s gamma_mu, link U_mu(n - mu)^dag), s = +1 for D and -1 for D^dag.
template <int mu, class Arg>
__device__ __forceinline__ void SpatialHops(const Arg& arg, const SiteGeometry& site, int cb,
                                            ColorSpinor<typename Arg::Real>& out) {
  using Real = typename Arg::Real;
  constexpr int kForwardSign = Arg::kDagger ? +1 : -1;
  constexpr int kBackwardSign = -kForwardSign;
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = ProjectSpatial<mu, kForwardSign>(arg.in.Load(neighbour));
    if (wraps && arg.antiperiodic[mu]) Negate(h);
    const Link<Real> u = arg.gauge.Load(mu, arg.parity, cb);
    AccumulateSpatial<mu, kForwardSign>(out, Multiply(u, h));
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = ProjectSpatial<mu, kBackwardSign>(arg.in.Load(neighbour));
    if (wraps && arg.antiperiodic[mu]) Negate(h);
    const Link<Real> u = arg.gauge.Load(mu, 1 - arg.parity, neighbour);
    AccumulateSpatial<mu, kBackwardSign>(out, MultiplyAdjoint(u, h));
  }
}

// Adds 2 * r to spins (first_spin, first_spin + 1) of out; the factor 2 of the temporal projectors is
// exact, so it is applied here rather than on the loaded spinor.
template <int first_spin, typename Real>
__device__ __forceinline__ void AccumulateTemporal(ColorSpinor<Real>& out, const HalfSpinor<Real>& r) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) out.v[first_spin + s][c] = out.v[first_spin + s][c] + Real(2) * r.v[s][c];
  }
}

// The time direction. Forward hop: 1 - s gamma_4 keeps the lower spins for D (s = +1), the upper ones
// for D^dag; backward hop the opposite. Only those spins of the neighbour are loaded.
template <class Arg>
__device__ __forceinline__ void TemporalHops(const Arg& arg, const SiteGeometry& site, int cb,
                                             ColorSpinor<typename Arg::Real>& out) {
  using Real = typename Arg::Real;
  constexpr int mu = 3;
  constexpr int kForwardSpins = Arg::kDagger ? 0 : 2;
  constexpr int kBackwardSpins = 2 - kForwardSpins;
  const int last = arg.extents[3] - 1;
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = arg.in.template LoadSpinPair<kForwardSpins>(neighbour);
    if (wraps && arg.antiperiodic[mu]) Negate(h);
    if (!Arg::kGaugeFixed || site.coords[3] == last) h = Multiply(arg.gauge.Load(mu, arg.parity, cb), h);
    AccumulateTemporal<kForwardSpins>(out, h);
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    HalfSpinor<Real> h = arg.in.template LoadSpinPair<kBackwardSpins>(neighbour);
    if (wraps && arg.antiperiodic[mu]) Negate(h);
    if (!Arg::kGaugeFixed || site.coords[3] == 0) h = MultiplyAdjoint(arg.gauge.Load(mu, 1 - arg.parity, neighbour), h);
    AccumulateTemporal<kBackwardSpins>(out, h);
  }
}

// The site functor: computes and stores the output spinor of checkerboard site cb.
template <class Arg>
struct WilsonDslashSite {
  __device__ __forceinline__ void operator()(const Arg& arg, int cb) const {
    using Real = typename Arg::Real;
    const SiteGeometry site = CheckerboardSite(cb, arg.parity, arg.extents);
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
      const ColorSpinor<Real> x = arg.x.Load(cb);
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#pragma unroll
        for (int c = 0; c < 3; ++c) out.v[s][c] = arg.a * x.v[s][c] + arg.b * out.v[s][c];
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
