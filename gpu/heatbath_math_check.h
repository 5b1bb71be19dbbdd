// heatbath_math_check.h (testonly): the transcription of heatbath_math.cuh run on the HOST (compiled by nvcc's host
// compiler from the same source as the kernels), for heatbath_math_test.cc to compare bit for bit with the CPU
// update (reference/ensemble/). Plain types: a link is 18 doubles in ColorMatrix<double>'s layout (column-major,
// re/im interleaved).
#pragma once

#include <cstdint>

namespace lqcd::gpu::testing {

// The k-th (0-based) Uniform() of the stream (seed, stream_id).
double TranscribedUniform(std::uint64_t seed, std::uint64_t stream_id, int k);
double TranscribedLog(double x);
double TranscribedLog1p(double z);
double TranscribedExpm1(double t);
void TranscribedSinCos2Pi(double x, double* sin_out, double* cos_out);
// SampleHeatbathSu2(a, stream (seed, id)): out = Re alpha, Im alpha, Re beta, Im beta.
void TranscribedSampleSu2(double a, std::uint64_t seed, std::uint64_t stream_id, double out[4]);
// out = a * b (adjoint_left: a is the adjoint already, summed as Eigen sums an adjoint left factor).
void TranscribedProduct(const double* a, const double* b, bool adjoint_left, double* out);
// StapleSum of link (site, mu) of a field in GaugeField<double>'s layout.
void TranscribedStapleSum(const double* links, const int extents[4], int site, int mu, double* out);
void TranscribedHeatbathUpdate(double* link, const double* staple, double beta, std::uint64_t seed,
                               std::uint64_t first_stream_id);
void TranscribedOverrelaxUpdate(double* link, const double* staple);

}  // namespace lqcd::gpu::testing
