// heatbath_math.cuh: the CPU quenched update (reference/ensemble/heatbath.cc, su2_subgroup.h, portable_math.h,
// reference/random.h through philox_stream.cuh) transcribed operation for operation for the GPU sweeps (heatbath_kernels.cu, gpu_heatbath.h),
// as __host__ __device__ code: compiled for the host (heatbath_math_check.cu), the same source is compared bit
// for bit with the CPU functions by a CPU test (heatbath_math_test.cc), so a change to the transcription is
// caught without a GPU. What keeps the device's results equal to the host's: --fmad=false (gpu/BUILD), and only
// correctly rounded operations (+ - * /, sqrt) and exact ones (frexp, ldexp, floor, fabs, fmin, fmax).
// No Eigen: links are plain doubles in GaugeField<double>'s layout (heatbath_launch.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "gpu/heatbath_launch.h"
#include "gpu/philox_stream.cuh"
#include "reference/ensemble/portable_math.h"  // the host's coefficient tables

namespace lqcd::gpu::heatbath_math {

// ---- complex numbers as libstdc++ computes std::complex<double> (gpu_heatbath.h) ----

struct Cplx {
  double re, im;
};
__host__ __device__ inline Cplx Add(Cplx a, Cplx b) { return {a.re + b.re, a.im + b.im}; }
__host__ __device__ inline Cplx Sub(Cplx a, Cplx b) { return {a.re - b.re, a.im - b.im}; }
__host__ __device__ inline Cplx Mul(Cplx a, Cplx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
__host__ __device__ inline Cplx Scale(Cplx a, double s) { return {a.re * s, a.im * s}; }
__host__ __device__ inline Cplx Conj(Cplx a) { return {a.re, -a.im}; }
__host__ __device__ inline Cplx Neg(Cplx a) { return {-a.re, -a.im}; }
__host__ __device__ inline double Norm(Cplx a) { return a.re * a.re + a.im * a.im; }  // std::norm

// A 3x3 complex matrix stored as Eigen stores ColorMatrix<double>: column-major, (r, c) at r + 3 c.
struct Mat {
  Cplx e[9];
  __host__ __device__ Cplx& operator()(int r, int c) { return e[r + 3 * c]; }
  __host__ __device__ const Cplx& operator()(int r, int c) const { return e[r + 3 * c]; }
};

__host__ __device__ inline Mat Adjoint(const Mat& a) {
  Mat r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = Conj(a(j, i));
  }
  return r;
}

// Eigen's product with a column-major (plain) left factor: ((t0 + t1) + t2).
__host__ __device__ inline Mat ProductLeftPlain(const Mat& a, const Mat& b) {
  Mat r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = Add(Add(Mul(a(i, 0), b(0, j)), Mul(a(i, 1), b(1, j))), Mul(a(i, 2), b(2, j)));
  }
  return r;
}

// Eigen's product with an adjoint (row-major) left factor: (t0 + (t1 + t2)). `a` is the adjoint already.
__host__ __device__ inline Mat ProductLeftAdjoint(const Mat& a, const Mat& b) {
  Mat r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = Add(Mul(a(i, 0), b(0, j)), Add(Mul(a(i, 1), b(1, j)), Mul(a(i, 2), b(2, j))));
  }
  return r;
}

// ---- portable_math.h ----

static __constant__ double kAtanhDevice[20] = {
    0x1.0000000000000p+0, 0x1.5555555555555p-2, 0x1.999999999999ap-3, 0x1.2492492492492p-3, 0x1.c71c71c71c71cp-4,
    0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4, 0x1.1111111111111p-4, 0x1.e1e1e1e1e1e1ep-5, 0x1.af286bca1af28p-5,
    0x1.8618618618618p-5, 0x1.642c8590b2164p-5, 0x1.47ae147ae147bp-5, 0x1.2f684bda12f68p-5, 0x1.1a7b9611a7b96p-5,
    0x1.0842108421084p-5, 0x1.f07c1f07c1f08p-6, 0x1.d41d41d41d41dp-6, 0x1.bacf914c1bad0p-6, 0x1.a41a41a41a41ap-6};
static __constant__ double kExpm1Device[17] = {
    0x1.0000000000000p+0,  0x1.0000000000000p-1,  0x1.5555555555555p-3,  0x1.5555555555555p-5,  0x1.1111111111111p-7,
    0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22,
    0x1.ae64567f544e4p-26, 0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-41,
    0x1.ae7f3e733b81fp-45, 0x1.952c77030ad4ap-49};
static __constant__ double kSinDevice[10] = {
    0x1.0000000000000p+0,   -0x1.5555555555555p-3, 0x1.1111111111111p-7,  -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,
    -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33, -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49, -0x1.2f49b46814157p-57};
static __constant__ double kCosDevice[11] = {
    0x1.0000000000000p+0,  -0x1.0000000000000p-1, 0x1.5555555555555p-5,  -0x1.6c16c16c16c17p-10,
    0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37,
    0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53, 0x1.e542ba4020225p-62};
// The coefficient tables: on the device the copies above, on the host portable_math.h's own (what the CPU test
// of this transcription compares against).
__host__ __device__ inline const double* AtanhTable() {
#ifdef __CUDA_ARCH__
  return kAtanhDevice;
#else
  return portable_internal::kAtanhCoefficients;
#endif
}
__host__ __device__ inline const double* Expm1Table() {
#ifdef __CUDA_ARCH__
  return kExpm1Device;
#else
  return portable_internal::kExpm1Coefficients;
#endif
}
__host__ __device__ inline const double* SinTable() {
#ifdef __CUDA_ARCH__
  return kSinDevice;
#else
  return portable_internal::kSinCoefficients;
#endif
}
__host__ __device__ inline const double* CosTable() {
#ifdef __CUDA_ARCH__
  return kCosDevice;
#else
  return portable_internal::kCosCoefficients;
#endif
}

constexpr double kLn2Hi = 0x1.62e42fefa0000p-1;
constexpr double kLn2Lo = 0x1.cf79abc9e3b3ap-40;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kQuarterPi = 3.14159265358979323846 / 4;  // M_PI / 4, exact division of the double

__host__ __device__ inline double Horner(const double* c, int n, double x) {
  double sum = c[n - 1];
  for (int k = n - 2; k >= 0; --k) sum = c[k] + x * sum;
  return sum;
}
__host__ __device__ inline double TwoAtanh(double s) {
  const double s2 = s * s;
  return 2 * s * Horner(AtanhTable(), fabs(s) <= 0.18 ? 12 : 20, s2);
}
__host__ __device__ inline double Expm1Small(double r) { return r * Horner(Expm1Table(), 17, r); }

// The arguments are in range by construction here (the CPU versions check and throw).
__host__ __device__ inline double Log(double x) {
  int e = 0;
  double m = frexp(x, &e);
  if (m < kSqrtHalf) {
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1);
  return e * kLn2Hi + (TwoAtanh(s) + e * kLn2Lo);
}
__host__ __device__ inline double Log1p(double z) {
  if (fabs(z) <= 0.5) return TwoAtanh(z / (2 + z));
  return Log(1 + z);
}
__host__ __device__ inline double Expm1(double t) {
  if (fabs(t) <= 0.5) return Expm1Small(t);
  if (t < -40) return -1.0;
  const double k = floor(t / kLn2Hi + 0.5);
  const double r = (t - k * kLn2Hi) - k * kLn2Lo;
  const double exp_r = 1 + Expm1Small(r);
  return ldexp(exp_r, static_cast<int>(k)) - 1;
}
__host__ __device__ inline void SinCos2Pi(double x, double* sin_out, double* cos_out) {
  const double y = 8 * x;
  const double octant = floor(y);
  double f = y - octant;
  const int o = static_cast<int>(octant);
  if (o & 1) f -= 1;
  const int quadrant = ((o + 1) / 2) % 4;
  const double theta = f * kQuarterPi;
  const double s = theta * Horner(SinTable(), 10, theta * theta), c = Horner(CosTable(), 11, theta * theta);
  switch (quadrant) {
    case 0: *sin_out = s; *cos_out = c; break;
    case 1: *sin_out = c; *cos_out = -s; break;
    case 2: *sin_out = -s; *cos_out = -c; break;
    default: *sin_out = -c; *cos_out = s; break;
  }
}
__host__ __device__ inline double Cos2Pi(double x) {
  double s, c;
  SinCos2Pi(x, &s, &c);
  return c;
}

// ---- SU(2) subgroups: su2_subgroup.h ----

struct Quaternion {  // su2_subgroup.h's Su2: the first row (alpha, beta) of [[alpha, beta], [-beta*, alpha*]]
  Cplx alpha, beta;
  __host__ __device__ double Norm2() const { return Norm(alpha) + Norm(beta); }
  __host__ __device__ Quaternion Adjoint() const { return {Conj(alpha), Neg(beta)}; }
  __host__ __device__ Quaternion operator*(const Quaternion& o) const {
    return {Sub(Mul(alpha, o.alpha), Mul(beta, Conj(o.beta))), Add(Mul(alpha, o.beta), Mul(beta, Conj(o.alpha)))};
  }
  __host__ __device__ Quaternion operator*(double s) const { return {Scale(alpha, s), Scale(beta, s)}; }
};

__host__ __device__ inline void SubgroupRows(int subgroup, int* i, int* j) {
  *i = subgroup == 2 ? 1 : 0;
  *j = subgroup == 0 ? 1 : 2;
}

__host__ __device__ inline Quaternion ProjectSubgroup(const Mat& w, int subgroup) {
  int i, j;
  SubgroupRows(subgroup, &i, &j);
  return {Scale(Add(w(i, i), Conj(w(j, j))), 0.5), Scale(Sub(w(i, j), Conj(w(j, i))), 0.5)};
}

__host__ __device__ inline void LeftMultiplySubgroup(const Quaternion& v, int subgroup, Mat& m) {
  int i, j;
  SubgroupRows(subgroup, &i, &j);
  const Cplx a = v.alpha, b = v.beta, c = Neg(Conj(v.beta)), d = Conj(v.alpha);
  for (int col = 0; col < 3; ++col) {
    const Cplx top = m(i, col), bottom = m(j, col);
    m(i, col) = Add(Mul(a, top), Mul(b, bottom));
    m(j, col) = Add(Mul(c, top), Mul(d, bottom));
  }
}

__host__ __device__ inline double SampleA0Creutz(double a, PhiloxStream& stream) {
  for (;;) {
    const double x = stream.UniformOpenAtZero();
    double a0;
    if (a == 0) {
      a0 = 2.0 * x - 1.0;
    } else {
      a0 = 1.0 + Log1p((1.0 - x) * Expm1(-2.0 * a)) / a;
    }
    a0 = fmin(1.0, fmax(-1.0, a0));
    const double accept = stream.Uniform();
    if (accept * accept <= 1.0 - a0 * a0) return a0;
  }
}

__host__ __device__ inline double SampleA0KennedyPendleton(double a, PhiloxStream& stream) {
  for (;;) {
    const double x1 = stream.UniformOpenAtZero();
    const double x2 = stream.Uniform();
    const double x3 = stream.UniformOpenAtZero();
    const double c = Cos2Pi(x2);
    const double lambda2 = -(Log(x1) + c * c * Log(x3)) / (2.0 * a);
    const double x4 = stream.Uniform();
    if (x4 * x4 <= 1.0 - lambda2) return 1.0 - 2.0 * lambda2;
  }
}

__host__ __device__ inline Quaternion SampleHeatbathSu2(double a, PhiloxStream& stream) {
  const double a0 = a < kHeatbathCreutzBelow ? SampleA0Creutz(a, stream) : SampleA0KennedyPendleton(a, stream);
  const double radius = sqrt(fmax(0.0, 1.0 - a0 * a0));
  const double cos_theta = 2.0 * stream.Uniform() - 1.0;
  const double sin_theta = sqrt(fmax(0.0, 1.0 - cos_theta * cos_theta));
  double sin_phi, cos_phi;
  SinCos2Pi(stream.Uniform(), &sin_phi, &cos_phi);
  const double a1 = radius * sin_theta * cos_phi, a2 = radius * sin_theta * sin_phi;
  const double a3 = radius * cos_theta;
  return {{a0, a3}, {a2, a1}};
}


// ---- one link: heatbath.cc's HeatbathLink and OverrelaxLink ----

// The heatbath update of `link` in the field of `staple`; subgroup s uses the stream (seed, first_stream_id + s).
__host__ __device__ inline void HeatbathUpdate(Mat& link, const Mat& staple, double beta, std::uint64_t seed,
                                               std::uint64_t first_stream_id) {
  Mat w = ProductLeftPlain(link, staple);
  for (int subgroup = 0; subgroup < kHeatbathSubgroups; ++subgroup) {
    PhiloxStream stream(seed, first_stream_id + subgroup);
    const Quaternion q = ProjectSubgroup(w, subgroup);
    const double k = sqrt(q.Norm2());
    Quaternion r;
    if (k > kHeatbathNegligibleNorm) {
      const Quaternion s = q * (1.0 / k);
      r = SampleHeatbathSu2(2.0 * beta * k / 3.0, stream) * s.Adjoint();
    } else {
      r = SampleHeatbathSu2(0.0, stream);
    }
    LeftMultiplySubgroup(r, subgroup, link);
    LeftMultiplySubgroup(r, subgroup, w);
  }
}

__host__ __device__ inline void OverrelaxUpdate(Mat& link, const Mat& staple) {
  Mat w = ProductLeftPlain(link, staple);
  for (int subgroup = 0; subgroup < kHeatbathSubgroups; ++subgroup) {
    const Quaternion q = ProjectSubgroup(w, subgroup);
    const double k = sqrt(q.Norm2());
    if (!(k > kHeatbathNegligibleNorm)) continue;
    const Quaternion s_dag = (q * (1.0 / k)).Adjoint();
    const Quaternion r = s_dag * s_dag;
    LeftMultiplySubgroup(r, subgroup, link);
    LeftMultiplySubgroup(r, subgroup, w);
  }
}

// ---- the lattice: sites of one parity, neighbours, staples ----

__host__ __device__ inline Mat LoadLink(const double* links, int site, int mu) {
  Mat m;
  const double* p = links + 18 * (4 * static_cast<long>(site) + mu);
  for (int k = 0; k < 9; ++k) m.e[k] = {p[2 * k], p[2 * k + 1]};
  return m;
}
__host__ __device__ inline void StoreLink(double* links, int site, int mu, const Mat& m) {
  double* p = links + 18 * (4 * static_cast<long>(site) + mu);
  for (int k = 0; k < 9; ++k) {
    p[2 * k] = m.e[k].re;
    p[2 * k + 1] = m.e[k].im;
  }
}

// The site of checkerboard index cb in `parity` (lattice.h: sites 2 cb and 2 cb + 1 have opposite parities),
// and its coordinates.
__host__ __device__ inline int SiteOf(const SweepLaunch& a, int cb, int n[4]) {
  int site = 2 * cb;
  int rest = site;
  for (int d = 0; d < 4; ++d) {
    n[d] = rest % a.extents[d];
    rest /= a.extents[d];
  }
  if (((n[0] + n[1] + n[2] + n[3]) & 1) != a.parity) {
    ++site;
    ++n[0];  // x = 2k + 1 < Lx: Lx is even
  }
  return site;
}

__host__ __device__ inline int Shifted(const SweepLaunch& a, const int n[4], int d1, int s1, int d2, int s2) {
  int m[4] = {n[0], n[1], n[2], n[3]};
  m[d1] = (m[d1] + s1 + a.extents[d1]) % a.extents[d1];
  if (s2 != 0) m[d2] = (m[d2] + s2 + a.extents[d2]) % a.extents[d2];
  return m[0] + a.extents[0] * (m[1] + a.extents[1] * (m[2] + a.extents[2] * m[3]));
}

// heatbath.cc's StapleSum, with Eigen's summation orders.
__host__ __device__ inline Mat StapleSum(const SweepLaunch& a, const int n[4], int site) {
  const int mu = a.mu;
  Mat sum;
  for (int k = 0; k < 9; ++k) sum.e[k] = {0.0, 0.0};
  const int forward_mu = Shifted(a, n, mu, 1, 0, 0);
  for (int nu = 0; nu < 4; ++nu) {
    if (nu == mu) continue;
    const int forward_nu = Shifted(a, n, nu, 1, 0, 0);
    const int backward_nu = Shifted(a, n, nu, -1, 0, 0);
    const int forward_mu_backward_nu = Shifted(a, n, mu, 1, nu, -1);
    // Upper: (U_nu(n+mu) U_mu(n+nu)^dag) U_nu(n)^dag.
    const Mat upper = ProductLeftPlain(
        ProductLeftPlain(LoadLink(a.links, forward_mu, nu), Adjoint(LoadLink(a.links, forward_nu, mu))),
        Adjoint(LoadLink(a.links, site, nu)));
    for (int k = 0; k < 9; ++k) sum.e[k] = Add(sum.e[k], upper.e[k]);
    // Lower: (U_nu(n+mu-nu)^dag U_mu(n-nu)^dag) U_nu(n-nu).
    const Mat lower = ProductLeftPlain(ProductLeftAdjoint(Adjoint(LoadLink(a.links, forward_mu_backward_nu, nu)),
                                                          Adjoint(LoadLink(a.links, backward_nu, mu))),
                                       LoadLink(a.links, backward_nu, nu));
    for (int k = 0; k < 9; ++k) sum.e[k] = Add(sum.e[k], lower.e[k]);
  }
  return sum;
}

}  // namespace lqcd::gpu::heatbath_math
