// wilson_error_bounds.h (testonly): rounding-error bounds for the matrix-free Wilson operator of
// wilson.h, so that the tests can assert "equal up to rounding" with a tolerance that is derived, not
// tuned. docs/error_bounds.md ("Rounding-error bounds of the Wilson tests") repeats the derivation.
//
// All bounds are first order in the unit roundoff u (u = 2^-53 for double, 2^-24 for float; terms of
// order u^2 are far below the factor-of-2 slack rounded into each constant) and normwise in the 2-norm.
//
// Operator norms, for unitary links (each U_mu(n) in U(3); the fermion boundary signs are unitary too):
//   D = sum_mu 2 (P-_mu W_mu + P+_mu W_mu^dag) with the orthogonal spin projectors P+-_mu = (1 +- gamma_mu)/2
//   and the unitary covariant shift (W_mu psi)(n) = U_mu(n) psi(n + mu). The ranges of P- and P+ are
//   orthogonal, so |D_mu psi|^2 = 4 (|P- W psi|^2 + |P+ W^dag psi|^2) <= 8 |psi|^2, and
//       ||D|| <= 4 * 2 sqrt(2) = 8 sqrt(2)                                         (kHoppingNorm)
//   (the free field at p = 0 reaches 8). ||M|| <= (4 + m) + ||D|| / 2.
//
// Rounding of one hop application, per output component (s, c) at site n. The code computes, for each of
// the 8 hops, P (4x4, at most 2 non-zeros per row, entries 1, +-1, +-i or 2: products exact) times the
// neighbour spinor (one complex addition: error u), then times U^T (3 complex products and 2 additions:
// error <= (sqrt(2) gamma_2 + gamma_2) ~ 5u relative to the sum of |terms|), and adds the 8 hop results
// (7 additions: 7u). So |fl(D psi)_i - (D psi)_i| <= 14 u (|D| |psi|)_i, where |D| is D with every entry
// replaced by its modulus. |D| has row and column sums <= 8 hops x 2 (spin) x sqrt(3) (a row or column
// of a unitary 3x3 matrix has 1-norm <= sqrt(3)), hence || |D| ||_2 <= sqrt(||.||_1 ||.||_inf) = 16 sqrt(3):
//       ||fl(D psi) - D psi|| <= c_D u ||psi||,   c_D = 14 * 16 sqrt(3) = 388, used as 400. (kHopRounding)
//
// Linear combinations a x + b y as computed in wilson.cc (Xpay then Scale, or Axpy): the scalars are
// rounded to T (u each), multiplied in (complex products, <= 2 sqrt(2) u < 3u each) and one addition (u):
// at most 2 + 2 * 3 + 1 = 9 u relative to |a| |x| + |b| |y|, used as 10 u.                (kCombineRounding)
//
// ErrorEnvelope propagates (bound on the exact norm, bound on the accumulated error) through these
// steps, everything relative to the norm of the input field (= 1).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace lqcd {
namespace testing_bounds {

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;  // 2^-53 (double), 2^-24 (float)
}

inline const double kHoppingNorm = 8 * std::sqrt(2.0);          // ||D||_2 for unitary links
inline const double kAbsHoppingNorm = 16 * std::sqrt(3.0);      // || |D| ||_2 (entrywise modulus)
inline const double kHopRounding = 400;                          // c_D = 14 * 16 sqrt(3) = 388, rounded up
inline constexpr double kCombineRounding = 10;                   // a x + b y, see the file comment

// Bounds on ||v|| (norm) and on ||fl(v) - v|| (error) for a computed field v, relative to ||input||.
struct ErrorEnvelope {
  double norm = 1;
  double error = 0;
};

// The exact input (or an input rounded once to T: error u).
inline ErrorEnvelope Input(double u_rounding = 0) { return {1.0, u_rounding}; }

// fl(D v): the input's error is amplified by ||D||, plus the rounding of this application.
inline ErrorEnvelope Hop(const ErrorEnvelope& in, double u) {
  return {kHoppingNorm * in.norm, kHoppingNorm * in.error + kHopRounding * u * in.norm};
}

// fl(a x + b y).
inline ErrorEnvelope Combine(double a, const ErrorEnvelope& x, double b, const ErrorEnvelope& y, double u) {
  const double norm = std::abs(a) * x.norm + std::abs(b) * y.norm;
  return {norm, std::abs(a) * x.error + std::abs(b) * y.error + kCombineRounding * u * norm};
}

// fl(M v) = fl((1 / 2 kappa) v - (1/2) D v).
inline ErrorEnvelope Wilson(const ErrorEnvelope& in, double kappa, double u) {
  return Combine(1.0 / (2.0 * kappa), in, -0.5, Hop(in, u), u);
}

// fl(M_pp v) = fl(v - kappa^2 D D v).
inline ErrorEnvelope Schur(const ErrorEnvelope& in, double kappa, double u) {
  return Combine(1.0, in, -kappa * kappa, Hop(Hop(in, u), u), u);
}

// An operator norm bound of M = (4 + m) - D / 2 for unitary links.
inline double WilsonNorm(double kappa) { return 1.0 / (2.0 * kappa) + kHoppingNorm / 2; }

// |fl(<a, b>) - <a, b>| <= DotRounding(n) ||a|| ||b|| for spinor_algebra.h's Dot over n complex components:
// accumulated in double, one complex product (< 3 u_d) and at most n additions in sequence (n u_d).
inline double DotRounding(std::int64_t components) {
  return (static_cast<double>(components) + 3) * UnitRoundoff<double>();
}

}  // namespace testing_bounds
}  // namespace lqcd
