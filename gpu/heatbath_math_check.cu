// heatbath_math_check.cu (testonly): host entry points to heatbath_math.cuh (heatbath_math_check.h).
#include "gpu/heatbath_math_check.h"

#include "gpu/heatbath_math.cuh"

namespace lqcd::gpu::testing {
namespace {

using namespace heatbath_math;  // NOLINT: the transcription under test

Mat ToMat(const double* p) {
  Mat m;
  for (int k = 0; k < 9; ++k) m.e[k] = {p[2 * k], p[2 * k + 1]};
  return m;
}

void FromMat(const Mat& m, double* p) {
  for (int k = 0; k < 9; ++k) {
    p[2 * k] = m.e[k].re;
    p[2 * k + 1] = m.e[k].im;
  }
}

}  // namespace

double TranscribedUniform(std::uint64_t seed, std::uint64_t stream_id, int k) {
  PhiloxStream stream(seed, stream_id);
  double u = 0;
  for (int i = 0; i <= k; ++i) u = stream.Uniform();
  return u;
}

double TranscribedLog(double x) { return Log(x); }
double TranscribedLog1p(double z) { return Log1p(z); }
double TranscribedExpm1(double t) { return Expm1(t); }
void TranscribedSinCos2Pi(double x, double* sin_out, double* cos_out) { SinCos2Pi(x, sin_out, cos_out); }

void TranscribedSampleSu2(double a, std::uint64_t seed, std::uint64_t stream_id, double out[4]) {
  PhiloxStream stream(seed, stream_id);
  const Quaternion q = SampleHeatbathSu2(a, stream);
  out[0] = q.alpha.re;
  out[1] = q.alpha.im;
  out[2] = q.beta.re;
  out[3] = q.beta.im;
}

void TranscribedProduct(const double* a, const double* b, bool adjoint_left, double* out) {
  FromMat(adjoint_left ? ProductLeftAdjoint(ToMat(a), ToMat(b)) : ProductLeftPlain(ToMat(a), ToMat(b)), out);
}

void TranscribedStapleSum(const double* links, const int extents[4], int site, int mu, double* out) {
  SweepLaunch a{};
  a.links = const_cast<double*>(links);  // StapleSum only reads
  for (int d = 0; d < 4; ++d) a.extents[d] = extents[d];
  a.volume = extents[0] * extents[1] * extents[2] * extents[3];
  a.mu = mu;
  int n[4];
  int rest = site;
  for (int d = 0; d < 4; ++d) {
    n[d] = rest % extents[d];
    rest /= extents[d];
  }
  FromMat(StapleSum(a, n, site), out);
}

void TranscribedHeatbathUpdate(double* link, const double* staple, double beta, std::uint64_t seed,
                               std::uint64_t first_stream_id) {
  Mat m = ToMat(link);
  HeatbathUpdate(m, ToMat(staple), beta, seed, first_stream_id);
  FromMat(m, link);
}

void TranscribedOverrelaxUpdate(double* link, const double* staple) {
  Mat m = ToMat(link);
  OverrelaxUpdate(m, ToMat(staple));
  FromMat(m, link);
}

}  // namespace lqcd::gpu::testing
