// The staggered vector operations' per-item code and fixed-order sums (staggered_blas.cu), run on the host by
// RunColourBlasOnHost over host memory laid out as the device stores it (fields with different pads): in double
// and single against the CPU staggered backend (solvers/cpu_staggered.h) on the same stored values; in half
// (which the CPU backend does not have) against the operations computed in double on the values the half inputs
// represent, within the bound staggered_blas_testing.h derives.
//
// Bounds (derived): an update y + a x is one fused multiply-add per real part here and a product then a sum on
// the CPU, so the two differ by at most 2 u (|a| |x| + |y|) per part (sqrt(2) of that for the complex
// component); reductions accumulate products of the stored values in double in another order, so they differ
// by at most 2 (N + 2) u_double times the sum of the absolute terms (N the number of terms). The Z2 noise equals
// the oracle's (solvers/staggered_pbp.h FillZ2Noise) bit for bit. On a lattice large enough for the kernel's
// grouped loads, every item is visited exactly once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu/device_colour_vector_field.h"
#include "gpu/staggered_blas_launch.h"
#include "gpu/staggered_blas_testing.h"
#include "reference/staggered/colour_vector_field.h"
#include "solvers/cpu_staggered.h"
#include "solvers/staggered_pbp.h"

namespace lqcd::gpu {
namespace {

constexpr double kUd = 0x1p-53;

template <typename T>
constexpr Precision PrecisionOf() {
  return std::is_same_v<T, double> ? Precision::kDouble : Precision::kSingle;
}
template <typename T>
constexpr double UnitRoundoff() {
  return std::is_same_v<T, double> ? kUd : 0x1p-24;
}

// A host field in the device layout with its own pad, and its view.
struct HostVector {
  std::vector<unsigned char> bytes;
  ColourVectorView view;
  HostVector(const ColourVectorField<double>& v, Precision precision, int pad) {
    const Lattice& lattice = v.lattice();
    bytes = PackColourVectors(v, precision, lattice.half_volume() + pad);
    view.precision = precision;
    view.parity = static_cast<int>(v.parity());
    for (int mu = 0; mu < 4; ++mu) view.extents[mu] = lattice.extent(mu);
    view.sites = lattice.half_volume();
    view.stride = lattice.half_volume() + pad;
    view.data = bytes.data();
  }
  ColourVectorField<double> Values(const Lattice& lattice, Parity parity) const {
    return UnpackColourVectors(bytes.data(), view.precision, view.stride, lattice, parity);
  }
};

template <typename T>
ColourVectorField<T> As(const ColourVectorField<double>& v) {
  ColourVectorField<T> out(v.lattice(), v.subset());
  solvers::CpuStaggeredBackend::Convert(out, v);  // exact: the values are stored values of T
  return out;
}

template <typename T>
void ExpectUpdateClose(const ColourVectorField<double>& host, const ColourVectorField<T>& cpu,
                       const ColourVectorField<double>& scale, const std::string& what) {
  const double u = UnitRoundoff<T>();
  for (int i = 0; i < host.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const std::complex<double> expected(cpu[i](c).real(), cpu[i](c).imag());
      const double bound = std::sqrt(2.0) * 2 * u * scale[i](c).real() * 1.01;
      ASSERT_LE(std::abs(host[i](c) - expected), bound) << what << " site " << i << " colour " << c;
    }
  }
}

template <typename T>
void CheckOperations() {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const Precision precision = PrecisionOf<T>();
  ColourVectorField<double> x0(lattice, Subset::kEven), y0(lattice, Subset::kEven), z0(lattice, Subset::kEven);
  FillGaussian(x0, 1);
  FillGaussian(y0, 2);
  FillGaussian(z0, 3);
  const double a = -0.3717, b = 1.9231;
  const std::string name = ToString(precision);
  // Stored values (rounded to T) on the CPU side.
  HostVector x(x0, precision, 0), y(y0, precision, 3), z(z0, precision, 5);
  const ColourVectorField<double> xs = x.Values(lattice, Parity::kEven), ys = y.Values(lattice, Parity::kEven),
                                  zs = z.Values(lattice, Parity::kEven);
  const int n = 6 * lattice.half_volume();  // real terms of a reduction
  using Cpu = solvers::CpuStaggeredBackend;

  {  // Norm2, ReDot, Dot
    ColourBlasLaunch l;
    l.x = x.view;
    l.op = ColourBlasOp::kNorm2;
    const double norm = RunColourBlasOnHost(l)[0];
    const double cpu_norm = Cpu::Norm2(As<T>(xs));
    EXPECT_LE(std::abs(norm - cpu_norm), 2 * (n + 2) * kUd * cpu_norm) << name << " Norm2";
    l.y = y.view;
    l.op = ColourBlasOp::kDot;
    const std::array<double, 2> dot = RunColourBlasOnHost(l);
    const std::complex<double> cpu_dot = Cpu::Dot(As<T>(xs), As<T>(ys));
    double absolute = 0;
    for (int i = 0; i < xs.sites(); ++i) {
      for (int c = 0; c < 3; ++c) absolute += std::abs(xs[i](c)) * std::abs(ys[i](c));
    }
    const double bound = 2 * (n + 2) * kUd * absolute * std::sqrt(2.0);
    EXPECT_LE(std::abs(std::complex<double>(dot[0], dot[1]) - cpu_dot), bound) << name << " Dot";
    l.op = ColourBlasOp::kReDot;
    EXPECT_LE(std::abs(RunColourBlasOnHost(l)[0] - Cpu::ReDot(As<T>(xs), As<T>(ys))), bound) << name << " ReDot";
    l.op = ColourBlasOp::kNonFinite;
    EXPECT_EQ(RunColourBlasOnHost(l)[0], 0.0) << name;
  }
  {  // Axpy and AxpyNorm: y += a x
    for (const ColourBlasOp op : {ColourBlasOp::kAxpy, ColourBlasOp::kAxpyNorm}) {
      HostVector y_run(y0, precision, 3);
      ColourBlasLaunch l;
      l.op = op;
      l.x = x.view;
      l.y = y_run.view;
      l.a = a;
      const double norm = RunColourBlasOnHost(l)[0];
      ColourVectorField<T> cpu_y = As<T>(ys);
      const double cpu_norm = Cpu::AxpyNorm(a, As<T>(xs), cpu_y);
      ColourVectorField<double> scale(lattice, Subset::kEven);
      for (int i = 0; i < scale.sites(); ++i) {
        for (int c = 0; c < 3; ++c) scale[i](c) = std::abs(a) * std::abs(xs[i](c)) + std::abs(ys[i](c));
      }
      const ColourVectorField<double> result = y_run.Values(lattice, Parity::kEven);
      ExpectUpdateClose(result, cpu_y, scale, name + " Axpy");
      if (op == ColourBlasOp::kAxpyNorm) {
        // The norms of two vectors that differ by the update bound: |n1 - n2| <= 2 |y| |dy| + |dy|^2, plus the
        // reductions' own rounding.
        double dy2 = 0;
        for (int i = 0; i < scale.sites(); ++i) {
          for (int c = 0; c < 3; ++c) dy2 += std::pow(std::sqrt(2.0) * 2 * UnitRoundoff<T>() * scale[i](c).real(), 2);
        }
        const double bound = 2 * std::sqrt(cpu_norm * dy2) + dy2 + 4 * (n + 2) * kUd * cpu_norm;
        EXPECT_LE(std::abs(norm - cpu_norm), bound * 1.01) << name << " AxpyNorm";
      } else {
        EXPECT_EQ(norm, 0.0);
      }
    }
  }
  {  // Caxpy: y += (a + i b) x
    HostVector y_run(y0, precision, 3);
    ColourBlasLaunch l;
    l.op = ColourBlasOp::kCaxpy;
    l.x = x.view;
    l.y = y_run.view;
    l.a = a;
    l.b = b;
    RunColourBlasOnHost(l);
    ColourVectorField<T> cpu_y = As<T>(ys);
    Cpu::Caxpy(std::complex<double>(a, b), As<T>(xs), cpu_y);
    ColourVectorField<double> scale(lattice, Subset::kEven);
    for (int i = 0; i < scale.sites(); ++i) {
      for (int c = 0; c < 3; ++c) {
        // a complex product and a sum: at most 3 roundings per part on either side
        scale[i](c) = 1.5 * (std::abs(std::complex<double>(a, b)) * std::abs(xs[i](c)) * std::sqrt(2.0) +
                             std::abs(ys[i](c)));
      }
    }
    ExpectUpdateClose(y_run.Values(lattice, Parity::kEven), cpu_y, scale, name + " Caxpy");
  }
  {  // Xpay: y = x + a y
    HostVector y_run(y0, precision, 3);
    ColourBlasLaunch l;
    l.op = ColourBlasOp::kXpay;
    l.x = x.view;
    l.y = y_run.view;
    l.a = a;
    RunColourBlasOnHost(l);
    ColourVectorField<T> cpu_y = As<T>(ys);
    Cpu::Xpay(As<T>(xs), a, cpu_y);
    ColourVectorField<double> scale(lattice, Subset::kEven);
    for (int i = 0; i < scale.sites(); ++i) {
      for (int c = 0; c < 3; ++c) scale[i](c) = std::abs(a) * std::abs(ys[i](c)) + std::abs(xs[i](c));
    }
    ExpectUpdateClose(y_run.Values(lattice, Parity::kEven), cpu_y, scale, name + " Xpay");
  }
  {  // CgSolutionDirection: y (solution) += a z (p); z = x (r) + b z
    HostVector y_run(y0, precision, 3), z_run(z0, precision, 5);
    ColourBlasLaunch l;
    l.op = ColourBlasOp::kCgSolutionDirection;
    l.x = x.view;
    l.y = y_run.view;
    l.z = z_run.view;
    l.a = a;
    l.b = b;
    RunColourBlasOnHost(l);
    ColourVectorField<T> cpu_solution = As<T>(ys), cpu_p = As<T>(zs);
    Cpu::CgSolutionDirection(a, b, As<T>(xs), cpu_solution, cpu_p);
    ColourVectorField<double> scale_x(lattice, Subset::kEven), scale_p(lattice, Subset::kEven);
    for (int i = 0; i < scale_x.sites(); ++i) {
      for (int c = 0; c < 3; ++c) {
        scale_x[i](c) = std::abs(a) * std::abs(zs[i](c)) + std::abs(ys[i](c));
        scale_p[i](c) = std::abs(b) * std::abs(zs[i](c)) + std::abs(xs[i](c));
      }
    }
    ExpectUpdateClose(y_run.Values(lattice, Parity::kEven), cpu_solution, scale_x, name + " CG solution");
    ExpectUpdateClose(z_run.Values(lattice, Parity::kEven), cpu_p, scale_p, name + " CG direction");
  }
}

TEST(StaggeredBlasOnHost, DoubleMatchesTheCpuBackendWithinTheDerivedBounds) { CheckOperations<double>(); }
TEST(StaggeredBlasOnHost, SingleMatchesTheCpuBackendWithinTheDerivedBounds) { CheckOperations<float>(); }

TEST(StaggeredBlasOnHost, ConvertRoundsToTheTargetPrecision) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  ColourVectorField<double> v(lattice, Subset::kEven);
  FillGaussian(v, 6);
  HostVector from_double(v, Precision::kDouble, 2), to_single(ColourVectorField<double>(lattice, Subset::kEven),
                                                              Precision::kSingle, 1);
  RunColourConvertOnHost(to_single.view, from_double.view);
  const ColourVectorField<double> single = to_single.Values(lattice, Parity::kEven);
  HostVector back(ColourVectorField<double>(lattice, Subset::kEven), Precision::kDouble, 0);
  RunColourConvertOnHost(back.view, to_single.view);
  const ColourVectorField<double> widened = back.Values(lattice, Parity::kEven);
  for (int i = 0; i < v.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      // The stored single value is v rounded to float, and widening it back to double is exact.
      ASSERT_EQ(static_cast<float>(single[i](c).real()), static_cast<float>(v[i](c).real())) << "site " << i;
      ASSERT_EQ(static_cast<float>(single[i](c).imag()), static_cast<float>(v[i](c).imag())) << "site " << i;
      ASSERT_EQ(widened[i](c), single[i](c)) << "site " << i;
    }
  }
}

TEST(StaggeredBlasOnHost, Z2NoiseIsTheOraclesNoiseBitForBit) {
  // Every parity and precision, with a pad: the per-site code draws the words of FillZ2Noise on the full lattice
  // (solvers/staggered_pbp.h) for the site the checkerboard index names, so an error in the site's lexicographic
  // index, the stream or the bit makes some site differ. Half stores +-1 exactly (norm 1, levels +-32767).
  const Lattice lattice(Coordinates{4, 6, 4, 6});
  for (const std::uint64_t seed : {std::uint64_t{1}, solvers::NoiseSeed(2024, 7), ~std::uint64_t{0}}) {
    ColourVectorField<double> full(lattice);
    solvers::FillZ2Noise(full, seed);
    for (const Parity parity : {Parity::kEven, Parity::kOdd}) {
      const ColourVectorField<double> expected = Extract(full, parity);
      for (const Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
        HostVector noise(ColourVectorField<double>(lattice, SubsetOf(parity)), precision, 3);
        RunColourZ2NoiseOnHost(noise.view, seed);
        const ColourVectorField<double> got = noise.Values(lattice, parity);
        for (int i = 0; i < got.sites(); ++i) {
          for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(got[i](c), expected[i](c)) << ToString(precision) << " " << ToString(SubsetOf(parity))
                                                 << " site " << i << " colour " << c << " seed " << seed;
          }
        }
      }
    }
  }
}

TEST(StaggeredBlasOnHost, EveryItemIsVisitedOnceAlsoWhereLoadsAreIssuedInGroups) {
  // The kernel's own loop (ThreadItems: groups of kColourBlasUnroll items, then the rest) on a lattice with more
  // items than kColourBlasUnroll x grid in every precision (32^3 x t with V/2 = 16384 t sites, t the smallest
  // multiple of 8 with V/2 above that many items, 3 V/2 components), so both parts run: y = 0 + 1 x with x = 1
  // everywhere, then |y|^2, must be 3 V/2 exactly (1 is exact in half too: the level 32767 times the rounded
  // 1/32767 is 1 in float). An item skipped leaves a 0, one visited twice a 2.
  const int t = 8 * (1 + kColourBlasUnroll * kColourBlasBlocks * kColourBlasThreads / (16384 * 8));
  const Lattice lattice(Coordinates{32, 32, 32, t});
  ASSERT_GT(lattice.half_volume(), kColourBlasUnroll * kColourBlasBlocks * kColourBlasThreads);
  ColourVectorField<double> ones(lattice, Subset::kOdd);
  for (int i = 0; i < ones.sites(); ++i) {
    for (int c = 0; c < 3; ++c) ones[i](c) = 1.0;
  }
  const double expected = 3.0 * lattice.half_volume();
  for (const Precision precision : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    HostVector x(ones, precision, 1), y(ColourVectorField<double>(lattice, Subset::kOdd), precision, 2);
    ColourBlasLaunch l;
    l.op = ColourBlasOp::kAxpyNorm;
    l.x = x.view;
    l.y = y.view;
    l.a = 1.0;
    EXPECT_EQ(RunColourBlasOnHost(l)[0], expected) << ToString(precision);
    ColourBlasLaunch norm;
    norm.op = ColourBlasOp::kNorm2;
    norm.x = y.view;
    EXPECT_EQ(RunColourBlasOnHost(norm)[0], expected) << ToString(precision);
  }
}

TEST(StaggeredBlasOnHost, ANonFiniteComponentIsFound) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  ColourVectorField<double> v(lattice, Subset::kOdd);
  FillGaussian(v, 4);
  v[17](2) = std::complex<double>(0, std::numeric_limits<double>::infinity());
  HostVector h(v, Precision::kDouble, 0);
  ColourBlasLaunch l;
  l.op = ColourBlasOp::kNonFinite;
  l.x = h.view;
  EXPECT_TRUE(std::isnan(RunColourBlasOnHost(l)[0]));
}

TEST(StaggeredBlasOnHost, SumsDoNotDependOnTheFieldsPad) {
  // The same values with different pads give the same bits: the pad words are never read.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  ColourVectorField<double> v(lattice, Subset::kOdd);
  FillGaussian(v, 5);
  HostVector a(v, Precision::kSingle, 0), b(v, Precision::kSingle, 7);
  ColourBlasLaunch la, lb;
  la.x = a.view;
  lb.x = b.view;
  EXPECT_EQ(RunColourBlasOnHost(la)[0], RunColourBlasOnHost(lb)[0]);
}

// ---- half precision ----

// Sites of wildly different size (testing::MixedScaleField): a half site keeps its resolution relative to its own
// largest real, whatever the others hold.
ColourVectorField<double> MixedScales(const Lattice& lattice, std::uint64_t seed, int offset) {
  return testing::MixedScaleField(lattice, seed, offset);
}

std::array<double, 2> RunOn(ColourBlasOp op, HostVector& x, HostVector* y, HostVector* z, double a = 0,
                            double b = 0) {
  ColourBlasLaunch l;
  l.op = op;
  l.x = x.view;
  if (y != nullptr) l.y = y->view;
  if (z != nullptr) l.z = z->view;
  l.a = a;
  l.b = b;
  return RunColourBlasOnHost(l);
}

TEST(StaggeredBlasOnHost, HalfUpdatesAreWithinTheDerivedBoundOfTheExactResult) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const ColourVectorField<double> x0 = MixedScales(lattice, 1, 0), y0 = MixedScales(lattice, 2, 1),
                                  z0 = MixedScales(lattice, 3, 2);
  const double a = -0.3717, b = 1.9231;  // neither a float: their rounding is part of the bound
  HostVector x(x0, Precision::kHalf, 0);
  const ColourVectorField<double> xs = x.Values(lattice, Parity::kEven);
  for (const ColourBlasOp op : {ColourBlasOp::kAxpy, ColourBlasOp::kAxpyNorm, ColourBlasOp::kCaxpy,
                                ColourBlasOp::kXpay, ColourBlasOp::kCgSolutionDirection}) {
    HostVector y(y0, Precision::kHalf, 3), z(z0, Precision::kHalf, 5);
    const ColourVectorField<double> ys = y.Values(lattice, Parity::kEven), zs = z.Values(lattice, Parity::kEven);
    const std::array<double, 2> sum = RunOn(op, x, &y, &z, a, b);
    const std::string what = "half op " + std::to_string(static_cast<int>(op));
    const testing::ColourBlasExact exact = testing::ExactColourBlas(op, a, b, xs, ys, zs);
    const ColourVectorField<double> y_after = y.Values(lattice, Parity::kEven);
    const double worst = testing::CheckHalfWithinBound(y_after, exact.y, exact.y_bound, what);
    std::printf("%s: largest error / bound %.3f\n", what.c_str(), worst);
    if (op == ColourBlasOp::kCgSolutionDirection) {
      testing::CheckHalfWithinBound(z.Values(lattice, Parity::kEven), exact.z, exact.z_bound, what + " direction");
    } else {
      EXPECT_EQ(std::memcmp(z.bytes.data(), HostVector(z0, Precision::kHalf, 5).bytes.data(), z.bytes.size()), 0)
          << what << " wrote z";
    }
    if (op == ColourBlasOp::kAxpyNorm) {
      // The norm of the values as stored: the same sum as Norm2 of the result, bit for bit, and the exact sum of
      // the stored values within the reordering bound (the norm of the unquantised float results is ~1e-5 off).
      EXPECT_EQ(sum[0], RunOn(ColourBlasOp::kNorm2, y, nullptr, nullptr)[0]) << what;
      const testing::ExactSum e = testing::ExactColourReduction(op, xs, y_after);
      EXPECT_LE(std::abs(sum[0] - e.value[0]), e.bound) << what;
    } else {
      EXPECT_EQ(sum[0], 0.0) << what;
    }
  }
}

TEST(StaggeredBlasOnHost, HalfUpdatesMayWorkInPlace) {
  // y = y + a y and y = y + a y through Xpay with x the same field: each site is read before it is written.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const ColourVectorField<double> y0 = MixedScales(lattice, 4, 3);
  for (const ColourBlasOp op : {ColourBlasOp::kAxpy, ColourBlasOp::kXpay}) {
    HostVector y(y0, Precision::kHalf, 2);
    const ColourVectorField<double> ys = y.Values(lattice, Parity::kEven);
    RunOn(op, y, &y, nullptr, 0.625);
    const testing::ColourBlasExact exact = testing::ExactColourBlas(op, 0.625, 0, ys, ys, ys);
    testing::CheckHalfWithinBound(y.Values(lattice, Parity::kEven), exact.y, exact.y_bound,
                                  "in place, op " + std::to_string(static_cast<int>(op)));
  }
}

TEST(StaggeredBlasOnHost, HalfReductionsSumTheStoredValuesInDouble) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  HostVector x(MixedScales(lattice, 5, 0), Precision::kHalf, 1), y(MixedScales(lattice, 6, 4), Precision::kHalf, 0);
  const ColourVectorField<double> xs = x.Values(lattice, Parity::kEven), ys = y.Values(lattice, Parity::kEven);
  for (const ColourBlasOp op : {ColourBlasOp::kNorm2, ColourBlasOp::kReDot, ColourBlasOp::kDot}) {
    const std::array<double, 2> sum = RunOn(op, x, &y, nullptr);
    const testing::ExactSum e = testing::ExactColourReduction(op, xs, ys);
    EXPECT_LE(std::abs(sum[0] - e.value[0]), e.bound) << "op " << static_cast<int>(op);
    EXPECT_LE(std::abs(sum[1] - e.value[1]), e.bound) << "op " << static_cast<int>(op);
  }
  EXPECT_EQ(RunOn(ColourBlasOp::kNonFinite, x, nullptr, nullptr)[0], 0.0);
}

TEST(StaggeredBlasOnHost, HalfConversionsRoundToTheTargetPrecision) {
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  const ColourVectorField<double> v = MixedScales(lattice, 7, 2);
  const ColourVectorField<double> zero(lattice, Subset::kEven);
  // double -> half: rounded to float, then quantised.
  HostVector from_double(v, Precision::kDouble, 2), half(zero, Precision::kHalf, 1);
  RunColourConvertOnHost(half.view, from_double.view);
  const ColourVectorField<double> stored = half.Values(lattice, Parity::kEven);
  const testing::ColourBlasExact e = testing::ExactColourConvert(v);
  std::printf("double -> half: largest error / bound %.3f\n",
              testing::CheckHalfWithinBound(stored, e.y, e.y_bound, "double -> half"));
  // half -> double and half -> single: the stored values exactly.
  for (const Precision to : {Precision::kDouble, Precision::kSingle}) {
    HostVector back(zero, to, 3);
    RunColourConvertOnHost(back.view, half.view);
    const ColourVectorField<double> widened = back.Values(lattice, Parity::kEven);
    for (int i = 0; i < v.sites(); ++i) {
      for (int c = 0; c < 3; ++c) ASSERT_EQ(widened[i](c), stored[i](c)) << ToString(to) << " site " << i;
    }
  }
  // single -> half: the float values quantised (rounding to float is exact there, so the bound holds).
  HostVector single(v, Precision::kSingle, 0), half2(zero, Precision::kHalf, 0);
  RunColourConvertOnHost(half2.view, single.view);
  const testing::ColourBlasExact es = testing::ExactColourConvert(single.Values(lattice, Parity::kEven));
  testing::CheckHalfWithinBound(half2.Values(lattice, Parity::kEven), es.y, es.y_bound, "single -> half");
  // half -> half: the levels kept (a re-stored site has the same levels up to rounding; values within the bound).
  HostVector half3(zero, Precision::kHalf, 4);
  RunColourConvertOnHost(half3.view, half.view);
  const testing::ColourBlasExact eh = testing::ExactColourConvert(stored);
  testing::CheckHalfWithinBound(half3.Values(lattice, Parity::kEven), eh.y, eh.y_bound, "half -> half");
}

TEST(StaggeredBlasOnHost, HalfReStoringStoredValuesKeepsTheirLevels) {
  // y = 0 + 1 x re-stores x's stored values: the float arithmetic finds each level again (x_s / N' is q / 32767
  // within 4 u, |q| 4 u < 0.01 of a level) and the norm N' = |the largest stored real| differs from x's by a few
  // float roundings, so each value comes back within 8 u N of x's; one level (N / 32767) off would be 60 times that.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  HostVector x(MixedScales(lattice, 8, 5), Precision::kHalf, 0),
      y(ColourVectorField<double>(lattice, Subset::kEven), Precision::kHalf, 0);
  RunOn(ColourBlasOp::kAxpy, x, &y, nullptr, 1.0);
  const ColourVectorField<double> xs = x.Values(lattice, Parity::kEven), ys = y.Values(lattice, Parity::kEven);
  for (int i = 0; i < xs.sites(); ++i) {
    double largest = 0;
    for (int c = 0; c < 3; ++c) largest = std::max({largest, std::abs(xs[i](c).real()), std::abs(xs[i](c).imag())});
    for (int c = 0; c < 3; ++c) {
      ASSERT_LE(std::abs(ys[i](c).real() - xs[i](c).real()), 8 * 0x1p-24 * largest) << "site " << i;
      ASSERT_LE(std::abs(ys[i](c).imag() - xs[i](c).imag()), 8 * 0x1p-24 * largest) << "site " << i;
    }
  }
}

TEST(StaggeredBlasOnHost, AHalfOverflowIsStoredAsNonFinite) {
  // y = y + a x with |a x| beyond the float range: the site's norm becomes NaN, every real of it loads as NaN and
  // the non-finite check (AllFinite) finds it; the other sites stay finite.
  const Lattice lattice(Coordinates{4, 4, 6, 6});
  ColourVectorField<double> x0(lattice, Subset::kEven);
  x0[5](1) = Complex<double>(4.0, 0.0);
  HostVector x(x0, Precision::kHalf, 0), y(MixedScales(lattice, 9, 0), Precision::kHalf, 0);
  RunOn(ColourBlasOp::kAxpy, x, &y, nullptr, 3e38);
  const ColourVectorField<double> ys = y.Values(lattice, Parity::kEven);
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isnan(ys[5](c).real()) && std::isnan(ys[5](c).imag()));
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isfinite(std::abs(ys[6](c))));
  EXPECT_TRUE(std::isnan(RunOn(ColourBlasOp::kNonFinite, y, nullptr, nullptr)[0]));
}

}  // namespace
}  // namespace lqcd::gpu
