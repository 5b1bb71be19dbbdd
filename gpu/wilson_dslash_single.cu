// wilson_dslash_single.cu: the single-precision Wilson Dslash kernels (all 72 variants of reconstruction x
// temporal gauge fixing x dagger x epilogue x sites: all, partitioned interior, exterior), and on one GPU the
// fused forms the solvers use: xpay-dotnorm for D and xpay-axpynorm for D^dag, 6 variants each.
// One file per precision so that they compile in parallel.
#include "gpu/wilson_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchWilsonDslashSingle(const WilsonDslashLaunch& launch) {
  LaunchDslashFor<Precision::kSingle, true, DslashEpilogue::kNone, DslashEpilogue::kXpay,
                  DslashEpilogue::kXpayDotNorm, DslashEpilogue::kXpayAxpyNorm>(launch);
}

}  // namespace lqcd::gpu
