// critical_mass_test: the pieces of the critical-mass determination (experiments/critical_mass.h).
//   - FitLine and Jackknife against closed forms;
//   - FitCriticalMass recovers a known m_c (pion and PCAC) from exact synthetic correlators to roundoff,
//     and from noisy ones within 4 jackknife errors;
//   - the one-end contraction equals the reference point-source pion correlator (reference/observables/propagator.h)
//     summed over the 12 columns, and C_AP equals the explicit trace tr[gamma_4 gamma_5 S gamma_5 S(x0; x)];
//   - the noise estimator is unbiased: the mean over many noise sources matches exact dilution (all unit
//     sources of the time slice) within 5 standard errors;
//   - scale and mean-field formulas at known points; bad input throws.
#include "experiments/critical_mass.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "reference/observables/propagator.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/even_odd.h"

namespace lqcd::experiments {
namespace {

constexpr double kU = 0x1p-53;

TEST(FitLine, ExactLine) {
  const std::vector<double> x = {-1.0, -0.5, 0.25, 2.0};
  std::vector<double> y;
  for (double v : x) y.push_back(2.0 - 3.0 * v);
  const LineFit f = FitLine(x, y);
  // Sums of 4 terms of size <= 8: each rounded to u relative; 64 u is far above the accumulated error.
  EXPECT_NEAR(f.slope, -3.0, 64 * kU * 8);
  EXPECT_NEAR(f.intercept, 2.0, 64 * kU * 8);
  EXPECT_NEAR(f.Root(), 2.0 / 3.0, 64 * kU * 8);
}

TEST(FitLine, BadInput) {
  EXPECT_THROW(FitLine({1.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(FitLine({1.0, 1.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(FitLine({1.0, 2.0}, {1.0}), std::invalid_argument);
}

TEST(Jackknife, OfTheMeanIsTheStandardError) {
  // For the sample mean, the jackknife error is exactly the standard error sqrt(sum (v - mean)^2 / (n (n-1))).
  const std::vector<double> v = {1.0, 4.0, 2.5, -0.5, 3.0, 0.25};
  const int n = static_cast<int>(v.size());
  const auto j = Jackknife(n, 1, [&](const std::vector<int>& w) {
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      if (w[i]) {
        s += v[i];
        ++k;
      }
    }
    return std::vector<double>{s / k};
  });
  double mean = 0;
  for (double x : v) mean += x / n;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  EXPECT_NEAR(j[0].value, mean, 16 * kU * 4);
  // A few dozen roundings of numbers of size <= 4: 1e-13 absolute is a generous bound.
  EXPECT_NEAR(j[0].error, std::sqrt(ss / (n * (n - 1.0))), 1e-13);
  EXPECT_EQ(Jackknife(1, 1, [](const std::vector<int>&) { return std::vector<double>{7.0}; })[0].error, 0.0);
}

// C_PP(t) = A cosh(m_pi (t - T/2)); C_AP(t) = c sinh(m_pi (t - T/2)) with c = 2 A m_PCAC / sinh(m_pi), so
// that [C_AP(t+1) - C_AP(t-1)] / (4 C_PP(t)) = m_PCAC exactly for every t.
MesonCorrelators Synthetic(int lt, double m_pi, double m_pcac, double amplitude) {
  MesonCorrelators c{std::vector<double>(lt), std::vector<double>(lt)};
  const double coefficient = 2 * amplitude * m_pcac / std::sinh(m_pi);
  for (int t = 0; t < lt; ++t) {
    c.pp[t] = amplitude * std::cosh(m_pi * (t - lt / 2.0));
    c.ap[t] = coefficient * std::sinh(m_pi * (t - lt / 2.0));
  }
  return c;
}

constexpr double kTrueMc = -1.02, kSlopeB = 4.5, kTrueMcPcac = -1.03, kSlopeZ = 0.8;

std::vector<MassCorrelators> SyntheticEnsemble(int lt, int configs, double noise, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<MassCorrelators> data;
  for (double m : {-0.95, -0.90, -0.85}) {
    MassCorrelators mc;
    mc.mass = m;
    const double m_pi = std::sqrt(kSlopeB * (m - kTrueMc));
    const double m_pcac = kSlopeZ * (m - kTrueMcPcac);
    for (int k = 0; k < configs; ++k) {
      MesonCorrelators c = Synthetic(lt, m_pi, m_pcac, 3.0);
      for (int t = 0; t < lt; ++t) {
        c.pp[t] *= 1 + noise * gauss(gen);
        c.ap[t] *= 1 + noise * gauss(gen);
      }
      mc.per_config.push_back(c);
    }
    data.push_back(mc);
  }
  return data;
}

TEST(FitCriticalMass, RecoversKnownCriticalMassFromExactCorrelators) {
  const int lt = 16;
  const std::vector<MassCorrelators> data = SyntheticEnsemble(lt, 3, 0.0, 1);
  const CriticalMassFit fit = FitCriticalMass(data, DefaultPlateauFirst(lt), DefaultPlateauLast(lt));
  // Roundoff only: the cosh ratio is exact to ~4u and d ln(ratio) / d m_pi >= tanh(m_pi) >= 0.5 in the
  // window, so m_pi is exact to ~1e-15; the straight-line root amplifies that by (x spread / y spread)
  // ~ 10. 1e-12 leaves a factor 100.
  EXPECT_NEAR(fit.pion_critical_mass.value, kTrueMc, 1e-12);
  EXPECT_NEAR(fit.pion_slope.value, kSlopeB, 1e-11);
  EXPECT_NEAR(fit.pcac_critical_mass.value, kTrueMcPcac, 1e-12);
  EXPECT_NEAR(fit.pcac_slope.value, kSlopeZ, 1e-11);
  // Identical configurations: no spread, so no jackknife error (up to roundoff).
  EXPECT_LT(fit.pion_critical_mass.error, 1e-12);
  EXPECT_NEAR(fit.SystematicError(), std::abs(kTrueMc - kTrueMcPcac), 1e-12);
  // The quoted error: the PCAC jackknife error (zero here) and the pion-PCAC difference in quadrature.
  EXPECT_NEAR(fit.TotalError(), std::abs(kTrueMc - kTrueMcPcac), 1e-12);
  ASSERT_EQ(fit.pion_mass.size(), 3u);
  EXPECT_NEAR(fit.pion_mass[0].value, std::sqrt(kSlopeB * (-0.95 - kTrueMc)), 1e-13);
}

TEST(FitCriticalMass, RecoversKnownCriticalMassWithinJackknifeErrors) {
  const int lt = 16;
  const std::vector<MassCorrelators> data = SyntheticEnsemble(lt, 24, 0.02, 7);
  const CriticalMassFit fit = FitCriticalMass(data, DefaultPlateauFirst(lt), DefaultPlateauLast(lt));
  EXPECT_GT(fit.pion_critical_mass.error, 0);
  EXPECT_LT(std::abs(fit.pion_critical_mass.value - kTrueMc), 4 * fit.pion_critical_mass.error);
  EXPECT_LT(std::abs(fit.pcac_critical_mass.value - kTrueMcPcac), 4 * fit.pcac_critical_mass.error);
  // The errors are small compared with the distance between the two synthetic critical masses, so the
  // test would notice the pion and PCAC fits being swapped.
  EXPECT_LT(4 * fit.pion_critical_mass.error, std::abs(kTrueMc - kTrueMcPcac));
}

TEST(FitCriticalMass, BadInput) {
  const std::vector<MassCorrelators> data = SyntheticEnsemble(16, 2, 0.0, 1);
  EXPECT_THROW(FitCriticalMass({data[0]}, 4, 7), std::invalid_argument);
  std::vector<MassCorrelators> uneven = data;
  uneven[1].per_config.pop_back();
  EXPECT_THROW(FitCriticalMass(uneven, 4, 7), std::invalid_argument);
  EXPECT_THROW(FitCriticalMass(data, 0, 7), std::invalid_argument);  // t - 1 < 0
  EXPECT_THROW(FitCriticalMass(data, 4, 8), std::invalid_argument);  // beyond L_t / 2 - 1
}

TEST(TimeSliceNoise, UnitModulusOnTheSliceZeroElsewhere) {
  const Lattice lattice(4, 4, 4, 8);
  const SpinorField<double> eta = TimeSliceNoise(lattice, 3, 11);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const double norm2 = std::norm(eta[site](s, c));
        if (lattice.Coords(site)[3] == 3) {
          EXPECT_NEAR(norm2, 1.0, 4 * kU);  // (1/sqrt2)^2 twice, each rounded
        } else {
          EXPECT_EQ(norm2, 0.0);
        }
      }
    }
  }
  EXPECT_THROW(TimeSliceNoise(lattice, 8, 1), std::invalid_argument);
  EXPECT_THROW(TimeSliceNoise(lattice, -1, 1), std::invalid_argument);
}

// M^{-1} b through the even-odd BiCGstab of the solvers, to 1e-13.
SpinorField<double> Solve(const GaugeField<double>& u, const WilsonParams& w, const SpinorField<double>& b) {
  const solvers::CpuWilson<double> m(u, w);
  const solvers::CpuWilsonSchur<double> schur(u, w);
  SpinorField<double> x(u.lattice());
  solvers::SolverParams p;
  p.tolerance = 1e-13;
  p.record_history = false;
  const solvers::SolveResult r = solvers::EvenOddBiCGstab(schur, m, x, b, p);
  if (!r.converged()) throw std::runtime_error(r.Summary());
  return x;
}

TEST(ContractOneEnd, PointSourceColumnsGiveTheReferencePionCorrelatorAndTheAxialTrace) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 5);
  WilsonParams w;
  w.mass = 0.1;
  const int x0 = lattice.Index({1, 2, 3, 5});
  const int t0 = 5;
  const PointPropagator prop = ComputePointPropagator(
      lattice, x0, [&](const SpinorField<double>& source, int, int) { return Solve(u, w, source); });
  const std::vector<double> reference_pp = PionCorrelator(prop);
  MesonCorrelators sum{std::vector<double>(8, 0.0), std::vector<double>(8, 0.0)};
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) {
      const MesonCorrelators one = ContractOneEnd(prop.Column(s, c), t0, w.basis);
      for (int t = 0; t < 8; ++t) {
        sum.pp[t] += one.pp[t];
        sum.ap[t] += one.ap[t];
      }
    }
  }
  // C_AP(t) = sum_x tr[gamma_4 gamma_5 S(x; x0) gamma_5 S(x0; x)], S(x0; x) = gamma_5 S(x; x0)^dag gamma_5,
  // with 12x12 matrices (index 3 s + c): the spin matrices act as G (x) 1_3.
  auto spin = [](const SpinMatrix& g) {
    SpinColorMatrix<double> out = SpinColorMatrix<double>::Zero();
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        for (int c = 0; c < 3; ++c) out(3 * a + c, 3 * b + c) = g(a, b);
      }
    }
    return out;
  };
  const SpinColorMatrix<double> g5 = spin(Gamma5(w.basis)), g4g5 = spin(Gamma(w.basis, 3) * Gamma5(w.basis));
  std::vector<double> trace_ap(8, 0.0);
  for (int site = 0; site < lattice.volume(); ++site) {
    const SpinColorMatrix<double> s = prop.At(site);
    const int t = ((lattice.Coords(site)[3] - t0) % 8 + 8) % 8;
    trace_ap[t] += (g4g5 * s * g5 * (g5 * s.adjoint() * g5)).trace().real();
  }
  for (int t = 0; t < 8; ++t) {
    // Both sides sum the same non-negative terms (|psi|^2 over 12 columns x 64 sites) in different
    // orders: relative error <= (number of terms) u = 768 u; 1e-12 relative leaves a margin.
    EXPECT_NEAR(sum.pp[t], reference_pp[t], 1e-12 * reference_pp[t]) << "t = " << t;
    // The trace form does 12x12 products (~ 12^2 roundings per entry) on the same numbers; the terms have
    // both signs, so the bound is relative to the size sum_x |S|^2 = C_PP(t).
    EXPECT_NEAR(sum.ap[t], trace_ap[t], 1e-11 * reference_pp[t]) << "t = " << t;
  }
  // C_AP is not trivially zero: the test above would notice a missing term.
  EXPECT_GT(std::abs(sum.ap[1]), 1e-3 * sum.pp[1]);
}

TEST(OneEndTrick, NoiseAverageMatchesExactDilution) {
  // 2x2x2x4: 8 sites per slice, so exact dilution is 96 solves; 400 noise sources give the average.
  const Lattice lattice(2, 2, 2, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 9);
  WilsonParams w;
  w.mass = 0.3;
  const int t0 = 1;
  MesonCorrelators exact{std::vector<double>(4, 0.0), std::vector<double>(4, 0.0)};
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.Coords(site)[3] != t0) continue;
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const MesonCorrelators one = ContractOneEnd(Solve(u, w, PointSource<double>(lattice, site, s, c)), t0, w.basis);
        for (int t = 0; t < 4; ++t) {
          exact.pp[t] += one.pp[t];
          exact.ap[t] += one.ap[t];
        }
      }
    }
  }
  const int n = 400;
  std::vector<double> sum_pp(4, 0.0), sum_ap(4, 0.0), sq_pp(4, 0.0), sq_ap(4, 0.0);
  for (int k = 0; k < n; ++k) {
    const MesonCorrelators c = ContractOneEnd(Solve(u, w, TimeSliceNoise(lattice, t0, 1000 + k)), t0, w.basis);
    for (int t = 0; t < 4; ++t) {
      sum_pp[t] += c.pp[t];
      sum_ap[t] += c.ap[t];
      sq_pp[t] += c.pp[t] * c.pp[t];
      sq_ap[t] += c.ap[t] * c.ap[t];
    }
  }
  for (int t = 0; t < 4; ++t) {
    const double mean_pp = sum_pp[t] / n, mean_ap = sum_ap[t] / n;
    const double err_pp = std::sqrt((sq_pp[t] / n - mean_pp * mean_pp) / (n - 1));
    const double err_ap = std::sqrt((sq_ap[t] / n - mean_ap * mean_ap) / (n - 1));
    EXPECT_LT(std::abs(mean_pp - exact.pp[t]), 5 * err_pp) << "t = " << t;
    EXPECT_LT(std::abs(mean_ap - exact.ap[t]), 5 * err_ap + 1e-12 * exact.pp[t]) << "t = " << t;
    // Power: a wrongly normalised noise (|eta|^2 = 2, or 1/2) would miss by 100% of C_PP.
    EXPECT_LT(5 * err_pp, 0.5 * exact.pp[t]) << "t = " << t;
  }
}

TEST(Scale, NeccoSommerAndMeanField) {
  // Necco and Sommer quote r0 / a = 5.368 at beta = 6.0, where the interpolation is exp(1.6804).
  EXPECT_NEAR(1 / LatticeSpacingOverR0(6.0), 5.368, 0.005);
  EXPECT_NEAR(1 / LatticeSpacingOverR0(5.7), 2.922, 0.03);  // their measured value at 5.7: 2.922(9)
  EXPECT_THROW(LatticeSpacingOverR0(5.5), std::invalid_argument);
  // a m_ss = 0.687 GeV * a; at beta 6.0 a = 0.5 fm / 5.368.
  EXPECT_NEAR(StrangePseudoscalarLatticeMass(6.0), 0.687 * (0.5 / 5.3683) / 0.1973269804, 1e-3);
  EXPECT_EQ(MeanFieldCriticalMass(1.0), 0.0);  // free field: kappa_c = 1/8
  EXPECT_NEAR(MeanFieldCriticalMass(0.5), 4 * std::pow(0.5, 0.25) - 4, 4 * kU);
  EXPECT_THROW(MeanFieldCriticalMass(0.0), std::invalid_argument);
}

TEST(EstimatePlateau, BadWindowThrows) {
  const MesonCorrelators c = Synthetic(12, 0.7, 0.1, 1.0);
  EXPECT_THROW(EstimatePlateau(c, 0, 3), std::invalid_argument);
  EXPECT_THROW(EstimatePlateau(c, 3, 6), std::invalid_argument);
  const PlateauEstimate e = EstimatePlateau(c, 3, 5);
  EXPECT_NEAR(e.pion_mass, 0.7, 1e-13);
  EXPECT_NEAR(e.pcac_mass, 0.1, 1e-13);
}

}  // namespace
}  // namespace lqcd::experiments
