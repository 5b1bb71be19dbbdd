// clover_dslash_double.cu: the double-precision Dslash kernels with the clover epilogues (wilson_dslash_launch.h's
// kClover, kCloverXpay, kXpayClover; 90 variants of reconstruction x temporal gauge fixing x dagger x
// epilogue x sites: all, partitioned interior, exterior), and on one GPU the fused forms the clover Schur
// operators' solvers use: clover-xpay-dotnorm and xpay-clover-dotnorm for D (BiCGstab's dot products),
// clover-xpay-axpynorm for D^dag (CG's residual update), 6 variants each.
// One file per precision so that they compile in parallel.
#include "gpu/wilson_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchCloverDslashDouble(const WilsonDslashLaunch& launch) {
  LaunchDslashFor<Precision::kDouble, true, DslashEpilogue::kClover, DslashEpilogue::kCloverXpay, DslashEpilogue::kXpayClover,
                  DslashEpilogue::kCloverXpayDotNorm, DslashEpilogue::kXpayCloverDotNorm,
                  DslashEpilogue::kCloverXpayAxpyNorm>(launch);
}

}  // namespace lqcd::gpu
