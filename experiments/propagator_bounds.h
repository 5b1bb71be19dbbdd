// propagator_bounds.h (testonly): derived error bounds for Krylov-solved propagators and their pion
// correlators, shared by the CPU driver test and the CPU-vs-GPU agreement test.
//
// A column x with recomputed full residual r = |b - M x| (|b| = 1) is within ||M^{-1}|| (r + rho) of M^{-1} b,
// rho = rounding of the recomputation: hop 400 u / 2 (reference/wilson_error_bounds.h), the combinations
// 10 u (4 + m + 4 sqrt 2), for clover the 12-term block products 144 u ||T|| plus 10 u ||T||, and the
// subtraction 2 u (|b| + |M x|):
//   rho <= [200 + 10 (||T|| + 4 sqrt 2) + 144 ||T|| + 2 (||T|| + 4 sqrt 2)] u |x| + 2 u |b|,   ||T|| = 4 + m (Wilson).
// ||M^{-1}|| <= 1 / m for Wilson on any unitary field (m > 0), 1 / (lambda_min(T) - 4) for clover, and exactly
// max_p den(p)^{-1/2} on the free field (reference/free_wilson.h). With eps = sqrt(sum_col delta_col^2),
// |C(t) - C*(t)| <= eps (2 sqrt(C(t)) + eps) + gamma_{12 V} C(t), and two computations of the same
// correlator differ by at most the sum of their two bounds.
// rho is the rounding of the HOST recompute (reference/wilson.h): use records verified on the host.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/fermion_action.h"
#include "experiments/propagator_driver.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_algebra.h"

namespace lqcd::experiments::testing {

inline constexpr double kU = 0x1p-53;

inline double GammaN(double n) { return n * kU / (1 - n * kU); }

// ||T|| for the rounding bound and ||M^{-1}|| for the error bound of an action on a field.
struct Norms {
  double t_norm = 0;
  double inverse = 0;
};

inline Norms ActionNorms(const GaugeField<double>& u, const FermionAction& a) {
  if (a.kind == FermionKind::kWilson) return {4 + a.mass, 1 / a.mass};
  const CloverField<double> clover(u, a.clover_params());
  if (!(clover.min_eigenvalue() > 4)) {
    throw std::logic_error("test setup: ||M^{-1}|| <= 1 / (lambda_min - 4) needs lambda_min(T) > 4, got " +
                           std::to_string(clover.min_eigenvalue()));
  }
  return {std::max(std::fabs(clover.min_eigenvalue()), std::fabs(clover.max_eigenvalue())),
          1 / (clover.min_eigenvalue() - 4)};
}

inline double ResidualRounding(double t_norm, double x_norm) {
  const double hop = 4 * std::sqrt(2.0);
  return (200 + 10 * (t_norm + hop) + 154 * t_norm + 2 * (t_norm + hop)) * kU * x_norm + 2 * kU;
}

// eps of a Krylov propagator: sqrt(sum_col (||M^{-1}|| (r_col + rho_col))^2).
inline double PropagatorError(const PropagatorRun& run, const Norms& n) {
  double e2 = 0;
  for (const PropagatorSolveRecord& r : run.solves) {
    const double x_norm = std::sqrt(Norm2(run.propagator.Column(r.spin, r.colour)));
    const double delta = n.inverse * (r.true_residual + ResidualRounding(n.t_norm, x_norm));
    e2 += delta * delta;
  }
  return std::sqrt(e2);
}

inline double CorrelatorBound(double c, double eps, const Lattice& lattice) {
  return eps * (2 * std::sqrt(c) + eps) + GammaN(12.0 * lattice.volume()) * c;
}

// Checks |a(t) - b(t)| <= bound_a(t) + bound_b(t) for every t, and that the correlators are positive.
inline void ExpectSameCorrelator(const std::vector<double>& a, double eps_a, const std::vector<double>& b, double eps_b,
                          const Lattice& lattice, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_GT(a[t], 0) << what << " t=" << t;
    EXPECT_LE(std::abs(a[t] - b[t]), CorrelatorBound(a[t], eps_a, lattice) + CorrelatorBound(b[t], eps_b, lattice))
        << what << " t=" << t << ": " << a[t] << " vs " << b[t];
  }
}

}  // namespace lqcd::experiments::testing
