// The staggered vector operations (staggered_blas.h) on a GPU in half precision: each operation the reliable-update
// CG runs on its low-precision fields (Axpy, AxpyNorm, Caxpy, Xpay, CgSolutionDirection, Norm2, ReDot, Dot,
// AllFinite, Zero, Copy, Convert both ways) against the same operation computed in double on the host on the
// values the half inputs represent (Download: the stored levels decoded as the kernels decode them), within the
// bound staggered_blas_testing.h derives (float arithmetic plus half a level of the site's largest |real| plus the
// decode); the reductions against the exact sums of the stored values; and the refusals (mixed precisions outside
// Convert). The operations' code is also checked bit for bit against its host emulation (gpu_staggered_test) and
// on the host against the same bounds (staggered_blas_host_test).
#include "gpu/staggered_blas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/staggered_blas_testing.h"
#include "reference/staggered/colour_vector_field.h"

namespace lqcd::gpu {
namespace {

namespace sb = staggered_blas;

class StaggeredBlasHalfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // 4 x 4 x 6 x 6 would fit one block; 8^3 x 12 has 3072 even sites: several blocks and a grid-stride pass.
  const Lattice lattice_{Coordinates{8, 8, 8, 12}};

  // Sites of wildly different size and one zero site (testing::MixedScaleField).
  ColourVectorField<double> MixedScales(std::uint64_t seed, int offset) const {
    return testing::MixedScaleField(lattice_, seed, offset);
  }
  DeviceColourVectorField HalfField(const ColourVectorField<double>& v, int pad) const {
    DeviceColourVectorField f(lattice_, Parity::kEven, Precision::kHalf, pad);
    f.Upload(v);
    return f;
  }
};

TEST_F(StaggeredBlasHalfTest, UpdatesAreWithinTheDerivedBoundOfTheExactResult) {
  const double a = -0.3717, b = 1.9231;  // neither a float: their rounding is part of the bound
  const DeviceColourVectorField x = HalfField(MixedScales(1, 0), 0);
  const ColourVectorField<double> xs = x.Download();
  for (const ColourBlasOp op : {ColourBlasOp::kAxpy, ColourBlasOp::kAxpyNorm, ColourBlasOp::kCaxpy,
                                ColourBlasOp::kXpay, ColourBlasOp::kCgSolutionDirection}) {
    DeviceColourVectorField y = HalfField(MixedScales(2, 1), 3), z = HalfField(MixedScales(3, 2), 5);
    const ColourVectorField<double> ys = y.Download(), zs = z.Download();
    const std::string what = "half op " + std::to_string(static_cast<int>(op));
    double norm = 0;
    switch (op) {
      case ColourBlasOp::kAxpy: sb::Axpy(a, x, y); break;
      case ColourBlasOp::kAxpyNorm: norm = sb::AxpyNorm(a, x, y); break;
      case ColourBlasOp::kCaxpy: sb::Caxpy({a, b}, x, y); break;
      case ColourBlasOp::kXpay: sb::Xpay(x, a, y); break;
      case ColourBlasOp::kCgSolutionDirection: sb::CgSolutionDirection(a, b, x, y, z); break;
      default: break;
    }
    const testing::ColourBlasExact exact = testing::ExactColourBlas(op, a, b, xs, ys, zs);
    const ColourVectorField<double> y_after = y.Download();
    std::printf("%s: largest error / bound %.3f\n", what.c_str(),
                testing::CheckHalfWithinBound(y_after, exact.y, exact.y_bound, what));
    if (op == ColourBlasOp::kCgSolutionDirection) {
      testing::CheckHalfWithinBound(z.Download(), exact.z, exact.z_bound, what + " direction");
    }
    if (op == ColourBlasOp::kAxpyNorm) {
      // The norm of the values as stored: Norm2 of the result bit for bit (the same sums in the same order), and
      // the host's sum of the downloaded values within the reordering bound.
      EXPECT_EQ(norm, sb::Norm2(y)) << what;
      const testing::ExactSum e = testing::ExactColourReduction(op, xs, y_after);
      EXPECT_LE(std::abs(norm - e.value[0]), e.bound) << what;
    }
  }
}

TEST_F(StaggeredBlasHalfTest, ReductionsSumTheStoredValuesInDouble) {
  const DeviceColourVectorField x = HalfField(MixedScales(5, 0), 1), y = HalfField(MixedScales(6, 4), 0);
  const ColourVectorField<double> xs = x.Download(), ys = y.Download();
  const testing::ExactSum n = testing::ExactColourReduction(ColourBlasOp::kNorm2, xs, ys);
  EXPECT_LE(std::abs(sb::Norm2(x) - n.value[0]), n.bound);
  const testing::ExactSum re = testing::ExactColourReduction(ColourBlasOp::kReDot, xs, ys);
  EXPECT_LE(std::abs(sb::ReDot(x, y) - re.value[0]), re.bound);
  const testing::ExactSum d = testing::ExactColourReduction(ColourBlasOp::kDot, xs, ys);
  const std::complex<double> dot = sb::Dot(x, y);
  EXPECT_LE(std::abs(dot.real() - d.value[0]), d.bound);
  EXPECT_LE(std::abs(dot.imag() - d.value[1]), d.bound);
  EXPECT_EQ(dot.real(), sb::ReDot(x, y));  // the same terms in the same order
  EXPECT_TRUE(sb::AllFinite(x));
  // Deterministic: the same bits every time.
  const double first = sb::Norm2(x);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(sb::Norm2(x), first);
}

TEST_F(StaggeredBlasHalfTest, ConversionsBothWaysRoundToTheTargetPrecision) {
  const ColourVectorField<double> v = MixedScales(7, 2);
  DeviceColourVectorField d(lattice_, Parity::kEven, Precision::kDouble, 2), s(lattice_, Parity::kEven,
                                                                               Precision::kSingle, 1);
  d.Upload(v);
  s.Upload(v);
  // double -> half: rounded to float, then quantised.
  DeviceColourVectorField h(lattice_, Parity::kEven, Precision::kHalf, 3);
  sb::Convert(h, d);
  const ColourVectorField<double> stored = h.Download();
  const testing::ColourBlasExact e = testing::ExactColourConvert(v);
  std::printf("double -> half: largest error / bound %.3f\n",
              testing::CheckHalfWithinBound(stored, e.y, e.y_bound, "double -> half"));
  // half -> double and half -> single: the stored values exactly.
  for (const Precision to : {Precision::kDouble, Precision::kSingle}) {
    DeviceColourVectorField back(lattice_, Parity::kEven, to, 4);
    sb::Convert(back, h);
    const ColourVectorField<double> widened = back.Download();
    for (int i = 0; i < v.sites(); ++i) {
      for (int c = 0; c < 3; ++c) ASSERT_EQ(widened[i](c), stored[i](c)) << ToString(to) << " site " << i;
    }
  }
  // single -> half.
  DeviceColourVectorField h2(lattice_, Parity::kEven, Precision::kHalf, 0);
  sb::Convert(h2, s);
  const testing::ColourBlasExact es = testing::ExactColourConvert(s.Download());
  testing::CheckHalfWithinBound(h2.Download(), es.y, es.y_bound, "single -> half");
}

TEST_F(StaggeredBlasHalfTest, ZeroAndCopy) {
  DeviceColourVectorField x = HalfField(MixedScales(8, 1), 2), y(lattice_, Parity::kEven, Precision::kHalf, 2);
  y.Fill(0xff);  // poison: NaN norms
  EXPECT_FALSE(sb::AllFinite(y));
  sb::Copy(y, x);
  const ColourVectorField<double> xs = x.Download(), ys = y.Download();
  for (int i = 0; i < xs.sites(); ++i) {
    ASSERT_EQ(std::memcmp(&xs[i], &ys[i], sizeof(xs[i])), 0) << "site " << i;
  }
  EXPECT_EQ(sb::Norm2(y), sb::Norm2(x));
  sb::Zero(x);
  EXPECT_EQ(sb::Norm2(x), 0.0);
  EXPECT_TRUE(sb::AllFinite(x));
  const ColourVectorField<double> zero = x.Download();
  for (int i = 0; i < zero.sites(); ++i) ASSERT_EQ(zero[i].norm(), 0.0) << "site " << i;
}

TEST_F(StaggeredBlasHalfTest, AnOverflowIsStoredAsNonFinite) {
  // y += a x with |a x| beyond the float range at one site: its norm is NaN, so AllFinite finds it.
  ColourVectorField<double> x0(lattice_, Subset::kEven);
  x0[5](1) = Complex<double>(4.0, 0.0);
  const DeviceColourVectorField x = HalfField(x0, 0);
  DeviceColourVectorField y = HalfField(MixedScales(9, 0), 0);
  EXPECT_TRUE(sb::AllFinite(y));
  sb::Axpy(3e38, x, y);
  EXPECT_FALSE(sb::AllFinite(y));
  const ColourVectorField<double> ys = y.Download();
  EXPECT_TRUE(std::isnan(ys[5](0).real()));
  EXPECT_TRUE(std::isfinite(std::abs(ys[6](0))));
}

TEST_F(StaggeredBlasHalfTest, MixedPrecisionsAreRefusedOutsideConvert) {
  const DeviceColourVectorField h = HalfField(MixedScales(10, 0), 0);
  DeviceColourVectorField s(lattice_, Parity::kEven, Precision::kSingle), h2(lattice_, Parity::kEven, Precision::kHalf),
      odd(lattice_, Parity::kOdd, Precision::kHalf), padded(lattice_, Parity::kEven, Precision::kHalf, 7);
  const auto refused = [](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("staggered_blas::"), std::string::npos) << e.what();
    }
  };
  refused([&] { sb::Axpy(1.0, h, s); }, "Axpy half -> single");
  refused([&] { sb::AxpyNorm(1.0, s, h2); }, "AxpyNorm single -> half");
  refused([&] { sb::Xpay(h, 1.0, s); }, "Xpay");
  refused([&] { sb::Caxpy({1.0, 1.0}, h, s); }, "Caxpy");
  refused([&] { sb::ReDot(h, s); }, "ReDot");
  refused([&] { sb::Dot(s, h); }, "Dot");
  refused([&] { sb::Copy(s, h); }, "Copy");
  refused([&] { sb::Axpy(1.0, h, odd); }, "Axpy across parities");
  refused([&] { sb::Convert(odd, h); }, "Convert across parities");
  refused([&] { sb::CgSolutionDirection(1.0, 1.0, h, h2, h2); }, "CgSolutionDirection with x = p");
  refused([&] { sb::CgSolutionDirection(1.0, 1.0, h2, h2, padded); }, "CgSolutionDirection with x = r");
  refused([&] { sb::CgSolutionDirection(1.0, 1.0, h, s, h2); }, "CgSolutionDirection mixed");
  EXPECT_THROW(sb::Copy(padded, h), std::invalid_argument);  // Copy is bit for bit: the same pad
  // Convert takes any pair, padded or not.
  EXPECT_NO_THROW(sb::Convert(padded, h));
  EXPECT_NO_THROW(sb::Convert(s, h));
}

}  // namespace
}  // namespace lqcd::gpu
