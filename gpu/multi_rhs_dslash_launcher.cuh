// multi_rhs_dslash_launcher.cuh: turns a validated MultiRhsDslashLaunch into a kernel launch: picks the
// template variant (reconstruction x temporal gauge fixing x dagger x epilogue x right-hand sides per
// thread), fills the argument struct, and lets the tuner choose the mapping.
//
// Device-side header, instantiated per precision and per group of epilogues, so that they compile in parallel
// and only those some operator uses exist:
//   multi_rhs_dslash_{double,single,half}.cu          kNone, kXpay (D and D^dag), kXpayDotNorm (D only, for
//                                                     BiCGstab's fused dot products): 3 x 2 x 5 = 30 variants each;
//   multi_rhs_clover_dslash_{double,single,half}.cu   kClover, kCloverXpay (D and D^dag), kXpayClover (D only,
//                                                     as in the single-RHS kernel), kCloverXpayDotNorm and
//                                                     kXpayCloverDotNorm (D only, the clover Schur operators' fused
//                                                     dot products): 3 x 2 x 7 = 42 variants each;
// (reconstruction x gauge fixing x dagger x epilogue), each with m = 1, 2 and 4 right-hand sides per thread
// (MaxRhsPerThread: 1 and 2 in double and with the clover epilogues).
//
// The mapping (multi_rhs_dslash_kernel.cuh): blocks of bx sites x (as many as fit, up to all g = ceil(n / m))
// groups of m right-hand sides, so the right-hand sides of a site share one block (and its L1 cache) where
// the register use allows. For each m in {1, 2, 4} (m < 2n, m <= MaxRhsPerThread) the tuner times
// bx = 32, 64, ... up to the kernel's thread limit under its own key, and the launcher
// takes the m whose tuned time is smallest; both choices are remembered (and cached on disk) like any block
// size. A pinned m (MultiRhsDslashLaunch::rhs_per_thread) or a forced block size skips the comparison. The
// counts n of one bucket share their tunings (MultiRhsTuneBucket, multi_rhs_dslash_launch.h).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/multi_rhs_dslash_kernel.cuh"
#include "gpu/multi_rhs_dslash_launch.h"
#include "gpu/wilson_dslash_launcher.cuh"

namespace lqcd::gpu {

// The most right-hand sides per thread compiled for a variant: 4, but 2 in double (with 4 a thread needs more than
// the 255 registers it has and spills) and with the clover epilogues (four per thread never beat two in any Wilson
// variant measured, docs/multi_rhs.md, the clover epilogue needs more registers still, and the m = 4 clover kernels
// would double the fatbinary the clover variants add to every GPU binary).
constexpr int MaxRhsPerThread(Precision p, DslashEpilogue e) {
  return p == Precision::kDouble || UsesClover(e) ? 2 : 4;
}

// The single-RHS kernel's key for the same variant, lattice and strides (of the first right-hand side), with the
// tuning bucket of n and m in front.
inline std::string MultiRhsDslashTuneKey(const MultiRhsDslashLaunch& l, int rhs_per_thread) {
  WilsonDslashLaunch first;
  first.out = l.out[0];
  first.in = l.in[0];
  first.gauge = l.gauge;
  first.dagger = l.dagger;
  first.epilogue = l.epilogue;
  return "MultiRhsDslash n<=" + std::to_string(MultiRhsTuneBucket(l.rhs)) + " per-thread=" + std::to_string(rhs_per_thread) + " " +
         DslashTuneKey(first, ProductionArithmetic(l.gauge.precision));
}

// One mapping (m right-hand sides per thread): the argument struct, the tuned block width and a launcher.
template <Precision P, Reconstruct R, bool kGaugeFixed, bool kDagger, DslashEpilogue E, int m>
struct MultiRhsLaunchOf {
  using Arg = MultiRhsDslashArg<P, R, kGaugeFixed, kDagger, E, m>;
  using Real = typename Arg::Real;
  Arg arg;
  int groups = 0;

  explicit MultiRhsLaunchOf(const MultiRhsDslashLaunch& l) {
    for (int j = 0; j < l.rhs; ++j) {
      arg.out[j] = SpinorAccessorOf<P>(l.out[j]);
      arg.in[j] = SpinorAccessorOf<P>(l.in[j]);
      if (UsesX(E)) arg.x[j] = SpinorAccessorOf<P>(l.x[j]);
    }
    if constexpr (UsesClover(E)) arg.clover = CloverAccessorOf<P>(l.clover);
    if constexpr (SumsDotNorm(E)) {
      for (int j = 0; j < l.rhs; ++j) arg.w[j] = SpinorAccessorOf<P>(l.w[j]);
      arg.partials = l.partials;
      arg.partial_groups = l.partial_groups;
    }
    arg.gauge.data = static_cast<typename GaugeAccessor<P, R>::Word*>(l.gauge.data);
    arg.gauge.stride = l.gauge.stride;
    arg.rhs = l.rhs;
    for (int mu = 0; mu < 4; ++mu) {
      arg.extents[mu] = l.out[0].extents[mu];
      arg.antiperiodic[mu] = l.antiperiodic[mu];
    }
    if constexpr (Arg::kFastIndexing) arg.divisors = CheckerboardDivisors::Of(arg.extents);
    arg.sites = l.out[0].sites;
    arg.parity = l.out[0].parity;
    arg.a = static_cast<Real>(l.a);
    arg.b = static_cast<Real>(l.b);
    groups = (l.rhs + m - 1) / m;
  }

  // The kernel's thread limit per block (its registers decide it), asked once per variant.
  static int MaxThreads() {
    static const int max_threads = [] {
      cudaFuncAttributes attributes;
      LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, MultiRhsKernelOf<Arg>()));
      return attributes.maxThreadsPerBlock;
    }();
    return max_threads;
  }

  // width sites per block; as many groups per block as fit (all of them when width * groups <= the limit).
  void Launch(int width, const std::string& key) const {
    const int rows = std::max(1, std::min(groups, MaxThreads() / width));
    Arg a = arg;
    a.chunks = (groups + rows - 1) / rows;
    const dim3 block(width, rows);
    const dim3 grid(((arg.sites + width - 1) / width) * a.chunks);
    MultiRhsKernelOf<Arg>()<<<grid, block>>>(a);
    const std::string what = "launch of " + key + " with " + std::to_string(width) + "x" + std::to_string(rows) +
                             " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  }
};

// Tunes the block width of mapping m (if new) and returns {width, tuned microseconds (-1 if forced)}.
template <class L>
std::pair<int, double> TuneMapping(const L& launcher, const std::string& key,
                                   const std::vector<std::pair<void*, std::size_t>>& preserve) {
  const int max_width = launcher.MaxThreads() / kTuneBlockGranularity * kTuneBlockGranularity;
  const int width = LaunchTuner::Instance().BlockSize(key, max_width, preserve,
                                                      [&](int w) { launcher.Launch(w, key); });
  return {width, LaunchTuner::Instance().TunedMicroseconds(key)};
}

template <Precision P, Reconstruct R, bool kGaugeFixed, bool kDagger, DslashEpilogue E>
void LaunchMultiRhsVariant(const MultiRhsDslashLaunch& l) {
  std::vector<std::pair<void*, std::size_t>> preserve;
  for (int j = 0; UsesX(E) && j < l.rhs; ++j) {
    if (l.out[j].data == l.x[j].data) {  // out = a out + b D in: timing runs must not compound
      preserve.emplace_back(l.out[j].data, SpinorViewBytes<P>(l.out[j]));
      if (l.out[j].norm != nullptr) preserve.emplace_back(l.out[j].norm, sizeof(float) * l.out[j].stride);
    }
  }
  const MultiRhsLaunchOf<P, R, kGaugeFixed, kDagger, E, 1> one(l);
  const MultiRhsLaunchOf<P, R, kGaugeFixed, kDagger, E, 2> two(l);
  constexpr int kMaxM = MaxRhsPerThread(P, E);
  const MultiRhsLaunchOf<P, R, kGaugeFixed, kDagger, E, kMaxM> most(l);  // 4, or 2 (then unused)
  struct Choice {
    int m, width;
    double microseconds;
  };
  std::vector<Choice> choices;
  auto consider = [&](const auto& launcher, int m) {
    // Tuned: the m that leave at most half of a thread's slots idle (m < 2n); pinned: any compiled m.
    if (l.rhs_per_thread != 0 ? l.rhs_per_thread != m : m >= 2 * l.rhs) return;
    const auto [width, microseconds] = TuneMapping(launcher, MultiRhsDslashTuneKey(l, m), preserve);
    choices.push_back({m, width, microseconds});
  };
  consider(one, 1);
  consider(two, 2);
  if constexpr (kMaxM == 4) consider(most, 4);
  if (choices.empty()) {
    throw std::invalid_argument("MultiRhsDslash: no mapping for " + std::to_string(l.rhs) + " right-hand sides with " +
                                std::to_string(l.rhs_per_thread) + " per thread in " + ToString(P) + " precision" +
                                (UsesClover(E) ? std::string(" with the ") + ToString(E) + " epilogue" : "") +
                                " (compiled: 1, 2" + (kMaxM == 4 ? ", 4" : "") + ")");
  }
  Choice best = choices.front();
  for (const Choice& c : choices) {
    if (c.microseconds >= 0 && (best.microseconds < 0 || c.microseconds < best.microseconds)) best = c;
  }
  const std::string key = MultiRhsDslashTuneKey(l, best.m);
  switch (best.m) {
    case 1: return one.Launch(best.width, key);
    case 2: return two.Launch(best.width, key);
    default: return most.Launch(best.width, key);
  }
}

// Dispatches to the variant of l's reconstruction, gauge fixing, dagger and epilogue (among kEpilogues).
// kXpayClover exists for D only (wilson_dslash_launcher.cuh: the unit-diagonal form's dagger is built otherwise).
template <Precision P, DslashEpilogue... kEpilogues>
void LaunchMultiRhsDslashFor(const MultiRhsDslashLaunch& l) {
  auto with_reconstruct = [&](auto reconstruct) {
    WithFlag(l.gauge.temporal_gauge_fixed, [&](auto gauge_fixed) {
      WithFlag(l.dagger, [&](auto dagger) {
        WithEpilogue<kEpilogues...>(l.epilogue, [&](auto epilogue) {
          constexpr Reconstruct kReconstruct = std::decay_t<decltype(reconstruct)>::value;
          constexpr bool kGaugeFixed = std::decay_t<decltype(gauge_fixed)>::value;
          constexpr bool kDagger = std::decay_t<decltype(dagger)>::value;
          constexpr DslashEpilogue kEpilogue = decltype(epilogue)::value;
          if constexpr ((kEpilogue == DslashEpilogue::kXpayClover || SumsDotNorm(kEpilogue)) && kDagger) {
            throw std::logic_error(std::string("MultiRhsDslash: the ") + ToString(kEpilogue) +
                                   " epilogue is compiled for D only, not D^dag");
          } else {
            LaunchMultiRhsVariant<P, kReconstruct, kGaugeFixed, kDagger, kEpilogue>(l);
          }
        });
      });
    });
  };
  switch (l.gauge.reconstruct) {
    case Reconstruct::k18: return with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k18>{});
    case Reconstruct::k12: return with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k12>{});
    case Reconstruct::k8: return with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k8>{});
  }
}

}  // namespace lqcd::gpu
