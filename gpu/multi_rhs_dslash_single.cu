// multi_rhs_dslash_single.cu: the single-precision multi-RHS Wilson Dslash kernels (reconstruction x temporal
// gauge fixing x dagger x {none, xpay, xpay-dotnorm (D only)} x right-hand sides per thread). One file per precision so that they
// compile in parallel.
#include "gpu/multi_rhs_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchMultiRhsDslashSingle(const MultiRhsDslashLaunch& launch) {
  LaunchMultiRhsDslashFor<Precision::kSingle, DslashEpilogue::kNone, DslashEpilogue::kXpay, DslashEpilogue::kXpayDotNorm>(
      launch);
}

}  // namespace lqcd::gpu
