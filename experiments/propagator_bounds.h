// propagator_bounds.h (testonly): the norms of the tests' actions and a gtest check of two correlators
// against the sum of their derived bounds (correlator_bounds.h has the derivation).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/correlator_bounds.h"
#include "experiments/fermion_action.h"
#include "experiments/propagator_driver.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_algebra.h"

namespace lqcd::experiments::testing {

inline constexpr double kU = kDoubleRoundoff;
using experiments::CorrelatorBound;
using experiments::GammaN;
using experiments::ResidualRounding;

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
  return {SiteTermNorm(u, a), 1 / (clover.min_eigenvalue() - 4)};
}

inline double PropagatorError(const PropagatorRun& run, const Norms& n) {
  return experiments::PropagatorError(run, n.inverse, n.t_norm);
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
