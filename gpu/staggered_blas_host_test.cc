// The staggered vector operations' per-component code and fixed-order sums (staggered_blas.cu), run on the host
// by RunColourBlasOnHost over host memory laid out as the device stores it (fields with different pads), against
// the CPU staggered backend (solvers/cpu_staggered.h) on the same stored values, in double and single.
//
// Bounds (derived): an update y + a x is one fused multiply-add per real part here and a product then a sum on
// the CPU, so the two differ by at most 2 u (|a| |x| + |y|) per part (sqrt(2) of that for the complex
// component); reductions accumulate products of the stored values in double in another order, so they differ
// by at most 2 (N + 2) u_double times the sum of the absolute terms (N the number of terms).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "gpu/device_colour_vector_field.h"
#include "gpu/staggered_blas_launch.h"
#include "reference/staggered/colour_vector_field.h"
#include "solvers/cpu_staggered.h"

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

}  // namespace
}  // namespace lqcd::gpu
