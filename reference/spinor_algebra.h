// spinor_algebra.h: the vector operations of the CPU oracle on spinor fields.
//
// All reductions accumulate in double whatever T is, site by site in index order (deterministic).
// Inner product convention: Dot(a, b) = sum_i conj(a_i) b_i (antilinear in the first argument).
// Binary operations require fields on the same lattice and subset (std::invalid_argument otherwise).
// Aliasing: y may be the same object as x in Axpy/Xpay/Scale; all are element-wise.
#pragma once

#include "reference/spinor_field.h"

namespace lqcd {

template <typename T>
double Norm2(const SpinorField<T>& x) {
  double sum = 0;
  for (int i = 0; i < x.sites(); ++i) sum += x[i].template cast<Complex<double>>().squaredNorm();
  return sum;
}

template <typename T>
Complex<double> Dot(const SpinorField<T>& a, const SpinorField<T>& b) {
  RequireCompatible(a, b, "Dot");
  Complex<double> sum = 0;
  for (int i = 0; i < a.sites(); ++i) {
    sum += (a[i].template cast<Complex<double>>().array().conjugate() * b[i].template cast<Complex<double>>().array())
               .sum();
  }
  return sum;
}

// y <- a x + y
template <typename T>
void Axpy(Complex<double> a, const SpinorField<T>& x, SpinorField<T>& y) {
  RequireCompatible(x, y, "Axpy");
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) y[i] += at * x[i];
}

// y <- x + a y
template <typename T>
void Xpay(const SpinorField<T>& x, Complex<double> a, SpinorField<T>& y) {
  RequireCompatible(x, y, "Xpay");
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) y[i] = x[i] + at * y[i];
}

// x <- a x
template <typename T>
void Scale(Complex<double> a, SpinorField<T>& x) {
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) x[i] *= at;
}

// a - b
template <typename T>
SpinorField<T> Difference(const SpinorField<T>& a, const SpinorField<T>& b) {
  RequireCompatible(a, b, "Difference");
  SpinorField<T> out(a.lattice(), a.subset());
  for (int i = 0; i < a.sites(); ++i) out[i] = a[i] - b[i];
  return out;
}

// |a - b| / |b|, in double: the relative deviation used by tests and solvers.
template <typename T>
double RelativeDeviation(const SpinorField<T>& a, const SpinorField<T>& b) {
  const double nb = Norm2(b);
  return std::sqrt(Norm2(Difference(a, b)) / (nb > 0 ? nb : 1.0));
}

// Largest |a_i - b_i| over all complex components.
template <typename T>
double MaxAbsDifference(const SpinorField<T>& a, const SpinorField<T>& b) {
  RequireCompatible(a, b, "MaxAbsDifference");
  double m = 0;
  for (int i = 0; i < a.sites(); ++i) {
    m = std::max(m, static_cast<double>((a[i] - b[i]).cwiseAbs().maxCoeff()));
  }
  return m;
}

}  // namespace lqcd
