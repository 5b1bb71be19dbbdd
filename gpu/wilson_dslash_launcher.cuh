// wilson_dslash_launcher.cuh: turns a validated WilsonDslashLaunch into a kernel launch: picks the
// template variant (reconstruction x temporal gauge fixing x dagger x xpay) for one precision, fills
// the argument struct, asks the tuner for the block size and launches.
//
// Device-side header: each of wilson_dslash_{double,single,half}.cu instantiates it for its precision,
// so the three precisions compile in parallel (24 kernel variants each).
#pragma once

#include <cuda_runtime.h>

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

template <Precision P>
SpinorAccessor<P> SpinorAccessorOf(const ConstSpinorView& v) {
  SpinorAccessor<P> a;
  // Accessors are shared by inputs and outputs; kernels never write through an input's accessor.
  a.data = static_cast<typename SpinorAccessor<P>::Word*>(const_cast<void*>(v.data));
  a.norm = const_cast<float*>(v.norm);
  a.stride = v.stride;
  return a;
}

// Bytes of one parity of a spinor field in memory (words and, for half, norms), for the tuner's backup.
template <Precision P>
std::size_t SpinorViewBytes(const ConstSpinorView& v) {
  return sizeof(typename SpinorAccessor<P>::Word) * SpinorAccessor<P>::kWords * static_cast<std::size_t>(v.stride);
}

inline std::string DslashTuneKey(const WilsonDslashLaunch& l) {
  std::string key = std::string("WilsonDslash ") + ToString(l.gauge.precision) + "/" + ToString(l.gauge.reconstruct) +
                    (l.gauge.singular_8_links ? "/singular" : "") + (l.gauge.temporal_gauge_fixed ? "/gf" : "") +
                    (l.dagger ? "/dagger" : "") +
                    (l.xpay ? "/xpay" : "") + " " + std::to_string(l.out.extents[0]);
  for (int mu = 1; mu < 4; ++mu) key += "x" + std::to_string(l.out.extents[mu]);
  key += " strides " + std::to_string(l.out.stride) + "," + std::to_string(l.in.stride) + "," +
         std::to_string(l.gauge.stride);
  return key;
}

template <Precision P, Reconstruct R, bool kGaugeFixed, bool kDagger, bool kXpay, bool kSingular8>
void LaunchWilsonDslashVariant(const WilsonDslashLaunch& l) {
  using Arg = WilsonDslashArg<P, R, kGaugeFixed, kDagger, kXpay, kSingular8>;
  using Real = typename Arg::Real;
  Arg arg;
  arg.out = SpinorAccessorOf<P>(l.out);
  arg.in = SpinorAccessorOf<P>(l.in);
  arg.x = kXpay ? SpinorAccessorOf<P>(l.x) : SpinorAccessor<P>{};
  arg.gauge.data = static_cast<typename GaugeAccessor<P, R, kSingular8>::Word*>(l.gauge.data);
  arg.gauge.stride = l.gauge.stride;
  for (int mu = 0; mu < 4; ++mu) {
    arg.extents[mu] = l.out.extents[mu];
    arg.antiperiodic[mu] = l.antiperiodic[mu];
  }
  if constexpr (Arg::kFastArithmetic) arg.divisors = CheckerboardDivisors::Of(arg.extents);
  arg.sites = l.out.sites;
  arg.parity = l.out.parity;
  arg.a = static_cast<Real>(l.a);
  arg.b = static_cast<Real>(l.b);

  cudaFuncAttributes attributes;
  LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, WilsonDslashKernel<Arg>));
  const std::string key = DslashTuneKey(l);
  auto launch = [&](int block) {
    const int grid = (arg.sites + block - 1) / block;
    WilsonDslashKernel<Arg><<<grid, block>>>(arg);
    const std::string what = "launch of " + key + " with " + std::to_string(block) + " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  };
  std::vector<std::pair<void*, std::size_t>> preserve;
  if (kXpay && l.out.data == l.x.data) {  // out = a out + b D in: timing runs must not compound
    preserve.emplace_back(l.out.data, SpinorViewBytes<P>(l.out));
    if (l.out.norm != nullptr) preserve.emplace_back(l.out.norm, sizeof(float) * l.out.stride);
  }
  const int block = LaunchTuner::Instance().BlockSize(key, attributes.maxThreadsPerBlock, preserve, launch);
  launch(block);
}

template <Precision P>
void LaunchWilsonDslashFor(const WilsonDslashLaunch& l) {
  auto with_reconstruct = [&](auto reconstruct, auto singular) {
    WithFlag(l.gauge.temporal_gauge_fixed, [&](auto gauge_fixed) {
      WithFlag(l.dagger, [&](auto dagger) {
        WithFlag(l.xpay, [&](auto xpay) {
          LaunchWilsonDslashVariant<P, decltype(reconstruct)::value, decltype(gauge_fixed)::value,
                                    decltype(dagger)::value, decltype(xpay)::value, decltype(singular)::value>(l);
        });
      });
    });
  };
  using Plain = std::false_type;
  switch (l.gauge.reconstruct) {
    case Reconstruct::k18: return with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k18>{}, Plain{});
    case Reconstruct::k12: return with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k12>{}, Plain{});
    case Reconstruct::k8:
      // Fields with links in the singular form get the kernels that test for it (su3_reconstruct.cuh).
      return WithFlag(l.gauge.singular_8_links, [&](auto singular) {
        with_reconstruct(std::integral_constant<Reconstruct, Reconstruct::k8>{}, singular);
      });
  }
}

}  // namespace lqcd::gpu
