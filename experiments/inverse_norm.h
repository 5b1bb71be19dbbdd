// inverse_norm.h: an estimate of ||M^{-1}||_2 = 1 / sigma_min(M) by inverse iteration, for the error bounds
// of Krylov-solved propagators at masses where no a-priori bound exists (m < 0; for m > 0,
// ||M^{-1}|| <= 1 / m on any unitary field).
//
// Power iteration on (M^dag M)^{-1}: w = M^{-1} v, y = M^{-dag} w = gamma_5 M^{-1} gamma_5 w (M is
// gamma_5-Hermitian), v <- y / |y|. The Rayleigh quotient |w|^2 / |v|^2 of (M^dag M)^{-1} at v rises
// monotonically to 1 / sigma_min^2, so every step's sqrt(|w|^2) is a LOWER estimate of ||M^{-1}||; the
// relative change of the last step says how far it has converged (the rate is (sigma_1 / sigma_2)^2 for
// the two smallest singular values). Each step is two solves with `spec` (tolerance: spec.tolerance); the
// start vector is Gaussian noise (seed).
// Errors: those of DiracSolver::Solve; std::runtime_error when a solve does not converge.
#pragma once

#include <cstdint>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/fermion_action.h"
#include "reference/lattice.h"
#include "solvers/solver_spec.h"

namespace lqcd::experiments {

struct InverseNormEstimate {
  double norm = 0;                  // the last step's sqrt(Rayleigh quotient): <= ||M^{-1}||
  double last_relative_change = 0;  // |norm_k - norm_{k-1}| / norm_k at the last step
  std::vector<double> history;      // the estimate after each step
  long iterations = 0;               // solver iterations of all solves
  double seconds = 0;
};

InverseNormEstimate EstimateInverseNorm(DiracSolver& solver, const FermionAction& action,
                                        const solvers::SolverSpec& spec, const Lattice& lattice, int steps,
                                        std::uint64_t seed);

}  // namespace lqcd::experiments
