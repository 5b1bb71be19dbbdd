// u3_projection_testing.h: test inputs and derived bounds for U(3) projections, shared by the oracle's test
// (hisq_links_test.cc) and the GPU projection's (gpu/u3_projection_test.cc). Test-only.
//
// Bounds (u = 2^-53, counts of operations, never observed errors):
//   - kProjectionProduct: one 3x3 complex matrix product, each entry 3 complex products summed: 16 u times the
//     product of the operands' norms;
//   - ProjectionError(kappa) = 64 u kappa^2 + 32 u, kappa = sigma_max / sigma_min(V): forming V^dag V and its
//     eigen-decomposition err by a few tens of u relative to |V|^2; the eigenvectors move by that over the eigenvalue
//     gaps, which (in the worst, near-degenerate, case) moves the polar factor W by it over lambda_min. The entrywise
//     distance of a computed W from the exact polar factor. A perturbation dV of V moves the polar factor by at most
//     2 |dV| / sigma_min.
//   - kProjectionUnitarity = 96 u: the u_i are orthonormal to a few u after two Gram-Schmidt passes, the
//     eigenvectors to about n^2 u = 9 u; W W^dag - 1 is a sum of 3 such terms plus the products.
#pragma once

#include <Eigen/SVD>

#include <cmath>

#include "reference/random.h"
#include "reference/su3_random.h"
#include "reference/types.h"

namespace lqcd::u3_testing {

inline constexpr double kProjectionUnitRoundoff = 0x1p-53;
inline constexpr double kProjectionProduct = 16 * kProjectionUnitRoundoff;
inline constexpr double kProjectionUnitarity = 96 * kProjectionUnitRoundoff;

inline double ProjectionError(double kappa) {
  return 64 * kProjectionUnitRoundoff * kappa * kappa + 32 * kProjectionUnitRoundoff;
}

inline double Kappa(const ColorMatrix<double>& v) {
  Eigen::JacobiSVD<ColorMatrix<double>> svd(v);
  return svd.singularValues()(0) / svd.singularValues()(2);
}

inline double SigmaMin(const ColorMatrix<double>& v) {
  Eigen::JacobiSVD<ColorMatrix<double>> svd(v);
  return svd.singularValues()(2);
}

// Entries complex Gaussian: a general (almost surely nonsingular) V.
inline ColorMatrix<double> GaussianMatrix(RandomStream& rng) {
  ColorMatrix<double> m;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m(i, j) = ComplexGaussian<double>(rng);
  }
  return m;
}

// A diag(s0, s1, s2) B: for unitary A and B, singular values s0, s1, s2 and polar factor A B.
inline ColorMatrix<double> WithSingularValues(const ColorMatrix<double>& a, double s0, double s1, double s2,
                                              const ColorMatrix<double>& b) {
  Eigen::Matrix<Complex<double>, 3, 1> s(s0, s1, s2);
  return a * s.asDiagonal() * b;
}

inline double MaxDiff(const ColorMatrix<double>& a, const ColorMatrix<double>& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

inline bool Finite(const ColorMatrix<double>& m) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (!std::isfinite(m(i, j).real()) || !std::isfinite(m(i, j).imag())) return false;
    }
  }
  return true;
}

}  // namespace lqcd::u3_testing
