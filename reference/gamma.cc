// gamma.cc: the gamma matrices (see gamma.h), written out entry by entry from the paper's Appendix B.
#include "reference/gamma.h"

#include <array>
#include <cmath>
#include <stdexcept>

namespace lqcd {
namespace {

using C = Complex<double>;
constexpr C kI(0, 1);

struct Basis {
  std::array<SpinMatrix, kDims> gamma;
  SpinMatrix gamma5;
};

Basis MakeDeGrandRossi() {
  Basis b;
  for (auto& g : b.gamma) g.setZero();
  // gamma_1: read off P^{+1} = 1 + gamma_1 in Appendix B.
  b.gamma[0](0, 3) = kI;
  b.gamma[0](1, 2) = kI;
  b.gamma[0](2, 1) = -kI;
  b.gamma[0](3, 0) = -kI;
  // gamma_2
  b.gamma[1](0, 3) = -1.0;
  b.gamma[1](1, 2) = 1.0;
  b.gamma[1](2, 1) = 1.0;
  b.gamma[1](3, 0) = -1.0;
  // gamma_3
  b.gamma[2](0, 2) = kI;
  b.gamma[2](1, 3) = -kI;
  b.gamma[2](2, 0) = -kI;
  b.gamma[2](3, 1) = kI;
  // gamma_4
  b.gamma[3](0, 2) = 1.0;
  b.gamma[3](1, 3) = 1.0;
  b.gamma[3](2, 0) = 1.0;
  b.gamma[3](3, 1) = 1.0;
  b.gamma5 = b.gamma[0] * b.gamma[1] * b.gamma[2] * b.gamma[3];
  return b;
}

SpinMatrix MakeBasisChange() {
  const double r = 1.0 / std::sqrt(2.0);
  SpinMatrix s = SpinMatrix::Zero();
  // (1/sqrt 2) [[1, 1], [1, -1]] (x) 1_2: block (i, j) of the 2x2 pattern times the 2x2 identity.
  for (int k = 0; k < 2; ++k) {
    s(k, k) = r;
    s(k, k + 2) = r;
    s(k + 2, k) = r;
    s(k + 2, k + 2) = -r;
  }
  return s;
}

// gamma(UKQCD) = S gamma S^dag with S = H / sqrt 2 and H = [[1, 1], [1, -1]] (x) 1_2. Computing
// (H gamma H) / 2 instead keeps every entry exact (0, +-1, +-i), with no rounding from 1/sqrt 2.
Basis MakeUkqcd(const Basis& dr) {
  SpinMatrix h = SpinMatrix::Zero();
  for (int k = 0; k < 2; ++k) {
    h(k, k) = h(k, k + 2) = h(k + 2, k) = 1.0;
    h(k + 2, k + 2) = -1.0;
  }
  Basis b;
  for (int mu = 0; mu < kDims; ++mu) b.gamma[mu] = 0.5 * (h * dr.gamma[mu] * h);
  b.gamma5 = b.gamma[0] * b.gamma[1] * b.gamma[2] * b.gamma[3];
  return b;
}

const Basis& GetBasis(GammaBasis basis) {
  static const Basis dr = MakeDeGrandRossi();
  static const Basis ukqcd = MakeUkqcd(dr);
  return basis == GammaBasis::kDeGrandRossi ? dr : ukqcd;
}

}  // namespace

const SpinMatrix& Gamma(GammaBasis basis, int mu) {
  if (mu < 0 || mu >= kDims) throw std::out_of_range("Gamma: direction must be 0..3");
  return GetBasis(basis).gamma[mu];
}

const SpinMatrix& Gamma5(GammaBasis basis) { return GetBasis(basis).gamma5; }

const SpinMatrix& DeGrandRossiToUkqcd() {
  static const SpinMatrix s = MakeBasisChange();
  return s;
}

SpinMatrix Projector(GammaBasis basis, int mu, int sign) {
  if (sign != 1 && sign != -1) throw std::invalid_argument("Projector: sign must be +1 or -1");
  return SpinMatrix::Identity() + static_cast<double>(sign) * Gamma(basis, mu);
}

}  // namespace lqcd
