// su3_compression.h: storing an SU(3) link in 12 or 8 real numbers and rebuilding it (the paper's
// Appendix A), in float or double arithmetic. The CPU statement of the parametrisation the GPU kernels use.
//
// Rows of U are a, b, c; a = (a1, a2, a3), b = (b1, b2, b3), c = (c1, c2, c3). Conventions and the error
// analysis: docs/conventions.md, "SU(3) reconstruction", and docs/error_bounds.md.
//
// 12 numbers (Appendix A.1): the first two rows, in the order Re a1, Im a1, Re a2, Im a2, Re a3, Im a3,
//   Re b1, ..., Im b3. Reconstruct12: c = conj(a x b) (ThirdRow in su3.h). Round trip error: a few ulp.
//
// 8 numbers (Appendix A.2), in the order of Compressed8Index:
//   values = { arg a1, arg c1, Re a2, Im a2, Re a3, Im a3, Re b1, Im b1 }   (phases in (-pi, pi], radians;
//   half precision stores them divided by pi, in [-1, 1]).
//   Reconstruct8, with N = sqrt(|a2|^2 + |a3|^2):
//     a1 = sqrt(1 - N^2) e^{i arg a1}
//     c1 = sqrt(N^2 - |b1|^2) e^{i arg c1}    (the paper writes sqrt(1 - |a1|^2 - |b1|^2): the same number,
//                                               since |a1|^2 = 1 - N^2 by the line above, without the
//                                               cancellation of 1 - |a1|^2, which would cost u / N^2)
//     b' = (0, -a3^*, a2^*) / N,   c' = conj(a x b') = (N, -a1^* a2 / N, -a1^* a3 / N)
//     p1 = c1^* / N,   p2 = b1 / N                       (|p1|^2 + |p2|^2 = 1: an SU(2) rotation)
//     b = p1 b' + p2 c',   c = -p2^* b' + p1^* c'        (first column: b1 = p2 N, c1 = p1^* N, stored values
//                                                          used directly).
//   Square roots: an argument below zero (rounding, near |a1| = 0 or |c1| = 0) is clamped to 0, in every
//   precision, as the paper does in half precision; an argument below -4e-3 cannot come from an admissible
//   link and throws.
//   Singular point |a1| = 1, i.e. N = 0: the 8 numbers then fix only a1; the lower-right 2x2 block is lost.
//   Reconstruct8 returns diag(a1, a1^*, 1) when the stored N is exactly 0 (exact for the unit matrix, so the
//   free field survives compression). Compress8 uses the general formulas when N >= N_min and otherwise
//   stores the singular form (a2 = a3 = b1 = 0, arg c1 = 0) if diag(a1, a1^*, 1) is within 4 N_min of U,
//   and throws std::domain_error if not. N_min = SingularThreshold8<T>(eta) = sqrt(max(u_T, eta)), eta = the
//   input's deviation from SU(3): with absolute input errors delta ~ max(u_T, eta) the general formulas err
//   by about 10 delta / N and the singular form by about N, and these cross at N ~ sqrt(delta).
// Input checks: a link with non-finite entries, or farther than kMaxLinkDeviation from SU(3), throws
// std::invalid_argument; so do non-finite or impossible stored numbers in Reconstruct*.
// Aliasing: none; every function returns a new value.
#pragma once

#include <array>
#include <stdexcept>
#include <string>

#include "reference/gauge_field.h"
#include "reference/types.h"

namespace lqcd {

// Largest max(|U U^dag - 1|, |det U - 1|) accepted as "a special unitary matrix rounded to some precision":
// a link correctly rounded to 16-bit fixed point (resolution 2^-15, the coarsest the project stores) deviates
// by at most about 8.5 * 2^-16 = 1.3e-4; anything beyond 1e-3 is not an SU(3) matrix at any precision we use.
inline constexpr double kMaxLinkDeviation = 1e-3;

template <typename T>
struct Compressed12 {
  std::array<T, 12> values;  // Re a1, Im a1, Re a2, Im a2, Re a3, Im a3, Re b1, Im b1, Re b2, Im b2, Re b3, Im b3
};

enum Compressed8Index : int {
  kArgA1 = 0,
  kArgC1 = 1,
  kReA2 = 2,
  kImA2 = 3,
  kReA3 = 4,
  kImA3 = 5,
  kReB1 = 6,
  kImB1 = 7,
};

template <typename T>
struct Compressed8 {
  std::array<T, 8> values;  // indexed by Compressed8Index
};

template <typename T>
Compressed12<T> Compress12(const ColorMatrix<T>& u);
template <typename T>
ColorMatrix<T> Reconstruct12(const Compressed12<T>& c);
// The first two rows in Compress12's order, with no check of U: what Compress12 stores once U passed its SU(3)
// check, and what the U(3) forms (staggered/u3_compression.h) store with the determinant's phase.
template <typename T>
Compressed12<T> FirstTwoRows(const ColorMatrix<T>& u) {
  Compressed12<T> c;
  for (int row = 0; row < 2; ++row) {
    for (int col = 0; col < 3; ++col) {
      c.values[6 * row + 2 * col] = u(row, col).real();
      c.values[6 * row + 2 * col + 1] = u(row, col).imag();
    }
  }
  return c;
}

// N_min = sqrt(max(u_T, input_deviation)) (see the file comment).
template <typename T>
double SingularThreshold8(double input_deviation);

template <typename T>
Compressed8<T> Compress8(const ColorMatrix<T>& u);
template <typename T>
ColorMatrix<T> Reconstruct8(const Compressed8<T>& c);

// How links are stored: all 18 numbers, or the 12- or 8-number forms above.
enum class LinkCompression { k18, k12, k8 };
const char* ToString(LinkCompression compression);

// Every link compressed and reconstructed: the field a kernel that stores links in this form sees.
// k18 returns a copy. Throws as Compress*/Reconstruct* do, naming the site and direction.
template <typename T>
GaugeField<T> CompressAndReconstruct(const GaugeField<T>& u, LinkCompression compression);

// out.Link(site, mu) = f(u.Link(site, mu)) for every link; an std::invalid_argument or std::domain_error from f is
// rethrown as the same type with `where`, the site and the direction in front of its message (the per-link loop
// of CompressAndReconstruct and of staggered/u3_compression.h's CompressAndReconstructU3).
template <typename T, typename F>
GaugeField<T> MapLinksNamingFailures(const GaugeField<T>& u, const char* where, F&& f) {
  GaugeField<T> out(u.lattice());
  for (int site = 0; site < u.lattice().volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const std::string at = std::string(where) + ": site " + std::to_string(site) + " mu " + std::to_string(mu) + ": ";
      try {
        out.Link(site, mu) = f(u.Link(site, mu));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(at + e.what());
      } catch (const std::domain_error& e) {
        throw std::domain_error(at + e.what());
      }
    }
  }
  return out;
}

}  // namespace lqcd
