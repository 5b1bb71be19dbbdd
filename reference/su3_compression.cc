// su3_compression.cc: 12- and 8-number forms of SU(3) links (see su3_compression.h for the formulas).
#include "reference/su3_compression.h"

#include <Eigen/LU>  // determinant(), used by DeterminantDeviation
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "reference/su3.h"

namespace lqcd {
namespace {

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

template <typename T>
bool AllFinite(const ColorMatrix<T>& u) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (!std::isfinite(u(i, j).real()) || !std::isfinite(u(i, j).imag())) return false;
    }
  }
  return true;
}

template <typename T, std::size_t n>
void RequireFinite(const std::array<T, n>& values, const char* where) {
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(values[k])) {
      throw std::invalid_argument(std::string(where) + ": stored number " + std::to_string(k) + " is not finite");
    }
  }
}

// Returns max(|U U^dag - 1|, |det U - 1|); throws std::invalid_argument if U is not finite or that deviation
// exceeds kMaxLinkDeviation.
template <typename T>
double CheckedLinkDeviation(const ColorMatrix<T>& u, const char* where) {
  if (!AllFinite(u)) throw std::invalid_argument(std::string(where) + ": the link has non-finite entries");
  const double unitarity = UnitarityDeviation(u), det = DeterminantDeviation(u);
  const double deviation = std::max(unitarity, det);
  if (!(deviation <= kMaxLinkDeviation)) {
    std::ostringstream message;
    message << where << ": the link is not in SU(3): |U U^dag - 1| = " << unitarity << ", |det U - 1| = " << det
            << " (at most " << kMaxLinkDeviation << " accepted; Reunitarize in su3.h projects onto SU(3))";
    throw std::invalid_argument(message.str());
  }
  return deviation;
}

// The exact-zero-N form: diag(a1, a1^*, 1) with a1 = e^{i theta}.
template <typename T>
ColorMatrix<T> SingularForm(T theta_a1) {
  const Complex<T> a1(std::cos(theta_a1), std::sin(theta_a1));
  ColorMatrix<T> u = ColorMatrix<T>::Zero();
  u(0, 0) = a1;
  u(1, 1) = std::conj(a1);
  u(2, 2) = Complex<T>(1);
  return u;
}

}  // namespace

template <typename T>
Compressed12<T> Compress12(const ColorMatrix<T>& u) {
  CheckedLinkDeviation(u, "Compress12");
  return FirstTwoRows(u);
}

template <typename T>
ColorMatrix<T> Reconstruct12(const Compressed12<T>& c) {
  RequireFinite(c.values, "Reconstruct12");
  Eigen::Matrix<Complex<T>, 1, 3> a, b;
  for (int col = 0; col < 3; ++col) {
    a(col) = Complex<T>(c.values[2 * col], c.values[2 * col + 1]);
    b(col) = Complex<T>(c.values[6 + 2 * col], c.values[6 + 2 * col + 1]);
  }
  // Rows of an admissible link are orthonormal to within kMaxLinkDeviation; twice that leaves room for the
  // rounding of these checks.
  const double a_norm = std::abs(double(a.squaredNorm()) - 1), b_norm = std::abs(double(b.squaredNorm()) - 1);
  const double overlap = std::abs(Complex<double>(a.conjugate().cwiseProduct(b).sum()));
  if (std::max({a_norm, b_norm, overlap}) > 2 * kMaxLinkDeviation) {
    std::ostringstream message;
    message << "Reconstruct12: the two stored rows are not orthonormal (||a|^2 - 1| = " << a_norm
            << ", ||b|^2 - 1| = " << b_norm << ", |<a, b>| = " << overlap << ")";
    throw std::invalid_argument(message.str());
  }
  ColorMatrix<T> u;
  u.row(0) = a;
  u.row(1) = b;
  u.row(2) = ThirdRow<T>(a, b);
  return u;
}

template <typename T>
double SingularThreshold8(double input_deviation) {
  return std::sqrt(std::max(UnitRoundoff<T>(), input_deviation));
}

template <typename T>
Compressed8<T> Compress8(const ColorMatrix<T>& u) {
  const double deviation = CheckedLinkDeviation(u, "Compress8");
  const double n_min = SingularThreshold8<T>(deviation);
  const double n = std::hypot(std::abs(Complex<double>(u(0, 1))), std::abs(Complex<double>(u(0, 2))));
  Compressed8<T> c;
  c.values[kArgA1] = std::arg(u(0, 0));
  if (n >= n_min) {
    c.values[kArgC1] = std::arg(u(2, 0));
    c.values[kReA2] = u(0, 1).real();
    c.values[kImA2] = u(0, 1).imag();
    c.values[kReA3] = u(0, 2).real();
    c.values[kImA3] = u(0, 2).imag();
    c.values[kReB1] = u(1, 0).real();
    c.values[kImB1] = u(1, 0).imag();
    return c;
  }
  // Near the singular point: only the form diag(a1, a1^*, 1) can be stored.
  const ColorMatrix<T> singular = SingularForm<T>(c.values[kArgA1]);
  const double distance = (u.template cast<Complex<double>>() - singular.template cast<Complex<double>>())
                              .cwiseAbs()
                              .maxCoeff();
  if (!(distance <= 4 * n_min)) {
    std::ostringstream message;
    message << "Compress8: the link is at the singular point of the 8-number form: N = sqrt(|a2|^2 + |a3|^2) = " << n
            << " < N_min = " << n_min << " (|a1| = 1 - " << 1 - std::abs(Complex<double>(u(0, 0)))
            << "), and it is not diag(a1, a1^*, 1) (distance " << distance
            << "); the 8 numbers cannot represent it: store 12";
    throw std::domain_error(message.str());
  }
  c.values[kArgC1] = 0;
  c.values[kReA2] = c.values[kImA2] = c.values[kReA3] = c.values[kImA3] = c.values[kReB1] = c.values[kImB1] = 0;
  return c;
}

template <typename T>
ColorMatrix<T> Reconstruct8(const Compressed8<T>& c) {
  RequireFinite(c.values, "Reconstruct8");
  const std::array<T, 8>& v = c.values;
  const Complex<T> a2(v[kReA2], v[kImA2]), a3(v[kReA3], v[kImA3]), b1(v[kReB1], v[kImB1]);
  const T n2 = std::norm(a2) + std::norm(a3);
  const T a1_modulus_squared = T(1) - n2;
  const T c1_modulus_squared = n2 - std::norm(b1);
  // An admissible link has 1 - N^2 >= -eta and N^2 - |b1|^2 >= -4 eta (row vs column normalisation).
  if (a1_modulus_squared < -4 * kMaxLinkDeviation || c1_modulus_squared < -4 * kMaxLinkDeviation) {
    std::ostringstream message;
    message << "Reconstruct8: not the 8 numbers of an SU(3) link: 1 - N^2 = " << a1_modulus_squared
            << ", N^2 - |b1|^2 = " << c1_modulus_squared;
    throw std::invalid_argument(message.str());
  }
  if (n2 == T(0)) return SingularForm<T>(v[kArgA1]);  // b1 and arg c1 carry no information here
  const T a1_modulus = std::sqrt(std::max(a1_modulus_squared, T(0)));
  const T c1_modulus = std::sqrt(std::max(c1_modulus_squared, T(0)));
  const Complex<T> a1(a1_modulus * std::cos(v[kArgA1]), a1_modulus * std::sin(v[kArgA1]));
  const Complex<T> c1(c1_modulus * std::cos(v[kArgC1]), c1_modulus * std::sin(v[kArgC1]));
  const T n = std::sqrt(n2);
  const Complex<T> a2_n = a2 / n, a3_n = a3 / n;
  // b' = (0, -a3^*, a2^*) / N and c' = (N, -a1^* a2 / N, -a1^* a3 / N): with a, the rows of an SU(3) matrix.
  const Complex<T> b_prime[3] = {Complex<T>(0), -std::conj(a3_n), std::conj(a2_n)};
  const Complex<T> c_prime[3] = {Complex<T>(n), -std::conj(a1) * a2_n, -std::conj(a1) * a3_n};
  // The SU(2) rotation of the plane (b', c') that carries the first column (0, N) to (b1, c1).
  const Complex<T> p1 = std::conj(c1) / n, p2 = b1 / n;
  ColorMatrix<T> u;
  u(0, 0) = a1;
  u(0, 1) = a2;
  u(0, 2) = a3;
  u(1, 0) = b1;
  u(2, 0) = c1;
  for (int k = 1; k < 3; ++k) {
    u(1, k) = p1 * b_prime[k] + p2 * c_prime[k];
    u(2, k) = -std::conj(p2) * b_prime[k] + std::conj(p1) * c_prime[k];
  }
  return u;
}

const char* ToString(LinkCompression compression) {
  switch (compression) {
    case LinkCompression::k18:
      return "18";
    case LinkCompression::k12:
      return "12";
    case LinkCompression::k8:
      return "8";
  }
  return "?";
}

template <typename T>
GaugeField<T> CompressAndReconstruct(const GaugeField<T>& u, LinkCompression compression) {
  return MapLinksNamingFailures(u, "CompressAndReconstruct", [&](const ColorMatrix<T>& link) -> ColorMatrix<T> {
    switch (compression) {
      case LinkCompression::k12:
        return Reconstruct12(Compress12(link));
      case LinkCompression::k8:
        return Reconstruct8(Compress8(link));
      case LinkCompression::k18:
        break;
    }
    return link;
  });
}

#define LQCD_INSTANTIATE_COMPRESSION(T)                                                   \
  template Compressed12<T> Compress12<T>(const ColorMatrix<T>&);                          \
  template ColorMatrix<T> Reconstruct12<T>(const Compressed12<T>&);                       \
  template double SingularThreshold8<T>(double);                                          \
  template Compressed8<T> Compress8<T>(const ColorMatrix<T>&);                            \
  template ColorMatrix<T> Reconstruct8<T>(const Compressed8<T>&);                         \
  template GaugeField<T> CompressAndReconstruct<T>(const GaugeField<T>&, LinkCompression);

LQCD_INSTANTIATE_COMPRESSION(float)
LQCD_INSTANTIATE_COMPRESSION(double)

#undef LQCD_INSTANTIATE_COMPRESSION

}  // namespace lqcd
