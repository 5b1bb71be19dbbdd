// blas_test: every fused vector operation of the GPU backend (gpu/blas.h through GpuBackend) against the
// CPU backend (solvers/cpu_backend.h) on the same data, in double, single and half; the determinism of the
// reductions; the "values as stored" rule; copies, conversions, zero and non-finite handling; refusals.
//
// Same data: a Gaussian field is uploaded in the UKQCD basis (no basis change), downloaded (exactly the
// stored values) and stored into the CPU backend's field of the same precision. In double and single both
// backends then hold bit-identical inputs; in half the two decodes, (q / 32767) n on the CPU and
// q (n (1 / 32767)) on the GPU, differ by at most 8 float roundings of the value, and re-storing the
// decoded value into the CPU format gives back the same level q (the decoded value is within 10 u_f
// |q| < 0.01 of a level), so the half inputs agree to 16 u_f per component (input_slack below).
//
// Bounds (u_c = unit roundoff of the compute type: 2^-53 double, 2^-24 single and half; u_d = 2^-53):
//   Element-wise outputs. Every output component is a linear combination sum_j c_j in_j (complex c_j),
//   evaluated along at most 6 roundings (BicgstabDirection r + beta (p - omega v): the products omega v
//   (2), the difference (1), beta times it (2), the sum (1); every other operation has fewer). With
//   T = sum_j |c_j| |in_j| (complex moduli, which bound |Re c| |Re x| + |Im c| |Im x| for either part),
//   each backend is within gamma_6 T < 7 u_c T of the exact value, so the two differ by at most 14 u_c T,
//   plus input_slack T in half. Half outputs are quantised on both sides: each stored value is within
//   0.504 of a level (the float product r * (32767 / n) is off by at most 2 u_f 32767 < 0.004 levels) of
//   its own float result, a level being n / 32767 with n <= N = the site's largest |output| plus the
//   first-order difference; so a further (1.01 / 32767) N (2 x 0.505), plus 6 u_f |value| for the decodes.
//   Reductions. A sum of n terms accumulated in double in any order is within (n - 1) u_d sum |terms| of
//   the exact sum; the products of double inputs add u_d each: (n + 1) u_d S per backend, S = sum |terms|
//   (a complex dot has 4 products per complex component, |terms| <= 2 |x_c| |y_c|). Fused reductions
//   are of each backend's own stored output, so their difference is bounded from the two stored outputs
//   G, C: sum |G_k - C_k| (|G_k| + |C_k|) for a norm, sum |r0_c| |G_c - C_c| + |dr0_c| |C_c| for (r0, r).
#include "gpu/blas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_buffer.h"
#include "gpu/device_gauge_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/wilson_dslash.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "solvers/cpu_backend.h"
#include "solvers/vector_flops.h"

namespace lqcd::gpu {
namespace {

using solvers::CpuBackend;
using solvers::Half;
using solvers::HalfSpinorField;
using Op = blas::Operation;

constexpr double kUd = 0x1p-53;
constexpr double kUf = 0x1p-24;
constexpr double kLevel = 1.0 / 32767.0;

// The scalars of the tests (arbitrary, of order one, complex where the operation allows).
constexpr double kA = 0.37;
const std::complex<double> kAlpha{0.61, -0.23};
const std::complex<double> kBeta{0.29, 0.53};
const std::complex<double> kOmega{-0.44, 0.71};

template <typename P>
struct Bounds;
template <>
struct Bounds<double> {
  static constexpr double kUc = kUd;
  static constexpr double kInputSlack = 0;
  static constexpr bool kQuantised = false;
};
template <>
struct Bounds<float> {
  static constexpr double kUc = kUf;
  static constexpr double kInputSlack = 0;
  static constexpr bool kQuantised = false;
};
template <>
struct Bounds<Half> {
  static constexpr double kUc = kUf;
  static constexpr double kInputSlack = 16 * kUf;
  static constexpr bool kQuantised = true;
};

// ---- values of either backend's fields, as double ----

SpinorField<double> Values(const SpinorField<double>& f) { return f; }
SpinorField<double> Values(const SpinorField<float>& f) { return ConvertSpinorField<double>(f); }
SpinorField<double> Values(const HalfSpinorField& f) {
  SpinorField<double> out(f.lattice(), f.subset());
  for (int i = 0; i < f.sites(); ++i) out[i] = f.Load(i).cast<Complex<double>>();
  return out;
}
template <typename P>
SpinorField<double> Values(const GpuSpinorField<P>& f) {
  return f.Download(GammaBasis::kUkqcd);  // the stored values, no basis change
}

template <typename P>
CpuBackend::Field<P> ToCpu(const SpinorField<double>& v) {
  CpuBackend::Field<P> out(v.lattice(), v.subset());
  CpuBackend::Convert(out, v);  // exact for double and single values; half: see the file comment
  return out;
}

// The bit patterns of two doubles are equal (NaN equals NaN).
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ---- the operations, written once for both backends ----

int FieldsOf(Op op) {
  switch (op) {
    case Op::kNorm2:
    case Op::kAllFinite: return 1;
    case Op::kBicgstabDirection: return 3;
    case Op::kCgUpdate: return 4;
    case Op::kBicgstabUpdate: return 5;
    default: return 2;
  }
}

template <typename B, typename F>
std::vector<double> RunOp(Op op, std::vector<F>& f) {
  switch (op) {
    case Op::kNorm2: return {B::Norm2(f[0])};
    case Op::kAllFinite: return {B::AllFinite(f[0]) ? 1.0 : 0.0};
    case Op::kDot: {
      const std::complex<double> d = B::Dot(f[0], f[1]);
      return {d.real(), d.imag()};
    }
    case Op::kReDot: return {B::ReDot(f[0], f[1])};
    case Op::kDotNorm: {
      const auto d = B::DotNorm(f[0], f[1]);
      return {d.dot.real(), d.dot.imag(), d.norm2};
    }
    case Op::kAxpy: B::Axpy(kA, f[0], f[1]); return {};
    case Op::kAxpyNorm: return {B::AxpyNorm(kA, f[0], f[1])};
    case Op::kXpay: B::Xpay(f[0], kA, f[1]); return {};
    case Op::kCaxpy: B::Caxpy(kAlpha, f[0], f[1]); return {};
    case Op::kCaxpyNorm: return {B::CaxpyNorm(kAlpha, f[0], f[1])};
    case Op::kCgUpdate: return {B::CgUpdate(kA, f[0], f[1], f[2], f[3])};
    case Op::kBicgstabDirection: B::BicgstabDirection(f[0], kBeta, kOmega, f[1], f[2]); return {};
    case Op::kBicgstabUpdate: {
      const auto u = B::BicgstabUpdate(kAlpha, f[0], kOmega, f[1], f[2], f[3], f[4]);
      return {u.norm2, u.dot.real(), u.dot.imag()};
    }
    default: throw std::logic_error("RunOp: not an operation of this test");
  }
}

// Written field -> the (input field, |coefficient|) pairs of its linear combination.
struct Term {
  int field;
  double coefficient;
};
struct Output {
  int field;
  std::vector<Term> terms;
};
std::vector<Output> OutputsOf(Op op) {
  const double a = std::abs(kA), alpha = std::abs(kAlpha), beta = std::abs(kBeta), omega = std::abs(kOmega);
  switch (op) {
    case Op::kAxpy:
    case Op::kAxpyNorm: return {{1, {{0, a}, {1, 1}}}};
    case Op::kXpay: return {{1, {{0, 1}, {1, a}}}};
    case Op::kCaxpy:
    case Op::kCaxpyNorm: return {{1, {{0, alpha}, {1, 1}}}};
    case Op::kCgUpdate: return {{2, {{2, 1}, {0, a}}}, {3, {{3, 1}, {1, a}}}};
    case Op::kBicgstabDirection: return {{2, {{0, 1}, {2, beta}, {1, beta * omega}}}};
    case Op::kBicgstabUpdate: return {{2, {{2, 1}, {0, alpha}, {3, omega}}}, {3, {{3, 1}, {1, omega}}}};
    default: return {};
  }
}

// Which written field a fused reduction returns the norm of, and which field the dot is taken with.
struct FusedReduction {
  int norm_field = -1;
  int dot_with = -1;  // (f[dot_with], f[norm_field]) in results 1, 2
};
FusedReduction FusedOf(Op op) {
  switch (op) {
    case Op::kAxpyNorm:
    case Op::kCaxpyNorm: return {1, -1};
    case Op::kCgUpdate: return {3, -1};
    case Op::kBicgstabUpdate: return {3, 4};
    default: return {};
  }
}

bool IsPureReduction(Op op) {
  return op == Op::kNorm2 || op == Op::kDot || op == Op::kReDot || op == Op::kDotNorm || op == Op::kAllFinite;
}

double Modulus(const SiteSpinor<double>& s, int k) { return std::abs(s(k / 3, k % 3)); }
double Real(const SiteSpinor<double>& s, int r) {
  const Complex<double> z = s((r / 2) / 3, (r / 2) % 3);
  return r % 2 == 0 ? z.real() : z.imag();
}

// Max over sites and reals of |G - C| / bound (<= 1 passes), for element-wise outputs.
template <typename P>
double ElementwiseRatio(const SpinorField<double>& g, const SpinorField<double>& c,
                        const std::vector<SpinorField<double>>& inputs, const std::vector<Term>& terms,
                        std::string& first_failure) {
  const double first_order = 14 * Bounds<P>::kUc + Bounds<P>::kInputSlack;
  double worst = 0;
  for (int i = 0; i < c.sites(); ++i) {
    double t[12];
    double t_max = 0, n_site = 0;
    for (int k = 0; k < 12; ++k) {
      t[k] = 0;
      for (const Term& term : terms) t[k] += term.coefficient * Modulus(inputs[term.field][i], k);
      t_max = std::max(t_max, t[k]);
    }
    for (int r = 0; r < 24; ++r) n_site = std::max(n_site, std::abs(Real(c[i], r)));
    n_site += first_order * t_max;
    for (int r = 0; r < 24; ++r) {
      const double cv = Real(c[i], r), gv = Real(g[i], r);
      double bound = first_order * t[r / 2];
      if (Bounds<P>::kQuantised) bound += 1.01 * kLevel * n_site + 6 * kUf * (std::abs(cv) + bound);
      const double error = std::abs(gv - cv);
      const double ratio = bound > 0 ? error / bound : (error == 0 ? 0 : INFINITY);
      if (!(error <= bound) && first_failure.empty()) {
        first_failure = "site " + std::to_string(i) + " real " + std::to_string(r) + ": gpu " + std::to_string(gv) +
                        " cpu " + std::to_string(cv) + " bound " + std::to_string(bound);
      }
      worst = std::isnan(error) ? INFINITY : std::max(worst, ratio);
    }
  }
  return worst;
}

// ---- fixture ----

template <typename P>
class BlasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }

  // `count` Gaussian fields on both backends with identical stored values (pads differ per field).
  void MakeFields(const Lattice& lattice, Subset subset, int count, std::uint64_t seed) {
    gpu_.clear();
    cpu_.clear();
    for (int k = 0; k < count; ++k) {
      SpinorField<double> host(lattice, subset);
      FillGaussian(host, seed + k);
      gpu_.emplace_back(lattice, subset, 3 * k);
      gpu_.back().Upload(host, GammaBasis::kUkqcd);
      cpu_.push_back(ToCpu<P>(Values(gpu_.back())));
    }
  }

  // Runs `op` on both backends and checks outputs and returned values within the bounds of the file
  // comment; returns the GPU's results.
  std::vector<double> CompareOperation(Op op, const Lattice& lattice, Subset subset, std::uint64_t seed) {
    MakeFields(lattice, subset, FieldsOf(op), seed);
    std::vector<SpinorField<double>> inputs;
    for (const auto& f : gpu_) inputs.push_back(Values(f));
    const std::vector<double> g = RunOp<GpuBackend>(op, gpu_);
    const std::vector<double> c = RunOp<CpuBackend>(op, cpu_);
    const std::string what = std::string(blas::InfoOf(op).name) + "<" + solvers::PrecisionTraits<P>::kName + "> " +
                             ToString(subset);
    EXPECT_EQ(g.size(), c.size()) << what;
    const double sites = inputs[0].sites();
    const double n_terms = 48 * sites;

    // Element-wise outputs.
    std::vector<SpinorField<double>> g_out(gpu_.size(), SpinorField<double>(lattice, subset)), c_out = g_out;
    for (std::size_t k = 0; k < gpu_.size(); ++k) {
      g_out[k] = Values(gpu_[k]);
      c_out[k] = Values(cpu_[k]);
    }
    for (const Output& out : OutputsOf(op)) {
      std::string failure;
      const double ratio = ElementwiseRatio<P>(g_out[out.field], c_out[out.field], inputs, out.terms, failure);
      std::printf("%-28s field %d: max |gpu - cpu| / bound = %.3f\n", what.c_str(), out.field, ratio);
      EXPECT_LE(ratio, 1.0) << what << " field " << out.field << ": " << failure;
    }

    // Pure reductions: same inputs (half: within the input slack), different summation order.
    if (IsPureReduction(op)) {
      const SpinorField<double>& x = inputs[0];
      const SpinorField<double>& y = inputs.size() > 1 ? inputs[1] : inputs[0];
      double s = 0;
      for (int i = 0; i < x.sites(); ++i) {
        for (int k = 0; k < 12; ++k) s += 2 * Modulus(x[i], k) * Modulus(y[i], k) + Modulus(x[i], k) * Modulus(x[i], k);
      }
      const double bound = (2 * (n_terms + 1) * kUd + 2 * Bounds<P>::kInputSlack) * s;
      for (std::size_t k = 0; k < g.size(); ++k) {
        EXPECT_LE(std::abs(g[k] - c[k]), bound) << what << " result " << k << ": gpu " << g[k] << " cpu " << c[k];
      }
    }

    // Fused reductions: of each backend's own stored output.
    const FusedReduction fused = FusedOf(op);
    if (fused.norm_field >= 0) {
      const SpinorField<double>&gr = g_out[fused.norm_field], &cr = c_out[fused.norm_field];
      double norm_bound = 0, dot_bound = 0, s_norm = 0, s_dot = 0;
      for (int i = 0; i < gr.sites(); ++i) {
        for (int r = 0; r < 24; ++r) {
          const double a = Real(gr[i], r), b = Real(cr[i], r);
          norm_bound += std::abs(a - b) * (std::abs(a) + std::abs(b));
          s_norm += a * a + b * b;
        }
        if (fused.dot_with >= 0) {
          const SiteSpinor<double>&z_g = g_out[fused.dot_with][i], &z_c = c_out[fused.dot_with][i];
          for (int k = 0; k < 12; ++k) {
            dot_bound += Modulus(z_g, k) * std::abs(gr[i](k / 3, k % 3) - cr[i](k / 3, k % 3)) +
                         std::abs(z_g(k / 3, k % 3) - z_c(k / 3, k % 3)) * Modulus(cr[i], k);
            s_dot += 2 * Modulus(z_g, k) * (Modulus(gr[i], k) + Modulus(cr[i], k));
          }
        }
      }
      norm_bound += (n_terms + 1) * kUd * s_norm;
      EXPECT_LE(std::abs(g[0] - c[0]), norm_bound) << what << ": returned norms gpu " << g[0] << " cpu " << c[0];
      if (fused.dot_with >= 0) {
        dot_bound += (n_terms + 1) * kUd * s_dot;
        EXPECT_LE(std::abs(g[1] - c[1]), dot_bound) << what << ": Re (r0, r)";
        EXPECT_LE(std::abs(g[2] - c[2]), dot_bound) << what << ": Im (r0, r)";
      }
      // Values as stored: the GPU returns bit for bit what its Norm2 / Dot of the stored output return.
      EXPECT_TRUE(SameBits(g[0], GpuBackend::Norm2(gpu_[fused.norm_field]))) << what;
      if (fused.dot_with >= 0) {
        const std::complex<double> d = GpuBackend::Dot(gpu_[fused.dot_with], gpu_[fused.norm_field]);
        EXPECT_TRUE(SameBits(g[1], d.real()) && SameBits(g[2], d.imag())) << what;
      }
    }
    return g;
  }

  std::vector<GpuSpinorField<P>> gpu_;
  std::vector<CpuBackend::Field<P>> cpu_;
  // 16 x 8 x 8 x 8: 8192 sites, 32 blocks of partial sums (16 for one parity).
  const Lattice lattice_{16, 8, 8, 8};
};

using Precisions = ::testing::Types<double, float, Half>;
TYPED_TEST_SUITE(BlasTest, Precisions);

const Op kComparedOps[] = {Op::kNorm2,     Op::kDot,       Op::kReDot,    Op::kDotNorm,
                           Op::kAllFinite, Op::kAxpy,      Op::kAxpyNorm, Op::kXpay,
                           Op::kCaxpy,     Op::kCaxpyNorm, Op::kCgUpdate, Op::kBicgstabDirection,
                           Op::kBicgstabUpdate};

TYPED_TEST(BlasTest, EveryOperationMatchesTheCpuBackend) {
  std::uint64_t seed = 100;
  for (Subset subset : {Subset::kFull, Subset::kOdd}) {
    for (Op op : kComparedOps) {
      const std::vector<double> r = this->CompareOperation(op, this->lattice_, subset, seed += 10);
      if (op == Op::kAllFinite) {
        EXPECT_EQ(r[0], 1.0);
      }
    }
  }
}

// The reductions agree bit for bit with each other where they sum the same terms: ReDot = Re Dot,
// DotNorm = (Dot, Norm2).
TYPED_TEST(BlasTest, ReductionsOfTheSameTermsAgreeBitForBit) {
  this->MakeFields(this->lattice_, Subset::kFull, 2, 7);
  using B = GpuBackend;
  const std::complex<double> dot = B::Dot(this->gpu_[0], this->gpu_[1]);
  const auto dn = B::DotNorm(this->gpu_[0], this->gpu_[1]);
  EXPECT_TRUE(SameBits(B::ReDot(this->gpu_[0], this->gpu_[1]), dot.real()));
  EXPECT_TRUE(SameBits(dn.dot.real(), dot.real()) && SameBits(dn.dot.imag(), dot.imag()));
  EXPECT_TRUE(SameBits(dn.norm2, B::Norm2(this->gpu_[0])));
  // Re (x, x) is the same fma chain as |x|^2: the same bits. Im (x, x) = sum (x_r x_i - x_i x_r): with
  // single or half values the products are exact in double and every pair cancels exactly; in double each
  // pair leaves the rounding error of one product, at most u_d x_r x_i, then summed: <= (n + 1) u_d |x|^2.
  const std::complex<double> self = B::Dot(this->gpu_[0], this->gpu_[0]);
  const double norm2 = B::Norm2(this->gpu_[0]);
  EXPECT_TRUE(SameBits(self.real(), norm2));
  if (std::is_same_v<TypeParam, double>) {
    EXPECT_LE(std::abs(self.imag()), (48.0 * this->lattice_.volume() + 1) * kUd * norm2);
  } else {
    EXPECT_EQ(self.imag(), 0.0);
  }
}

// Same inputs -> same bits: twice in a row, after unrelated kernels (other sizes, a Dslash, element-wise
// operations), and from a copy with another pad (the geometry depends only on the number of sites).
TYPED_TEST(BlasTest, ReductionsAreDeterministic) {
  using B = GpuBackend;
  this->MakeFields(this->lattice_, Subset::kFull, 2, 11);
  auto reduce = [&](const GpuSpinorField<TypeParam>& x, const GpuSpinorField<TypeParam>& y) {
    const std::complex<double> d = B::Dot(x, y);
    const auto dn = B::DotNorm(x, y);
    return std::vector<double>{B::Norm2(x), d.real(), d.imag(), B::ReDot(x, y), dn.dot.real(), dn.dot.imag(), dn.norm2};
  };
  const std::vector<double> first = reduce(this->gpu_[0], this->gpu_[1]);
  const std::vector<double> second = reduce(this->gpu_[0], this->gpu_[1]);
  // Unrelated work in between: reductions over other sizes, element-wise kernels, a Dslash.
  {
    const Lattice other(8, 8, 8, 8);
    GpuSpinorField<TypeParam> a(other, Subset::kFull), b(other, Subset::kFull);
    SpinorField<double> host(other);
    FillGaussian(host, 12);
    a.Upload(host);
    B::Copy(b, a);
    B::Caxpy(kAlpha, a, b);
    (void)B::Norm2(b);
    const DeviceGaugeField gauge(GaugeField<double>(other), GaugeLayout{DevicePrecisionOf<TypeParam>::kValue,
                                                                        Reconstruct::k18, false, 0});
    ApplyWilsonDslash(a.device().View(Parity::kEven), gauge, b.device().View(Parity::kOdd), Dagger::kNo);
    (void)B::Dot(a, b);
  }
  const std::vector<double> third = reduce(this->gpu_[0], this->gpu_[1]);
  GpuSpinorField<TypeParam> padded(this->lattice_, Subset::kFull, 57);
  B::Copy(padded, this->gpu_[0]);
  const std::vector<double> fourth = reduce(padded, this->gpu_[1]);
  for (std::size_t k = 0; k < first.size(); ++k) {
    EXPECT_TRUE(SameBits(first[k], second[k])) << "reduction " << k << " twice";
    EXPECT_TRUE(SameBits(first[k], third[k])) << "reduction " << k << " after other kernels";
    EXPECT_TRUE(SameBits(first[k], fourth[k])) << "reduction " << k << " from a padded copy";
  }
}

// A fused update run twice from the same state writes the same bits and returns the same bits.
TYPED_TEST(BlasTest, FusedUpdatesAreDeterministic) {
  using B = GpuBackend;
  this->MakeFields(this->lattice_, Subset::kFull, 5, 21);
  auto& f = this->gpu_;
  std::vector<GpuSpinorField<TypeParam>> saved;
  for (auto& field : f) {
    saved.emplace_back(field.lattice(), field.subset());
    B::Copy(saved.back(), field);
  }
  const auto first = B::BicgstabUpdate(kAlpha, f[0], kOmega, f[1], f[2], f[3], f[4]);
  const SpinorField<double> x1 = Values(f[2]), r1 = Values(f[3]);
  for (std::size_t k = 0; k < f.size(); ++k) B::Copy(f[k], saved[k]);
  const auto second = B::BicgstabUpdate(kAlpha, f[0], kOmega, f[1], f[2], f[3], f[4]);
  EXPECT_TRUE(SameBits(first.norm2, second.norm2));
  EXPECT_TRUE(SameBits(first.dot.real(), second.dot.real()) && SameBits(first.dot.imag(), second.dot.imag()));
  EXPECT_EQ(MaxAbsDifference(x1, Values(f[2])), 0.0);
  EXPECT_EQ(MaxAbsDifference(r1, Values(f[3])), 0.0);
}

// Copy is exact (raw words and norms, across pads); Zero gives exact zeros; y = y - y is exactly zero in
// every precision (half: a zero site stores norm 0 and no NaN from 0 / 0).
TYPED_TEST(BlasTest, CopyZeroAndExactCancellation) {
  using B = GpuBackend;
  this->MakeFields(this->lattice_, Subset::kEven, 1, 31);
  GpuSpinorField<TypeParam> y(this->lattice_, Subset::kEven, 101);
  B::Copy(y, this->gpu_[0]);
  EXPECT_EQ(MaxAbsDifference(Values(y), Values(this->gpu_[0])), 0.0);
  EXPECT_TRUE(SameBits(B::Norm2(y), B::Norm2(this->gpu_[0])));
  B::Axpy(-1.0, this->gpu_[0], y);
  EXPECT_EQ(B::Norm2(y), 0.0);
  EXPECT_TRUE(B::AllFinite(y));
  B::Copy(y, this->gpu_[0]);
  B::Zero(y);
  EXPECT_EQ(B::Norm2(y), 0.0);
  EXPECT_EQ(MaxAbsDifference(Values(y), SpinorField<double>(this->lattice_, Subset::kEven)), 0.0);
  // A new field is zero.
  const auto fresh = B::NewLike<TypeParam>(this->gpu_[0]);
  EXPECT_EQ(B::Norm2(fresh), 0.0);
}

// A NaN or Inf in one real is found by AllFinite, and survives an update (half: norm NaN).
TYPED_TEST(BlasTest, NonFiniteValuesAreFoundAndSurvive) {
  using B = GpuBackend;
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    SpinorField<double> host(this->lattice_);
    FillGaussian(host, 41);
    host[1234](2, 1) = Complex<double>(0.5, bad);
    GpuSpinorField<TypeParam> x(this->lattice_, Subset::kFull), y(this->lattice_, Subset::kFull);
    x.Upload(host, GammaBasis::kUkqcd);
    EXPECT_FALSE(B::AllFinite(x)) << bad;
    EXPECT_TRUE(B::AllFinite(y));
    B::Axpy(1.0, x, y);
    EXPECT_FALSE(B::AllFinite(y)) << bad;
    EXPECT_FALSE(std::isfinite(B::Norm2(y))) << bad;
  }
}

// Half sites of tiny magnitude keep their relative resolution through a device store. Sites scaled by
// 2^-k with the largest real n_site: for n_site < 32767 / FLT_MAX (~9.6e-35) the factor 32767 / n_site
// overflows float, which once turned every level into 0. y = 0 + 1 x re-stores x on the device (float
// arithmetic, the kernels' store); the stored value must be within half a level of x plus the decode
// roundings: 0.505 n_site / 32767 + 6 u_f |x|, plus 32768 * 2^-149 because n_site / 32767 is subnormal
// below n_site ~ 3.9e-34 (its absolute rounding 2^-150 times |q| <= 32767, and the product's 2^-150).
TEST(BlasHalf, TinySitesKeepTheirRelativeResolution) {
  if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  const Lattice lattice(8, 4, 4, 4);
  SpinorField<double> host(lattice);
  FillGaussian(host, 71);
  // Site i scaled by 2^-(40 + 2 i), i < 46: 1e-12 ... 7e-40 (sites from i ~ 38 on are in the range where
  // 32767 / n_site overflowed; from i ~ 37 on n_site / 32767 is subnormal). The smallest keep
  // n_site / 32767 well above 2^-149, so they do not decode to zero. The other sites stay of order one.
  constexpr int kTiny = 46;
  for (int i = 0; i < kTiny; ++i) host[i] *= std::ldexp(1.0, -(40 + 2 * i));
  GpuSpinorField<Half> x(lattice, Subset::kFull), y(lattice, Subset::kFull);
  x.Upload(host, GammaBasis::kUkqcd);
  GpuBackend::Axpy(1.0, x, y);  // y = 0 + x: every site goes through the device's float store
  const SpinorField<double> vx = Values(x), vy = Values(y);
  double worst = 0;
  std::string first_failure;
  for (int i = 0; i < lattice.volume(); ++i) {
    double n_site = 0;
    for (int r = 0; r < 24; ++r) n_site = std::max(n_site, std::abs(Real(vx[i], r)));
    ASSERT_GT(n_site, 0.0) << "site " << i << " was uploaded as zero; choose smaller exponents";
    for (int r = 0; r < 24; ++r) {
      const double want = Real(vx[i], r), got = Real(vy[i], r);
      const double bound = 0.505 * kLevel * n_site + 6 * kUf * std::abs(want) + 32768 * 0x1p-149;
      const double ratio = std::abs(got - want) / bound;
      if (!(ratio <= 1) && first_failure.empty()) {
        first_failure = "site " + std::to_string(i) + " (largest real " + std::to_string(n_site) + ") real " +
                        std::to_string(r) + ": stored " + std::to_string(got) + ", was " + std::to_string(want);
      }
      worst = std::isnan(ratio) ? INFINITY : std::max(worst, ratio);
    }
  }
  std::printf("half tiny sites: max |stored - x| / bound = %.3f\n", worst);
  EXPECT_LE(worst, 1.0) << first_failure;
  EXPECT_TRUE(GpuBackend::AllFinite(y));  // no NaN from 0 * inf
}

// More sites than threads in the fixed grid (1024 x 256): the grid-stride loop covers every site.
TEST(BlasLargeField, GridStrideLoopCoversEverySite) {
  if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  const Lattice lattice(24, 24, 24, 20);  // 276480 sites > 1024 x 256 = 262144 threads
  SpinorField<double> hx(lattice), hy(lattice);
  FillGaussian(hx, 51);
  FillGaussian(hy, 52);
  GpuSpinorField<float> x(lattice, Subset::kFull), y(lattice, Subset::kFull);
  x.Upload(hx, GammaBasis::kUkqcd);
  y.Upload(hy, GammaBasis::kUkqcd);
  const SpinorField<double> vx = Values(x), vy = Values(y);
  const double returned = GpuBackend::AxpyNorm(kA, x, y);
  const SpinorField<double> out = Values(y);
  long double exact = 0;
  double worst = 0, s = 0;
  for (int i = 0; i < out.sites(); ++i) {
    for (int r = 0; r < 24; ++r) {
      const double v = Real(out[i], r);
      exact += static_cast<long double>(v) * v;
      s += v * v;
      // Single: 2 roundings of y + a x (fewer with an fma): within 3 u_f (|y| + |a x|) of the exact value.
      const double want = Real(vy[i], r) + static_cast<float>(kA) * Real(vx[i], r);
      const double bound = 3 * kUf * (std::abs(Real(vy[i], r)) + kA * std::abs(Real(vx[i], r)));
      worst = std::max(worst, std::abs(v - want) / bound);
    }
  }
  EXPECT_LE(worst, 1.0) << "an element-wise result is off (a site not written?)";
  // The double sum of 24 V exact float squares: (n - 1) u_d S, n = 24 V; long double adds 2^-64 n S.
  EXPECT_LE(std::abs(returned - static_cast<double>(exact)), 24.0 * out.sites() * kUd * s);
  EXPECT_TRUE(SameBits(returned, GpuBackend::Norm2(y)));
}

// SumRealPartialsOfRanges: each range's value is SumRealPartials of that range bit for bit (the batched reduction
// sums every component on its own, in the same threads and order), for range counts that fill one slot, part of
// one, and several (9: slots of 4, 4 and 1), and counts within one block and beyond the grid's threads (grid-stride
// loop); the sums themselves within (count - 1) u_d sum |terms| of the long double sum. Refusals before a launch.
TEST(BlasSumPartials, RangesSummedTogetherAreEachRangesOwnSum) {
  if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  for (const int count : {1, 300, 300000}) {
    for (const int ranges : {1, 2, 3, 4, 9}) {
      std::vector<double> host(static_cast<std::size_t>(count) * ranges);
      std::mt19937_64 rng(17 + count + ranges);
      std::normal_distribution<double> gauss;
      for (double& v : host) v = gauss(rng);
      DeviceBuffer partials(sizeof(double) * host.size());
      partials.CopyFromHost(host.data(), sizeof(double) * host.size());
      const double* d = static_cast<const double*>(partials.data());
      const std::vector<DeviceReal> together = blas::SumRealPartialsOfRanges(d, count, ranges);
      ASSERT_EQ(together.size(), static_cast<std::size_t>(ranges));
      for (int j = 0; j < ranges; ++j) {
        const std::string what = std::to_string(ranges) + " ranges of " + std::to_string(count) + ", range " +
                                 std::to_string(j);
        const double alone = blas::SumRealPartials(d + static_cast<std::size_t>(j) * count, count).Host();
        EXPECT_TRUE(SameBits(together[j].Host(), alone)) << what;
        long double exact = 0;
        double magnitude = 0;
        for (int i = 0; i < count; ++i) {
          exact += host[static_cast<std::size_t>(j) * count + i];
          magnitude += std::abs(host[static_cast<std::size_t>(j) * count + i]);
        }
        EXPECT_LE(std::abs(alone - static_cast<double>(exact)), (count - 1 + 0.01) * kUd * magnitude) << what;
      }
    }
  }
  DeviceBuffer one(sizeof(double));
  const double* d = static_cast<const double*>(one.data());
  EXPECT_THROW(blas::SumRealPartialsOfRanges(nullptr, 4, 2), std::invalid_argument);
  EXPECT_THROW(blas::SumRealPartialsOfRanges(d, 0, 2), std::invalid_argument);
  EXPECT_THROW(blas::SumRealPartialsOfRanges(d, 1, 0), std::invalid_argument);
}

// Convert between every pair of precisions against the CPU backend (bounds in the comment below).
TEST(BlasConvert, EveryPairMatchesTheCpuBackend) {
  if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  const Lattice lattice(8, 8, 8, 4);
  SpinorField<double> host(lattice, Subset::kOdd);
  FillGaussian(host, 61);
  auto check = [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    GpuSpinorField<In> x(lattice, Subset::kOdd, 5);
    x.Upload(host, GammaBasis::kUkqcd);
    const SpinorField<double> vx = Values(x);
    GpuSpinorField<Out> y(lattice, Subset::kOdd, 9);
    GpuBackend::Convert(y, x);
    const auto x_cpu = ToCpu<In>(vx);
    CpuBackend::Field<Out> y_cpu(lattice, Subset::kOdd);
    CpuBackend::Convert(y_cpu, x_cpu);
    const SpinorField<double> g = Values(y), c = Values(y_cpu);
    // Input: identical except half (16 u_f, file comment). Output: double exact; single one rounding of
    // each side's value (2 u_f); half the quantisation of two sides (1.01 levels of N) plus decodes.
    const double in_slack = std::is_same_v<In, Half> ? 16 * kUf : 0;
    double worst = 0;
    for (int i = 0; i < c.sites(); ++i) {
      double n_site = 0;
      for (int r = 0; r < 24; ++r) n_site = std::max(n_site, std::abs(Real(c[i], r)));
      n_site *= 1 + in_slack + 2 * kUf;
      for (int r = 0; r < 24; ++r) {
        const double v = std::abs(Real(vx[i], r));
        double bound = in_slack * v;
        if (std::is_same_v<Out, float>) bound += 2 * kUf * v;
        if (std::is_same_v<Out, Half>) bound += 1.01 * kLevel * n_site + 8 * kUf * v;
        const double error = std::abs(Real(g[i], r) - Real(c[i], r));
        if (bound == 0) {
          EXPECT_EQ(error, 0.0) << solvers::PrecisionTraits<In>::kName << " -> " << solvers::PrecisionTraits<Out>::kName;
        } else {
          worst = std::max(worst, error / bound);
        }
      }
    }
    std::printf("Convert %-6s -> %-6s max |gpu - cpu| / bound = %.3f\n", solvers::PrecisionTraits<In>::kName,
                solvers::PrecisionTraits<Out>::kName, worst);
    EXPECT_LE(worst, 1.0) << solvers::PrecisionTraits<In>::kName << " -> " << solvers::PrecisionTraits<Out>::kName;
  };
  auto for_out = [&](auto in_tag) {
    check(in_tag, double{});
    check(in_tag, float{});
    check(in_tag, Half{});
  };
  for_out(double{});
  for_out(float{});
  for_out(Half{});
}

TEST(BlasRefusals, MismatchedFieldsThrow) {
  if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  const Lattice a(4, 4, 4, 4), b(4, 4, 4, 8);
  DeviceSpinorField full(a, Subset::kFull, Precision::kSingle), even(a, Subset::kEven, Precision::kSingle);
  DeviceSpinorField other(b, Subset::kFull, Precision::kSingle), dbl(a, Subset::kFull, Precision::kDouble);
  EXPECT_THROW(blas::Axpy(1.0, full, even), std::invalid_argument);
  EXPECT_THROW(blas::Dot(full, other), std::invalid_argument);
  EXPECT_THROW(blas::Xpay(full, 1.0, dbl), std::invalid_argument);  // precision differs: only Convert may
  EXPECT_THROW(blas::Convert(dbl, even), std::invalid_argument);
  EXPECT_THROW(blas::Copy(dbl, full), std::invalid_argument);
  EXPECT_THROW(blas::BicgstabUpdate(1.0, full, 1.0, full, full, other, full), std::invalid_argument);
  EXPECT_NO_THROW(blas::Convert(dbl, full));
}

// The flop counts are those the solvers add up (solvers/vector_flops.h); bytes follow the stated model.
TEST(BlasCost, FlopsAreTheSolversAndBytesFollowTheModel) {
  namespace vf = solvers::vector_flops;
  const std::pair<Op, double> flops[] = {
      {Op::kNorm2, vf::kNorm2},         {Op::kDot, vf::kDot},
      {Op::kReDot, vf::kReDot},         {Op::kDotNorm, vf::kDotNorm},
      {Op::kAxpy, vf::kAxpy},           {Op::kAxpyNorm, vf::kAxpyNorm},
      {Op::kXpay, vf::kXpay},           {Op::kCaxpy, vf::kCaxpy},
      {Op::kCaxpyNorm, vf::kCaxpyNorm}, {Op::kCgUpdate, vf::kCgUpdate},
      {Op::kBicgstabDirection, vf::kBicgstabDirection}, {Op::kBicgstabUpdate, vf::kBicgstabUpdate},
      {Op::kCopy, vf::kCopy},           {Op::kConvert, vf::kConvert}};
  for (const auto& [op, per_real] : flops) EXPECT_EQ(blas::InfoOf(op).flops_per_real, per_real) << blas::InfoOf(op).name;
  // BicgstabUpdate in half on 1000 sites: reads p, t, x, s, r0 and writes x, r, each 24 x 2 + 4 bytes.
  const blas::BlasCost c = blas::Cost(Op::kBicgstabUpdate, Precision::kHalf, 1000);
  EXPECT_EQ(c.bytes, 1000.0 * 7 * 52);
  EXPECT_EQ(c.flops, 1000.0 * 24 * 18);
  // Convert double -> half: 192 bytes read, 52 written per site.
  EXPECT_EQ(blas::Cost(Op::kConvert, Precision::kDouble, 10, Precision::kHalf).bytes, 10.0 * (192 + 52));
}

}  // namespace
}  // namespace lqcd::gpu
