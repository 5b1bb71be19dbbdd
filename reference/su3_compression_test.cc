// su3_compression_test: 12- and 8-number SU(3) links (su3_compression.h), float and double.
//
// What is proved, with the bounds derived in docs/error_bounds.md ("SU(3) reconstruction: error bounds"):
//   - the stored numbers are in the documented order;
//   - 12: the round trip reproduces an exact SU(3) matrix, correctly rounded to T, to 5.25 u;
//   - 8, correctly rounded inputs (every entry with RELATIVE error u): the error stays O(u) for all N (no 1/N),
//     on Haar matrices and on near-unit matrices down to N ~ 1e-7;
//   - 8, inputs with ABSOLUTE errors delta (what arithmetic and fixed-point storage produce): the error obeys a
//     bound of the form (c1 + c2 / |p1|) delta / N, and really grows like 1/N (the bound's form is tight);
//   - the singular point N = 0: the unit matrix and diag(a1, a1^*, 1) survive exactly or to rounding, links near
//     it that are not of that form are refused, and the threshold N_min = sqrt(max(u, eta)) is where it says;
//   - bad input is refused with std::invalid_argument.
// Exact references are built in long double (64-bit mantissa, u_ld = 2^-64), far more accurate than double.
#include "reference/su3_compression.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/su3.h"
#include "reference/su3_random.h"

namespace lqcd {
namespace {

using LongComplex = std::complex<long double>;
using LongMatrix = ColorMatrix<long double>;

template <typename T>
constexpr double UnitRoundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}
constexpr double kLongRoundoff = std::numeric_limits<long double>::epsilon() / 2;

template <typename T>
const char* Name() {
  return sizeof(T) == 4 ? "float" : "double";
}

double MaxDifference(const ColorMatrix<long double>& a, const ColorMatrix<long double>& b) {
  return static_cast<double>((a - b).cwiseAbs().maxCoeff());
}

// Distance bound of a long double matrix from SU(3): 3 |V V^dag - 1|_max bounds the distance to the unitary
// polar factor, and |det - 1| / 3 the extra phase; we use 3 |V V^dag - 1| + |det V - 1|.
double LongDeviation(const LongMatrix& v) {
  const long double unitarity = (v * v.adjoint() - LongMatrix::Identity()).cwiseAbs().maxCoeff();
  const long double det = std::abs(v.determinant() - LongComplex(1));
  return static_cast<double>(3 * unitarity + det);
}

// exp(i epsilon H) for a random traceless Hermitian H (made exactly traceless in long double), by its Taylor
// series in long double. Every entry is accurate to RELATIVE 64 u_ld (< u_double / 32): the terms are computed
// with relative rounding and the series converges fast for epsilon |H| < 2.
LongMatrix NearUnitReference(RandomStream& rng, double epsilon) {
  LongMatrix h = GaussianTracelessHermitian(rng).cast<LongComplex>();
  const LongComplex third_trace = h.trace() / static_cast<long double>(3);
  for (int i = 0; i < 3; ++i) h(i, i) -= third_trace;
  const LongMatrix x = h * LongComplex(0, epsilon);
  LongMatrix sum = LongMatrix::Identity(), term = LongMatrix::Identity();
  for (int k = 1; k < 60; ++k) {
    term = term * x / static_cast<long double>(k);
    sum += term;
  }
  return sum;
}

// Moduli of the entries the 8-number form uses.
struct EightEntries {
  double a1, a2, a3, b1, c1;
};

EightEntries Moduli(const LongMatrix& v) {
  return {double(std::abs(v(0, 0))), double(std::abs(v(0, 1))), double(std::abs(v(0, 2))), double(std::abs(v(1, 0))),
          double(std::abs(v(2, 0)))};
}

// |sqrt(x + d) - sqrt(x)| <= min(|d| / sqrt(x), sqrt(|d|)), also when x + d < 0 is clamped to 0.
double SqrtError(double d, double root) { return root > 0 ? std::min(d / root, std::sqrt(d)) : std::sqrt(d); }

// A perturbation e of z moves arg z by at most asin(e / |z|) <= (pi / 2) e / |z|, and never more than pi.
double PhaseError(double e, double modulus) { return modulus > 0 ? std::min(M_PI_2 * e / modulus, M_PI) : M_PI; }

// Bound on max_ij |Reconstruct8(Compress8(U)) - V| for an exact SU(3) matrix V with entry moduli m, where the
// input U in T differs from V entry by entry by at most e (complex modulus), and T has unit roundoff u.
// First-order propagation through the formulas of su3_compression.h with the dominant second-order products
// kept; elementary operations round with relative error u (complex products sqrt(5) u), sqrt too, and
// cos, sin and atan2 are within 2 ulp. Derivation in docs/error_bounds.md ("SU(3) reconstruction: error bounds").
double EightNumberBound(const EightEntries& m, const EightEntries& e, double u) {
  const double n = std::hypot(m.a2, m.a3);
  // Stored phases: input perturbation, atan2 (2 ulp of a number <= pi: 8 u) and rounding to T (2 u).
  const double d_theta_a = PhaseError(e.a1, m.a1) + 10 * u;
  const double d_theta_c = PhaseError(e.c1, m.c1) + 10 * u;
  // N^2 = |a2|^2 + |a3|^2: input perturbation plus 4 squares and 3 additions (4 u relative).
  const double n2_input = 2 * m.a2 * e.a2 + e.a2 * e.a2 + 2 * m.a3 * e.a3 + e.a3 * e.a3;
  const double d_n2 = n2_input + 4 * u * (n * n + n2_input);
  const double d_n = SqrtError(d_n2, n) + u * n;
  const double n_low = n - d_n;
  if (!(n_low > 0)) return std::numeric_limits<double>::infinity();
  // a1 = sqrt(1 - N^2) (cos, sin): the subtraction adds u; cos and sin 2 ulp each and the products u:
  // <= 4 u on a number of modulus <= 1.
  const double d_a1_modulus = SqrtError(d_n2 + u, m.a1) + u * m.a1;
  const double d_a1 = d_a1_modulus + (m.a1 + d_a1_modulus) * (d_theta_a + 4 * u);
  // x / N for a stored x with |x| <= N: |x~/N~ - x/N| <= (e_x + d_N) / (N - d_N), plus the division (u).
  auto ratio_error = [&](double e_x) { return (e_x + d_n) / n_low + u; };
  const double d_b_prime = std::max(ratio_error(e.a2), ratio_error(e.a3));  // b' = (0, -a3^*, a2^*) / N
  // c' = (N, -a1^* (a2 / N), -a1^* (a3 / N)): product rule plus sqrt(5) u for the complex product.
  const double d_c_prime = std::max(d_n, d_a1 + (m.a1 + d_a1) * d_b_prime + std::sqrt(5.0) * u);
  const double d_p2 = ratio_error(e.b1);  // p2 = b1 / N
  // |c1|^2 = N^2 - |b1|^2: input perturbation of both terms; |b1|^2 and the subtraction round (<= 3 u N^2).
  const double d_c1_squared = d_n2 + 2 * m.b1 * e.b1 + e.b1 * e.b1 + 3 * u * n * n;
  const double d_c1_modulus = SqrtError(d_c1_squared, m.c1) + u * m.c1;
  const double d_c1 = d_c1_modulus + (m.c1 + d_c1_modulus) * (d_theta_c + 4 * u);
  const double d_p1 = (d_c1 + d_n) / n_low + u;  // p1 = c1^* / N, |c1| <= N
  // b_k = p1 b'_k + p2 c'_k (c_k alike) with |p1| |b'_k| + |p2| |c'_k| <= 1 (unit vectors (p1, p2) and
  // (b'_k, c'_k) at most unit): product rule, plus two complex products and a sum ((sqrt 5 + 1) u).
  const double d_row = d_p1 * (1 + d_b_prime) + d_b_prime + d_p2 * (1 + d_c_prime) + d_c_prime + 3.3 * u;
  return std::max({d_a1, e.a2, e.a3, e.b1, d_c1, d_row});
}

// Per-entry perturbation of U = (V rounded to T) when the reference V is exact up to `absolute` and
// `relative` * |V_ij|: e = (u + relative) |V_ij| + absolute.
EightEntries Perturbation(const EightEntries& m, double u, double relative, double absolute) {
  const double r = u + relative;
  return {r * m.a1 + absolute, r * m.a2 + absolute, r * m.a3 + absolute, r * m.b1 + absolute, r * m.c1 + absolute};
}

// ---------------------------------------------------------------------------------------------------------
// Layout

TEST(Su3CompressionTest, StoredNumbersAreInTheDocumentedOrder) {
  RandomStream rng(1, 0);
  const ColorMatrix<double> u = HaarRandomSU3<double>(rng);
  const Compressed12<double> c12 = Compress12(u);
  for (int row = 0; row < 2; ++row) {
    for (int col = 0; col < 3; ++col) {
      EXPECT_EQ(c12.values[6 * row + 2 * col], u(row, col).real());
      EXPECT_EQ(c12.values[6 * row + 2 * col + 1], u(row, col).imag());
    }
  }
  const Compressed8<double> c8 = Compress8(u);
  EXPECT_EQ(c8.values[kArgA1], std::arg(u(0, 0)));
  EXPECT_EQ(c8.values[kArgC1], std::arg(u(2, 0)));
  EXPECT_EQ(c8.values[kReA2], u(0, 1).real());
  EXPECT_EQ(c8.values[kImA2], u(0, 1).imag());
  EXPECT_EQ(c8.values[kReA3], u(0, 2).real());
  EXPECT_EQ(c8.values[kImA3], u(0, 2).imag());
  EXPECT_EQ(c8.values[kReB1], u(1, 0).real());
  EXPECT_EQ(c8.values[kImB1], u(1, 0).imag());
}

// ---------------------------------------------------------------------------------------------------------
// 12 numbers. Rows a, b are stored: their error is the rounding of V to T, <= u |V_ij|. Row c = fl(conj(a x b)):
// c_k = conj(a_i b_j - a_j b_i) has rounding <= (sqrt 5 + 1) u (|a_i||b_j| + |a_j||b_i|) and inherits
// 2 u (|a_i||b_j| + |a_j||b_i|) from the rounded a, b; by Cauchy-Schwarz |a_i||b_j| + |a_j||b_i| <= 1, so
// |c - c_V| <= 5.25 u + (the reference's own |conj(a x b) - c|, <= its deviation from SU(3)).

template <typename T>
void ExpectTwelveNumberRoundTrip(const char* family, const LongMatrix& v, double& worst) {
  const double u = UnitRoundoff<T>();
  const ColorMatrix<T> input = v.cast<Complex<T>>();
  const LongMatrix out = Reconstruct12(Compress12(input)).template cast<LongComplex>();
  const double err = MaxDifference(out, v);
  const double bound = 5.25 * u + LongDeviation(v);
  worst = std::max(worst, err / u);
  ASSERT_LE(err, bound) << family << " " << Name<T>();
}

template <typename T>
void TwelveNumberRoundTrips() {
  double worst_haar = 0, worst_near_unit = 0;
  for (int i = 0; i < 20000; ++i) {
    RandomStream rng(12, i);
    ExpectTwelveNumberRoundTrip<T>("Haar", HaarRandomSU3<long double>(rng), worst_haar);
  }
  for (double epsilon : {1e-1, 1e-3, 1e-5, 1e-7}) {
    for (int i = 0; i < 1000; ++i) {
      RandomStream rng(13, i);
      ExpectTwelveNumberRoundTrip<T>("near-unit", NearUnitReference(rng, epsilon), worst_near_unit);
    }
  }
  std::printf("12 numbers, %s: worst error %.2f u (Haar), %.2f u (near unit); bound 5.25 u\n", Name<T>(), worst_haar,
              worst_near_unit);
}

TEST(Su3CompressionTest, TwelveNumbersRoundTripToFiveUlpDouble) { TwelveNumberRoundTrips<double>(); }
TEST(Su3CompressionTest, TwelveNumbersRoundTripToFiveUlpFloat) { TwelveNumberRoundTrips<float>(); }

// ---------------------------------------------------------------------------------------------------------
// 8 numbers, correctly rounded input: e_ij = u |V_ij| (+ the reference's own error).

template <typename T>
double EightNumberRoundTrip(const LongMatrix& v, const EightEntries& perturbation, double* bound_out) {
  const ColorMatrix<T> input = v.cast<Complex<T>>();
  const LongMatrix out = Reconstruct8(Compress8(input)).template cast<LongComplex>();
  *bound_out = EightNumberBound(Moduli(v), perturbation, UnitRoundoff<T>());
  return MaxDifference(out, v);
}

template <typename T>
void EightNumbersOnHaarMatrices() {
  const double u = UnitRoundoff<T>();
  double worst = 0, worst_fraction = 0;
  for (int i = 0; i < 20000; ++i) {
    RandomStream rng(8, i);
    const LongMatrix v = HaarRandomSU3<long double>(rng);
    double bound;
    const double err = EightNumberRoundTrip<T>(v, Perturbation(Moduli(v), u, 0, LongDeviation(v)), &bound);
    worst = std::max(worst, err / u);
    worst_fraction = std::max(worst_fraction, err / bound);
    ASSERT_LE(err, bound) << "sample " << i;
  }
  std::printf("8 numbers, %s, 20000 Haar matrices: worst error %.2f u, worst error / bound %.3f\n", Name<T>(), worst,
              worst_fraction);
}

TEST(Su3CompressionTest, EightNumbersRoundTripHaarMatricesDouble) { EightNumbersOnHaarMatrices<double>(); }
TEST(Su3CompressionTest, EightNumbersRoundTripHaarMatricesFloat) { EightNumbersOnHaarMatrices<float>(); }

// Near the singular point with correctly rounded input: tiny entries carry tiny errors, the formulas use only
// ratios like a2 / N whose relative error is O(u), and the error does NOT grow like 1/N (N^2 - |b1|^2 instead
// of the paper's 1 - |a1|^2 - |b1|^2 is what keeps it so: see the docs).
template <typename T>
void EightNumbersNearSingularCorrectlyRounded(std::initializer_list<double> epsilons) {
  const double u = UnitRoundoff<T>();
  std::printf("8 numbers, %s, correctly rounded near-unit input:\n", Name<T>());
  for (double epsilon : epsilons) {
    double worst = 0, min_n = 1, worst_fraction = 0;
    for (int i = 0; i < 500; ++i) {
      RandomStream rng(21, i);
      const LongMatrix v = NearUnitReference(rng, epsilon);
      const EightEntries m = Moduli(v);
      double bound;
      const double err = EightNumberRoundTrip<T>(v, Perturbation(m, u, 64 * kLongRoundoff, 0), &bound);
      worst = std::max(worst, err / u);
      worst_fraction = std::max(worst_fraction, err / bound);
      min_n = std::min(min_n, std::hypot(m.a2, m.a3));
      ASSERT_LE(err, bound) << "epsilon " << epsilon << " sample " << i;
    }
    std::printf("  epsilon %.0e: min N %.1e, worst error %.2f u, worst error / bound %.3f\n", epsilon, min_n, worst,
                worst_fraction);
  }
}

TEST(Su3CompressionTest, EightNumbersNearSingularCorrectlyRoundedDouble) {
  // N >= N_min = sqrt(max(u, eta)) ~ 3e-8 for every sample down to epsilon = 1e-6 (N ~ epsilon |H_12, H_13|).
  EightNumbersNearSingularCorrectlyRounded<double>({1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6});
}
TEST(Su3CompressionTest, EightNumbersNearSingularCorrectlyRoundedFloat) {
  // N_min ~ 4e-4 in float: epsilon 1e-2 keeps every sample above it.
  EightNumbersNearSingularCorrectlyRounded<float>({1e-1, 3e-2, 1e-2});
}

// ---------------------------------------------------------------------------------------------------------
// 8 numbers, input with absolute errors: U = fl(fl(V) + E) with |E_ij| = delta0 and random phases, the model of
// links computed by arithmetic or stored in fixed point. e_ij <= 2 u |V_ij| + delta0 (1 + u). The bound's
// leading term is (pi/2 + sqrt 2 + 3 (1 + sqrt 2) + 2 (1 + sqrt 2) / |p1|) delta0 / N
// = (10.2 + 4.8 / |p1|) delta0 / N; we check the bound, and check that the
// error really reaches a fixed fraction of delta0 / N (the 1/N is not an artefact of the analysis).
template <typename T>
void EightNumbersNearSingularAbsoluteErrors(std::initializer_list<double> epsilons) {
  const double u = UnitRoundoff<T>();
  const double delta0 = 8 * u;
  std::printf("8 numbers, %s, input with absolute errors delta0 = 8 u:\n", Name<T>());
  for (double epsilon : epsilons) {
    double worst_scaled = 0, worst_fraction = 0, min_n = 1;
    for (int i = 0; i < 200; ++i) {
      RandomStream rng(34, i);
      const LongMatrix v = NearUnitReference(rng, epsilon);
      const EightEntries m = Moduli(v);
      ColorMatrix<T> input = v.cast<Complex<T>>();
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) input(r, c) += std::polar(T(delta0), T(2 * M_PI * rng.Uniform()));
      }
      const LongMatrix out = Reconstruct8(Compress8(input)).template cast<LongComplex>();
      const double err = MaxDifference(out, v);
      const double bound = EightNumberBound(m, Perturbation(m, 2 * u, 64 * kLongRoundoff, delta0 * (1 + u)), u);
      const double n = std::hypot(m.a2, m.a3);
      ASSERT_LE(err, bound) << "epsilon " << epsilon << " sample " << i;
      worst_scaled = std::max(worst_scaled, err * n / delta0);
      worst_fraction = std::max(worst_fraction, err / bound);
      min_n = std::min(min_n, n);
    }
    std::printf("  epsilon %.0e: min N %.1e, worst error * N / delta0 = %.2f, worst error / bound %.3f\n", epsilon,
                min_n, worst_scaled, worst_fraction);
    // The b' = a^* / N entries alone carry |E| / N = delta0 / N: over 200 random samples the worst error
    // reaches at least a quarter of that (measured: 13 to 19 times it; see the printout).
    EXPECT_GE(worst_scaled, 0.25) << "epsilon " << epsilon;
  }
}

TEST(Su3CompressionTest, EightNumberErrorGrowsLikeDeltaOverNDouble) {
  // eta ~ 50 u, so N_min = sqrt(50 u) ~ 7e-8; epsilon = 1e-6 keeps N above it.
  EightNumbersNearSingularAbsoluteErrors<double>({1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6});
}
TEST(Su3CompressionTest, EightNumberErrorGrowsLikeDeltaOverNFloat) {
  // N_min = sqrt(50 u) ~ 2e-3 in float.
  EightNumbersNearSingularAbsoluteErrors<float>({3e-1, 1e-1, 3e-2});
}

// ---------------------------------------------------------------------------------------------------------
// Why |c1|^2 = N^2 - |b1|^2 and not the paper's 1 - |a1|^2 - |b1|^2: the two agree in exact arithmetic, but
// 1 - |a1|^2 with |a1|^2 = 1 - N^2 computed near 1 carries an ABSOLUTE error ~u, i.e. a relative error u / N^2
// in |c1|^2, hence ~u / (N |c1|) >= u / N^2 in p1 = c1^* / N. This is the paper's form, otherwise identical to
// Reconstruct8, run on the correctly rounded near-unit input of EightNumbersNearSingularCorrectlyRounded.
ColorMatrix<double> ReconstructWithPapersCOne(const Compressed8<double>& c) {
  const std::array<double, 8>& v = c.values;
  const Complex<double> a2(v[kReA2], v[kImA2]), a3(v[kReA3], v[kImA3]), b1(v[kReB1], v[kImB1]);
  const double n2 = std::norm(a2) + std::norm(a3), n = std::sqrt(n2);
  const Complex<double> a1 = std::sqrt(std::max(1 - n2, 0.0)) * Complex<double>(std::cos(v[kArgA1]), std::sin(v[kArgA1]));
  const double c1_modulus = std::sqrt(std::max(1 - std::norm(a1) - std::norm(b1), 0.0));  // the paper's formula
  const Complex<double> c1 = c1_modulus * Complex<double>(std::cos(v[kArgC1]), std::sin(v[kArgC1]));
  const Complex<double> b_prime[3] = {0.0, -std::conj(a3 / n), std::conj(a2 / n)};
  const Complex<double> c_prime[3] = {n, -std::conj(a1) * (a2 / n), -std::conj(a1) * (a3 / n)};
  const Complex<double> p1 = std::conj(c1) / n, p2 = b1 / n;
  ColorMatrix<double> u;
  u << a1, a2, a3, b1, 0.0, 0.0, c1, 0.0, 0.0;
  for (int k = 1; k < 3; ++k) {
    u(1, k) = p1 * b_prime[k] + p2 * c_prime[k];
    u(2, k) = -std::conj(p2) * b_prime[k] + std::conj(p1) * c_prime[k];
  }
  return u;
}

TEST(Su3CompressionTest, PapersCOneFormulaWouldLoseAccuracyLikeUOverNSquared) {
  const double u = UnitRoundoff<double>();
  std::printf("|c1| from N^2 - |b1|^2 (ours) vs 1 - |a1|^2 - |b1|^2 (paper), double, correctly rounded input:\n");
  for (double epsilon : {1e-2, 1e-3, 1e-4}) {
    double ours = 0, papers = 0, max_n = 0;
    for (int i = 0; i < 500; ++i) {
      RandomStream rng(21, i);
      const LongMatrix v = NearUnitReference(rng, epsilon);
      const Compressed8<double> c = Compress8(ColorMatrix<double>(v.cast<Complex<double>>()));
      ours = std::max(ours, MaxDifference(Reconstruct8(c).cast<LongComplex>(), v));
      papers = std::max(papers, MaxDifference(ReconstructWithPapersCOne(c).cast<LongComplex>(), v));
      max_n = std::max(max_n, double(std::hypot(std::abs(v(0, 1)), std::abs(v(0, 2)))));
    }
    std::printf("  epsilon %.0e: worst error ours %.3g u, paper's %.3g u (u / max N^2 = %.3g u)\n", epsilon, ours / u,
                papers / u, 1 / (max_n * max_n));
    // The paper's form errs by at least about u / N^2 on the worst sample (its |c1| error alone, for |p1| ~ 1);
    // ours stays within its N-independent bound (checked above).
    EXPECT_GE(papers, 0.1 * u / (max_n * max_n)) << "epsilon " << epsilon;
    EXPECT_LT(ours, 1e-3 * papers) << "epsilon " << epsilon;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The singular point N = 0.

TEST(Su3CompressionTest, SingularThresholdIsSqrtOfMaxOfRoundoffAndDeviation) {
  EXPECT_EQ(SingularThreshold8<float>(0), std::ldexp(1.0, -12));  // sqrt(2^-24)
  EXPECT_EQ(SingularThreshold8<double>(0), std::sqrt(std::ldexp(1.0, -53)));
  EXPECT_EQ(SingularThreshold8<double>(1e-8), 1e-4);
  std::printf("N_min: float %.3e, double %.3e (for inputs within u of SU(3))\n", SingularThreshold8<float>(0),
              SingularThreshold8<double>(0));
}

template <typename T>
void SingularPointBehaviour() {
  const double u = UnitRoundoff<T>();
  // The unit matrix (the free field) survives exactly.
  const ColorMatrix<T> one = ColorMatrix<T>::Identity();
  const Compressed8<T> c = Compress8(one);
  for (T value : c.values) EXPECT_EQ(value, T(0));
  EXPECT_EQ(Reconstruct8(c), one);
  // diag(a1, a1^*, 1) survives to the rounding of cos and sin (2 ulp each, <= 3 u in modulus) plus the stored
  // phase (atan2 and rounding, <= 10 u).
  const T alpha = T(0.7);
  ColorMatrix<T> diagonal = ColorMatrix<T>::Identity();
  diagonal(0, 0) = std::polar(T(1), alpha);
  diagonal(1, 1) = std::polar(T(1), -alpha);
  EXPECT_LE((Reconstruct8(Compress8(diagonal)) - diagonal).cwiseAbs().maxCoeff(), 13 * u);
  // Other links at N = 0 cannot be represented and are refused.
  ColorMatrix<T> other_diagonal = diagonal;
  other_diagonal(1, 1) = std::polar(T(1), T(0.5));
  other_diagonal(2, 2) = std::polar(T(1), -alpha - T(0.5));
  EXPECT_THROW(Compress8(other_diagonal), std::domain_error);
  ColorMatrix<T> rotated_block = ColorMatrix<T>::Identity();  // diag(1, W) with W a real rotation
  rotated_block(1, 1) = rotated_block(2, 2) = T(std::cos(0.4));
  rotated_block(1, 2) = T(-std::sin(0.4));
  rotated_block(2, 1) = T(std::sin(0.4));
  EXPECT_THROW(Compress8(rotated_block), std::domain_error);
  // The same link tilted slightly away from N = 0, still below N_min: refused. tilt = exp(i t lambda_1).
  const double t = 0.1 * SingularThreshold8<T>(0);
  ColorMatrix<double> tilt = ColorMatrix<double>::Identity();
  tilt(0, 0) = tilt(1, 1) = std::cos(t);
  tilt(0, 1) = tilt(1, 0) = Complex<double>(0, std::sin(t));
  const ColorMatrix<T> tilted = (rotated_block.template cast<Complex<double>>() * tilt).template cast<Complex<T>>();
  EXPECT_THROW(Compress8(tilted), std::domain_error);
  // Near-unit links below N_min are stored in the singular form: error <= 4 N_min (the acceptance test)
  // + rounding of cos and sin (3 u) + the rounding of V to T (u).
  const double n_min = SingularThreshold8<T>(0);
  double worst = 0;
  for (int i = 0; i < 200; ++i) {
    RandomStream rng(55, i);
    const LongMatrix v = NearUnitReference(rng, 0.01 * n_min);
    const ColorMatrix<T> input = v.cast<Complex<T>>();
    const double n = std::hypot(std::abs(Complex<double>(input(0, 1))), std::abs(Complex<double>(input(0, 2))));
    ASSERT_LT(n, n_min);
    const double err = MaxDifference(Reconstruct8(Compress8(input)).template cast<LongComplex>(), v);
    worst = std::max(worst, err / n_min);
    ASSERT_LE(err, 4 * n_min + 4 * u);
  }
  std::printf("singular form, %s, near-unit links with epsilon = N_min / 100: worst error %.3f N_min\n", Name<T>(),
              worst);
}

TEST(Su3CompressionTest, SingularPointDouble) { SingularPointBehaviour<double>(); }
TEST(Su3CompressionTest, SingularPointFloat) { SingularPointBehaviour<float>(); }

// ---------------------------------------------------------------------------------------------------------
// Bad input.

TEST(Su3CompressionTest, BadInputIsRefused) {
  const ColorMatrix<double> two = 2 * ColorMatrix<double>::Identity();
  EXPECT_THROW(Compress12(two), std::invalid_argument);
  EXPECT_THROW(Compress8(two), std::invalid_argument);
  ColorMatrix<float> nan = ColorMatrix<float>::Identity();
  nan(1, 2) = Complex<float>(std::nanf(""), 0);
  EXPECT_THROW(Compress12(nan), std::invalid_argument);
  EXPECT_THROW(Compress8(nan), std::invalid_argument);

  Compressed8<double> too_long{};
  too_long.values[kReA2] = 1.1;  // 1 - N^2 = -0.21
  EXPECT_THROW(Reconstruct8(too_long), std::invalid_argument);
  Compressed8<double> column_too_long{};
  column_too_long.values[kReA2] = 0.1;
  column_too_long.values[kReB1] = 0.5;  // N^2 - |b1|^2 = -0.24
  EXPECT_THROW(Reconstruct8(column_too_long), std::invalid_argument);
  Compressed8<float> not_finite{};
  not_finite.values[kArgC1] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(Reconstruct8(not_finite), std::invalid_argument);

  Compressed12<double> parallel{};
  parallel.values[0] = 1;  // a = (1, 0, 0)
  parallel.values[6] = 1;  // b = (1, 0, 0)
  EXPECT_THROW(Reconstruct12(parallel), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------------
// Whole fields.

TEST(Su3CompressionTest, FieldsRoundTrip) {
  const Lattice lat(2, 2, 2, 4);
  const GaugeField<float> unit(lat);
  for (LinkCompression k : {LinkCompression::k18, LinkCompression::k12, LinkCompression::k8}) {
    EXPECT_EQ(CompressAndReconstruct(unit, k).links(), unit.links()) << ToString(k);
  }
  // A hot double field's third rows are ThirdRow of its first two (su3_random.h), so 12 numbers give it back
  // bit for bit; 8 numbers to the bound of EightNumbersRoundTripHaarMatrices (measured there: a few ulp).
  const GaugeField<double> hot = RandomGaugeField<double>(lat, 3);
  EXPECT_EQ(CompressAndReconstruct(hot, LinkCompression::k12).links(), hot.links());
  const GaugeField<double> hot8 = CompressAndReconstruct(hot, LinkCompression::k8);
  for (std::size_t i = 0; i < hot.links().size(); ++i) {
    EXPECT_EQ(hot8.links()[i], Reconstruct8(Compress8(hot.links()[i])));
  }
  GaugeField<double> broken = hot;
  broken.Link(5, 2) *= 1.5;
  try {
    CompressAndReconstruct(broken, LinkCompression::k12);
    ADD_FAILURE() << "a non-unitary link was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("site 5 mu 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lqcd
