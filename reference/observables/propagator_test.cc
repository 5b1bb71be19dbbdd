// Tests of reference/observables/propagator.h and reference/observables/free_wilson.h with the sparse LU ground truth
// (sparse_wilson.h) as the solver: the oracle's propagator code is checked without solvers/.
//
// Error bounds (derived, not tuned). For a computed column x of M^{-1} b (|b| = 1):
//   |x - x*| <= ||M^{-1}|| (|r^| + rho),  r^ = fl(b - A x) computed with the sparse matrix A = M,
//   rho = gamma_{k+1} || |A| ||_2 |x| + u |b|  (a row of A x sums k = max non-zeros per row products; || |A| ||_2
//   <= sqrt(max row sum * max column sum) of |a_ij|, read off the matrix).
// ||M^{-1}||: free field, exactly max_p den(p)^{-1/2} (free_wilson.h); any unitary field, 1/m for m > 0
// (Hermitian part of M >= m since the Hermitian part of D/2 has norm <= 4); clover, 1 / (lambda_min(T) - 4).
// For the 12 columns, eps = sqrt(sum_col delta_col^2) bounds the Frobenius error of S on every time slice, so
//   |C(t) - C*(t)| <= eps (2 sqrt(C(t)) + eps)      (| |S|^2 - |S*|^2 | <= |S - S*| (|S| + |S*|)),
// plus the summation rounding gamma_{12 V} C(t).
#include "reference/observables/propagator.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "reference/clover.h"
#include "reference/observables/free_wilson.h"
#include "reference/sparse_wilson.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"

namespace lqcd {
namespace {

constexpr double kU = 0x1p-53;

// gamma_n = n u / (1 - n u): the classical bound on n accumulated roundings.
double GammaN(double n) { return n * kU / (1 - n * kU); }

// || |A| ||_2 bound and the largest number of non-zeros in a row of a sparse matrix.
struct AbsNorm {
  double norm = 0;
  int max_row_nonzeros = 0;
};

template <typename Matrix>
AbsNorm AbsoluteNorm(const Matrix& a) {
  Eigen::VectorXd row_sum = Eigen::VectorXd::Zero(a.rows()), col_sum = Eigen::VectorXd::Zero(a.cols());
  Eigen::VectorXi row_nnz = Eigen::VectorXi::Zero(a.rows());
  for (int k = 0; k < a.outerSize(); ++k) {
    for (typename Matrix::InnerIterator it(a, k); it; ++it) {
      row_sum(it.row()) += std::abs(it.value());
      col_sum(it.col()) += std::abs(it.value());
      row_nnz(it.row()) += 1;
    }
  }
  return {std::sqrt(row_sum.maxCoeff() * col_sum.maxCoeff()), row_nnz.maxCoeff()};
}

// A propagator from the LU solver with a bound on its Frobenius error (file comment).
struct SolvedPropagator {
  PointPropagator s;
  double error = 0;  // eps
};

SolvedPropagator SolveDirect(const DirectWilsonSolver& solver, const Lattice& lattice, int source, double inverse_norm) {
  const AbsNorm abs = AbsoluteNorm(solver.matrix());
  double error2 = 0;
  PointPropagator s = ComputePointPropagator(lattice, source, [&](const SpinorField<double>& b, int, int) {
    SpinorField<double> x = solver.Solve(b);
    const ComplexVector r = ToVector(b) - solver.matrix() * ToVector(x);
    const double rho = GammaN(abs.max_row_nonzeros + 1) * abs.norm * std::sqrt(Norm2(x)) + kU;
    const double delta = inverse_norm * (r.norm() + rho);
    error2 += delta * delta;
    return x;
  });
  return {std::move(s), std::sqrt(error2)};
}

// |C(t) - C*(t)| for a correlator of a propagator with Frobenius error eps (file comment).
double CorrelatorBound(double c, double eps, const Lattice& lattice) {
  return eps * (2 * std::sqrt(c) + eps) + GammaN(12.0 * lattice.volume()) * c;
}

// Rounding of FreeWilsonPionCorrelator: |alpha|, |beta_mu| <= N = ||M^{-1}|| (|a|, |s_mu| <= sqrt(den)), each
// computed from L_t terms with <= 6 roundings per term: error gamma_{L_t + 6} N; |F|^2 = 5 squared moduli,
// each off by <= (2 gamma + 2u) N^2; times 12 / V_s summed over V_s momenta: 120 (gamma + u) N^2, plus
// gamma_{V_s} C for the final sum of positive terms.
double MomentumSumBound(double c, double inverse_norm, const Lattice& lattice) {
  const int lt = lattice.extent(3);
  const double vs = static_cast<double>(lattice.volume()) / lt;
  return 120 * (GammaN(lt + 6) + kU) * inverse_norm * inverse_norm + GammaN(vs) * c;
}

Coordinates Separation(const Lattice& lattice, int site, int source) {
  const Coordinates x = lattice.Coords(site), x0 = lattice.Coords(source);
  Coordinates d{};
  for (int mu = 0; mu < kDims; ++mu) d[mu] = x[mu] - x0[mu];
  return d;
}

SiteBlocks CloverTerms(const GaugeField<double>& u, double c_sw, GammaBasis basis) {
  SiteBlocks blocks(u.lattice().volume());
  for (int site = 0; site < u.lattice().volume(); ++site) blocks[site] = CloverTermMatrix(u, site, c_sw, basis);
  return blocks;
}

// ---- Free field against the closed form ----

TEST(FreeWilsonTest, PropagatorMatchesTheMomentumSumSiteBySite) {
  // Antiperiodic time, and a source away from the origin so that separations cross the boundary. (Extent
  // 2 in z: the hops to n + z and n - z reach the same site; the momentum sum describes that exactly too.)
  const Lattice lattice(4, 4, 2, 4);
  const GaugeField<double> u(lattice);  // unit links
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    WilsonParams params;
    params.mass = 0.2;
    params.basis = basis;
    const double n = FreeWilsonInverseNorm(lattice, params.mass, params.boundary);
    const int source = lattice.Index({1, 2, 1, 2});
    const SolvedPropagator solved = SolveDirect(DirectWilsonSolver(u, params), lattice, source, n);
    // Rounding of FreeWilsonPropagator: alpha and the four beta_mu are sums of V terms of modulus <= N / V,
    // each with <= 6 roundings: error gamma_{V+6} N each; an entry of S combines alpha and beta's with
    // gamma entries of modulus <= 1: <= 5 gamma_{V+6} N.
    const double sum_rounding = 5 * GammaN(lattice.volume() + 6) * n;
    double max_deviation = 0;
    for (int site = 0; site < lattice.volume(); ++site) {
      const SpinMatrix expected = FreeWilsonPropagator(lattice, params.mass, basis, params.boundary,
                                                       Separation(lattice, site, source));
      const SpinColorMatrix<double> s = solved.s.At(site);
      for (int a = 0; a < 12; ++a) {
        for (int b = 0; b < 12; ++b) {
          const Complex<double> e = (a % 3 == b % 3) ? expected(a / 3, b / 3) : Complex<double>(0);
          max_deviation = std::max(max_deviation, std::abs(s(a, b) - e));
        }
      }
    }
    // Entry error <= Frobenius error eps of S (plus the sum's rounding).
    EXPECT_LE(max_deviation, solved.error + sum_rounding) << ToString(basis);
    // The comparison has teeth: the propagator at the source is O(1).
    EXPECT_GT(std::abs(solved.s.At(source)(0, 0)), 0.1);
  }
}

TEST(FreeWilsonTest, CorrelatorMatchesTheParsevalSumAndIsTimeReflectionSymmetric) {
  // Extent 2 in x and z keeps the LU cheap; the hop to n + mu and n - mu then reach the same site, which the
  // momentum sum (momenta with e^{2 i p} = +-1) describes exactly as well.
  const Lattice lattice(2, 4, 2, 8);
  const GaugeField<double> u(lattice);
  struct Case {
    double mass;
    FermionBoundary boundary;
  };
  FermionBoundary all_antiperiodic;
  for (auto& c : all_antiperiodic.condition) c = BoundaryCondition::kAntiperiodic;
  for (const Case& c : {Case{0.2, FermionBoundary::AntiperiodicTime()}, Case{0.5, FermionBoundary::Periodic()},
                        Case{0.1, all_antiperiodic}}) {
    WilsonParams params;
    params.mass = c.mass;
    params.boundary = c.boundary;
    const double n = FreeWilsonInverseNorm(lattice, c.mass, c.boundary);
    const SolvedPropagator solved =
        SolveDirect(DirectWilsonSolver(u, params), lattice, lattice.Index({0, 0, 0, 3}), n);
    const std::vector<double> computed = PionCorrelator(solved.s);
    const std::vector<double> expected = FreeWilsonPionCorrelator(lattice, c.mass, c.boundary);
    ASSERT_EQ(computed.size(), 8u);
    for (int t = 0; t < 8; ++t) {
      EXPECT_LE(std::abs(computed[t] - expected[t]),
                CorrelatorBound(computed[t], solved.error, lattice) + MomentumSumBound(expected[t], n, lattice))
          << "m = " << c.mass << " bc " << c.boundary.ToString() << " t = " << t;
      EXPECT_GT(computed[t], 0);
      // The free field is symmetric under t -> -t: C(t) = C(L_t - t), within both correlators' bounds.
      const int reflected = (8 - t) % 8;
      EXPECT_LE(std::abs(computed[t] - computed[reflected]),
                CorrelatorBound(computed[t], solved.error, lattice) +
                    CorrelatorBound(computed[reflected], solved.error, lattice));
    }
    // The correlator falls from the source (a sanity check that the comparison is not between zeros).
    EXPECT_GT(expected[0], 10 * expected[4]);
  }
}

TEST(FreeWilsonTest, InverseNormIsTheLargestInverseSingularValue) {
  // At m = 0.3 with antiperiodic time the smallest den(p) is at p = (0, 0, 0, pi / L_t).
  const Lattice lattice(4, 4, 4, 8);
  const double m = 0.3, p = 3.14159265358979323846 / 8;
  const double a = m + 1 - std::cos(p), den = a * a + std::sin(p) * std::sin(p);
  EXPECT_NEAR(FreeWilsonInverseNorm(lattice, m, FermionBoundary::AntiperiodicTime()), 1 / std::sqrt(den),
              8 * kU / std::sqrt(den));  // a handful of roundings in den and the square root
  // Periodic with m = 0 has the zero mode p = 0.
  EXPECT_THROW(FreeWilsonInverseNorm(lattice, 0.0, FermionBoundary::Periodic()), std::invalid_argument);
  EXPECT_THROW(FreeWilsonPionCorrelator(lattice, -4.5, FermionBoundary::AntiperiodicTime()), std::invalid_argument);
}

TEST(FreeWilsonTest, MomentumPropagatorInvertsTheMomentumSpaceMatrix) {
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    const std::array<double, kDims> p{0.3, -1.1, 2.0, 0.7};
    const double m = 0.25;
    SpinMatrix mp = SpinMatrix::Identity() * Complex<double>(m);
    for (int mu = 0; mu < kDims; ++mu) {
      mp += SpinMatrix::Identity() * Complex<double>(1 - std::cos(p[mu]));
      mp += Complex<double>(0, std::sin(p[mu])) * Gamma(basis, mu);
    }
    // 4x4 products of O(1) entries: a few tens of roundings.
    EXPECT_LE((mp * FreeWilsonMomentumPropagator(p, m, basis) - SpinMatrix::Identity()).cwiseAbs().maxCoeff(),
              64 * kU);
  }
}

// ---- gamma_5-Hermiticity: the sum of |S|^2 is the pion contraction ----

TEST(PionCorrelatorTest, SumOfSquaresEqualsTheGamma5ContractionWithAnIndependentDaggerPropagator) {
  const Lattice lattice(2, 4, 2, 4);
  const int source = lattice.Index({1, 0, 1, 1});
  struct Case {
    const char* name;
    GaugeField<double> u;
    double mass, c_sw;
  };
  const Case cases[] = {
      {"Wilson, Haar-random links", RandomGaugeField<double>(lattice, 11), 0.3, 0.0},
      {"clover, near-unit links", RandomNearUnitGaugeField<double>(lattice, 12, 0.2), 0.5, 1.0},
  };
  for (const Case& c : cases) {
    for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
      WilsonParams params;
      params.mass = c.mass;
      params.basis = basis;
      double inverse_norm = 1 / c.mass;  // Wilson: Hermitian part of M >= m
      SiteBlocks terms;
      if (c.c_sw != 0) {
        CloverParams cp;
        cp.mass = c.mass;
        cp.c_sw = c.c_sw;
        cp.basis = basis;
        const CloverField<double> clover(c.u, cp);
        ASSERT_GT(clover.min_eigenvalue(), 4) << "the bound ||M^{-1}|| <= 1 / (lambda_min - 4) needs lambda_min > 4";
        inverse_norm = 1 / (clover.min_eigenvalue() - 4);
        terms = CloverTerms(c.u, c.c_sw, basis);
      }
      const SolvedPropagator s =
          SolveDirect(DirectWilsonSolver(c.u, params, Dagger::kNo, terms), lattice, source, inverse_norm);
      // ||(M^dag)^{-1}|| = ||M^{-1}||.
      const SolvedPropagator sd =
          SolveDirect(DirectWilsonSolver(c.u, params, Dagger::kYes, terms), lattice, source, inverse_norm);
      const std::vector<double> squares = PionCorrelator(s.s), dagger_squares = PionCorrelator(sd.s);
      const std::vector<Complex<double>> contraction = PionCorrelatorFromContraction(s.s, sd.s, basis);
      const double spatial = lattice.volume() / lattice.extent(3);
      for (int t = 0; t < lattice.extent(3); ++t) {
        const double ns = std::sqrt(squares[t]), nd = std::sqrt(dagger_squares[t]);
        // Contraction vs its exact value: eps |S_dag|_t + (|S|_t + eps) eps_dag, plus the rounding of
        // 12x12 traces (144 products each) summed over the slice: gamma_{144 + V_s} |S|_t |S_dag|_t.
        const double contraction_bound = s.error * nd + (ns + s.error) * sd.error + GammaN(144 + spatial) * ns * nd;
        const double bound = contraction_bound + CorrelatorBound(squares[t], s.error, lattice);
        EXPECT_LE(std::abs(contraction[t].real() - squares[t]), bound) << c.name << " " << ToString(basis) << " t=" << t;
        EXPECT_LE(std::abs(contraction[t].imag()), contraction_bound) << c.name << " " << ToString(basis) << " t=" << t;
        EXPECT_GT(squares[t], 0);
      }
      // With the wrong gamma_5 (the other basis's) the contraction is not the pion: the check has teeth.
      // (At t = 0 the local term S(x0; x0) ~ 1 / (4 + m) dominates, for which any gamma_5 gives the same.)
      const GammaBasis other = basis == GammaBasis::kDeGrandRossi ? GammaBasis::kUkqcd : GammaBasis::kDeGrandRossi;
      const std::vector<Complex<double>> wrong = PionCorrelatorFromContraction(s.s, sd.s, other);
      EXPECT_GT(std::abs(wrong[1] - squares[1]), 0.1 * squares[1]) << c.name;
    }
  }
}

TEST(PionCorrelatorTest, BasisChangeLeavesTheCorrelatorInvariant) {
  // S_UKQCD = V S_DR V^dag (V = DeGrandRossiToUkqcd() (x) 1); |S|^2 summed per slice does not change.
  const Lattice lattice(2, 4, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 21);
  const int source = 0;
  std::vector<std::vector<double>> c;
  double bound_eps = 0;
  for (GammaBasis basis : {GammaBasis::kDeGrandRossi, GammaBasis::kUkqcd}) {
    WilsonParams params;
    params.mass = 0.4;
    params.basis = basis;
    const SolvedPropagator s = SolveDirect(DirectWilsonSolver(u, params), lattice, source, 1 / params.mass);
    c.push_back(PionCorrelator(s.s));
    bound_eps = std::max(bound_eps, s.error);
  }
  for (int t = 0; t < 4; ++t) {
    EXPECT_LE(std::abs(c[0][t] - c[1][t]), 2 * CorrelatorBound(c[0][t], bound_eps, lattice)) << t;
  }
}

// ---- Normalisation ----

TEST(PionCorrelatorTest, KappaNormalisedPropagatorIsMInverseOverTwoKappa) {
  // Build 1 - kappa D (+ 2 kappa A) densely from the independently assembled hopping matrix, solve it with a
  // dense LU, and compare its correlator with KappaNormalisedCorrelator of the M^{-1} correlator.
  const Lattice lattice(2, 2, 2, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 31, 0.2);
  const int source = lattice.Index({1, 0, 1, 2});
  const int n = 12 * lattice.volume();
  for (double c_sw : {0.0, 1.0}) {
    WilsonParams params;
    params.mass = 0.5;
    const double kappa = params.kappa();
    SiteBlocks terms;
    if (c_sw != 0) terms = CloverTerms(u, c_sw, params.basis);
    double inverse_norm = 1 / params.mass;
    if (c_sw != 0) {
      CloverParams cp;
      cp.mass = params.mass;
      cp.c_sw = c_sw;
      const CloverField<double> clover(u, cp);
      ASSERT_GT(clover.min_eigenvalue(), 4);
      inverse_norm = 1 / (clover.min_eigenvalue() - 4);
    }
    const SolvedPropagator s = SolveDirect(DirectWilsonSolver(u, params, Dagger::kNo, terms), lattice, source,
                                           inverse_norm);
    Eigen::MatrixXcd k = Eigen::MatrixXcd::Identity(n, n) -
                         kappa * Eigen::MatrixXcd(SparseHopping(u, params.basis, params.boundary));
    for (int site = 0; site < lattice.volume() && c_sw != 0; ++site) {
      k.block<12, 12>(12 * site, 12 * site) += 2 * kappa * terms[site];
    }
    const Eigen::PartialPivLU<Eigen::MatrixXcd> lu(k);
    // ||K^{-1}|| = ||M^{-1}|| / (2 kappa) since K = 2 kappa M.
    const double k_inverse_norm = inverse_norm / (2 * kappa);
    // || |K| ||_2 <= sqrt(max row sum * max column sum) of |k_ij|.
    const double abs_k = k.cwiseAbs().rowwise().sum().maxCoeff();
    const double abs_k_cols = k.cwiseAbs().colwise().sum().maxCoeff();
    double error2 = 0;
    PointPropagator g = ComputePointPropagator(lattice, source, [&](const SpinorField<double>& b, int, int) {
      const ComplexVector bv = ToVector(b);
      const ComplexVector x = lu.solve(bv);
      const double rho = GammaN(n + 1) * std::sqrt(abs_k * abs_k_cols) * x.norm() + kU;
      const double delta = k_inverse_norm * ((bv - k * x).norm() + rho);
      error2 += delta * delta;
      return FromVector(x, lattice, Subset::kFull);
    });
    const std::vector<double> c_kappa = PionCorrelator(g);
    const std::vector<double> c_m = KappaNormalisedCorrelator(PionCorrelator(s.s), kappa);
    for (int t = 0; t < 4; ++t) {
      // C_m / (4 kappa^2) has the error of C_m scaled by 1 / (4 kappa^2) (plus 3 roundings).
      const double bound = CorrelatorBound(c_kappa[t], std::sqrt(error2), lattice) +
                           CorrelatorBound(c_m[t] * 4 * kappa * kappa, s.error, lattice) / (4 * kappa * kappa) +
                           4 * kU * c_m[t];
      EXPECT_LE(std::abs(c_kappa[t] - c_m[t]), bound) << "c_sw " << c_sw << " t " << t;
    }
    // The two normalisations really differ (by 1 / (4 kappa^2) ~ 18 here).
    EXPECT_GT(c_kappa[0], 10 * PionCorrelator(s.s)[0]);
  }
}

// ---- Effective masses ----

// PionCorrelator and ColumnNorms run on every OpenMP thread: the same bits with 1, 2 and 3 threads, and the
// same as the single-threaded definitions written out here (each site's 12 columns summed, then the sites added
// into C(t) in site order; each column's Norm2).
TEST(PionCorrelatorTest, ThreadsChangeNoBit) {
  const Lattice lattice(4, 2, 2, 6);
  PointPropagator s(lattice, lattice.Index({1, 0, 1, 2}));
  for (int k = 0; k < 12; ++k) FillGaussian(s.MutableColumn(k / 3, k % 3), 40 + k);
  std::vector<double> c(lattice.extent(3), 0.0);
  for (int site = 0; site < lattice.volume(); ++site) {
    double sum = 0;
    for (int k = 0; k < 12; ++k) sum += s.Column(k / 3, k % 3)[site].squaredNorm();
    c[(lattice.Coords(site)[3] - 2 + 6) % 6] += sum;
  }
  std::vector<double> norms(12);
  for (int k = 0; k < 12; ++k) norms[k] = std::sqrt(Norm2(s.Column(k / 3, k % 3)));
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    const std::vector<double> correlator = PionCorrelator(s), column_norms = ColumnNorms(s);
    for (int t = 0; t < 6; ++t) EXPECT_EQ(correlator[t], c[t]) << threads << " threads, t = " << t;
    for (int k = 0; k < 12; ++k) EXPECT_EQ(column_norms[k], norms[k]) << threads << " threads, column " << k;
  }
  omp_set_num_threads(saved);
  // New columns are zero (a zero initial guess for solvers writing in place).
  const PointPropagator fresh(lattice, 0);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(Norm2(fresh.Column(k / 3, k % 3)), 0.0) << "column " << k;
}

TEST(EffectiveMassTest, CoshFormRecoversTheMassOfAnExactCosh) {
  const int lt = 16;
  for (double m : {0.05, 0.35, 1.2}) {
    std::vector<double> c(lt);
    for (int t = 0; t < lt; ++t) c[t] = 3.5 * std::cosh(m * (t - lt / 2.0));
    const std::vector<double> meff = CoshEffectiveMass(c);
    ASSERT_EQ(meff.size(), static_cast<std::size_t>(lt - 1));
    for (int t = 0; t + 1 < lt; ++t) {
      // The data carry ~3u relative error each (cosh, product), the log ratio ~8u; the solver's own g(m)
      // has ~3u (|log cosh(m u)| + |log cosh(m (u + 1))|) <= 6u m L_t. The error in m is that over
      // g'(m) = |u| tanh(m |u|) - |u + 1| tanh(m |u + 1|) in modulus (monotone, file comment), plus the
      // bisection's last bit.
      const double u = t - lt / 2.0;
      const double slope =
          std::abs(std::abs(u) * std::tanh(m * std::abs(u)) - std::abs(u + 1) * std::tanh(m * std::abs(u + 1)));
      const double bound = ((8 + m) * kU + 6 * kU * m * lt) / slope + 4 * kU * m;
      EXPECT_NEAR(meff[t], m, bound) << "m = " << m << " t = " << t;
    }
    // The log form is only right far from the midpoint; at t = 0 it is off by the backward-moving state.
    const std::vector<double> mlog = LogEffectiveMass(c);
    EXPECT_GT(std::abs(mlog[lt / 2 - 1] - m), 0.01 * m);
  }
}

TEST(EffectiveMassTest, LogFormRecoversTheMassOfAnExponential) {
  const double m = 0.47;
  std::vector<double> c(12);
  for (int t = 0; t < 12; ++t) c[t] = 2.0 * std::exp(-m * t);
  const std::vector<double> meff = LogEffectiveMass(c);
  // Each value ~2u relative (exp, product); the log of the ratio: |d log| <= 5u, absolute in m.
  for (double v : meff) EXPECT_NEAR(v, m, 8 * kU * (1 + m * 12));
}

TEST(EffectiveMassTest, FoldingAveragesTheTwoHalves) {
  const std::vector<double> c{8, 4, 2, 1, 3, 6};  // L_t = 6: pairs (1, 5), (2, 4); 0 and 3 are their own mirror
  EXPECT_EQ(FoldCorrelator(c), (std::vector<double>{8, 5, 2.5, 1, 2.5, 5}));  // exact: halves of small integers
  // A symmetric correlator is unchanged, and folding is idempotent.
  std::vector<double> sym(16);
  for (int t = 0; t < 16; ++t) sym[t] = std::cosh(0.4 * (t - 8));
  const std::vector<double> folded = FoldCorrelator(sym);
  for (int t = 0; t < 16; ++t) EXPECT_NEAR(folded[t], sym[t], 2 * kU * sym[t]) << t;  // cosh(x) vs cosh(-x): ~1u
  EXPECT_EQ(FoldCorrelator(folded), folded);
  EXPECT_THROW(FoldCorrelator({}), std::invalid_argument);
}

TEST(EffectiveMassTest, NoSolutionGivesNaN) {
  // Rising before the midpoint (ratio < 1 where cosh needs > 1), a zero and a negative value.
  const std::vector<double> c{1.0, 2.0, 0.0, 1.0, -1.0, 1.0};
  const std::vector<double> cosh = CoshEffectiveMass(c), log = LogEffectiveMass(c);
  EXPECT_TRUE(std::isnan(cosh[0]));
  EXPECT_TRUE(std::isnan(cosh[1]));
  EXPECT_TRUE(std::isnan(log[1]));
  EXPECT_TRUE(std::isnan(log[3]));
  EXPECT_TRUE(std::isnan(cosh[4]));
  EXPECT_THROW(CoshEffectiveMass({1.0, 0.5, 0.25}), std::invalid_argument);  // odd L_t has no midpoint form
  EXPECT_THROW(LogEffectiveMass({1.0}), std::invalid_argument);
}

// ---- Bad input ----

TEST(PointPropagatorTest, RejectsBadInput) {
  const Lattice lattice(4, 4, 4, 4);
  EXPECT_THROW(PointPropagator(lattice, -1), std::invalid_argument);
  EXPECT_THROW(PointPropagator(lattice, lattice.volume()), std::invalid_argument);
  PointPropagator s(lattice, 3);
  EXPECT_THROW(s.SetColumn(0, 0, SpinorField<double>(Lattice(4, 4, 4, 8))), std::invalid_argument);
  EXPECT_THROW(s.SetColumn(0, 0, SpinorField<double>(lattice, Subset::kEven)), std::invalid_argument);
  EXPECT_THROW(s.SetColumn(4, 0, SpinorField<double>(lattice)), std::invalid_argument);
  EXPECT_THROW(s.Column(0, 3), std::invalid_argument);
  EXPECT_THROW(PionCorrelatorFromContraction(s, PointPropagator(lattice, 4), GammaBasis::kDeGrandRossi),
               std::invalid_argument);
  EXPECT_THROW(KappaNormalisedCorrelator({1.0}, 0.0), std::invalid_argument);
}

TEST(PointPropagatorTest, CorrelatorTimeIsCountedFromTheSourceSlice) {
  // A hand-made propagator: column (0, 0) is 1 at one site of slice t = 1 and 2 at one site of slice t = 3;
  // with the source on slice 3, C(0) = 4 and C(L_t - 2) = 1.
  const Lattice lattice(2, 2, 2, 4);
  PointPropagator s(lattice, lattice.Index({0, 0, 0, 3}));
  SpinorField<double> col(lattice);
  col[lattice.Index({1, 0, 0, 1})](0, 0) = 1;
  col[lattice.Index({0, 1, 0, 3})](2, 1) = Complex<double>(0, 2);
  s.SetColumn(0, 0, col);
  EXPECT_EQ(PionCorrelator(s), (std::vector<double>{4, 0, 1, 0}));
  EXPECT_EQ(s.At(lattice.Index({0, 1, 0, 3}))(3 * 2 + 1, 0), Complex<double>(0, 2));
}

}  // namespace
}  // namespace lqcd
