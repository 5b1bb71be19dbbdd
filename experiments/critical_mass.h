// critical_mass.h: the critical bare mass m_c of a quenched Wilson ensemble, where the pion becomes
// massless, and the physical quark-mass scale used to place the masses of the solver tables (the paper's
// Tables 3-5 span m_c ... m_s, "between the critical mass (extremely light) and the approximate strange
// quark mass").
//
// Correlators (one-end trick, one solve per configuration and mass): a noise source eta on the time slice
// t0, every spin-colour component of every site an independent complex Z2 number (+-1 +- i)/sqrt(2), so
// E[eta_a eta_b^*] = delta_ab on that slice and eta = 0 elsewhere. With phi = M^{-1} eta,
//     E[phi(x) phi(x)^dag] = sum_{y in t0} S(x; y) S(x; y)^dag,          S = M^{-1} (12x12 blocks),
// so, using gamma_5-Hermiticity S(y; x) = gamma_5 S(x; y)^dag gamma_5 (reference/observables/propagator.h),
//     C_PP(t) = sum_{x in t0 + t} phi(x)^dag phi(x)
//             -> sum_y sum_x tr[gamma_5 S(x; y) gamma_5 S(y; x)]                 (pion, P = dbar gamma_5 u)
//     C_AP(t) = - sum_{x in t0 + t} phi(x)^dag gamma_4 phi(x)
//             -> sum_y sum_x tr[gamma_4 gamma_5 S(x; y) gamma_5 S(y; x)]          (A_4 = dbar gamma_4 gamma_5 u)
// (gamma_5 gamma_4 gamma_5 = -gamma_4). Both are unbiased estimators of the translation-summed point-source
// correlators (the test checks the expectation against exact dilution). t counts from t0 (mod L_t).
//
// Two determinations of m_c, both from masses where the pion is heavy enough for the box (m_pi L >= 4);
// the PCAC one is quoted (the driver's choice, docs/solver_tables.md: it needs no chiral extrapolation of a
// finite-volume pion mass, and on 8^3 x 16 the pion line overshot the point where BiCGstab breaks down):
//   - pion: m_pi^2 = B (m - m_c) (lowest-order chiral behaviour, i.e. m_pi^2 linear in 1/kappa since
//     m = 1/(2 kappa) - 4), m_pi from the cosh effective mass (reference/observables/propagator.h) averaged over a
//     plateau window; the root of the straight line through the points is m_c.
//   - PCAC: the axial Ward identity d_4 A_4 = 2 m_PCAC P gives
//         m_PCAC(t) = [C_AP(t + 1) - C_AP(t - 1)] / (4 C_PP(t)),
//     linear in m near m_c with zero at m_c (its overall sign depends on gamma conventions; the zero does not).
// Errors: single-elimination jackknife over configurations (each jackknife sample refits everything).
// The difference between the two m_c (O(a) and finite-volume effects, quenched chiral logarithms) is a
// systematic uncertainty quoted with m_c (the driver adds a fit-range one: the two lightest masses alone).
//
// Scale: r0 / a from the interpolation of Necco and Sommer, Nucl. Phys. B 622 (2002) 328,
//     ln(a / r0) = -1.6804 - 1.7331 x + 0.7849 x^2 - 0.4428 x^3,   x = beta - 6,   valid 5.7 <= beta <= 6.92,
// with r0 = 0.5 fm; the strange quark mass is where m_pi equals the mass of the fictitious s sbar
// pseudoscalar, sqrt(2 m_K^2 - m_pi^2) = 0.687 GeV (physical kaon and pion masses).
// Errors: std::invalid_argument for inconsistent inputs (naming them).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"

namespace lqcd::experiments {

// The one-end noise source: complex Z2 on every component of time slice t0, zero elsewhere. Stream id =
// lexicographic site index (reference/random.h), so the noise does not depend on the loop order.
SpinorField<double> TimeSliceNoise(const Lattice& lattice, int t0, std::uint64_t seed);

struct MesonCorrelators {
  std::vector<double> pp;  // C_PP(t), t = 0 .. L_t - 1 from the source slice
  std::vector<double> ap;  // C_AP(t)
};

// The contraction of the file comment for one solution phi (full lattice) of a source on slice t0.
MesonCorrelators ContractOneEnd(const SpinorField<double>& phi, int t0, GammaBasis basis);

// Effective masses and m_PCAC of one (averaged) set of correlators, averaged over t in [t_first, t_last].
struct PlateauEstimate {
  double pion_mass = 0;  // mean of the cosh effective mass over the window (NaN if any is undefined)
  double pcac_mass = 0;  // mean of m_PCAC(t) over the window
};
// The window must satisfy 1 <= t_first <= t_last <= L_t / 2 - 1 (throws otherwise).
PlateauEstimate EstimatePlateau(const MesonCorrelators& c, int t_first, int t_last);

// Default plateau window for a time extent L_t: [L_t / 4, L_t / 2 - 2].
int DefaultPlateauFirst(int time_extent);
int DefaultPlateauLast(int time_extent);

// Ordinary least-squares straight line y = intercept + slope x; root = -intercept / slope.
struct LineFit {
  double intercept = 0, slope = 0;
  double Root() const { return -intercept / slope; }
};
// Throws unless there are >= 2 points with distinct x.
LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y);

// A value with its single-elimination jackknife error over configurations.
struct JackknifeValue {
  double value = 0;  // the estimator on the full sample
  double error = 0;  // sqrt((n - 1) / n sum_i (theta_i - mean theta)^2); 0 for n = 1
};
// estimator(weights): the estimator evaluated with configuration i included iff weights[i] = 1 (the
// estimator averages whatever it needs over the included configurations). n >= 1.
std::vector<JackknifeValue> Jackknife(int n, int outputs,
                                      const std::function<std::vector<double>(const std::vector<int>&)>& estimator);

// Correlators of one mass on every configuration.
struct MassCorrelators {
  double mass = 0;
  std::vector<MesonCorrelators> per_config;  // one entry per configuration (already averaged over its sources)
};

struct CriticalMassFit {
  JackknifeValue pion_critical_mass;   // root of m_pi^2 = B (m - m_c)
  JackknifeValue pion_slope;           // B
  JackknifeValue pcac_critical_mass;   // root of m_PCAC = Z (m - m_c)
  JackknifeValue pcac_slope;           // Z
  std::vector<JackknifeValue> pion_mass, pcac_mass;  // per input mass, in input order
  double SystematicError() const;      // |m_c(pion) - m_c(PCAC)|
  double TotalError() const;           // jackknife (PCAC, the quoted value) and systematic in quadrature
};
// Fits the masses of `data` (>= 2, each with the same number >= 1 of configurations) over [t_first, t_last].
CriticalMassFit FitCriticalMass(const std::vector<MassCorrelators>& data, int t_first, int t_last);

// Mean-field (tadpole) estimate kappa_c = 1 / (8 u0), u0 = plaquette^(1/4): m = 4 u0 - 4. It lies above
// the true m_c for the Wilson action at these couplings (the start of the search, never the answer).
double MeanFieldCriticalMass(double plaquette);

// a / r0 from the Necco-Sommer interpolation (file comment); throws outside 5.7 <= beta <= 6.92.
double LatticeSpacingOverR0(double beta);
inline constexpr double kR0Fermi = 0.5;
inline constexpr double kHbarCGevFermi = 0.1973269804;
inline constexpr double kStrangePseudoscalarGev = 0.687;  // sqrt(2 m_K^2 - m_pi^2)
// a m_{s sbar} at beta: the pion mass (lattice units) that marks the strange quark.
double StrangePseudoscalarLatticeMass(double beta);

}  // namespace lqcd::experiments
