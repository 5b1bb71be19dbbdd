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
//
// SolveEvenOddBlock: n systems M x_k = b_k, each reduced as above, the n Schur systems solved by ONE block solve
// (block_solve(x_p, b_p, params, tolerances) -> BlockSolveResult, e.g. block_bicgstab.h on a block operator,
// tolerances[k] the Schur tolerance of system k as above), each reconstructed and its full residual
// recomputed with M; one record per system, in the order given. A zero source is answered at once (x = 0) and
// left out of the block. Each record's seconds is the time from the start until that system's result was
// ready (all come out of the block together, so about the block's wall time).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/bicgstab.h"
#include "solvers/block_operators.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace detail {

// The Schur system of one full system: b_p = the prepared source, x_p = the guess restricted to parity p, and
// the relative tolerance on |b_p - M_pp x_p| that gives `tolerance` on the full system (file comment).
template <typename Schur, typename Field, typename B = typename Schur::Backend>
double PrepareEvenOdd(const Schur& schur, const Field& x, const Field& b, double b_norm2, double tolerance,
                      Field& b_p, Field& x_p) {
  schur.PrepareSource(b_p, b);
  schur.RestrictGuess(x_p, x);
  return tolerance * std::sqrt(b_norm2 / B::Norm2(b_p)) / schur.FullResidualPerSchurResidual();
}

// After the Schur solve `inner`: x from x_p, the record from inner's, and the full true residual recomputed
// with M (r is scratch) and judged against `tolerance`.
template <typename Schur, typename Full>
void FinishEvenOdd(const Schur& schur, const Full& M, typename Full::Field& x, const typename Full::Field& x_p,
                   const typename Full::Field& b, double b_norm2, double tolerance, const SolveResult& inner,
                   typename Full::Field& r, SolveResult& result) {
  schur.Reconstruct(x, x_p, b);
  result.solver = "even-odd " + schur.Name() + " [" + inner.solver + "]";
  Absorb(result, inner);
  result.flops += schur.FlopsPerApply();  // two hopping terms: source and reconstruction
  result.status = inner.status;
  result.reason = inner.reason;
  const double r_norm2 = ResidualNorm2(M, x, b, r, result);
  Conclude(result, std::sqrt(r_norm2 / b_norm2), tolerance);
  if (result.converged()) {
    result.reason = "full-lattice true residual " + Num(result.true_residual) + " <= " + Num(tolerance) +
                    " (Schur solve: " + inner.reason + ")";
  }
}

}  // namespace detail

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
  SolverParams p = params;
  p.tolerance = detail::PrepareEvenOdd(schur, x, b, b_norm2, params.tolerance, b_p, x_p);
  const SolveResult inner = solve(x_p, b_p, p);
  detail::FinishEvenOdd(schur, M, x, x_p, b, b_norm2, params.tolerance, inner, r, result);
  result.seconds = clock.Seconds();
  return result;
}

// See the file comment.
template <typename Schur, typename Full, typename BlockSolve>
std::vector<SolveResult> SolveEvenOddBlock(const Schur& schur, const Full& M, std::vector<typename Full::Field>& x,
                                           const std::vector<typename Full::Field>& b, const SolverParams& params,
                                           BlockSolve&& block_solve) {
  using B = typename Full::Backend;
  using Field = typename Full::Field;
  params.Validate("SolveEvenOddBlock");
  if (x.size() != b.size() || b.empty()) {
    throw std::invalid_argument("SolveEvenOddBlock: " + std::to_string(x.size()) + " solutions for " +
                                std::to_string(b.size()) + " sources (at least one)");
  }
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  std::vector<SolveResult> out(n);
  std::vector<double> b_norm2(n);
  std::vector<std::size_t> active;
  for (std::size_t k = 0; k < n; ++k) {
    detail::CheckSystem(M, x[k], b[k], "SolveEvenOddBlock");
    out[k].system = M.Name() + " x = b";
    b_norm2[k] = B::Norm2(b[k]);
    if (detail::HandleZeroSource<Full>(x[k], b_norm2[k], out[k])) {
      out[k].solver = "even-odd";
    } else {
      active.push_back(k);
    }
  }
  if (active.empty()) return out;
  std::vector<Field> b_p, x_p;
  std::vector<double> tolerances;
  for (const std::size_t k : active) {
    b_p.push_back(schur.NewField());
    x_p.push_back(schur.NewField());
    tolerances.push_back(detail::PrepareEvenOdd(schur, x[k], b[k], b_norm2[k], params.tolerance, b_p.back(),
                                                x_p.back()));
  }
  const BlockSolveResult inner = block_solve(x_p, b_p, params, tolerances);
  Field r = M.NewField();
  for (std::size_t i = 0; i < active.size(); ++i) {
    const std::size_t k = active[i];
    detail::FinishEvenOdd(schur, M, x[k], x_p[i], b[k], b_norm2[k], params.tolerance, inner.systems[i], r, out[k]);
    out[k].seconds = clock.Seconds();
  }
  return out;
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
