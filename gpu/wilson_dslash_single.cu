// wilson_dslash_single.cu: the single-precision Wilson Dslash kernels (all 24 variants of reconstruction x
// temporal gauge fixing x dagger x xpay). One file per precision so that they compile in parallel.
#include "gpu/wilson_dslash_launcher.cuh"

namespace lqcd::gpu {

void LaunchWilsonDslashSingle(const WilsonDslashLaunch& launch) { LaunchWilsonDslashFor<Precision::kSingle>(launch); }

}  // namespace lqcd::gpu
