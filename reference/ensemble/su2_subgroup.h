// su2_subgroup.h: SU(2) elements, their embedding in SU(3) (Cabibbo-Marinari subgroups) and the SU(2)
// heatbath sampler that the quenched generator (heatbath.h) is built from.
//
// Representation: an SU(2) element is stored by its first row (alpha, beta),
//     V = [[ alpha,        beta       ],
//          [ -conj(beta),  conj(alpha) ]],   |alpha|^2 + |beta|^2 = 1,
// i.e. the quaternion a0 + i a.sigma with alpha = a0 + i a3, beta = a2 + i a1. Re Tr V = 2 a0.
// The same two numbers without the norm condition describe the real span of SU(2) ("quaternions"):
// k V with k >= 0 real.
//
// Subgroups: the three SU(2) subgroups of SU(3) act on the colour index pairs (0,1), (0,2), (1,2)
// (kSubgroupRows). Embedding V in subgroup (i, j) puts alpha at (i,i), beta at (i,j), -conj(beta) at (j,i),
// conj(alpha) at (j,j) and 1 at the third diagonal place; LeftMultiply applies that 3x3 matrix from the
// left, which mixes rows i and j only.
//
// Projection: for any complex 2x2 block w, ProjectToQuaternion(w) is the quaternion q with
//     Re Tr(V w) = Re Tr(V q)   for every V in SU(2)
// (alpha = (w00 + conj(w11)) / 2, beta = (w01 - conj(w10)) / 2; docs/quenched_generator.md derives it).
// Writing q = k S with k = |q| and S in SU(2), Re Tr(V w) = k Re Tr(V S).
//
// Heatbath: SampleHeatbathA0(a, stream) draws a0 in [-1, 1] with density proportional to
//     sqrt(1 - a0^2) exp(a a0),   a >= 0,
// the a0-marginal of the SU(2) Haar measure weighted by exp((a / 2) Re Tr X). Two exact samplers:
// Creutz (Phys. Rev. D 21 (1980) 2308): a0 from exp(a a0) by inversion, accepted with probability
// sqrt(1 - a0^2) -- efficient for small a; Kennedy-Pendleton (Phys. Lett. B 156 (1985) 393): 1 - a0 from a
// Gamma(3/2) distribution, accepted with probability sqrt((1 + a0) / 2) -- efficient for large a.
// SampleHeatbathSu2 adds a uniformly distributed direction for (a1, a2, a3) of length sqrt(1 - a0^2).
// All draws come from the RandomStream passed in, and the elementary functions are those of
// portable_math.h, so a result depends only on that stream -- the same bits on every machine.
#pragma once

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/ensemble/portable_math.h"
#include "reference/random.h"
#include "reference/types.h"

namespace lqcd {

struct Su2 {
  Complex<double> alpha{1.0, 0.0}, beta{0.0, 0.0};

  static Su2 Identity() { return Su2{}; }
  double Norm2() const { return std::norm(alpha) + std::norm(beta); }
  double ReTrace() const { return 2.0 * alpha.real(); }
  Su2 Adjoint() const { return Su2{std::conj(alpha), -beta}; }
  // Quaternion product: the first row of [[a, b], [-b*, a*]] [[c, d], [-d*, c*]].
  Su2 operator*(const Su2& o) const {
    return Su2{alpha * o.alpha - beta * std::conj(o.beta), alpha * o.beta + beta * std::conj(o.alpha)};
  }
  Su2 operator*(double s) const { return Su2{alpha * s, beta * s}; }
  Eigen::Matrix<Complex<double>, 2, 2> Matrix() const {
    Eigen::Matrix<Complex<double>, 2, 2> m;
    m << alpha, beta, -std::conj(beta), std::conj(alpha);
    return m;
  }
};

// Colour rows (i, j) of the three Cabibbo-Marinari subgroups.
inline constexpr std::array<std::array<int, 2>, 3> kSubgroupRows = {{{0, 1}, {0, 2}, {1, 2}}};
inline constexpr int kNumSubgroups = 3;

inline void CheckSubgroup(int subgroup) {
  if (subgroup < 0 || subgroup >= kNumSubgroups) {
    throw std::invalid_argument("SU(2) subgroup index " + std::to_string(subgroup) + " is not 0, 1 or 2");
  }
}

// The quaternion part of a complex 2x2 block (see file comment): Re Tr(V w) = Re Tr(V q) for V in SU(2).
inline Su2 ProjectToQuaternion(const Complex<double>& w00, const Complex<double>& w01, const Complex<double>& w10,
                               const Complex<double>& w11) {
  return Su2{0.5 * (w00 + std::conj(w11)), 0.5 * (w01 - std::conj(w10))};
}

// The quaternion part of the (i, j) block of a 3x3 matrix.
inline Su2 ProjectSubgroup(const ColorMatrix<double>& w, int subgroup) {
  CheckSubgroup(subgroup);
  const int i = kSubgroupRows[subgroup][0], j = kSubgroupRows[subgroup][1];
  return ProjectToQuaternion(w(i, i), w(i, j), w(j, i), w(j, j));
}

// The 3x3 matrix of V embedded in the subgroup.
inline ColorMatrix<double> EmbedSubgroup(const Su2& v, int subgroup) {
  CheckSubgroup(subgroup);
  const int i = kSubgroupRows[subgroup][0], j = kSubgroupRows[subgroup][1];
  ColorMatrix<double> r = ColorMatrix<double>::Identity();
  r(i, i) = v.alpha;
  r(i, j) = v.beta;
  r(j, i) = -std::conj(v.beta);
  r(j, j) = std::conj(v.alpha);
  return r;
}

// m <- Embed(v) m, touching only rows i and j (12 complex multiplications and 6 additions: 84 flops).
inline void LeftMultiplySubgroup(const Su2& v, int subgroup, ColorMatrix<double>& m) {
  CheckSubgroup(subgroup);
  const int i = kSubgroupRows[subgroup][0], j = kSubgroupRows[subgroup][1];
  const Complex<double> a = v.alpha, b = v.beta, c = -std::conj(v.beta), d = std::conj(v.alpha);
  for (int col = 0; col < 3; ++col) {
    const Complex<double> top = m(i, col), bottom = m(j, col);
    m(i, col) = a * top + b * bottom;
    m(j, col) = c * top + d * bottom;
  }
}

// Uniform in (0, 1]: logarithms of it are finite.
inline double UniformOpenAtZero(RandomStream& stream) { return 1.0 - stream.Uniform(); }

// Creutz: a0 = 1 + log(x + (1 - x) exp(-2a)) / a inverts the CDF of exp(a a0) on [-1, 1]; written with
// log1p/expm1 so it stays accurate for a -> 0, where it tends to the uniform 2x - 1.
inline double SampleHeatbathA0Creutz(double a, RandomStream& stream) {
  if (!(a >= 0) || !std::isfinite(a)) throw std::invalid_argument("SU(2) heatbath: coupling a must be finite and >= 0");
  for (;;) {
    const double x = UniformOpenAtZero(stream);  // (0, 1]
    double a0;
    if (a == 0) {
      a0 = 2.0 * x - 1.0;
    } else {
      a0 = 1.0 + PortableLog1p((1.0 - x) * PortableExpm1(-2.0 * a)) / a;
    }
    a0 = std::fmin(1.0, std::fmax(-1.0, a0));
    const double accept = stream.Uniform();
    if (accept * accept <= 1.0 - a0 * a0) return a0;
  }
}

// Kennedy-Pendleton: with a0 = 1 - 2 lambda^2, the density of lambda is lambda^2 sqrt(1 - lambda^2)
// exp(-2 a lambda^2); lambda^2 = -(log x1 + cos^2(2 pi x2) log x3) / (2a) is Gamma(3/2) distributed with
// rate 2a (an exponential plus half a squared normal), and the factor sqrt(1 - lambda^2) is an
// accept/reject step (which also rejects lambda^2 > 1, i.e. a0 < -1). Requires a > 0.
inline double SampleHeatbathA0KennedyPendleton(double a, RandomStream& stream) {
  if (!(a > 0) || !std::isfinite(a)) throw std::invalid_argument("Kennedy-Pendleton heatbath: a must be finite and > 0");
  for (;;) {
    const double x1 = UniformOpenAtZero(stream), x2 = stream.Uniform(), x3 = UniformOpenAtZero(stream);
    const double c = PortableCos2Pi(x2);
    const double lambda2 = -(PortableLog(x1) + c * c * PortableLog(x3)) / (2.0 * a);
    const double x4 = stream.Uniform();
    if (x4 * x4 <= 1.0 - lambda2) return 1.0 - 2.0 * lambda2;
  }
}

// Below this coupling the Creutz sampler accepts more often than Kennedy-Pendleton (the acceptance of
// Creutz falls like 1/sqrt(a), that of Kennedy-Pendleton rises to 1 as a grows); both are exact, so the
// switch point only affects speed.
inline constexpr double kCreutzBelow = 2.0;

inline double SampleHeatbathA0(double a, RandomStream& stream) {
  return a < kCreutzBelow ? SampleHeatbathA0Creutz(a, stream) : SampleHeatbathA0KennedyPendleton(a, stream);
}

// An SU(2) element X with density proportional to exp(a a0) = exp((a / 2) Re Tr X) w.r.t. Haar measure.
inline Su2 SampleHeatbathSu2(double a, RandomStream& stream) {
  const double a0 = SampleHeatbathA0(a, stream);
  const double radius = std::sqrt(std::fmax(0.0, 1.0 - a0 * a0));
  const double cos_theta = 2.0 * stream.Uniform() - 1.0;
  const double sin_theta = std::sqrt(std::fmax(0.0, 1.0 - cos_theta * cos_theta));
  double sin_phi, cos_phi;
  PortableSinCos2Pi(stream.Uniform(), &sin_phi, &cos_phi);  // phi uniform in [0, 2 pi)
  const double a1 = radius * sin_theta * cos_phi, a2 = radius * sin_theta * sin_phi;
  const double a3 = radius * cos_theta;
  return Su2{Complex<double>(a0, a3), Complex<double>(a2, a1)};
}

}  // namespace lqcd
