// vector_flops.h: real floating-point operations per REAL component of a field for each fused vector
// operation of the backend interface (README.md). A complex multiply-add counts 8 flops (4 per real),
// a real axpy 2 per real, |x|^2 2 per real, a complex dot 4 per real. Algorithms add
// kFlops * reals(field) to SolveResult::flops; operator flops come from the operator itself.
#pragma once

namespace lqcd::solvers::vector_flops {

inline constexpr double kNorm2 = 2;
inline constexpr double kDot = 4;
inline constexpr double kReDot = 2;
inline constexpr double kDotNorm = 6;
inline constexpr double kAxpy = 2;
inline constexpr double kAxpyNorm = 4;
inline constexpr double kXpay = 2;
inline constexpr double kCaxpy = 4;
inline constexpr double kCaxpyNorm = 6;
inline constexpr double kCgUpdate = 6;           // x += a p; r -= a q; |r|^2
inline constexpr double kBicgstabDirection = 8;  // p = r + beta (p - omega v)
inline constexpr double kBicgstabUpdate = 18;    // x += alpha p + omega s; r = s - omega t; |r|^2; (r0, r)
inline constexpr double kBicgstabResidual = 10;  // t = s - omega t; |t|^2; (r0, t)
inline constexpr double kBicgstabSolution = 8;   // x += alpha p + omega s
inline constexpr double kCopy = 0;
inline constexpr double kConvert = 0;

}  // namespace lqcd::solvers::vector_flops
