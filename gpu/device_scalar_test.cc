// device_scalar_test: scalar programs (scalar_program.h) on the host, and deferred scalars on the device
// (device_scalar.h): the value a kernel uses is bit for bit the value the host reads; deferred reductions are
// bit for bit the waiting ones; a kernel fed a deferred scalar writes exactly what it writes for the same
// number given as a constant; long expressions are evaluated into a slot first; slots are recycled; the split
// BiCGstab update (BicgstabResidual + BicgstabSolution) computes what BicgstabUpdate computes, and CG's
// CgSolutionDirection what Axpy then Xpay compute.
// The program tests run anywhere; the device tests skip without a GPU.
#include "gpu/device_scalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/device.h"
#include "gpu/device_spinor_field.h"
#include "gpu/scalar_program.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {
namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool SameBits(std::complex<double> a, std::complex<double> b) {
  return SameBits(a.real(), b.real()) && SameBits(a.imag(), b.imag());
}

ScalarInstruction Constant(double re, double im = 0) {
  ScalarInstruction in;
  in.op = ScalarOp::kConstant;
  in.re = re;
  in.im = im;
  return in;
}
ScalarInstruction Load(const double* address, bool complex) {
  ScalarInstruction in;
  in.op = complex ? ScalarOp::kLoadComplex : ScalarOp::kLoadReal;
  in.address = address;
  return in;
}
ScalarInstruction Op(ScalarOp op) {
  ScalarInstruction in;
  in.op = op;
  return in;
}
ScalarProgram Program(std::vector<ScalarInstruction> code) {
  ScalarProgram p;
  p.size = static_cast<int>(code.size());
  for (int i = 0; i < p.size; ++i) p.code[i] = code[i];
  return p;
}
std::complex<double> Value(const ScalarProgram& p) {
  const ScalarValue v = Evaluate(p);
  return {v.re, v.im};
}

// Each operation is the one IEEE operation (or the textbook formula) it names; division by a real divides
// each part once, so it is exact to the last bit; a general complex quotient is within a few units of
// roundoff of std::complex's.
TEST(ScalarProgram, OperationsAreTheNamedIeeeOperations) {
  const double slot[4] = {1.5, -0.25, 3.0, 0.125};
  EXPECT_TRUE(SameBits(Value(Program({Constant(2.5, -1)})), {2.5, -1}));
  EXPECT_TRUE(SameBits(Value(Program({Load(slot, false)})), {1.5, 0}));
  EXPECT_TRUE(SameBits(Value(Program({Load(slot + 2, true)})), {3.0, 0.125}));
  EXPECT_TRUE(SameBits(Value(Program({Load(slot, true), Op(ScalarOp::kNegate)})), {-1.5, 0.25}));
  EXPECT_TRUE(SameBits(Value(Program({Load(slot, true), Op(ScalarOp::kConjugate)})), {1.5, 0.25}));
  const std::complex<double> a(0.1, 0.7), b(-0.3, 0.2);
  const auto binary = [&](ScalarOp op) {
    return Value(Program({Constant(a.real(), a.imag()), Constant(b.real(), b.imag()), Op(op)}));
  };
  EXPECT_TRUE(SameBits(binary(ScalarOp::kAdd), {a.real() + b.real(), a.imag() + b.imag()}));
  EXPECT_TRUE(SameBits(binary(ScalarOp::kSubtract), {a.real() - b.real(), a.imag() - b.imag()}));
  EXPECT_TRUE(SameBits(binary(ScalarOp::kMultiply), {a.real() * b.real() - a.imag() * b.imag(),
                                                       a.real() * b.imag() + a.imag() * b.real()}));
  // a / b: 1 + 2 roundings in the numerator parts, 3 in |b|^2, 1 in the quotient: within 8 u |a| / |b|.
  EXPECT_LE(std::abs(binary(ScalarOp::kDivide) - a / b), 8 * 0x1p-53 * std::abs(a) / std::abs(b));
  const std::complex<double> by_real =
      Value(Program({Constant(a.real(), a.imag()), Constant(-0.3), Op(ScalarOp::kDivide)}));
  EXPECT_TRUE(SameBits(by_real, {a.real() / -0.3, a.imag() / -0.3}));
}

// BiCGstab's beta = (rho' / rho) (alpha / omega) with alpha = rho / conj((v, r0)), omega = (t, s) / |t|^2,
// as the solver builds it: 13 instructions, evaluated in the stated order.
TEST(ScalarProgram, NestedExpressionFollowsTheProgramOrder) {
  const double rho_new[2] = {0.31, -0.02}, rho[2] = {1.7, 0.4}, vr0[2] = {0.9, -0.6}, ts[2] = {0.2, 0.05},
               t2 = 0.33;
  const ScalarProgram p = Program({Load(rho_new, true), Load(rho, true), Op(ScalarOp::kDivide), Load(rho, true),
                                   Load(vr0, true), Op(ScalarOp::kConjugate), Op(ScalarOp::kDivide), Load(ts, true),
                                   Load(&t2, false), Op(ScalarOp::kDivide), Op(ScalarOp::kDivide),
                                   Op(ScalarOp::kMultiply)});
  const std::complex<double> alpha = std::complex<double>(rho[0], rho[1]) / std::conj(std::complex<double>(vr0[0], vr0[1]));
  const std::complex<double> omega = std::complex<double>(ts[0], ts[1]) / t2;
  const std::complex<double> expected =
      (std::complex<double>(rho_new[0], rho_new[1]) / std::complex<double>(rho[0], rho[1])) * (alpha / omega);
  EXPECT_LE(std::abs(Value(p) - expected), 32 * 0x1p-53 * std::abs(expected));
}

// Host-side DeviceValue algebra on constants needs no device: the expression is built and evaluated on the host.
TEST(DeviceValue, ConstantsCombineOnTheHost) {
  const DeviceComplex a(std::complex<double>(0.5, 0.25)), b(2.0);
  const DeviceReal r(4.0);
  EXPECT_TRUE(SameBits((a / b).Host(), {0.25, 0.125}));
  EXPECT_TRUE(SameBits((a * DeviceComplex(r)).Host(), {2.0, 1.0}));
  EXPECT_TRUE(SameBits(conj(-a).Host(), {-0.5, 0.25}));
  EXPECT_TRUE(SameBits((r - DeviceReal(1.0)).Host(), 3.0));
  const DeviceComplex pair = {0.75, -2.0};
  EXPECT_TRUE(SameBits(pair.Host(), {0.75, -2.0}));
}

class DeviceScalars : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  static DeviceSpinorField Gaussian(const Lattice& lattice, Precision precision, unsigned seed) {
    SpinorField<double> host(lattice, Subset::kEven);
    FillGaussian(host, seed);
    DeviceSpinorField f(lattice, Subset::kEven, precision);
    f.Upload(host, GammaBasis::kUkqcd);
    return f;
  }
};

// Deferred reductions return the waiting reductions' bits, and a kernel fed deferred values writes what it
// writes when fed the host's numbers as constants: for one scalar (CaxpyNorm) and for two (BicgstabSolution's
// alpha and omega); on one block of sites, on 64 blocks (one wave: every block evaluates the programs itself)
// and on 1024 blocks (more than one wave of these kernels on an H100 or H200: a one-thread kernel evaluates
// them first, blas.cu's Run).
TEST_F(DeviceScalars, DeferredValuesAreTheWaitingOnesAndKernelsUseTheSameBits) {
  for (const Lattice& lattice : {Lattice(4, 4, 4, 8), Lattice(16, 16, 16, 8), Lattice(32, 32, 32, 16)})
  for (Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    SCOPED_TRACE(std::string(ToString(precision)) + " on " + lattice.ToString());
    const DeviceSpinorField x = Gaussian(lattice, precision, 11), y = Gaussian(lattice, precision, 12);
    EXPECT_TRUE(SameBits(blas::Norm2Deferred(x).Host(), blas::Norm2(x)));
    EXPECT_TRUE(SameBits(blas::ReDotDeferred(x, y).Host(), blas::ReDot(x, y)));
    const blas::DeferredDotAndNorm dn = blas::DotNormDeferred(x, y);
    const blas::DotAndNorm dn_now = blas::DotNorm(x, y);
    EXPECT_TRUE(SameBits(dn.dot.Host(), dn_now.dot));
    EXPECT_TRUE(SameBits(dn.norm2.Host(), dn_now.norm2));

    // alpha = (x, y) / |x|^2 on the device, then y1 += alpha x; the same with the host's alpha.
    const DeviceComplex alpha = dn.dot / DeviceComplex(dn.norm2);
    DeviceSpinorField y1 = Gaussian(lattice, precision, 12), y2 = Gaussian(lattice, precision, 12);
    const double n1 = blas::CaxpyNormDeferred(alpha, x, y1).Host();
    const double n2 = blas::CaxpyNorm(alpha.Host(), x, y2);
    EXPECT_TRUE(SameBits(n1, n2));
    const SpinorField<double> h1 = y1.Download(GammaBasis::kUkqcd), h2 = y2.Download(GammaBasis::kUkqcd);
    EXPECT_EQ(0, std::memcmp(h1.data().data(), h2.data().data(), sizeof(h1.data()[0]) * h1.data().size()));

    // x1 += alpha p + omega s with omega = (y, x) / |y|^2 deferred; the same with the host's numbers.
    const blas::DeferredDotAndNorm yx = blas::DotNormDeferred(y1, x);
    const DeviceComplex omega = yx.dot / DeviceComplex(yx.norm2);
    DeviceSpinorField x1 = Gaussian(lattice, precision, 13), x2 = Gaussian(lattice, precision, 13);
    blas::BicgstabSolution(alpha, y, omega, y1, x1);
    blas::BicgstabSolution(alpha.Host(), y, omega.Host(), y1, x2);
    const SpinorField<double> g1 = x1.Download(GammaBasis::kUkqcd), g2 = x2.Download(GammaBasis::kUkqcd);
    EXPECT_EQ(0, std::memcmp(g1.data().data(), g2.data().data(), sizeof(g1.data()[0]) * g1.data().size()));
  }
}

// An expression too long for one program is evaluated into a slot on the device first (a chain of 40
// additions); the result is the host's left-to-right sum, and a kernel reads it.
TEST_F(DeviceScalars, LongExpressionsAreEvaluatedIntoSlots) {
  const Lattice lattice(4, 4, 4, 4);
  const DeviceSpinorField x = Gaussian(lattice, Precision::kDouble, 3);
  const DeviceReal n = blas::Norm2Deferred(x);
  DeviceReal sum = n;
  double expected = n.Host();
  for (int k = 1; k < 40; ++k) {
    sum = sum + n * DeviceReal(1.0 / k);
    expected = expected + n.Host() * (1.0 / k);
  }
  EXPECT_TRUE(SameBits(sum.Host(), expected));
  DeviceSpinorField y(lattice, Subset::kEven, Precision::kDouble);
  blas::Zero(y);
  blas::Axpy(sum / n, x, y);  // y = (sum / |x|^2) x
  const double scale = expected / n.Host();
  const SpinorField<double> hx = x.Download(GammaBasis::kUkqcd), hy = y.Download(GammaBasis::kUkqcd);
  for (std::size_t i = 0; i < hx.data().size(); ++i) {
    for (int k = 0; k < 12; ++k) {
      const std::complex<double> want = 0.0 + scale * hx.data()[i](k);  // the kernel's y + a x with y = 0
      ASSERT_TRUE(SameBits(hy.data()[i](k), want)) << i << " " << k;
    }
  }
}

// Slots return to the pool when the last value reading them goes: many more reductions than one block of
// slots, each still correct, and values kept alive across the recycling keep their bits.
TEST_F(DeviceScalars, SlotsAreRecycledWithoutDisturbingLiveValues) {
  const Lattice lattice(4, 4, 4, 4);
  const DeviceSpinorField x = Gaussian(lattice, Precision::kSingle, 5);
  const double norm2 = blas::Norm2(x);
  const DeviceReal kept = blas::Norm2Deferred(x);
  std::vector<DeviceReal> alive;
  for (int i = 0; i < 2000; ++i) {
    const DeviceReal v = blas::Norm2Deferred(x);
    if (i % 100 == 0) alive.push_back(v);
    ASSERT_TRUE(SameBits(v.Host(), norm2)) << i;
  }
  for (const DeviceReal& v : alive) EXPECT_TRUE(SameBits(v.Host(), norm2));
  EXPECT_TRUE(SameBits(kept.Host(), norm2));
}

// BicgstabResidual then BicgstabSolution (what the solvers run) against BicgstabUpdate on the same inputs:
// the same formulas term by term, so in double and single each stored component agrees to the roundings of
// the two evaluations (at most 4 each, bound 8 u_c times the sum of the magnitudes of the terms); and the
// returned norm and dot are those of the stored new residual, bit for bit.
TEST_F(DeviceScalars, SplitBicgstabUpdateMatchesTheFusedOne) {
  const Lattice lattice(4, 4, 4, 8);
  const std::complex<double> alpha(0.61, -0.23), omega(-0.44, 0.71);
  for (Precision precision : {Precision::kDouble, Precision::kSingle}) {
    SCOPED_TRACE(ToString(precision));
    const double u = precision == Precision::kDouble ? 0x1p-53 : 0x1p-24;
    const DeviceSpinorField p = Gaussian(lattice, precision, 1), t = Gaussian(lattice, precision, 2),
                            r0 = Gaussian(lattice, precision, 4);
    DeviceSpinorField x_fused = Gaussian(lattice, precision, 3), s_fused = Gaussian(lattice, precision, 5);
    const blas::NormAndDot fused = blas::BicgstabUpdate(alpha, p, omega, t, x_fused, s_fused, r0);

    DeviceSpinorField x_split = Gaussian(lattice, precision, 3), s = Gaussian(lattice, precision, 5),
                      t_split = Gaussian(lattice, precision, 2);
    const blas::DeferredNormAndDot split = blas::BicgstabResidual(omega, t_split, s, r0);
    blas::BicgstabSolution(alpha, p, omega, s, x_split);
    EXPECT_TRUE(SameBits(split.norm2.Host(), blas::Norm2(t_split)));
    EXPECT_TRUE(SameBits(split.dot.Host(), blas::Dot(r0, t_split)));

    const auto hp = p.Download(GammaBasis::kUkqcd), ht = t.Download(GammaBasis::kUkqcd),
               hs = s.Download(GammaBasis::kUkqcd), hx0 = Gaussian(lattice, precision, 3).Download(GammaBasis::kUkqcd);
    const auto xf = x_fused.Download(GammaBasis::kUkqcd), xs = x_split.Download(GammaBasis::kUkqcd);
    const auto rf = s_fused.Download(GammaBasis::kUkqcd), rs = t_split.Download(GammaBasis::kUkqcd);
    for (std::size_t i = 0; i < hp.data().size(); ++i) {
      for (int k = 0; k < 12; ++k) {
        const double x_terms = std::abs(hx0.data()[i](k)) + std::abs(alpha) * std::abs(hp.data()[i](k)) +
                               std::abs(omega) * std::abs(hs.data()[i](k));
        const double r_terms = std::abs(hs.data()[i](k)) + std::abs(omega) * std::abs(ht.data()[i](k));
        ASSERT_LE(std::abs(xf.data()[i](k) - xs.data()[i](k)), 8 * u * x_terms) << i << " " << k;
        ASSERT_LE(std::abs(rf.data()[i](k) - rs.data()[i](k)), 8 * u * r_terms) << i << " " << k;
      }
    }
    EXPECT_TRUE(std::isfinite(fused.norm2));
  }
}

// CgSolutionDirection (what CG runs) against Axpy then Xpay on the same inputs: the same two formulas per
// component, so each stored component agrees to the roundings of the two evaluations (at most 2 each, bound
// 4 u_c times the sum of the magnitudes of the terms).
TEST_F(DeviceScalars, CgSolutionDirectionMatchesAxpyThenXpay) {
  const Lattice lattice(4, 4, 4, 8);
  const double alpha = 0.37, beta = -0.81;
  for (Precision precision : {Precision::kDouble, Precision::kSingle}) {
    SCOPED_TRACE(ToString(precision));
    const double u = precision == Precision::kDouble ? 0x1p-53 : 0x1p-24;
    const DeviceSpinorField r = Gaussian(lattice, precision, 21);
    DeviceSpinorField x1 = Gaussian(lattice, precision, 22), p1 = Gaussian(lattice, precision, 23);
    DeviceSpinorField x2 = Gaussian(lattice, precision, 22), p2 = Gaussian(lattice, precision, 23);
    blas::Axpy(alpha, p1, x1);
    blas::Xpay(r, beta, p1);
    blas::CgSolutionDirection(DeviceReal(alpha), DeviceReal(beta), r, x2, p2);
    const auto hr = r.Download(GammaBasis::kUkqcd), hx0 = Gaussian(lattice, precision, 22).Download(GammaBasis::kUkqcd),
               hp0 = Gaussian(lattice, precision, 23).Download(GammaBasis::kUkqcd);
    const auto hx1 = x1.Download(GammaBasis::kUkqcd), hx2 = x2.Download(GammaBasis::kUkqcd);
    const auto hp1 = p1.Download(GammaBasis::kUkqcd), hp2 = p2.Download(GammaBasis::kUkqcd);
    for (std::size_t i = 0; i < hr.data().size(); ++i) {
      for (int k = 0; k < 12; ++k) {
        const double x_terms = std::abs(hx0.data()[i](k)) + std::abs(alpha) * std::abs(hp0.data()[i](k));
        const double p_terms = std::abs(hr.data()[i](k)) + std::abs(beta) * std::abs(hp0.data()[i](k));
        ASSERT_LE(std::abs(hx1.data()[i](k) - hx2.data()[i](k)), 4 * u * x_terms) << i << " " << k;
        ASSERT_LE(std::abs(hp1.data()[i](k) - hp2.data()[i](k)), 4 * u * p_terms) << i << " " << k;
      }
    }
  }
}

}  // namespace
}  // namespace lqcd::gpu
