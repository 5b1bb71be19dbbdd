// staggered_dslash.cu: the improved staggered hopping term D_{p,p'} on n right-hand sides in one launch: the
// Arg struct, the per-site functor and a thin launcher that asks the tuner for the block size.
//
// Computes, for every right-hand side j < n and every site n of the output parity p (the operator of
// reference/staggered/staggered_dslash.h, applied to one parity),
//   (D psi_j)(n) = sum_mu eta_mu(n) [ s F_mu(n) psi_j(n + mu)     - s F_mu(n - mu)^dag psi_j(n - mu)
//                                   + s L_mu(n) psi_j(n + 3 mu)   - s L_mu(n - 3 mu)^dag psi_j(n - 3 mu) ],
// eta_mu(n) = (-1)^(n_0 + ... + n_{mu-1}), s = -1 for a hop across an antiperiodic boundary (a 3-hop crosses
// at most once: the host API refuses long links on an extent below 3), and the dagger is -D (a sign flip of
// the sum, exact). Every hop flips the parity (1 and 3 are odd), so the inputs are on parity 1 - p.
//
// With xpay: out_j = a x_j + b (D psi_j) (or with -D for the dagger), a and b real, x_j on the output parity (it
// may be out_j: each thread reads x at its own site before it stores there). The even-odd operator is built of
// these: 4m^2 in - D_{p,p'} (D_{p',p} in) and the source and solution maps of staggered_dslash.h.
// With a fused sum (staggered_dslash_launch.h StaggeredSum), also one of CG's scalars for each right-hand side: a
// term per output site (|out_j(n)|^2 + w |in_j(n + x^)|^2; or |out_j(n)|^2 after the update
// out_j += c_j (a x_j + b D in_j)), summed in double over chunks of 32 consecutive output sites in a fixed shuffle
// tree, one partial sum per chunk (blas::SumRealPartials adds the chunks in its fixed order). A block then holds
// whole chunks (the launcher makes its threads a multiple of 32 x groups, tuning the sites per block), so the
// partials do not depend on the block size. For the Schur operator M = 4m^2 - D_{p,p'} D_{p',p} these are CG's
// curvature (p, M p) = |D_{p',p} p|^2 + 4m^2 |p|^2 (D is antihermitian) in its first Dslash, and |r - alpha M p|^2 in
// its second with r updated in place and M p never stored.
//
// Mapping: one thread per output site and group of kRhsPerThread right-hand sides, the group index running
// fastest: thread t takes site t / groups and group t % groups. A thread loads each of its site's 16 links once
// (8 without long links) and applies it to the neighbours of its group; the groups of one site are neighbouring
// lanes of one warp, so one load instruction fetches a link once for all of them and the link traffic per call
// is that of one group, whatever n. (Groups in separate blocks, as blockIdx.y, met the same links only if the
// L2 cache still held them: it did not, and n = 8 or 16 cost as much per right-hand side as n = 4.)
// kRhsPerThread (1, 2 or 4) is chosen from n by the launcher, from measurements (LaunchFor).
// Each link is read by one output site per launch, so every link accessor loads without allocating in L1
// (register_types.cuh LoadReadOnce): the links are most of the bytes at n = 1 and would otherwise evict the
// colour vectors that the neighbouring sites read again (measured on an H200: 8% less time at n = 8 in single,
// docs/staggered.md).
//
// Arithmetic: the link products as three fused dot products per component (register_types.cuh FusedDot3),
// the 16 hops accumulated in the order of the formula above per direction, in the precision of the fields
// (double or single; half computes in float from 16-bit levels: the colour vectors with a norm per site,
// colour_vector_accessor.cuh, the links with one scale per field, scaled_half_link_accessor.cuh). The links are
// stored in 18 reals (or 13 numbers for long links in double and single): neither fat nor HISQ long links are
// SU(3), so the 12- and 8-number forms do not apply.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/checkerboard.cuh"
#include "gpu/colour_vector_accessor.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gauge_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/scalar_program.h"
#include "gpu/scaled_half_link_accessor.cuh"
#include "gpu/staggered_dslash_launch.h"
#include "gpu/tune.h"
#include "gpu/u3_link_accessor.cuh"

namespace lqcd::gpu {
namespace {

// kLongReals: 0 (no long links), 18 (GaugeAccessor; half: ScaledHalfLinkAccessor), 13 (U3LinkAccessor: two
// rows and arg det, rebuilt) or 9 (U9LinkAccessor: SU(3)'s 8 reals and arg det, rebuilt); 13 and 9 in double and
// single only.
template <Precision P>
using EighteenRealLinks =
    std::conditional_t<P == Precision::kHalf, ScaledHalfLinkAccessor, GaugeAccessor<P, Reconstruct::k18, 4, true>>;
// What a launch does after the hops: store D in; store a x + b D in; or one of those with a fused sum
// (StaggeredSum; each a variant of its own, so that the plain two keep their registers).
enum class StaggeredEpilogue { kNone, kXpay, kNormWithForwardX, kXpayAxpyNorm };

template <Precision P, int kLongReals, bool kDaggerFlag, StaggeredEpilogue kEpilogueValue, int kRhsPerThreadValue>
struct StaggeredDslashArg {
  using Real = typename ColourStorage<P>::Real;
  using FatLinks = EighteenRealLinks<P>;
  using LongLinks =
      std::conditional_t<kLongReals == 13, U3LinkAccessor<P>,
                         std::conditional_t<kLongReals == 9, U9LinkAccessor<P>, EighteenRealLinks<P>>>;
  static constexpr bool kLongLinks = kLongReals != 0;
  static constexpr bool kDagger = kDaggerFlag;
  static constexpr StaggeredEpilogue kEpilogue = kEpilogueValue;
  static constexpr bool kXpay = kEpilogue == StaggeredEpilogue::kXpay || kEpilogue == StaggeredEpilogue::kXpayAxpyNorm;
  static constexpr bool kSums = kEpilogue != StaggeredEpilogue::kNone && kEpilogue != StaggeredEpilogue::kXpay;
  static_assert(!(kSums && kDaggerFlag), "CG's operators are Hermitian: no fused sums with D^dag");
  static constexpr int kRhsPerThread = kRhsPerThreadValue;
  ColourVectorAccessor<P> out[kMaxStaggeredRhs];
  ColourVectorAccessor<P> in[kMaxStaggeredRhs];  // read only
  ColourVectorAccessor<P> x[kMaxStaggeredRhs];   // read only; xpay: out = a x + b D in (x may be out)
  Real a = 0, b = 1;
  FatLinks fat;
  LongLinks long_links;
  int rhs = 1;
  int extents[4];
  int sites = 0;   // V / 2
  int parity = 0;  // of the output sites
  bool antiperiodic[4];
  double* partials = nullptr;  // kSums: the chunk sums
  int chunks = 0;              // kSums: CurvatureChunks(sites)
  double norm_weight = 0;                                  // kNormWithForwardX: w
  double axpy_numerator[kMaxStaggeredRhs];                 // kXpayAxpyNorm: c_j = -(nu_j / delta_j)
  const double* axpy_denominator[kMaxStaggeredRhs];
};

// U v and U^dag v.
template <typename Real>
__host__ __device__ __forceinline__ ColourVector<Real> Multiply(const Link<Real>& u, const ColourVector<Real>& v) {
  ColourVector<Real> r;
#pragma unroll
  for (int i = 0; i < 3; ++i) r.c[i] = FusedDot3<false>(u.m[i][0], u.m[i][1], u.m[i][2], v.c[0], v.c[1], v.c[2]);
  return r;
}
template <typename Real>
__host__ __device__ __forceinline__ ColourVector<Real> MultiplyAdjoint(const Link<Real>& u, const ColourVector<Real>& v) {
  ColourVector<Real> r;
#pragma unroll
  for (int i = 0; i < 3; ++i) r.c[i] = FusedDot3<true>(u.m[0][i], u.m[1][i], u.m[2][i], v.c[0], v.c[1], v.c[2]);
  return r;
}

// out += y (kNegative: out -= y); exact sign handling, one rounding per component.
template <typename Real>
__host__ __device__ __forceinline__ void Accumulate(ColourVector<Real>& out, const ColourVector<Real>& y, bool negative) {
#pragma unroll
  for (int c = 0; c < 3; ++c) out.c[c] = negative ? out.c[c] - y.c[c] : out.c[c] + y.c[c];
}

// The lexicographic index of n + hop mu (hop = +-1 or +-3), periodic, and whether the hop crosses the boundary.
__host__ __device__ __forceinline__ int HopIndex(const SiteGeometry& site, int mu, int hop, const int (&extents)[4],
                                        bool& wraps) {
  int x = site.coords[mu] + hop;
  wraps = x < 0 || x >= extents[mu];
  if (x < 0) x += extents[mu];
  if (x >= extents[mu]) x -= extents[mu];
  return site.full_index + (x - site.coords[mu]) * LexicographicStride(mu, extents);
}

// The accumulators of one thread's group of right-hand sides.
template <class Arg>
using RhsGroup = ColourVector<typename Arg::Real>[Arg::kRhsPerThread];

// The forward and backward hop of length k (1: fat links, 3: long links) in direction mu for the group's
// right-hand sides first .. first + count - 1; eta_negative: eta_mu(n) = -1.
template <int k, class Arg, class Links>
__host__ __device__ __forceinline__ void HopPair(const Arg& arg, const Links& links, const SiteGeometry& site, int cb, int mu,
                                        bool eta_negative, int first, int count,
                                        RhsGroup<Arg>& out) {
  using Real = typename Arg::Real;
  {  // forward: + eta s X_mu(n) psi(n + k mu)
    bool wraps;
    const int neighbour = HopIndex(site, mu, k, arg.extents, wraps) >> 1;
    const bool negative = eta_negative != (wraps && arg.antiperiodic[mu]);
    const Link<Real> u = links.Load(mu, arg.parity, cb);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) Accumulate(out[j], Multiply(u, arg.in[first + j].Load(neighbour)), negative);
    }
  }
  {  // backward: - eta s X_mu(n - k mu)^dag psi(n - k mu)
    bool wraps;
    const int neighbour = HopIndex(site, mu, -k, arg.extents, wraps) >> 1;
    const bool negative = eta_negative == (wraps && arg.antiperiodic[mu]);
    const Link<Real> u = links.Load(mu, 1 - arg.parity, neighbour);
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) Accumulate(out[j], MultiplyAdjoint(u, arg.in[first + j].Load(neighbour)), negative);
    }
  }
}

// Re (x, v) summed in double (a norm's term of one site with x = v).
template <typename Real>
__host__ __device__ __forceinline__ double ReDotTerm(const ColourVector<Real>& x, const ColourVector<Real>& v) {
  double sum = 0;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    sum += static_cast<double>(x.c[c].re) * static_cast<double>(v.c[c].re);
    sum += static_cast<double>(x.c[c].im) * static_cast<double>(v.c[c].im);
  }
  return sum;
}

// The site functor: output site cb for the right-hand sides first .. first + kRhsPerThread - 1 (those below n).
// kSums: also term[j], the fused sum's term (StaggeredSum) of right-hand side first + j at this site.
// A host function too: RunStaggeredDslashOnHost runs it on host memory (the check without a GPU).
template <class Arg>
struct StaggeredDslashSite {
  __host__ __device__ __forceinline__ void operator()(const Arg& arg, int cb, int first,
                                                      double* term = nullptr) const {
    using Real = typename Arg::Real;
    const int count = arg.rhs - first < Arg::kRhsPerThread ? arg.rhs - first : Arg::kRhsPerThread;
    const SiteGeometry site = CheckerboardSite(cb, arg.parity, arg.extents);
    RhsGroup<Arg> out;
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
#pragma unroll
      for (int c = 0; c < 3; ++c) out[j].c[c] = {Real(0), Real(0)};
    }
    int coordinate_sum = 0;  // n_0 + ... + n_{mu-1}: eta_mu(n) = (-1)^coordinate_sum
#pragma unroll
    for (int mu = 0; mu < 4; ++mu) {
      const bool eta_negative = (coordinate_sum & 1) != 0;
      HopPair<1>(arg, arg.fat, site, cb, mu, eta_negative, first, count, out);
      if constexpr (Arg::kLongLinks) HopPair<3>(arg, arg.long_links, site, cb, mu, eta_negative, first, count, out);
      coordinate_sum += site.coords[mu];
    }
#pragma unroll
    for (int j = 0; j < Arg::kRhsPerThread; ++j) {
      if (j < count) {
        if constexpr (Arg::kDagger) {
#pragma unroll
          for (int c = 0; c < 3; ++c) out[j].c[c] = -out[j].c[c];
        }
        if constexpr (Arg::kXpay) {
          // a x + b (D in): x is read at this site only, before this thread stores it, so x may be out.
          const ColourVector<Real> x = arg.x[first + j].Load(cb);
#pragma unroll
          for (int c = 0; c < 3; ++c) out[j].c[c] = arg.a * x.c[c] + arg.b * out[j].c[c];
          if constexpr (Arg::kEpilogue == StaggeredEpilogue::kXpayAxpyNorm) {
            // y + c q with c = -(nu / delta) evaluated as the deferred scalar -alpha is (scalar_program.h), the
            // old y read here before this thread stores the new one.
            const Real c = static_cast<Real>(
                -scalar_detail::Div(arg.axpy_numerator[first + j], *arg.axpy_denominator[first + j]));
            const ColourVector<Real> y = arg.out[first + j].Load(cb);
#pragma unroll
            for (int k = 0; k < 3; ++k) out[j].c[k] = Fma(c, out[j].c[k], y.c[k]);  // AxpyNorm's y + c q
            const ColourVector<Real> stored = arg.out[first + j].StoreSite(cb, out[j]);
            term[j] = ReDotTerm(stored, stored);
            continue;
          }
        }
        if constexpr (Arg::kEpilogue == StaggeredEpilogue::kNormWithForwardX) {
          // The input at n + x^ (this site's forward fat hop read it: a cache hit); each input site is the forward-x
          // neighbour of exactly one output site.
          bool wraps;
          const int forward = HopIndex(site, 0, 1, arg.extents, wraps) >> 1;
          const ColourVector<Real> v = arg.in[first + j].Load(forward);
          const ColourVector<Real> stored = arg.out[first + j].StoreSite(cb, out[j]);
          term[j] = ReDotTerm(stored, stored) + arg.norm_weight * ReDotTerm(v, v);
          continue;
        }
        arg.out[first + j].Store(cb, out[j]);
      }
    }
  }
};

// The sum of v over the 32 lanes of a warp (lane 0 holds it): the tree ((v_0 + v_16) + (v_8 + v_24)) + ...,
// the same order as ChunkSum on the host.
__device__ __forceinline__ double WarpSum(double v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The sum of 32 values in WarpSum's order.
__host__ __forceinline__ double ChunkSum(double (&v)[kCurvatureChunkSites]) {
  for (int offset = 16; offset > 0; offset /= 2) {
    for (int lane = 0; lane < offset; ++lane) v[lane] += v[lane + offset];
  }
  return v[0];
}

// The fused sum's block: blockDim.x = 32 c x groups threads cover the c chunks of sites of this block. Each
// thread's terms go to shared memory (site-major, right-hand sides minor; sites past the end contribute 0), then
// each warp sums (chunk, right-hand side) pairs, one per pass, over the chunk's 32 sites.
template <class Arg>
__device__ void SumsBlock(const Arg& arg, int groups, int cb, int first) {
  extern __shared__ double terms[];  // [site of the block][right-hand side]
  double mine[Arg::kRhsPerThread] = {};
  if (cb < arg.sites) StaggeredDslashSite<Arg>{}(arg, cb, first, mine);
  const int local_site = threadIdx.x / groups;
#pragma unroll
  for (int j = 0; j < Arg::kRhsPerThread; ++j) {
    if (first + j < arg.rhs) terms[local_site * arg.rhs + first + j] = mine[j];
  }
  __syncthreads();
  const int chunks_here = blockDim.x / (kCurvatureChunkSites * groups);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int pair = warp; pair < chunks_here * arg.rhs; pair += warps) {
    const int chunk = pair / arg.rhs, j = pair - chunk * arg.rhs;
    const double sum = WarpSum(terms[(chunk * kCurvatureChunkSites + lane) * arg.rhs + j]);
    const int global_chunk = blockIdx.x * chunks_here + chunk;
    if (lane == 0 && global_chunk < arg.chunks) arg.partials[j * arg.chunks + global_chunk] = sum;
  }
}

template <class Arg>
__global__ void StaggeredDslashKernel(const Arg arg, const int groups) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const int cb = thread / groups;
  const int first = (thread - cb * groups) * Arg::kRhsPerThread;
  if constexpr (Arg::kSums) {
    SumsBlock(arg, groups, cb, first);
  } else {
    if (cb >= arg.sites) return;
    StaggeredDslashSite<Arg>{}(arg, cb, first);
  }
}

std::string TuneKey(const StaggeredDslashLaunch& l, int rhs_per_thread) {
  const bool has_long = l.long_links.data != nullptr || l.long_half.data != nullptr;
  const std::string links = l.long_links_u3.data != nullptr ? " fat+long" + std::to_string(l.long_links_u3.numbers)
                            : has_long                      ? " fat+long"
                                                            : " fat";
  const char* const sums[] = {"", " norm+forward-x", " axpy-norm"};
  const std::string epilogue = std::string(l.xpay ? " xpay" : "") + sums[static_cast<int>(l.sum)];
  std::string key = std::string("StaggeredDslash ") + ToString(l.out[0].precision) + links + (l.dagger ? " dagger" : "") +
                    epilogue + " rhs " + std::to_string(l.rhs) + "/" + std::to_string(rhs_per_thread) + " " +
                    std::to_string(l.out[0].extents[0]);
  for (int mu = 1; mu < 4; ++mu) key += "x" + std::to_string(l.out[0].extents[mu]);
  return key;
}

template <class Arg, Precision P>
Arg ArgOf(const StaggeredDslashLaunch& l) {
  using Word = typename ColourStorage<P>::Word;
  Arg arg;
  // A view's words, and for half the norms after its 3 x stride words (staggered_dslash_launch.h).
  const auto accessor = [](const void* data, int stride) {
    ColourVectorAccessor<P> a;
    a.data = static_cast<Word*>(const_cast<void*>(data));  // inputs are only ever loaded
    a.stride = stride;
    if constexpr (P == Precision::kHalf) a.norm = reinterpret_cast<float*>(a.data + 3 * static_cast<long>(stride));
    return a;
  };
  for (int j = 0; j < l.rhs; ++j) {
    arg.out[j] = accessor(l.out[j].data, l.out[j].stride);
    arg.in[j] = accessor(l.in[j].data, l.in[j].stride);
    if constexpr (Arg::kXpay) arg.x[j] = accessor(l.x[j].data, l.x[j].stride);
  }
  arg.a = static_cast<typename Arg::Real>(l.a);
  arg.b = static_cast<typename Arg::Real>(l.b);
  if constexpr (P == Precision::kHalf) {
    const auto half_links = [](const ScaledHalfLinkView& v) {
      ScaledHalfLinkAccessor a;
      a.data = static_cast<short2*>(v.data);
      a.stride = v.stride;
      a.level_value = v.level_value;
      return a;
    };
    arg.fat = half_links(l.fat_half);
    if constexpr (Arg::kLongLinks) arg.long_links = half_links(l.long_half);
  } else {
    using GaugeWord = typename GaugeAccessor<P, Reconstruct::k18>::Word;
    arg.fat.data = static_cast<GaugeWord*>(l.fat.data);
    arg.fat.stride = l.fat.stride;
    if constexpr (std::is_same_v<typename Arg::LongLinks, U3LinkAccessor<P>> ||
                  std::is_same_v<typename Arg::LongLinks, U9LinkAccessor<P>>) {
      arg.long_links.data = static_cast<typename ColourStorage<P>::Word*>(l.long_links_u3.data);
      arg.long_links.stride = l.long_links_u3.stride;
      arg.long_links.scale = static_cast<typename Arg::Real>(l.long_links_u3.scale);
    } else if constexpr (Arg::kLongLinks) {
      arg.long_links.data = static_cast<GaugeWord*>(l.long_links.data);
      arg.long_links.stride = l.long_links.stride;
    }
  }
  arg.rhs = l.rhs;
  for (int mu = 0; mu < 4; ++mu) {
    arg.extents[mu] = l.out[0].extents[mu];
    arg.antiperiodic[mu] = l.antiperiodic[mu];
  }
  arg.sites = l.out[0].sites;
  arg.parity = l.out[0].parity;
  if constexpr (Arg::kSums) {
    arg.partials = l.partials;
    arg.chunks = CurvatureChunks(arg.sites);
  }
  arg.norm_weight = l.norm_weight;
  for (int j = 0; j < kMaxStaggeredRhs; ++j) {
    arg.axpy_numerator[j] = l.axpy_numerator[j];
    arg.axpy_denominator[j] = l.axpy_denominator[j];
  }
  return arg;
}

// A launch with a fused sum on the host: every site's terms, then each chunk summed as the device's warps sum it.
template <class Arg>
void SumsOnHost(const Arg& arg, int groups) {
  constexpr int m = Arg::kRhsPerThread;
  std::vector<double> terms(static_cast<std::size_t>(arg.chunks) * kCurvatureChunkSites * arg.rhs, 0.0);
  for (int group = 0; group < groups; ++group) {
    for (int cb = 0; cb < arg.sites; ++cb) {
      double mine[m] = {};
      StaggeredDslashSite<Arg>{}(arg, cb, group * m, mine);
      for (int j = 0; j < m && group * m + j < arg.rhs; ++j) {
        terms[static_cast<std::size_t>(cb) * arg.rhs + group * m + j] = mine[j];
      }
    }
  }
  for (int chunk = 0; chunk < arg.chunks; ++chunk) {
    for (int j = 0; j < arg.rhs; ++j) {
      double v[kCurvatureChunkSites];
      for (int lane = 0; lane < kCurvatureChunkSites; ++lane) {
        v[lane] = terms[(static_cast<std::size_t>(chunk) * kCurvatureChunkSites + lane) * arg.rhs + j];
      }
      arg.partials[j * arg.chunks + chunk] = ChunkSum(v);
    }
  }
}

template <Precision P, int kLong, bool kDagger, StaggeredEpilogue kEpilogue, int m>
void LaunchVariant(const StaggeredDslashLaunch& l, bool on_host) {
  using Arg = StaggeredDslashArg<P, kLong, kDagger, kEpilogue, m>;
  constexpr bool kXpay = Arg::kXpay;
  constexpr bool sums = Arg::kSums;
  const Arg arg = ArgOf<Arg, P>(l);
  const int groups = (l.rhs + m - 1) / m;
  if (on_host) {
    if constexpr (sums) {
      SumsOnHost(arg, groups);
    } else {
      for (int group = 0; group < groups; ++group) {
        for (int cb = 0; cb < arg.sites; ++cb) StaggeredDslashSite<Arg>{}(arg, cb, group * m);
      }
    }
    return;
  }
  if (static_cast<long long>(arg.sites) * groups > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("ApplyStaggeredDslash: " + std::to_string(arg.sites) + " sites x " +
                                std::to_string(groups) + " groups of right-hand sides exceed the kernel's int "
                                "thread index; use fewer right-hand sides per call");
  }
  cudaFuncAttributes attributes;
  LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, StaggeredDslashKernel<Arg>));
  const std::string key = TuneKey(l, m);
  // With a fused sum the tuner chooses the sites per block (multiples of 32) and a block has sites x groups
  // threads, whole chunks of sites, and shared memory for the terms of its sites.
  const int threads_per_candidate = sums ? groups : 1;
  if (attributes.maxThreadsPerBlock / threads_per_candidate < 32) {
    throw std::invalid_argument("ApplyStaggeredDslash: a fused sum needs 32 sites x " + std::to_string(groups) +
                                " groups of right-hand sides per block, above this kernel's " +
                                std::to_string(attributes.maxThreadsPerBlock) + " threads; fewer right-hand sides per "
                                "call or more per thread");
  }
  auto launch = [&](int candidate) {
    const long long threads = static_cast<long long>(arg.sites) * groups;  // below 2^31: checked above
    const int block = candidate * threads_per_candidate;
    const long long blocks = (threads + block - 1) / block;
    const std::size_t shared = sums ? sizeof(double) * static_cast<std::size_t>(candidate) * l.rhs : 0;
    StaggeredDslashKernel<Arg><<<static_cast<unsigned>(blocks), block, shared>>>(arg, groups);
    const std::string what = "launch of " + key + " with " + std::to_string(block) + " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  };
  // Outputs never alias the inputs (the host API refuses it); an xpay output may be its x, and the fused update
  // reads its output, and then repeated timing launches would compound: the tuner saves and restores it.
  std::vector<std::pair<void*, std::size_t>> preserve;
  for (int j = 0; kXpay && j < l.rhs; ++j) {
    if (l.x[j].data == l.out[j].data || kEpilogue == StaggeredEpilogue::kXpayAxpyNorm) {
      preserve.emplace_back(l.out[j].data, ColourVectorBytes(P, l.out[j].stride));
    }
  }
  const int candidate = LaunchTuner::Instance().BlockSize(
      key, attributes.maxThreadsPerBlock / threads_per_candidate / 32 * 32, preserve, launch);
  launch(candidate);
}

// f(std::true_type{}) or f(std::false_type{}): a run-time flag as a compile-time one.
template <class F>
void WithFlag(bool value, F&& f) {
  if (value) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// f(the launch's epilogue as a compile-time constant).
template <class F>
void WithEpilogue(const StaggeredDslashLaunch& l, F&& f) {
  using E = StaggeredEpilogue;
  switch (l.sum) {
    case StaggeredSum::kNone:
      if (!l.xpay) return f(std::integral_constant<E, E::kNone>{});
      return f(std::integral_constant<E, E::kXpay>{});
    case StaggeredSum::kNormWithForwardX: return f(std::integral_constant<E, E::kNormWithForwardX>{});
    case StaggeredSum::kAxpyNorm: return f(std::integral_constant<E, E::kXpayAxpyNorm>{});
  }
  throw std::invalid_argument("StaggeredDslash: unknown fused sum");
}

template <Precision P>
void LaunchFor(const StaggeredDslashLaunch& l, bool on_host) {
  if (l.sum != StaggeredSum::kNone) {
    if (l.dagger || P == Precision::kHalf || l.partials == nullptr) {
      throw std::invalid_argument("StaggeredDslash: the fused sums are compiled for D (not D^dag) in double and single, "
                                  "and need their partial sums' memory");
    }
    if (l.xpay != (l.sum != StaggeredSum::kNormWithForwardX)) {
      throw std::invalid_argument("StaggeredDslash: the fused update belongs to the xpay form, the fused norm to the "
                                  "plain one");
    }
  }
  // Measured (docs/staggered.md's data): in double and single at n = 4, 2 per thread beats 4 by up to 8% (one
  // row 0.3% behind); at n = 8, 4 per thread is at most 2% behind 2 and up to 11% ahead; at n = 16 it is 16-35%
  // ahead. In half, 4 per thread is 10-17% ahead of 2 already at n = 4 (the level decoding is shared work).
  const int four_from = P == Precision::kHalf ? 4 : 8;
  const int m = l.rhs_per_thread != 0 ? l.rhs_per_thread : l.rhs >= four_from ? 4 : l.rhs >= 2 ? 2 : 1;
  const auto with_long = [&](auto long_reals) {
    WithFlag(l.dagger, [&](auto dagger) {
      WithEpilogue(l, [&](auto epilogue) {
        constexpr int kLong = decltype(long_reals)::value;
        constexpr bool kDagger = decltype(dagger)::value;
        constexpr StaggeredEpilogue kEpilogue = decltype(epilogue)::value;
        // Half has no fused sums: measured with an earlier fused curvature, its four right-hand sides per thread
        // took 80 registers with the sum against 72 without, and the iterations ran 1-3% slower than with a separate
        // ReDot (16 bytes per site and field); GpuStaggeredSchur<Half> leaves the sums to the vector kernels.
        constexpr bool kSums = kEpilogue != StaggeredEpilogue::kNone && kEpilogue != StaggeredEpilogue::kXpay;
        if constexpr (kSums && (kDagger || P == Precision::kHalf)) {
          throw std::logic_error("StaggeredDslash: no fused sums with D^dag or in half");  // refused above
        } else {
          switch (m) {
            case 1: return LaunchVariant<P, kLong, kDagger, kEpilogue, 1>(l, on_host);
            case 2: return LaunchVariant<P, kLong, kDagger, kEpilogue, 2>(l, on_host);
            default: return LaunchVariant<P, kLong, kDagger, kEpilogue, 4>(l, on_host);
          }
        }
      });
    });
  };
  if constexpr (P == Precision::kHalf) {
    if (l.long_links_u3.data != nullptr) {
      throw std::invalid_argument("StaggeredDslash: " + std::to_string(l.long_links_u3.numbers) +
                                  "-number long links are not implemented in half precision");
    }
    if (l.long_half.data != nullptr) return with_long(std::integral_constant<int, 18>{});
  } else {
    if (l.long_links_u3.data != nullptr && l.long_links_u3.numbers == 9) {
      return with_long(std::integral_constant<int, 9>{});
    }
    if (l.long_links_u3.data != nullptr) return with_long(std::integral_constant<int, 13>{});
    if (l.long_links.data != nullptr) return with_long(std::integral_constant<int, 18>{});
  }
  with_long(std::integral_constant<int, 0>{});
}

void Dispatch(const StaggeredDslashLaunch& launch, bool on_host) {
  switch (launch.out[0].precision) {
    case Precision::kDouble: return LaunchFor<Precision::kDouble>(launch, on_host);
    case Precision::kSingle: return LaunchFor<Precision::kSingle>(launch, on_host);
    case Precision::kHalf: return LaunchFor<Precision::kHalf>(launch, on_host);
  }
  throw std::invalid_argument("StaggeredDslash: unknown precision");
}

template <Precision P>
void PackLinksFor(const GaugeView& destination, const double* canonical) {
  using Accessor = GaugeAccessor<P, Reconstruct::k18>;
  Accessor links;
  links.data = static_cast<typename Accessor::Word*>(destination.data);
  links.stride = destination.stride;
  const int half = HalfVolume(destination.extents);
  for (int parity = 0; parity < 2; ++parity) {
    for (int mu = 0; mu < 4; ++mu) {
      for (int cb = 0; cb < half; ++cb) {
        const double* r = canonical + 18 * ((parity * 4 + mu) * static_cast<long>(half) + cb);
        Link<double> u;
        for (int i = 0; i < 3; ++i) {
          for (int j = 0; j < 3; ++j) u.m[i][j] = {r[2 * (3 * i + j)], r[2 * (3 * i + j) + 1]};
        }
        links.Store(mu, parity, cb, u);
      }
    }
  }
}

}  // namespace

void LaunchStaggeredDslash(const StaggeredDslashLaunch& launch) { Dispatch(launch, false); }

void RunStaggeredDslashOnHost(const StaggeredDslashLaunch& launch) { Dispatch(launch, true); }

void PackU3LinksOnHost(const U3LinkView& destination, const double* canonical) {
  if (destination.numbers != 13 && destination.numbers != 9) {
    throw std::invalid_argument("PackU3LinksOnHost: 13 or 9 numbers, got " + std::to_string(destination.numbers));
  }
  const int reals = 2 * U3WordsPerLink(destination.numbers);
  const auto pack = [&](auto accessor) {
    using Accessor = decltype(accessor);
    accessor.data = static_cast<typename Accessor::Word*>(destination.data);
    accessor.stride = destination.stride;
    for (int parity = 0; parity < 2; ++parity) {
      for (int mu = 0; mu < 4; ++mu) {
        for (int cb = 0; cb < destination.stride; ++cb) {
          accessor.Store(mu, parity, cb, canonical + reals * ((parity * 4 + mu) * static_cast<long>(destination.stride) + cb));
        }
      }
    }
  };
  const bool nine = destination.numbers == 9;
  switch (destination.precision) {
    case Precision::kDouble:
      return nine ? pack(U9LinkAccessor<Precision::kDouble>{}) : pack(U3LinkAccessor<Precision::kDouble>{});
    case Precision::kSingle:
      return nine ? pack(U9LinkAccessor<Precision::kSingle>{}) : pack(U3LinkAccessor<Precision::kSingle>{});
    case Precision::kHalf: break;
  }
  throw std::invalid_argument("PackU3LinksOnHost: double or single only");
}

void PackEighteenRealLinksOnHost(const GaugeView& destination, const double* canonical) {
  if (destination.reconstruct != Reconstruct::k18 || destination.precision == Precision::kHalf) {
    throw std::invalid_argument("PackEighteenRealLinksOnHost: 18 reals in double or single only");
  }
  if (destination.precision == Precision::kDouble) return PackLinksFor<Precision::kDouble>(destination, canonical);
  PackLinksFor<Precision::kSingle>(destination, canonical);
}

float HalfLinkLevelValue(double largest) {
  if (!(largest > 0) || !std::isfinite(largest)) {
    throw std::invalid_argument("HalfLinkLevelValue: the largest |real| must be finite and positive, got " +
                                std::to_string(largest));
  }
  float level_value = static_cast<float>(largest / kHalfScale);
  // Up to the next float if rounding went down: then largest / level_value <= 32767 (a level in range).
  if (static_cast<double>(level_value) * kHalfScale < largest) level_value = std::nextafter(level_value, 1e30f);
  return level_value;
}

int HalfLinkLevel(double real, float level_value) {
  const double level = std::nearbyint(real / level_value);
  if (!(std::abs(level) <= kHalfScale)) {
    throw std::invalid_argument("HalfLinkLevel: a real of " + std::to_string(real) + " is beyond 32767 levels of " +
                                std::to_string(level_value));
  }
  return static_cast<int>(level);
}

void PackScaledHalfLinksOnHost(const ScaledHalfLinkView& destination, const double* canonical) {
  if (!(destination.level_value > 0) || !std::isfinite(destination.level_value)) {
    throw std::invalid_argument("PackScaledHalfLinksOnHost: the level value must be finite and positive");
  }
  ScaledHalfLinkAccessor links;
  links.data = static_cast<short2*>(destination.data);
  links.stride = destination.stride;
  for (int parity = 0; parity < 2; ++parity) {
    for (int mu = 0; mu < 4; ++mu) {
      for (int cb = 0; cb < destination.stride; ++cb) {
        const double* r = canonical + 18 * ((parity * 4 + mu) * static_cast<long>(destination.stride) + cb);
        short levels[18];
        for (int k = 0; k < 18; ++k) levels[k] = static_cast<short>(HalfLinkLevel(r[k], destination.level_value));
        for (int w = 0; w < ScaledHalfLinkAccessor::kWords; ++w) {
          links.data[links.WordIndex(mu, parity, cb, w)] = short2{levels[2 * w], levels[2 * w + 1]};
        }
      }
    }
  }
}

}  // namespace lqcd::gpu
