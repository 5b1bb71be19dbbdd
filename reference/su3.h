// su3.h: basic SU(3) operations of the CPU oracle.
//
// ThirdRow(a, b) = conj(a x b): the third row of a special unitary matrix with rows a, b (the paper's
// Appendix A.1; also how NERSC "4D_SU3_GAUGE" files with two stored rows are completed).
// UnitarityDeviation(U) = max |(U U^dag - 1)_ij|, DeterminantDeviation(U) = |det U - 1|.
// Reunitarize(U): Gram-Schmidt on the first two rows, third row = conj(a x b); the result is in SU(3)
// to rounding. It throws std::domain_error if the rows are (numerically) linearly dependent.
#pragma once

#include <cmath>
#include <stdexcept>

#include <Eigen/LU>  // determinant() in DeterminantDeviation

#include "reference/types.h"

namespace lqcd {

template <typename T>
Eigen::Matrix<Complex<T>, 1, 3> ThirdRow(const Eigen::Matrix<Complex<T>, 1, 3>& a,
                                         const Eigen::Matrix<Complex<T>, 1, 3>& b) {
  Eigen::Matrix<Complex<T>, 1, 3> c;
  c(0) = std::conj(a(1) * b(2) - a(2) * b(1));
  c(1) = std::conj(a(2) * b(0) - a(0) * b(2));
  c(2) = std::conj(a(0) * b(1) - a(1) * b(0));
  return c;
}

template <typename T>
double UnitarityDeviation(const ColorMatrix<T>& u) {
  const ColorMatrix<double> ud = u.template cast<Complex<double>>();
  return (ud * ud.adjoint() - ColorMatrix<double>::Identity()).cwiseAbs().maxCoeff();
}

template <typename T>
double DeterminantDeviation(const ColorMatrix<T>& u) {
  return std::abs(u.template cast<Complex<double>>().determinant() - Complex<double>(1));
}

template <typename T>
ColorMatrix<T> Reunitarize(const ColorMatrix<T>& u) {
  Eigen::Matrix<Complex<T>, 1, 3> a = u.row(0), b = u.row(1);
  const T norm_a = a.norm();
  if (!(norm_a > T(0))) throw std::domain_error("Reunitarize: first row is zero or not finite");
  a /= norm_a;
  const Complex<T> overlap = a.conjugate().cwiseProduct(b).sum();  // <a, b> = sum conj(a_i) b_i
  b -= overlap * a;
  const T norm_b = b.norm();
  // After removing a, a second row of norm ~1 keeps most of its length; 1e-3 of it means the input
  // was nowhere near unitary, and the direction of b would be mostly rounding noise.
  if (!(norm_b > T(1e-3) * u.row(1).norm())) throw std::domain_error("Reunitarize: rows are linearly dependent");
  b /= norm_b;
  ColorMatrix<T> out;
  out.row(0) = a;
  out.row(1) = b;
  out.row(2) = ThirdRow<T>(a, b);
  return out;
}

}  // namespace lqcd
