// clover_apply.cu: the clover-term kernel (out = T in or T^{-1} in on one parity) in each precision: the Arg
// struct, the per-site functor and a thin launcher that asks the tuner for the block size.
//
// The site's work is all in CloverAccessor::Apply (clover_accessor.cuh): load the UKQCD spinor, rotate to the
// chiral pairs, two Hermitian 6x6 products, rotate back, store. The same Apply is what a fused Dslash epilogue
// calls, so this kernel is also its test bed.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gpu/clover_accessor.cuh"
#include "gpu/clover_apply_launch.h"
#include "gpu/cuda_check.h"
#include "gpu/spinor_accessor.cuh"
#include "gpu/tune.h"

namespace lqcd::gpu {
namespace {

template <Precision P>
struct CloverApplyArg {
  using Real = typename SpinorStorage<P>::Real;  // the arithmetic of this precision (half: float)
  SpinorAccessor<P> out;
  SpinorAccessor<P> in;     // may be out's memory: each thread reads its whole site before it writes it
  CloverAccessor<P> clover;  // T or T^{-1}, whichever the view held
  int sites = 0;
};

// One output site.
template <Precision P>
struct CloverApplySite {
  __device__ __forceinline__ void operator()(const CloverApplyArg<P>& arg, int cb) const {
    arg.out.Store(cb, arg.clover.Apply(cb, arg.in.Load(cb)));
  }
};

template <Precision P>
__global__ void CloverApplyKernel(CloverApplyArg<P> arg) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb < arg.sites) CloverApplySite<P>{}(arg, cb);
}

std::string TuneKey(const CloverApplyLaunch& l) {
  std::string key = std::string("CloverApply ") + ToString(l.clover.precision) + " " + std::to_string(l.out.extents[0]);
  for (int mu = 1; mu < 4; ++mu) key += "x" + std::to_string(l.out.extents[mu]);
  key += " strides " + std::to_string(l.out.stride) + "," + std::to_string(l.in.stride) + "," +
         std::to_string(l.clover.stride);
  return key;
}

template <Precision P>
void LaunchFor(const CloverApplyLaunch& l) {
  CloverApplyArg<P> arg;
  arg.out = SpinorAccessorOf<P>(l.out);
  arg.in = SpinorAccessorOf<P>(l.in);
  arg.clover = CloverAccessorOf<P>(l.clover);
  arg.sites = l.out.sites;

  cudaFuncAttributes attributes;
  LQCD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, CloverApplyKernel<P>));
  const std::string key = TuneKey(l);
  auto launch = [&](int block) {
    const int grid = (arg.sites + block - 1) / block;
    CloverApplyKernel<P><<<grid, block>>>(arg);
    const std::string what = "launch of " + key + " with " + std::to_string(block) + " threads per block";
    CheckCuda(cudaGetLastError(), what.c_str(), __FILE__, __LINE__);
  };
  // In place (out = T out), repeated timing launches would compound T^k: the tuner saves and restores out.
  std::vector<std::pair<void*, std::size_t>> preserve;
  if (l.out.data == l.in.data) {
    preserve.emplace_back(l.out.data, sizeof(typename SpinorAccessor<P>::Word) * SpinorAccessor<P>::kWords *
                                          static_cast<std::size_t>(l.out.stride));
    if (l.out.norm != nullptr) preserve.emplace_back(l.out.norm, sizeof(float) * static_cast<std::size_t>(l.out.stride));
  }
  const int block = LaunchTuner::Instance().BlockSize(key, attributes.maxThreadsPerBlock, preserve, launch);
  launch(block);
}

}  // namespace

void LaunchCloverApply(const CloverApplyLaunch& launch) {
  switch (launch.clover.precision) {
    case Precision::kDouble: return LaunchFor<Precision::kDouble>(launch);
    case Precision::kSingle: return LaunchFor<Precision::kSingle>(launch);
    case Precision::kHalf: return LaunchFor<Precision::kHalf>(launch);
  }
}

}  // namespace lqcd::gpu
