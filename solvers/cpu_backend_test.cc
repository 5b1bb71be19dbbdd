// Tests of the CPU backend: the half-format emulation, every fused vector operation against its
// definition in README.md, the precision conversions and the operators.
#include "solvers/cpu_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/spinor_algebra.h"
#include "solvers/testing.h"

namespace lqcd::solvers {
namespace {

constexpr double kUDouble = 0x1p-53;
constexpr double kUFloat = 0x1p-24;

const Lattice kLattice(4, 4, 4, 4);

SpinorField<double> Gaussian(std::uint64_t seed, Subset subset = Subset::kFull) {
  SpinorField<double> f(kLattice, subset);
  FillGaussian(f, seed);
  return f;
}

HalfSpinorField ToHalf(const SpinorField<double>& x) {
  HalfSpinorField h(x.lattice(), x.subset());
  CpuBackend::Convert(h, x);
  return h;
}

SpinorField<double> FromHalf(const HalfSpinorField& h) {
  SpinorField<double> x(h.lattice(), h.subset());
  CpuBackend::Convert(x, h);
  return x;
}

TEST(HalfSpinorField, QuantisationErrorIsHalfAStepOfTheSiteNorm) {
  const SpinorField<double> x = Gaussian(1);
  const HalfSpinorField h = ToHalf(x);
  for (int i = 0; i < x.sites(); ++i) {
    const SiteSpinor<float> xf = x[i].cast<Complex<float>>();
    const float n = h.norm(i);
    EXPECT_EQ(n, xf.cwiseAbs().maxCoeff() > 0 ? std::max(xf.real().cwiseAbs().maxCoeff(), xf.imag().cwiseAbs().maxCoeff())
                                               : 0.0f);
    const SiteSpinor<float> back = h.Load(i);
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        // Rounding to nearest: |q - x/n * 32767| <= 1/2, so |x - x_stored| <= n / (2 * 32767); the float
        // divide, multiply and rescale add a few float roundoffs of n (4 u_float n covers them).
        const double bound = n / (2 * 32767.0) + 4 * kUFloat * n;
        EXPECT_LE(std::abs(back(s, c).real() - xf(s, c).real()), bound);
        EXPECT_LE(std::abs(back(s, c).imag() - xf(s, c).imag()), bound);
      }
    }
  }
}

TEST(HalfSpinorField, StoringAStoredValueChangesNothing) {
  const HalfSpinorField h = ToHalf(Gaussian(2));
  HalfSpinorField again(kLattice);
  for (int i = 0; i < h.sites(); ++i) again.Store(i, h.Load(i));
  for (int i = 0; i < h.sites(); ++i) {
    ASSERT_EQ(again.norm(i), h.norm(i));
    for (int k = 0; k < 24; ++k) ASSERT_EQ(again.quantised(i, k), h.quantised(i, k));
  }
}

TEST(HalfSpinorField, LargestComponentIsExactAndNaNSurvives) {
  HalfSpinorField h(kLattice);
  SiteSpinor<float> s = SiteSpinor<float>::Zero();
  s(2, 1) = Complex<float>(0.25f, -3.5f);
  s(0, 0) = Complex<float>(1.0f, 0.0f);
  h.Store(0, s);
  EXPECT_EQ(h.norm(0), 3.5f);
  EXPECT_EQ(h.quantised(0, 2 * (3 * 2 + 1) + 1), -32767);
  EXPECT_EQ(h.Load(0)(2, 1).imag(), -3.5f);
  s(1, 1) = Complex<float>(std::numeric_limits<float>::quiet_NaN(), 0.0f);
  h.Store(1, s);
  EXPECT_TRUE(std::isnan(h.Load(1)(0, 0).real()));
  EXPECT_FALSE(CpuBackend::AllFinite(h));
}

TEST(CpuBackend, ReductionsMatchTheOracleAndAccumulateInDouble) {
  const SpinorField<double> x = Gaussian(3), y = Gaussian(4);
  // Same summation order as spinor_algebra.h: identical results.
  EXPECT_EQ(CpuBackend::Norm2(x), Norm2(x));
  EXPECT_EQ(CpuBackend::Dot(x, y), Dot(x, y));
  EXPECT_NEAR(CpuBackend::ReDot(x, y), Dot(x, y).real(), 64 * kUDouble * std::sqrt(Norm2(x) * Norm2(y)));
  const auto dn = CpuBackend::DotNorm(x, y);
  EXPECT_EQ(dn.dot, Dot(x, y));
  EXPECT_EQ(dn.norm2, Norm2(x));
  // A float field's norm is the double sum of its (exactly representable) float values.
  const SpinorField<float> xf = ConvertSpinorField<float>(x);
  EXPECT_EQ(CpuBackend::Norm2(xf), Norm2(ConvertSpinorField<double>(xf)));
}

// Each update against its definition written with the oracle's Axpy/Xpay/Scale on double fields.
TEST(CpuBackend, UpdatesMatchTheirDefinitions) {
  const SpinorField<double> x0 = Gaussian(5), y0 = Gaussian(6), p0 = Gaussian(7), q0 = Gaussian(8), t0 = Gaussian(9);
  const double a = 0.37;
  const Complex<double> ca(0.3, -1.1), cb(-0.7, 0.2);
  // Tolerance: each component is a sum of at most 4 products of O(1) numbers; 16 u per component,
  // relative to the field norm.
  const double tol = 16 * kUDouble;
  {
    SpinorField<double> y = y0, want = y0;
    const double n = CpuBackend::AxpyNorm(a, x0, y);
    Axpy(a, x0, want);
    EXPECT_LE(RelativeDeviation(y, want), tol);
    EXPECT_EQ(n, Norm2(y));
  }
  {
    SpinorField<double> y = y0, want = y0;
    CpuBackend::Xpay(x0, a, y);
    Xpay(x0, a, want);
    EXPECT_LE(RelativeDeviation(y, want), tol);
  }
  {
    SpinorField<double> y = y0, want = y0;
    const double n = CpuBackend::CaxpyNorm(ca, x0, y);
    Axpy(ca, x0, want);
    EXPECT_LE(RelativeDeviation(y, want), tol);
    EXPECT_EQ(n, Norm2(y));
  }
  {
    SpinorField<double> x = x0, r = y0, want_x = x0, want_r = y0;
    const double n = CpuBackend::CgUpdate(a, p0, q0, x, r);
    Axpy(a, p0, want_x);
    Axpy(-a, q0, want_r);
    EXPECT_LE(RelativeDeviation(x, want_x), tol);
    EXPECT_LE(RelativeDeviation(r, want_r), tol);
    EXPECT_EQ(n, Norm2(r));
  }
  {
    SpinorField<double> p = p0, want = p0;
    CpuBackend::BicgstabDirection(y0, cb, ca, q0, p);
    Axpy(-ca, q0, want);  // p - omega v
    Scale(cb, want);      // beta (p - omega v)
    Axpy(1.0, y0, want);  // r + ...
    EXPECT_LE(RelativeDeviation(p, want), tol);
  }
  {
    SpinorField<double> x = x0, r = y0, want_x = x0, want_r = y0;
    const auto nd = CpuBackend::BicgstabUpdate(ca, p0, cb, t0, x, r, q0);
    Axpy(ca, p0, want_x);
    Axpy(cb, y0, want_x);   // x + alpha p + omega s, s = y0
    Axpy(-cb, t0, want_r);  // s - omega t
    EXPECT_LE(RelativeDeviation(x, want_x), tol);
    EXPECT_LE(RelativeDeviation(r, want_r), tol);
    EXPECT_NEAR(nd.norm2, Norm2(want_r), tol * Norm2(want_r));
    EXPECT_LE(std::abs(nd.dot - Dot(q0, want_r)), tol * std::sqrt(Norm2(q0) * Norm2(want_r)));
  }
}

// A half-field operation is the float operation on the dequantised inputs, quantised on store.
TEST(CpuBackend, HalfUpdatesAreFloatUpdatesQuantisedOnStore) {
  const HalfSpinorField x = ToHalf(Gaussian(10)), y0 = ToHalf(Gaussian(11));
  const Complex<double> ca(0.3, -1.1);
  HalfSpinorField y = y0;
  CpuBackend::Caxpy(ca, x, y);
  HalfSpinorField want(kLattice);
  const Complex<float> caf(0.3f, -1.1f);
  for (int i = 0; i < x.sites(); ++i) want.Store(i, y0.Load(i) + caf * x.Load(i));
  for (int i = 0; i < x.sites(); ++i) {
    ASSERT_EQ(y.norm(i), want.norm(i));
    for (int k = 0; k < 24; ++k) ASSERT_EQ(y.quantised(i, k), want.quantised(i, k));
  }
}

TEST(CpuBackend, ConvertRoundsToTheTargetPrecision) {
  const SpinorField<double> x = Gaussian(12);
  SpinorField<float> xf(kLattice);
  CpuBackend::Convert(xf, x);
  SpinorField<double> back(kLattice);
  CpuBackend::Convert(back, xf);
  EXPECT_LE(MaxAbsDifference(back, x), kUFloat * MaxAbsDifference(x, SpinorField<double>(kLattice)));
  EXPECT_GT(MaxAbsDifference(back, x), 0.0);
  // Half: each component within half a step of its site norm (plus float roundoff), site norm <= |site|.
  const SpinorField<double> h = FromHalf(ToHalf(x));
  EXPECT_LE(RelativeDeviation(h, x), std::sqrt(24.0) * (1 / (2 * 32767.0) + 8 * kUFloat));
}

TEST(CpuBackend, MismatchedFieldsThrow) {
  SpinorField<double> full(kLattice), even(kLattice, Subset::kEven);
  EXPECT_THROW(CpuBackend::Axpy(1.0, full, even), std::invalid_argument);
  EXPECT_THROW(CpuBackend::Dot(full, even), std::invalid_argument);
  SpinorField<double> other(Lattice(4, 4, 4, 8));
  EXPECT_THROW(CpuBackend::Copy(other, full), std::invalid_argument);
}

TEST(CpuWilson, DoubleOperatorIsTheOracle) {
  const GaugeField<double> u = testing::RandomSu3Gauge(kLattice, 21);
  const WilsonParams params = WilsonParams::FromKappa(0.12);
  const SpinorField<double> x = Gaussian(13);
  const CpuWilson<double> m(u, params);
  SpinorField<double> got(kLattice), want(kLattice);
  m.Apply(got, x);
  ApplyWilson(want, u, x, params, Dagger::kNo);
  EXPECT_EQ(MaxAbsDifference(got, want), 0.0);
  m.ApplyDagger(got, x);
  ApplyWilson(want, u, x, params, Dagger::kYes);
  EXPECT_EQ(MaxAbsDifference(got, want), 0.0);
  EXPECT_EQ(m.FlopsPerApply(), 1368.0 * 256);
  EXPECT_THROW(m.Apply(got, got), std::invalid_argument);
  SpinorField<double> even(kLattice, Subset::kEven);
  EXPECT_THROW(m.Apply(even, x), std::invalid_argument);
}

TEST(CpuWilson, HalfOperatorErrorWithinTheQuantisationBound) {
  const GaugeField<double> u = testing::RandomSu3Gauge(kLattice, 22);
  const WilsonParams params = WilsonParams::FromKappa(0.12);
  const SpinorField<double> x = Gaussian(14);
  SpinorField<double> want(kLattice);
  ApplyWilson(want, u, x, params, Dagger::kNo);
  const CpuWilson<Half> mh(u, params);
  HalfSpinorField xh = ToHalf(x), outh(kLattice);
  mh.Apply(outh, xh);
  const SpinorField<double> got = FromHalf(outh);
  // |dx| <= sqrt(24)/(2*32767) |x| (input quantisation, per site max <= site norm);
  // each link entry off by <= 1/(2*32767) per real, so |dU|_F <= sqrt(18)/(2*32767); D has 8 hops through
  // projectors of norm 2: |dD| <= 16 |dU|_F, and M = (4+m) - D/2 with |D| <= 8.
  // Output quantisation adds sqrt(24)/(2*32767) |M_h x|; float arithmetic is far below these.
  const double step = 1 / (2 * 32767.0);
  const double norm_m = 4 + params.mass + 4;
  const double nx = std::sqrt(Norm2(x));
  const double bound = norm_m * std::sqrt(24.0) * step * nx + 0.5 * 16 * std::sqrt(18.0) * step * nx +
                       std::sqrt(24.0) * step * std::sqrt(Norm2(got));
  EXPECT_LE(std::sqrt(Norm2(Difference(got, want))), bound);
  // And it really is lower precision than float: the error is above float roundoff.
  EXPECT_GT(std::sqrt(Norm2(Difference(got, want))), 100 * kUFloat * std::sqrt(Norm2(want)));
}

TEST(CpuWilsonSchur, PrepareAndReconstructSolveTheFullSystem) {
  // With x_e = M_ee^{-1} b'_e the reconstruction must solve M x = b; here we check the algebra with an
  // arbitrary x_e: the full residual equals r'_e / (2 kappa) on even sites and vanishes on odd sites.
  const GaugeField<double> u = testing::RandomSu3Gauge(kLattice, 23);
  const WilsonParams params = WilsonParams::FromKappa(0.12);
  const CpuWilsonSchur<double> schur(u, params);
  const SpinorField<double> b = Gaussian(15);
  SpinorField<double> bp(kLattice, Subset::kEven), xe = Gaussian(16, Subset::kEven), me(kLattice, Subset::kEven);
  schur.PrepareSource(bp, b);
  schur.Apply(me, xe);
  const SpinorField<double> schur_residual = Difference(bp, me);
  SpinorField<double> x(kLattice);
  schur.Reconstruct(x, xe, b);
  SpinorField<double> mx(kLattice);
  ApplyWilson(mx, u, x, params, Dagger::kNo);
  const SpinorField<double> full_residual = Difference(b, mx);
  // Rounding: both sides are sums of O(10) terms of size |b|: 64 u relative to |b|.
  EXPECT_NEAR(std::sqrt(Norm2(full_residual)), schur.FullResidualPerSchurResidual() * std::sqrt(Norm2(schur_residual)),
              64 * kUDouble * std::sqrt(Norm2(b)) * 8);
  EXPECT_LE(std::sqrt(Norm2(Extract(full_residual, Parity::kOdd))), 64 * kUDouble * std::sqrt(Norm2(b)) * 8);
  SpinorField<double> xg(kLattice, Subset::kEven);
  schur.RestrictGuess(xg, x);
  EXPECT_EQ(MaxAbsDifference(xg, xe), 0.0);
}

}  // namespace
}  // namespace lqcd::solvers
