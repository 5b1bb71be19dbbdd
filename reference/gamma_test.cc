// gamma_test: Clifford algebra, hermiticity, gamma_5, projector ranks and the UKQCD basis change.
#include "reference/gamma.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

namespace lqcd {
namespace {

// Entries are 0, +-1, +-i and +-1/sqrt(2) products: exact up to a few roundings of 1/sqrt(2).
constexpr double kTol = 8 * 1.1102230246251565e-16;

double MaxAbs(const SpinMatrix& m) { return m.cwiseAbs().maxCoeff(); }

class GammaBasisTest : public ::testing::TestWithParam<GammaBasis> {};

TEST_P(GammaBasisTest, CliffordAlgebraAndHermiticity) {
  const GammaBasis b = GetParam();
  for (int mu = 0; mu < kDims; ++mu) {
    EXPECT_LT(MaxAbs(Gamma(b, mu) - Gamma(b, mu).adjoint()), kTol);
    for (int nu = 0; nu < kDims; ++nu) {
      const SpinMatrix anti = Gamma(b, mu) * Gamma(b, nu) + Gamma(b, nu) * Gamma(b, mu);
      const SpinMatrix expected = (mu == nu ? 2.0 : 0.0) * SpinMatrix::Identity();
      EXPECT_LT(MaxAbs(anti - expected), kTol) << "mu=" << mu << " nu=" << nu;
    }
  }
}

TEST_P(GammaBasisTest, Gamma5IsHermitianSquaresToOneAnticommutes) {
  const GammaBasis b = GetParam();
  const SpinMatrix& g5 = Gamma5(b);
  EXPECT_LT(MaxAbs(g5 - g5.adjoint()), kTol);
  EXPECT_LT(MaxAbs(g5 * g5 - SpinMatrix::Identity()), kTol);
  for (int mu = 0; mu < kDims; ++mu) EXPECT_LT(MaxAbs(g5 * Gamma(b, mu) + Gamma(b, mu) * g5), kTol);
}

TEST_P(GammaBasisTest, ProjectorsHaveRankTwoAndSquareToTwiceThemselves) {
  const GammaBasis b = GetParam();
  for (int mu = 0; mu < kDims; ++mu) {
    for (int sign : {1, -1}) {
      const SpinMatrix p = Projector(b, mu, sign);
      EXPECT_LT(MaxAbs(p * p - 2.0 * p), kTol);
      EXPECT_EQ(Eigen::FullPivLU<SpinMatrix>(p).rank(), 2);
      EXPECT_LT(MaxAbs(p * Projector(b, mu, -sign)), kTol);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bases, GammaBasisTest, ::testing::Values(GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd),
                         [](const auto& info) { return info.param == GammaBasis::kDeGrandRossi ? "DeGrandRossi" : "Ukqcd"; });

TEST(GammaTest, DeGrandRossiProjectorsMatchThePaperAppendixB) {
  using C = Complex<double>;
  const C i(0, 1);
  SpinMatrix p_plus_1;
  p_plus_1 << 1, 0, 0, i, 0, 1, i, 0, 0, -i, 1, 0, -i, 0, 0, 1;
  SpinMatrix p_minus_2;
  p_minus_2 << 1, 0, 0, 1, 0, 1, -1, 0, 0, -1, 1, 0, 1, 0, 0, 1;
  SpinMatrix p_plus_3;
  p_plus_3 << 1, 0, i, 0, 0, 1, 0, -i, -i, 0, 1, 0, 0, i, 0, 1;
  SpinMatrix p_minus_4;
  p_minus_4 << 1, 0, -1, 0, 0, 1, 0, -1, -1, 0, 1, 0, 0, -1, 0, 1;
  EXPECT_EQ(Projector(GammaBasis::kDeGrandRossi, 0, 1), p_plus_1);
  EXPECT_EQ(Projector(GammaBasis::kDeGrandRossi, 1, -1), p_minus_2);
  EXPECT_EQ(Projector(GammaBasis::kDeGrandRossi, 2, 1), p_plus_3);
  EXPECT_EQ(Projector(GammaBasis::kDeGrandRossi, 3, -1), p_minus_4);
  SpinMatrix g5 = SpinMatrix::Zero();
  g5.diagonal() << 1, 1, -1, -1;
  EXPECT_LT(MaxAbs(Gamma5(GammaBasis::kDeGrandRossi) - g5), kTol);
}

TEST(GammaTest, UkqcdHasDiagonalGamma4AndHalfZeroTemporalProjectors) {
  SpinMatrix g4 = SpinMatrix::Zero();
  g4.diagonal() << 1, 1, -1, -1;
  EXPECT_LT(MaxAbs(Gamma(GammaBasis::kUkqcd, 3) - g4), kTol);
  // 1 - gamma_4 keeps the lower two components (forward gather), 1 + gamma_4 the upper two.
  SpinMatrix lower = SpinMatrix::Zero(), upper = SpinMatrix::Zero();
  lower.diagonal() << 0, 0, 2, 2;
  upper.diagonal() << 2, 2, 0, 0;
  EXPECT_LT(MaxAbs(Projector(GammaBasis::kUkqcd, 3, -1) - lower), kTol);
  EXPECT_LT(MaxAbs(Projector(GammaBasis::kUkqcd, 3, 1) - upper), kTol);
}

TEST(GammaTest, BasisChangeIsUnitaryInvolutionAndMapsEveryGamma) {
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  EXPECT_LT(MaxAbs(s * s.adjoint() - SpinMatrix::Identity()), kTol);
  EXPECT_LT(MaxAbs(s * s - SpinMatrix::Identity()), kTol);
  for (int mu = 0; mu < kDims; ++mu) {
    EXPECT_LT(MaxAbs(s * Gamma(GammaBasis::kDeGrandRossi, mu) * s.adjoint() - Gamma(GammaBasis::kUkqcd, mu)), kTol);
  }
  EXPECT_LT(MaxAbs(s * Gamma5(GammaBasis::kDeGrandRossi) * s.adjoint() - Gamma5(GammaBasis::kUkqcd)), kTol);
}

}  // namespace
}  // namespace lqcd
