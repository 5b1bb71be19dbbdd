// u3_compression.cc: see u3_compression.h.
#include "reference/staggered/u3_compression.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Eigen/LU>  // determinant()

#include "reference/su3.h"

namespace lqcd {
namespace {

// e^{i phi} in T arithmetic, as the reconstruction forms it.
template <typename T>
Complex<T> Phase(T phi) {
  return Complex<T>(std::cos(phi), std::sin(phi));
}

template <typename T>
void RequireFiniteTheta(T theta, const char* where) {
  if (!std::isfinite(theta)) throw std::invalid_argument(std::string(where) + ": the stored phase is not finite");
}

}  // namespace

template <typename T>
double DeterminantPhase(const ColorMatrix<T>& u) {
  if (!u.allFinite()) throw std::invalid_argument("U(3) compression: the link has non-finite entries");
  const double unitarity = UnitarityDeviation(u);
  if (!(unitarity <= kMaxLinkDeviation)) {
    std::ostringstream message;
    message << "U(3) compression: the link is not unitary: |U U^dag - 1| = " << unitarity << " (at most "
            << kMaxLinkDeviation << " accepted)";
    throw std::invalid_argument(message.str());
  }
  return std::arg(u.template cast<Complex<double>>().determinant());
}

template <typename T>
Compressed13<T> Compress13(const ColorMatrix<T>& u) {
  const double theta = DeterminantPhase(u);  // checks that U is finite and unitary
  // The first two rows as Compress12 stores them (Compress12 itself would refuse det U != 1).
  return {FirstTwoRows(u), static_cast<T>(theta)};
}

template <typename T>
ColorMatrix<T> Reconstruct13(const Compressed13<T>& c) {
  RequireFiniteTheta(c.theta, "Reconstruct13");
  for (T v : c.rows.values) {
    if (!std::isfinite(v)) throw std::invalid_argument("Reconstruct13: a stored number is not finite");
  }
  Eigen::Matrix<Complex<T>, 1, 3> a, b;
  for (int col = 0; col < 3; ++col) {
    a(col) = Complex<T>(c.rows.values[2 * col], c.rows.values[2 * col + 1]);
    b(col) = Complex<T>(c.rows.values[6 + 2 * col], c.rows.values[6 + 2 * col + 1]);
  }
  const Complex<T> phase = Phase(c.theta);
  ColorMatrix<T> u;
  u.row(0) = a;
  u.row(1) = b;
  u.row(2) = phase * ThirdRow<T>(a, b);
  return u;
}

template <typename T>
Compressed9<T> Compress9(const ColorMatrix<T>& u) {
  const double theta = DeterminantPhase(u);
  const Complex<double> undo(std::cos(-theta / 3), std::sin(-theta / 3));
  const ColorMatrix<T> special = (undo * u.template cast<Complex<double>>()).template cast<Complex<T>>();
  return {Compress8(special), static_cast<T>(theta)};
}

template <typename T>
ColorMatrix<T> Reconstruct9(const Compressed9<T>& c) {
  RequireFiniteTheta(c.theta, "Reconstruct9");
  const ColorMatrix<T> special = Reconstruct8(c.special);
  return Phase<T>(c.theta / 3) * special;
}

template <typename T>
GaugeField<T> CompressAndReconstructU3(const GaugeField<T>& long_links, double scale, U3Compression compression) {
  if (!(std::isfinite(scale) && scale != 0)) {
    throw std::invalid_argument("CompressAndReconstructU3: the scale must be finite and nonzero");
  }
  const T c = static_cast<T>(scale);
  return MapLinksNamingFailures(long_links, "CompressAndReconstructU3",
                                [&](const ColorMatrix<T>& l) -> ColorMatrix<T> {
                                  switch (compression) {
                                    case U3Compression::k13:
                                      return c * Reconstruct13(Compress13<T>(l / c));
                                    case U3Compression::k9:
                                      return c * Reconstruct9(Compress9<T>(l / c));
                                    case U3Compression::k18:
                                      break;
                                  }
                                  return l;
                                });
}

#define LQCD_INSTANTIATE_U3_COMPRESSION(T)                                   \
  template double DeterminantPhase<T>(const ColorMatrix<T>&);               \
  template Compressed13<T> Compress13<T>(const ColorMatrix<T>&);            \
  template ColorMatrix<T> Reconstruct13<T>(const Compressed13<T>&);         \
  template Compressed9<T> Compress9<T>(const ColorMatrix<T>&);              \
  template ColorMatrix<T> Reconstruct9<T>(const Compressed9<T>&);          \
  template GaugeField<T> CompressAndReconstructU3<T>(const GaugeField<T>&, double, U3Compression);
LQCD_INSTANTIATE_U3_COMPRESSION(float)
LQCD_INSTANTIATE_U3_COMPRESSION(double)
#undef LQCD_INSTANTIATE_U3_COMPRESSION

}  // namespace lqcd
