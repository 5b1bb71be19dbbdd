// correlator_bounds.h: the derived error bound of a Krylov-solved point propagator and of its pion
// correlator (used by the main job to print its accuracy, and by the tests).
//
// A column x with recomputed full residual r = |b - M x| (|b| = 1: a point source) is within
// ||M^{-1}|| (r + rho) of M^{-1} b, rho = rounding of the host recomputation: hop 400 u / 2
// (reference/wilson_error_bounds.h), the combinations 10 u (4 + m + 4 sqrt 2), for clover the 12-term
// block products 144 u ||T|| plus 10 u ||T||, and the subtraction 2 u (|b| + |M x|):
//   rho <= [200 + 10 (||T|| + 4 sqrt 2) + 144 ||T|| + 2 (||T|| + 4 sqrt 2)] u |x| + 2 u |b|,  ||T|| = 4 + m (Wilson).
// With eps = sqrt(sum_col delta_col^2), delta_col = ||M^{-1}|| (r_col + rho_col), the correlator obeys
//   |C(t) - C*(t)| <= eps (2 sqrt(C(t)) + eps) + gamma_{12 V} C(t),
// and two computations of the same correlator differ by at most the sum of their two bounds.
// ||M^{-1}||: <= 1 / m for Wilson on any unitary field (m > 0), <= 1 / (lambda_min(T) - 4) for clover
// when lambda_min(T) > 4, exactly max_p den(p)^{-1/2} on the free field (reference/observables/free_wilson.h); else an
// estimate (inverse_norm.h), and the bound is then as good as the estimate.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "experiments/fermion_action.h"
#include "experiments/propagator_driver.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_algebra.h"

namespace lqcd::experiments {

inline constexpr double kDoubleRoundoff = 0x1p-53;

// gamma_n = n u / (1 - n u).
inline double GammaN(double n) { return n * kDoubleRoundoff / (1 - n * kDoubleRoundoff); }

// ||T||_2 of the site term T = (4 + m) (+ A for clover) in rho: 4 + m for Wilson, max_n |lambda(T(n))| for
// clover (the clover field is computed from u).
inline double SiteTermNorm(const GaugeField<double>& u, const FermionAction& action) {
  if (!action.clover()) return 4 + action.mass;
  const CloverField<double> clover(u, action.clover_params());
  return std::max(std::fabs(clover.min_eigenvalue()), std::fabs(clover.max_eigenvalue()));
}

// rho above, for |b| = 1.
inline double ResidualRounding(double t_norm, double x_norm) {
  const double hop = 4 * std::sqrt(2.0);
  return (200 + 10 * (t_norm + hop) + 154 * t_norm + 2 * (t_norm + hop)) * kDoubleRoundoff * x_norm +
         2 * kDoubleRoundoff;
}

// eps of a Krylov propagator: sqrt(sum_col (||M^{-1}|| (r_col + rho_col))^2), from each column's record and
// |x| (column_norms[k] of solves[k]).
inline double PropagatorError(const std::vector<PropagatorSolveRecord>& solves,
                              const std::vector<double>& column_norms, double inverse_norm, double t_norm) {
  double e2 = 0;
  for (std::size_t k = 0; k < solves.size(); ++k) {
    const double delta = inverse_norm * (solves[k].true_residual + ResidualRounding(t_norm, column_norms.at(k)));
    e2 += delta * delta;
  }
  return std::sqrt(e2);
}
// |x| of each record's column of the whole propagator, in the records' order.
inline std::vector<double> ColumnNorms(const PropagatorRun& run) {
  const std::vector<double> by_column = lqcd::ColumnNorms(run.propagator);  // the 12 columns side by side
  std::vector<double> norms;
  for (const PropagatorSolveRecord& r : run.solves) norms.push_back(by_column[3 * r.spin + r.colour]);
  return norms;
}
inline double PropagatorError(const PropagatorRun& run, double inverse_norm, double t_norm) {
  return PropagatorError(run.solves, ColumnNorms(run), inverse_norm, t_norm);
}

// The bound on |C(t) - C*(t)| for a correlator value c.
inline double CorrelatorBound(double c, double eps, const Lattice& lattice) {
  return eps * (2 * std::sqrt(c) + eps) + GammaN(12.0 * lattice.volume()) * c;
}

}  // namespace lqcd::experiments
