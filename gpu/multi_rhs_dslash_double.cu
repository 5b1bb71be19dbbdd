// multi_rhs_dslash_double.cu: the double-precision multi-RHS Wilson Dslash kernels (reconstruction x temporal
// gauge fixing x dagger x {none, xpay, xpay-dotnorm (D only)} x right-hand sides per thread). One file per precision so that they
// compile in parallel.
#include "gpu/multi_rhs_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchMultiRhsDslashDouble(const MultiRhsDslashLaunch& launch) {
  LaunchMultiRhsDslashFor<Precision::kDouble, DslashEpilogue::kNone, DslashEpilogue::kXpay, DslashEpilogue::kXpayDotNorm>(
      launch);
}

}  // namespace lqcd::gpu
