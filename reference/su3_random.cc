// su3_random.cc: the random traceless Hermitian matrix and exp(i epsilon H) (see su3_random.h).
#include "reference/su3_random.h"

#include <Eigen/Eigenvalues>

namespace lqcd {

ColorMatrix<double> GaussianTracelessHermitian(RandomStream& rng) {
  double h[9];  // h[1..8], the coefficients of lambda_1 .. lambda_8
  for (int a = 1; a <= 8; ++a) h[a] = rng.Gaussian();
  const double inv_sqrt3 = 1.0 / std::sqrt(3.0);
  using C = Complex<double>;
  ColorMatrix<double> m;
  // sum_a h_a lambda_a, written out from the Gell-Mann matrices; H = m / 2.
  m(0, 0) = C(h[3] + h[8] * inv_sqrt3, 0);
  m(1, 1) = C(-h[3] + h[8] * inv_sqrt3, 0);
  m(2, 2) = C(-2 * h[8] * inv_sqrt3, 0);
  m(0, 1) = C(h[1], -h[2]);
  m(1, 0) = C(h[1], h[2]);
  m(0, 2) = C(h[4], -h[5]);
  m(2, 0) = C(h[4], h[5]);
  m(1, 2) = C(h[6], -h[7]);
  m(2, 1) = C(h[6], h[7]);
  return m * 0.5;
}

ColorMatrix<double> ExponentiateHermitian(const ColorMatrix<double>& h, double epsilon) {
  if (!std::isfinite(epsilon)) throw std::invalid_argument("ExponentiateHermitian: epsilon is not finite");
  const double scale = h.cwiseAbs().maxCoeff();
  if (!std::isfinite(scale)) throw std::invalid_argument("ExponentiateHermitian: h has non-finite entries");
  // A Hermitian matrix built in floating point is Hermitian exactly or to a few ulp of |h|; 1e-12 |h| admits
  // any such matrix in double and rejects a matrix that is not Hermitian at all.
  if ((h - h.adjoint()).cwiseAbs().maxCoeff() > 1e-12 * scale) {
    throw std::invalid_argument("ExponentiateHermitian: h is not Hermitian");
  }
  const Eigen::SelfAdjointEigenSolver<ColorMatrix<double>> eigen(h);
  if (eigen.info() != Eigen::Success) throw std::runtime_error("ExponentiateHermitian: eigensolver failed");
  const auto& v = eigen.eigenvectors();
  Eigen::Matrix<Complex<double>, 3, 1> phase_minus_one;  // e^{i x} - 1 without cancellation
  for (int k = 0; k < 3; ++k) {
    const double x = epsilon * eigen.eigenvalues()(k);
    const double s = std::sin(0.5 * x);
    phase_minus_one(k) = Complex<double>(-2 * s * s, std::sin(x));
  }
  return ColorMatrix<double>::Identity() + v * phase_minus_one.asDiagonal() * v.adjoint();
}

}  // namespace lqcd
