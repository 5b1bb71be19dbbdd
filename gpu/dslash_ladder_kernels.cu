// dslash_ladder_kernels.cu: the kernels of the rungs of dslash_ladder.h that do not run the production kernel
// with its production arithmetic: rungs 1-3 (the ladder's own), 4a (the production hops, with whole-spinor
// temporal loads) and 9a (the production half variant, computing on loaded values). Each computes
//     (D psi)(n) = sum_mu [ (1 - gamma_mu) U_mu(n) psi(n + mu) + (1 + gamma_mu) U_mu(n - mu)^dag psi(n - mu) ]
// on one parity, one thread per output site, times -1 for hops that wrap around an antiperiodic direction.
//
//   rung 1 (naive, AoS): double, DeGrand-Rossi basis (the oracle's). Per hop, load the whole neighbour spinor
//          (24 reals) and the whole link (18 reals) from arrays of structs, multiply all four spins by the link
//          (4 colour mat-vecs), then multiply by the 4x4 projector as a general complex matrix read from
//          constant memory (zeros included).
//   rung 2 (SoA):        the same arithmetic, reading the production storage: structure of arrays of double2
//          words, so a warp's loads of one word are contiguous (coalesced).
//   rung 3 (half spinor): project first, h = u + s B l (2 spins), multiply 2 colour vectors by the link, and
//          rebuild the lower spins as s B^dag (U h) with no flops -- still loading all 24 reals for every hop,
//          including the temporal ones (in this basis gamma_4 is not diagonal).
//   rung 4a (UKQCD basis): the production kernel's argument struct and spatial hops (wilson_dslash_kernel.cuh),
//          double, 18 reals. gamma_4 is diagonal now, so a temporal hop needs no projection adds and feeds only
//          2 spins -- but it still loads the whole neighbour spinor and takes the spin pair its projector keeps.
//          Its temporal hops are the production TemporalHops except for that load.
//   rung 9a (half on values): the production kernel itself, half/8/temporal gauge, with
//          DslashArithmetic::kValues: decoded values, float arithmetic exactly as single precision.
//
// Device-side code only; the host side is dslash_ladder.cc.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/checkerboard.cuh"
#include "gpu/cuda_check.h"
#include "gpu/dslash_ladder_launch.h"
#include "gpu/gauge_accessor.cuh"
#include "gpu/register_types.cuh"
#include "gpu/spinor_accessor.cuh"
#include "gpu/tune.h"
#include "gpu/wilson_dslash_kernel.cuh"
#include "gpu/wilson_dslash_launch.h"
#include "gpu/wilson_dslash_launcher.cuh"

namespace lqcd::gpu {
namespace {

// ---- The DeGrand-Rossi gamma matrices (the paper's Appendix B), written out here: the ladder shares no
// operator code with the oracle that judges it. In 2x2 spin blocks gamma_mu = [[0, B_mu], [B_mu^dag, 0]],
//   B_1 = i sigma_x = [[0, i], [i, 0]]      B_2 = -i sigma_y = [[0, -1], [1, 0]]
//   B_3 = i sigma_z = [[i, 0], [0, -i]]     B_4 = 1
// Each row of B_mu and B_mu^dag has one entry i^power in column `column` (power 0..3: 1, i, -1, -i).
struct BlockEntry {
  int column;
  int power;
};
constexpr BlockEntry BRow(int mu, int row) {
  constexpr BlockEntry table[4][2] = {{{1, 1}, {0, 1}}, {{1, 2}, {0, 0}}, {{0, 1}, {1, 3}}, {{0, 0}, {1, 0}}};
  return table[mu][row];
}
constexpr BlockEntry BDaggerRow(int mu, int row) {
  constexpr BlockEntry table[4][2] = {{{1, 3}, {0, 3}}, {{1, 0}, {0, 2}}, {{0, 3}, {1, 1}}, {{0, 0}, {1, 0}}};
  return table[mu][row];
}

// ---- Rungs 1 and 2: the projectors as general 4x4 complex matrices, in constant memory.
// kProjectors[0][mu] = 1 - gamma_mu (forward hop), kProjectors[1][mu] = 1 + gamma_mu (backward hop).
__constant__ DeviceComplex<double> kProjectors[2][4][4][4];

DeviceComplex<double> IPower(int power, double sign) {
  const DeviceComplex<double> table[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  return {sign * table[power].re, sign * table[power].im};
}

void UploadProjectorsOnce() {
  static bool uploaded = false;
  if (uploaded) return;
  DeviceComplex<double> p[2][4][4][4] = {};
  for (int direction = 0; direction < 2; ++direction) {
    const double sign = direction == 0 ? -1.0 : 1.0;  // 1 + sign gamma_mu
    for (int mu = 0; mu < 4; ++mu) {
      for (int a = 0; a < 4; ++a) p[direction][mu][a][a] = {1, 0};
      for (int row = 0; row < 2; ++row) {
        const BlockEntry upper = BRow(mu, row), lower = BDaggerRow(mu, row);
        p[direction][mu][row][2 + upper.column] = IPower(upper.power, sign);
        p[direction][mu][2 + row][lower.column] = IPower(lower.power, sign);
      }
    }
  }
  LQCD_CUDA_CHECK(cudaMemcpyToSymbol(kProjectors, p, sizeof(p)));
  uploaded = true;
}

// Rung 1's storage: one struct of 24 doubles per spinor site, of 4 x 18 doubles per link site, read with plain
// 8-byte loads. Consecutive threads read addresses 192 (spinor) or 576 (links) bytes apart.
struct AosSpinors {
  const double* in = nullptr;
  double* out = nullptr;
  __device__ ColorSpinor<double> Load(int cb) const {
    const double* p = in + 24 * static_cast<long>(cb);
    ColorSpinor<double> psi;
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) psi.v[s][c] = {p[2 * (3 * s + c)], p[2 * (3 * s + c) + 1]};
    }
    return psi;
  }
  __device__ void Store(int cb, const ColorSpinor<double>& psi) const {
    double* p = out + 24 * static_cast<long>(cb);
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        p[2 * (3 * s + c)] = psi.v[s][c].re;
        p[2 * (3 * s + c) + 1] = psi.v[s][c].im;
      }
    }
  }
};

struct AosLinks {
  const double* data = nullptr;
  int sites = 0;  // V / 2
  __device__ Link<double> Load(int mu, int parity, int cb) const {
    const double* p = data + 18 * (4 * (static_cast<long>(parity) * sites + cb) + mu);
    Link<double> u;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) u.m[i][j] = {p[2 * (3 * i + j)], p[2 * (3 * i + j) + 1]};
    }
    return u;
  }
};

// Rung 2's storage: the production accessors (double2 words, structure of arrays), 18 reals per link.
struct SoaSpinors {
  SpinorAccessor<Precision::kDouble> in, out;
  __device__ ColorSpinor<double> Load(int cb) const { return in.Load(cb); }
  __device__ void Store(int cb, const ColorSpinor<double>& psi) const { out.Store(cb, psi); }
};
using SoaLinks = GaugeAccessor<Precision::kDouble, Reconstruct::k18>;

template <class Spinors, class Links>
struct LadderArg {
  Spinors spinors;
  Links links;
  int extents[4];
  int sites;  // output sites, V / 2
  int parity;
  bool antiperiodic[4];
};

// Rungs 1 and 2: every hop multiplies the full spinor by the link, then by the 4x4 projector.
template <class Arg>
__global__ void NaiveDslashKernel(const Arg arg) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= arg.sites) return;
  const SiteGeometry site = CheckerboardSite(cb, arg.parity, arg.extents);
  ColorSpinor<double> out;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) out.v[s][c] = {0, 0};
  }
  for (int mu = 0; mu < 4; ++mu) {
    for (int direction = 0; direction < 2; ++direction) {  // 0: forward hop, 1: backward hop
      bool wraps;
      const int neighbour = direction == 0 ? NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps)
                                           : NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
      const ColorSpinor<double> psi = arg.spinors.Load(neighbour);
      const Link<double> u = direction == 0 ? arg.links.Load(mu, arg.parity, cb)
                                            : arg.links.Load(mu, 1 - arg.parity, neighbour);
      ColorSpinor<double> chi;  // U psi (forward) or U^dag psi (backward), all four spins
      for (int s = 0; s < 4; ++s) {
        for (int i = 0; i < 3; ++i) {
          chi.v[s][i] = direction == 0
                            ? u.m[i][0] * psi.v[s][0] + u.m[i][1] * psi.v[s][1] + u.m[i][2] * psi.v[s][2]
                            : ConjTimes(u.m[0][i], psi.v[s][0]) + ConjTimes(u.m[1][i], psi.v[s][1]) +
                                  ConjTimes(u.m[2][i], psi.v[s][2]);
        }
      }
      const double sign = wraps && arg.antiperiodic[mu] ? -1.0 : 1.0;
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
          const DeviceComplex<double> p = sign * kProjectors[direction][mu][a][b];
          for (int c = 0; c < 3; ++c) out.v[a][c] = out.v[a][c] + p * chi.v[b][c];
        }
      }
    }
  }
  arg.spinors.Store(cb, out);
}

// ---- Rung 3: spin projection in the DeGrand-Rossi basis.
// (1 + s gamma_mu) psi = (h, s B_mu^dag h) with h = u + s B_mu l (u, l: upper and lower spin pairs), because
// B_mu^dag B_mu = 1. Projecting and rebuilding only permute and negate components: no rounding.
template <int mu, int sign>
__device__ __forceinline__ HalfSpinor<double> ProjectDeGrandRossi(const ColorSpinor<double>& psi) {
  constexpr BlockEntry row0 = BRow(mu, 0), row1 = BRow(mu, 1);
  constexpr int power0 = (row0.power + (sign < 0 ? 2 : 0)) % 4;
  constexpr int power1 = (row1.power + (sign < 0 ? 2 : 0)) % 4;
  HalfSpinor<double> h;
#pragma unroll
  for (int c = 0; c < 3; ++c) {
    h.v[0][c] = psi.v[0][c] + TimesIPower<power0>(psi.v[2 + row0.column][c]);
    h.v[1][c] = psi.v[1][c] + TimesIPower<power1>(psi.v[2 + row1.column][c]);
  }
  return h;
}

template <int mu, int sign>
__device__ __forceinline__ void AccumulateDeGrandRossi(ColorSpinor<double>& out, const HalfSpinor<double>& r) {
  constexpr BlockEntry row0 = BDaggerRow(mu, 0), row1 = BDaggerRow(mu, 1);
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

__device__ __forceinline__ void NegateHalf(HalfSpinor<double>& h) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) h.v[s][c] = -h.v[s][c];
  }
}

// Direction mu: forward hop with 1 - gamma_mu and U_mu(n), backward hop with 1 + gamma_mu and U_mu(n - mu)^dag.
template <int mu, class Arg>
__device__ __forceinline__ void HalfSpinorHops(const Arg& arg, const SiteGeometry& site, int cb,
                                               ColorSpinor<double>& out) {
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    HalfSpinor<double> h = ProjectDeGrandRossi<mu, -1>(arg.spinors.Load(neighbour));
    if (wraps && arg.antiperiodic[mu]) NegateHalf(h);
    AccumulateDeGrandRossi<mu, -1>(out, Multiply(arg.links.Load(mu, arg.parity, cb), h));
  }
  {
    bool wraps;
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    HalfSpinor<double> h = ProjectDeGrandRossi<mu, +1>(arg.spinors.Load(neighbour));
    if (wraps && arg.antiperiodic[mu]) NegateHalf(h);
    AccumulateDeGrandRossi<mu, +1>(out, MultiplyAdjoint(arg.links.Load(mu, 1 - arg.parity, neighbour), h));
  }
}

template <class Arg>
__global__ void HalfSpinorDslashKernel(const Arg arg) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= arg.sites) return;
  const SiteGeometry site = CheckerboardSite(cb, arg.parity, arg.extents);
  ColorSpinor<double> out = ColorSpinor<double>::Zero();
  HalfSpinorHops<0>(arg, site, cb, out);
  HalfSpinorHops<1>(arg, site, cb, out);
  HalfSpinorHops<2>(arg, site, cb, out);
  HalfSpinorHops<3>(arg, site, cb, out);
  arg.spinors.Store(cb, out);
}

// ---- Rung 4a: the UKQCD basis with the production kernel's hops; the temporal hops load whole spinors.
using UkqcdArg = WilsonDslashArg<Precision::kDouble, Reconstruct::k18, false, false, DslashEpilogue::kNone>;

// Makes the compiler keep a loaded real without emitting an instruction. Loads whose values are never used
// are dead code to it, and dropping them would silently turn this rung's whole-spinor temporal loads into
// rung 4b's half-spinor ones, the very step the ladder measures next.
__device__ __forceinline__ void KeepLoaded(double x) { asm volatile("" : : "d"(x)); }

// Spins (first_spin, first_spin + 1) of the neighbour, taken from its whole spinor: all 24 reals are loaded,
// the 12 the projector zeroes are discarded.
template <int first_spin>
__device__ __forceinline__ HalfSpinor<double> SpinPairOfWholeNeighbour(const UkqcdArg& arg, int neighbour) {
  const ColorSpinor<double> psi = arg.in.Load(neighbour);
  constexpr int kDroppedSpin = 2 - first_spin;
  HalfSpinor<double> h;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      h.v[s][c] = psi.v[first_spin + s][c];
      KeepLoaded(psi.v[kDroppedSpin + s][c].re);
      KeepLoaded(psi.v[kDroppedSpin + s][c].im);
    }
  }
  return h;
}

// The production TemporalHops for D without gauge fixing, but for the load: forward hop 1 - gamma_4 =
// diag(0, 0, 2, 2) keeps the lower spins, backward hop 1 + gamma_4 = diag(2, 2, 0, 0) the upper ones.
__device__ __forceinline__ void TemporalHopsWithWholeLoads(const UkqcdArg& arg, const SiteGeometry& site, int cb,
                                                           ColorSpinor<double>& out) {
  constexpr int mu = 3;
  bool wraps;
  {
    const int neighbour = NeighbourCheckerboardIndex<true>(site, mu, arg.extents, wraps);
    HalfSpinor<double> h = SpinPairOfWholeNeighbour<2>(arg, neighbour);
    const auto k = HopCoefficient<UkqcdArg>(arg.in, wraps && arg.antiperiodic[mu], neighbour, UkqcdArg::kLinkUnit, h);
    AccumulateTemporal<2>(out, k, Multiply(LinkOf(arg, mu, arg.parity, cb), h));
  }
  {
    const int neighbour = NeighbourCheckerboardIndex<false>(site, mu, arg.extents, wraps);
    HalfSpinor<double> h = SpinPairOfWholeNeighbour<0>(arg, neighbour);
    const auto k = HopCoefficient<UkqcdArg>(arg.in, wraps && arg.antiperiodic[mu], neighbour, UkqcdArg::kLinkUnit, h);
    AccumulateTemporal<0>(out, k, MultiplyAdjoint(LinkOf(arg, mu, 1 - arg.parity, neighbour), h));
  }
}

// The production site computation (WilsonDslashSite without an epilogue) with the temporal hops above.
__global__ void UkqcdBasisDslashKernel(const UkqcdArg arg) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= arg.sites) return;
  const SiteGeometry site = CheckerboardSite(cb, arg.parity, arg.extents);
  ColorSpinor<double> out = ColorSpinor<double>::Zero();
  SpatialHops<0>(arg, site, cb, out);
  SpatialHops<1>(arg, site, cb, out);
  SpatialHops<2>(arg, site, cb, out);
  TemporalHopsWithWholeLoads(arg, site, cb, out);
  arg.out.Store(cb, out);
}

const char* RungLabel(LadderKernel kernel) {
  switch (kernel) {
    case LadderKernel::kNaiveAos: return "1";
    case LadderKernel::kNaiveSoa: return "2";
    case LadderKernel::kHalfSpinorDeGrandRossi: return "3";
    case LadderKernel::kUkqcdWholeTemporalLoads: return "4a";
    case LadderKernel::kHalfOnValues: return "9a";
  }
  return "?";
}

// The kernels read the storage with compile-time formats: a launch whose fields are stored otherwise would
// reinterpret memory, so it is refused.
void RequireStorage(const LadderKernelLaunch& l, Precision precision, Reconstruct reconstruct, bool gauge_fixed) {
  if (l.in.precision != precision || l.out.precision != precision || l.gauge.precision != precision ||
      l.gauge.reconstruct != reconstruct || l.gauge.temporal_gauge_fixed != gauge_fixed) {
    throw std::logic_error(std::string("LaunchLadderKernel: rung ") + RungLabel(l.kernel) + " needs " +
                           ToString(precision) + " fields with " + ToString(reconstruct) + " links" +
                           (gauge_fixed ? " in temporal gauge" : ""));
  }
}

template <class Arg>
void FillGeometry(Arg& arg, const LadderKernelLaunch& l) {
  for (int mu = 0; mu < 4; ++mu) {
    arg.extents[mu] = l.extents[mu];
    arg.antiperiodic[mu] = l.antiperiodic[mu];
  }
  arg.sites = HalfVolume(l.extents);
  arg.parity = l.out_parity;
}

template <class Arg>
void LaunchTuned(void (*kernel)(const Arg), const Arg& arg, const LadderKernelLaunch& l, int strides) {
  cudaFuncAttributes attributes;
  LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  std::string key = std::string("DslashLadder rung ") + RungLabel(l.kernel) + " " + std::to_string(l.extents[0]);
  for (int mu = 1; mu < 4; ++mu) key += "x" + std::to_string(l.extents[mu]);
  key += " stride " + std::to_string(strides);
  auto launch = [&](int block) {
    const int grid = (arg.sites + block - 1) / block;
    kernel<<<grid, block>>>(arg);
    const std::string what = "launch of " + key + " with " + std::to_string(block) + " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  };
  launch(LaunchTuner::Instance().BlockSize(key, attributes.maxThreadsPerBlock, {}, launch));
}

}  // namespace

void LaunchLadderKernel(const LadderKernelLaunch& l) {
  switch (l.kernel) {
    case LadderKernel::kNaiveAos: {
      UploadProjectorsOnce();
      LadderArg<AosSpinors, AosLinks> arg;
      arg.spinors.in = l.aos_in;
      arg.spinors.out = l.aos_out;
      arg.links.data = l.aos_links;
      arg.links.sites = HalfVolume(l.extents);
      FillGeometry(arg, l);
      return LaunchTuned(NaiveDslashKernel<decltype(arg)>, arg, l, 0);
    }
    case LadderKernel::kNaiveSoa:
    case LadderKernel::kHalfSpinorDeGrandRossi: {
      RequireStorage(l, Precision::kDouble, Reconstruct::k18, false);
      LadderArg<SoaSpinors, SoaLinks> arg;
      arg.spinors.in.data = static_cast<double2*>(const_cast<void*>(l.in.data));  // read only
      arg.spinors.in.stride = l.in.stride;
      arg.spinors.out.data = static_cast<double2*>(l.out.data);
      arg.spinors.out.stride = l.out.stride;
      arg.links.data = static_cast<double2*>(l.gauge.data);
      arg.links.stride = l.gauge.stride;
      FillGeometry(arg, l);
      if (l.kernel == LadderKernel::kNaiveSoa) {
        UploadProjectorsOnce();
        return LaunchTuned(NaiveDslashKernel<decltype(arg)>, arg, l, l.in.stride);
      }
      return LaunchTuned(HalfSpinorDslashKernel<decltype(arg)>, arg, l, l.in.stride);
    }
    case LadderKernel::kUkqcdWholeTemporalLoads: {
      RequireStorage(l, Precision::kDouble, Reconstruct::k18, false);
      UkqcdArg arg;
      arg.out = SpinorAccessorOf<Precision::kDouble>(l.out);
      arg.in = SpinorAccessorOf<Precision::kDouble>(l.in);
      arg.gauge.data = static_cast<decltype(arg.gauge.data)>(l.gauge.data);
      arg.gauge.stride = l.gauge.stride;
      arg.a = arg.b = 0;  // no epilogue
      FillGeometry(arg, l);
      return LaunchTuned(UkqcdBasisDslashKernel, arg, l, l.in.stride);
    }
    case LadderKernel::kHalfOnValues: {
      RequireStorage(l, Precision::kHalf, Reconstruct::k8, true);
      WilsonDslashLaunch production;  // D, no epilogue
      production.out = l.out;
      production.in = l.in;
      production.gauge = l.gauge;
      for (int mu = 0; mu < 4; ++mu) production.antiperiodic[mu] = l.antiperiodic[mu];
      return LaunchWilsonDslashVariant<Precision::kHalf, Reconstruct::k8, true, false, DslashEpilogue::kNone,
                                       DslashArithmetic::kValues>(production);
    }
  }
}

}  // namespace lqcd::gpu
