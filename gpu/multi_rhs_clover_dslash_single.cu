// multi_rhs_clover_dslash_single.cu: the single-precision multi-RHS Dslash kernels with the clover epilogues the
// clover Schur operators use (wilson_dslash_launch.h's kClover, kCloverXpay for D and D^dag, kXpayClover for D,
// and the dot-norm forms kCloverXpayDotNorm, kXpayCloverDotNorm for D; reconstruction x temporal gauge fixing x
// dagger x epilogue x right-hand sides per thread). One file per precision so that they compile in parallel.
#include "gpu/multi_rhs_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchMultiRhsCloverDslashSingle(const MultiRhsDslashLaunch& launch) {
  LaunchMultiRhsDslashFor<Precision::kSingle, DslashEpilogue::kClover, DslashEpilogue::kCloverXpay,
                          DslashEpilogue::kXpayClover, DslashEpilogue::kCloverXpayDotNorm,
                          DslashEpilogue::kXpayCloverDotNorm>(launch);
}

}  // namespace lqcd::gpu
