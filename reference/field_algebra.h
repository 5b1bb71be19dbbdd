// field_algebra.h: the vector operations of the CPU oracle, written once for every site field (a Wilson
// SpinorField, a staggered ColourVectorField): any class template Field<T> for which IsSiteField is true and
// that has lattice(), subset(), sites(), operator[] giving an Eigen vector per site, and a free
// RequireCompatible(a, b, where).
//
// All reductions accumulate in double whatever T is, site by site in index order (deterministic).
// Inner product convention: Dot(a, b) = sum_i conj(a_i) b_i (antilinear in the first argument).
// Binary operations require fields on the same lattice and subset (std::invalid_argument otherwise).
// Aliasing: y may be the same object as x in Axpy/Xpay/Scale; all are element-wise.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "reference/types.h"

namespace lqcd {

// Specialised to std::true_type next to each site field's definition.
template <typename Field>
struct IsSiteField : std::false_type {};

template <template <typename> class Field, typename T>
using EnableForSiteField = std::enable_if_t<IsSiteField<Field<T>>::value, int>;

template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
double Norm2(const Field<T>& x) {
  double sum = 0;
  for (int i = 0; i < x.sites(); ++i) sum += x[i].template cast<Complex<double>>().squaredNorm();
  return sum;
}

template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
Complex<double> Dot(const Field<T>& a, const Field<T>& b) {
  RequireCompatible(a, b, "Dot");
  Complex<double> sum = 0;
  for (int i = 0; i < a.sites(); ++i) {
    sum += (a[i].template cast<Complex<double>>().array().conjugate() * b[i].template cast<Complex<double>>().array())
               .sum();
  }
  return sum;
}

// y <- a x + y
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
void Axpy(Complex<double> a, const Field<T>& x, Field<T>& y) {
  RequireCompatible(x, y, "Axpy");
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) y[i] += at * x[i];
}

// y <- x + a y
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
void Xpay(const Field<T>& x, Complex<double> a, Field<T>& y) {
  RequireCompatible(x, y, "Xpay");
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) y[i] = x[i] + at * y[i];
}

// x <- a x
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
void Scale(Complex<double> a, Field<T>& x) {
  const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
  for (int i = 0; i < x.sites(); ++i) x[i] *= at;
}

// a - b
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
Field<T> Difference(const Field<T>& a, const Field<T>& b) {
  RequireCompatible(a, b, "Difference");
  Field<T> out(a.lattice(), a.subset());
  for (int i = 0; i < a.sites(); ++i) out[i] = a[i] - b[i];
  return out;
}

// |a - b| / |b|, in double: the relative deviation used by tests and solvers.
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
double RelativeDeviation(const Field<T>& a, const Field<T>& b) {
  const double nb = Norm2(b);
  return std::sqrt(Norm2(Difference(a, b)) / (nb > 0 ? nb : 1.0));
}

// Largest |a_i - b_i| over all complex components.
template <template <typename> class Field, typename T, EnableForSiteField<Field, T> = 0>
double MaxAbsDifference(const Field<T>& a, const Field<T>& b) {
  RequireCompatible(a, b, "MaxAbsDifference");
  double m = 0;
  for (int i = 0; i < a.sites(); ++i) {
    m = std::max(m, static_cast<double>((a[i] - b[i]).cwiseAbs().maxCoeff()));
  }
  return m;
}

}  // namespace lqcd
