#include "gpu/staggered_blas_testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace lqcd::gpu::testing {
namespace {

constexpr double kU = 0x1p-24;   // float: half's arithmetic
constexpr double kUd = 0x1p-53;  // the double computation here
constexpr double kHalfLevel = 1.0 / 32767;

// B_i = (k u (1 + u) + 3 u_d) T_i.
double ArithmeticBound(int roundings, double terms) { return (roundings * kU * (1 + kU) + 3 * kUd) * terms; }

}  // namespace

ColourBlasExact ExactColourBlas(ColourBlasOp op, double a, double b, const ColourVectorField<double>& x,
                                const ColourVectorField<double>& y, const ColourVectorField<double>& z) {
  const Lattice& lattice = x.lattice();
  ColourBlasExact e{ColourVectorField<double>(lattice, x.subset()), ColourVectorField<double>(lattice, x.subset()),
                    ColourVectorField<double>(lattice, x.subset()), ColourVectorField<double>(lattice, x.subset())};
  const Complex<double> ab(a, b);
  for (int i = 0; i < x.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const Complex<double> xv = x[i](c), yv = y[i](c), zv = z[i](c);
      // |a| |u| + |v| per real part
      const auto terms = [](double s, Complex<double> u, Complex<double> v) {
        return Complex<double>(std::abs(s) * std::abs(u.real()) + std::abs(v.real()),
                               std::abs(s) * std::abs(u.imag()) + std::abs(v.imag()));
      };
      const auto bound = [](int k, Complex<double> t) {
        return Complex<double>(ArithmeticBound(k, t.real()), ArithmeticBound(k, t.imag()));
      };
      switch (op) {
        case ColourBlasOp::kAxpy:
        case ColourBlasOp::kAxpyNorm:
          e.y[i](c) = yv + a * xv;
          e.y_bound[i](c) = bound(2, terms(a, xv, yv));
          break;
        case ColourBlasOp::kXpay:
          e.y[i](c) = xv + a * yv;
          e.y_bound[i](c) = bound(2, terms(a, yv, xv));
          break;
        case ColourBlasOp::kCaxpy:
          e.y[i](c) = yv + ab * xv;
          e.y_bound[i](c) = bound(3, Complex<double>(std::abs(a) * std::abs(xv.real()) +
                                                         std::abs(b) * std::abs(xv.imag()) + std::abs(yv.real()),
                                                     std::abs(a) * std::abs(xv.imag()) +
                                                         std::abs(b) * std::abs(xv.real()) + std::abs(yv.imag())));
          break;
        case ColourBlasOp::kCgSolutionDirection:  // y = x_sol += a p; z = p = r + b p (the old p, z, in both)
          e.y[i](c) = yv + a * zv;
          e.y_bound[i](c) = bound(2, terms(a, zv, yv));
          e.z[i](c) = xv + b * zv;
          e.z_bound[i](c) = bound(2, terms(b, zv, xv));
          break;
        default: throw std::invalid_argument("ExactColourBlas: not an update");
      }
    }
  }
  return e;
}

ColourBlasExact ExactColourConvert(const ColourVectorField<double>& x) {
  const ColourVectorField<double> zero(x.lattice(), x.subset());
  ColourBlasExact e{x, zero, zero, zero};
  for (int i = 0; i < x.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      e.y_bound[i](c) = Complex<double>(kU * std::abs(x[i](c).real()), kU * std::abs(x[i](c).imag()));
    }
  }
  return e;
}

double CheckHalfWithinBound(const ColourVectorField<double>& stored, const ColourVectorField<double>& exact,
                            const ColourVectorField<double>& arithmetic_bound, const std::string& what) {
  double worst = 0;
  int failures = 0;
  for (int i = 0; i < exact.sites(); ++i) {
    double largest = 0, largest_bound = 0;  // M and B of the site
    for (int c = 0; c < 3; ++c) {
      largest = std::max({largest, std::abs(exact[i](c).real()), std::abs(exact[i](c).imag())});
      largest_bound = std::max({largest_bound, arithmetic_bound[i](c).real(), arithmetic_bound[i](c).imag()});
    }
    const double storage = (0.5 * kHalfLevel + 5 * kU) * (largest + largest_bound) * 1.01;
    for (int c = 0; c < 3; ++c) {
      for (int part = 0; part < 2; ++part) {
        const double s = part == 0 ? stored[i](c).real() : stored[i](c).imag();
        const double x = part == 0 ? exact[i](c).real() : exact[i](c).imag();
        const double bound = (part == 0 ? arithmetic_bound[i](c).real() : arithmetic_bound[i](c).imag()) + storage;
        const double error = std::abs(s - x);
        const double ratio = bound > 0 ? error / bound : (error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
        worst = std::max(worst, ratio);
        if (!(error <= bound) && failures++ < 5) {
          ADD_FAILURE() << what << ": site " << i << " colour " << c << (part == 0 ? " re" : " im") << ": stored "
                        << s << ", exact " << x << ", error " << error << " > bound " << bound;
        }
      }
    }
  }
  return worst;
}

ExactSum ExactColourReduction(ColourBlasOp op, const ColourVectorField<double>& x, const ColourVectorField<double>& y) {
  ExactSum s{{0, 0}, 0};
  double absolute = 0;
  const double n = 6.0 * x.sites();
  for (int i = 0; i < x.sites(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const Complex<double> xv = x[i](c), yv = y[i](c);
      switch (op) {
        case ColourBlasOp::kNorm2: s.value[0] += std::norm(xv); absolute += std::norm(xv); break;
        case ColourBlasOp::kAxpyNorm: s.value[0] += std::norm(yv); absolute += std::norm(yv); break;
        case ColourBlasOp::kReDot:
        case ColourBlasOp::kDot: {
          const Complex<double> d = std::conj(xv) * yv;
          s.value[0] += d.real();
          s.value[1] += op == ColourBlasOp::kDot ? d.imag() : 0.0;
          absolute += std::sqrt(2.0) * std::abs(xv) * std::abs(yv);
          break;
        }
        default: throw std::invalid_argument("ExactColourReduction: not a reduction");
      }
    }
  }
  s.bound = 2 * (n + 2) * kUd * absolute;
  return s;
}

ColourVectorField<double> MixedScaleField(const Lattice& lattice, std::uint64_t seed, int offset) {
  ColourVectorField<double> v(lattice, Subset::kEven);
  FillGaussian(v, seed);
  constexpr double kScales[] = {1.0, 1e-3, 1e3, 1e-25, 0.5, 7.0};
  for (int i = 0; i < v.sites(); ++i) v[i] *= kScales[(i + offset) % 6];
  v[11 + offset].setZero();
  return v;
}

}  // namespace lqcd::gpu::testing
