// even_odd.h: solve the full-lattice system M x = b through the even-odd Schur complement (the paper's
// Eq. 2 and section 3: "even-odd preconditioning").
//
//     b'_p = 2 kappa (b_p + kappa D_{p,p'} b_{p'})             Schur.PrepareSource
//     solve M_pp x_p = b'_p                                     any solver, via `solve(x_p, b'_p, params)`
//     x_{p'} = 2 kappa b_{p'} + kappa D_{p',p} x_p              Schur.Reconstruct
// The reconstructed x satisfies the p' rows of M x = b exactly and |b - M x| = c |b'_p - M_pp x_p| with
// c = Schur.FullResidualPerSchurResidual() = 1 / (2 kappa) (reference/wilson.h, docs/conventions.md). So
// the Schur solve is asked for |r'_p| <= tol |b| / c, i.e. the relative tolerance tol |b| / (c |b'_p|),
// and then the full system's true residual, recomputed with the full operator M, meets tol up to
// rounding. The record reports that full residual (status converged iff it is <= tol).
// The initial guess is the parity-p part of x on entry. Flops: the Schur solve, plus one hopping term for
// the source and one for the reconstruction (counted as half an M_pp application each), plus the final
// full residual.
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <string>

#include "solvers/bicgstab.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

template <typename Schur, typename Full, typename SchurSolve>
SolveResult SolveEvenOdd(const Schur& schur, const Full& M, typename Full::Field& x, const typename Full::Field& b,
                         const SolverParams& params, SchurSolve&& solve) {
  using B = typename Full::Backend;
  static_assert(std::is_same_v<typename Schur::Field, typename Full::Field>,
                "the Schur and full operators of one even-odd solve share a precision");
  params.Validate("SolveEvenOdd");
  detail::CheckSystem(M, x, b, "SolveEvenOdd");
  detail::Stopwatch clock;
  SolveResult result;
  result.system = M.Name() + " x = b";
  const double b_norm2 = B::Norm2(b);
  if (detail::HandleZeroSource<Full>(x, b_norm2, result)) {
    result.solver = "even-odd";
    return result;
  }
  typename Full::Field b_p = schur.NewField(), x_p = schur.NewField(), r = M.NewField();
  schur.PrepareSource(b_p, b);
  schur.RestrictGuess(x_p, x);
  const double bp_norm2 = B::Norm2(b_p);
  SolverParams p = params;
  p.tolerance = params.tolerance * std::sqrt(b_norm2 / bp_norm2) / schur.FullResidualPerSchurResidual();
  const SolveResult inner = solve(x_p, b_p, p);
  schur.Reconstruct(x, x_p, b);
  result.solver = "even-odd " + schur.Name() + " [" + inner.solver + "]";
  detail::Absorb(result, inner);
  result.flops += schur.FlopsPerApply();  // two hopping terms: source and reconstruction
  result.status = inner.status;
  result.reason = inner.reason;
  const double r_norm2 = detail::ResidualNorm2(M, x, b, r, result);
  detail::Conclude(result, std::sqrt(r_norm2 / b_norm2), params.tolerance);
  if (result.converged()) {
    result.reason = "full-lattice true residual " + detail::Num(result.true_residual) + " <= " +
                    detail::Num(params.tolerance) + " (Schur solve: " + inner.reason + ")";
  }
  result.seconds = clock.Seconds();
  return result;
}

// BiCGstab on M_ee (the paper's solver), reconstructed to the full lattice.
template <typename Schur, typename Full>
SolveResult EvenOddBiCGstab(const Schur& schur, const Full& M, typename Full::Field& x,
                            const typename Full::Field& b, const SolverParams& params) {
  return SolveEvenOdd(schur, M, x, b, params,
                      [&](typename Full::Field& xp, const typename Full::Field& bp, const SolverParams& p) {
                        return BiCGstab(schur, xp, bp, p);
                      });
}

}  // namespace lqcd::solvers
