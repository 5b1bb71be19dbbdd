// blas_operation.h: the names of the fused vector operations (blas.h) and the fixed launch geometry of
// their kernels. Plain C++ (no CUDA, no Eigen): shared by the host API and blas.cu.
#pragma once

namespace lqcd::gpu::blas {

inline constexpr int kBlasBlock = 256;       // threads per block of every kernel here
inline constexpr int kBlasMaxBlocks = 1024;  // at most this many blocks (partials) per reduction

// Blocks of a kernel over n sites (both parities of a full field count).
inline int BlocksFor(long n) {
  const long blocks = (n + kBlasBlock - 1) / kBlasBlock;
  return static_cast<int>(blocks < kBlasMaxBlocks ? (blocks > 0 ? blocks : 1) : kBlasMaxBlocks);
}

enum class Operation {
  kZero,
  kCopy,
  kConvert,
  kNorm2,
  kDot,
  kReDot,
  kDotNorm,
  kAllFinite,
  kAxpy,
  kAxpyNorm,
  kXpay,
  kCaxpy,
  kCaxpyNorm,
  kCgUpdate,
  kBicgstabDirection,
  kBicgstabUpdate,
  kBicgstabResidual,  // t = s - omega t; |t|^2 and (r0, t)
  kBicgstabSolution,  // x = x + alpha p + omega s
  kCgSolutionDirection,  // x = x + alpha p; p = r + beta p
  kSumPartials,       // the sum of 3-double partial sums (a fused Dslash reduction's)
  kSumRealPartials,   // the sum of 1-double partial sums (the staggered Dslash's fused curvature)
};

}  // namespace lqcd::gpu::blas
