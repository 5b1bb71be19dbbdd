// wilson_dslash_launcher.cuh: turns a validated WilsonDslashLaunch into a kernel launch: picks the
// template variant (reconstruction x temporal gauge fixing x dagger x epilogue) for one precision, fills
// the argument struct, asks the tuner for the block size and launches.
//
// Device-side header, instantiated per precision and per group of epilogues so that the variants compile
// in parallel and only those some operator uses exist:
//   wilson_dslash_{double,single,half}.cu   kNone, kXpay; all sites, or a partitioned interior or exterior
//                                            (halo.cuh)   3 x 2 x 2 x 2 x 3 = 72 variants each; and on one GPU
//                                            kXpayDotNorm (D) and kXpayAxpyNorm (D^dag), 6 each
//   clover_dslash_{double,single,half}.cu   kClover, kCloverXpay (D and D^dag), kXpayClover (D only: the
//                                            unit-diagonal form's dagger is built otherwise); all sites, or
//                                            a partitioned interior or exterior   90 each; and on one GPU
//                                            kCloverXpayDotNorm and kXpayCloverDotNorm (D) and
//                                            kCloverXpayAxpyNorm (D^dag), 6 each
// (reconstruction x gauge fixing x dagger x epilogue x sites; 576 kernels in all); the teaching ladder
// instantiates the one variant of its rung 9a itself (dslash_ladder_kernels.cu).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash_kernel.cuh"
#include "gpu/wilson_dslash_launch.h"

namespace lqcd::gpu {

// Calls f(std::true_type) or f(std::false_type): a run-time flag becomes a compile-time one.
template <typename F>
void WithFlag(bool flag, F&& f) {
  if (flag) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// Calls f(std::integral_constant<DslashSites, s>): kAll without a halo, else the halo's region.
template <typename F>
void WithSites(const DslashHaloView* halo, F&& f) {
  if (halo == nullptr) {
    f(std::integral_constant<DslashSites, DslashSites::kAll>{});
  } else if (halo->region == DslashRegion::kInterior) {
    f(std::integral_constant<DslashSites, DslashSites::kInterior>{});
  } else {
    f(std::integral_constant<DslashSites, DslashSites::kExterior>{});
  }
}

// Calls f(std::integral_constant<DslashEpilogue, e>) for the run-time e if it is one of kEpilogues.
template <DslashEpilogue... kEpilogues, typename F>
void WithEpilogue(DslashEpilogue e, F&& f) {
  const bool found = ((e == kEpilogues ? (f(std::integral_constant<DslashEpilogue, kEpilogues>{}), true) : false) || ...);
  if (!found) throw std::logic_error(std::string("Dslash: epilogue ") + ToString(e) + " is not compiled in this launcher");
}

// Bytes of one parity of a spinor field in memory (words and, for half, norms), for the tuner's backup.
template <Precision P>
std::size_t SpinorViewBytes(const ConstSpinorView& v) {
  return sizeof(typename SpinorAccessor<P>::Word) * SpinorAccessor<P>::kWords * static_cast<std::size_t>(v.stride);
}

inline std::string DslashTuneKey(const WilsonDslashLaunch& l, DslashArithmetic arithmetic) {
  std::string key = std::string("WilsonDslash ") + ToString(l.gauge.precision) + "/" + ToString(l.gauge.reconstruct) +
                    (l.gauge.temporal_gauge_fixed ? "/gf" : "") + (l.dagger ? "/dagger" : "") +
                    (l.epilogue != DslashEpilogue::kNone ? std::string("/") + ToString(l.epilogue) : "") +
                    (arithmetic != ProductionArithmetic(l.gauge.precision) ? "/on-values" : "") +
                    (l.halo == nullptr                                  ? ""
                     : l.halo->region == DslashRegion::kInterior        ? "/interior"
                                                                        : "/exterior " + std::to_string(l.halo->exterior_count)) +
                    " " +
                    std::to_string(l.out.extents[0]);
  for (int mu = 1; mu < 4; ++mu) key += "x" + std::to_string(l.out.extents[mu]);
  key += " strides " + std::to_string(l.out.stride) + "," + std::to_string(l.in.stride) + "," +
         std::to_string(l.gauge.stride);
  return key;
}

// The kernel of a variant: the plain one, or the one that sums the partials of a dot-norm or axpy-norm epilogue
// per warp.
template <class Arg>
auto DslashKernelOf() {
  if constexpr (WritesPartials(Arg::kEpilogue)) {
    return &WilsonDslashDotNormKernel<Arg>;
  } else {
    return &WilsonDslashKernel<Arg>;
  }
}

template <Precision P, Reconstruct R, bool kGaugeFixed, bool kDagger, DslashEpilogue E,
          DslashArithmetic A = ProductionArithmetic(P), DslashSites S = DslashSites::kAll>
void LaunchWilsonDslashVariant(const WilsonDslashLaunch& l) {
  using Arg = WilsonDslashArg<P, R, kGaugeFixed, kDagger, E, A, S>;
  using Real = typename Arg::Real;
  Arg arg;
  arg.out = SpinorAccessorOf<P>(l.out);
  arg.in = SpinorAccessorOf<P>(l.in);
  arg.x = UsesX(E) ? SpinorAccessorOf<P>(l.x) : SpinorAccessor<P>{};
  if constexpr (UsesClover(E)) arg.clover = CloverAccessorOf<P>(l.clover);
  if constexpr (SumsDotNorm(E)) {
    arg.w = SpinorAccessorOf<P>(l.w);
    arg.partials = l.partials;
  } else if constexpr (UpdatesWithAxpyNorm(E)) {
    arg.coefficient = l.axpy_coefficient;
    arg.partials = l.partials;
  }
  arg.gauge.data = static_cast<typename GaugeAccessor<P, R>::Word*>(l.gauge.data);
  arg.gauge.stride = l.gauge.stride;
  for (int mu = 0; mu < 4; ++mu) {
    arg.extents[mu] = l.out.extents[mu];
    arg.antiperiodic[mu] = l.antiperiodic[mu];
  }
  if constexpr (Arg::kFastIndexing) arg.divisors = CheckerboardDivisors::Of(arg.extents);
  arg.sites = l.out.sites;
  if constexpr (S == DslashSites::kInterior) {
    for (int mu = 0; mu < 4; ++mu) arg.interior.partitioned[mu] = l.halo->partitioned[mu];
  } else if constexpr (S == DslashSites::kExterior) {
    arg.halo = DslashHaloArgOf<P, R>(*l.halo);
    arg.sites = l.halo->exterior_count;
  }
  arg.parity = l.out.parity;
  arg.a = static_cast<Real>(l.a);
  arg.b = static_cast<Real>(l.b);

  const auto kernel = DslashKernelOf<Arg>();
  cudaFuncAttributes attributes;
  LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const std::string key = DslashTuneKey(l, A);
  if (arg.sites == 0) return;  // an empty region
  const cudaStream_t stream = static_cast<cudaStream_t>(l.stream);
  auto launch = [&](int block) {
    const int grid = (arg.sites + block - 1) / block;
    kernel<<<grid, block, 0, stream>>>(arg);
    const std::string what = "launch of " + key + " with " + std::to_string(block) + " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  };
  std::vector<std::pair<void*, std::size_t>> preserve;
  // out = a out + b D in, or out = out + c (...): timing runs must not compound.
  if ((UsesX(E) && l.out.data == l.x.data) || UpdatesWithAxpyNorm(E)) {
    preserve.emplace_back(l.out.data, SpinorViewBytes<P>(l.out));
    if (l.out.norm != nullptr) preserve.emplace_back(l.out.norm, sizeof(float) * l.out.stride);
  }
  const int block = LaunchTuner::Instance().BlockSize(key, attributes.maxThreadsPerBlock, preserve, launch, l.stream);
  launch(block);
}

// Dispatches to the variant of l's reconstruction, gauge fixing, dagger, epilogue (among kEpilogues) and
// partitioning (compiled where kWithHalo). kXpayClover exists for D only (see the file comment).
template <Precision P, bool kWithHalo, DslashEpilogue... kEpilogues>
void LaunchDslashFor(const WilsonDslashLaunch& l) {
  if (!kWithHalo && l.halo != nullptr) {
    throw std::logic_error(std::string("Dslash: the partitioned ") + ToString(l.epilogue) + " epilogue is not compiled");
  }
  auto with_reconstruct = [&](auto reconstruct) {
    WithFlag(l.gauge.temporal_gauge_fixed, [&](auto gauge_fixed) {
      WithFlag(l.dagger, [&](auto dagger) {
        WithEpilogue<kEpilogues...>(l.epilogue, [&](auto epilogue) {
          WithSites(kWithHalo ? l.halo : nullptr, [&](auto sites) {
            // (decay: inside the nested lambdas the captured constants are seen through references; unused in
            // the variants that are not compiled)
            [[maybe_unused]] constexpr Reconstruct kReconstruct = std::decay_t<decltype(reconstruct)>::value;
            [[maybe_unused]] constexpr bool kGaugeFixed = std::decay_t<decltype(gauge_fixed)>::value;
            constexpr bool kDagger = std::decay_t<decltype(dagger)>::value;
            constexpr DslashEpilogue kEpilogue = decltype(epilogue)::value;
            constexpr DslashSites kSites = std::decay_t<decltype(sites)>::value;
            [[maybe_unused]] constexpr bool kPartitioned = kSites != DslashSites::kAll;
            if constexpr (kEpilogue == DslashEpilogue::kXpayClover && kDagger) {
              throw std::logic_error("Dslash: the xpay-clover epilogue is compiled for D only, not D^dag");
            } else if constexpr (SumsDotNorm(kEpilogue) && (kDagger || kPartitioned)) {
              throw std::logic_error(std::string("Dslash: the ") + ToString(kEpilogue) +
                                     " epilogue is compiled for D on one GPU only");
            } else if constexpr (UpdatesWithAxpyNorm(kEpilogue) && (!kDagger || kPartitioned)) {
              throw std::logic_error(std::string("Dslash: the ") + ToString(kEpilogue) +
                                     " epilogue is compiled for D^dag on one GPU only");
            } else if constexpr (kPartitioned && !kWithHalo) {
              throw std::logic_error("Dslash: partitioned variant not compiled");
            } else {
              LaunchWilsonDslashVariant<P, kReconstruct, kGaugeFixed, kDagger, kEpilogue, ProductionArithmetic(P),
                                        kSites>(l);
            }
          });
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
