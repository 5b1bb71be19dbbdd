// normal_equations.h: CG on the normal equations for a non-Hermitian Dirac operator M.
//
//   CGNR: M^dag M x = M^dag b, then x solves M x = b            (Saad, 2nd ed., section 8.3.1)
//   CGNE: M M^dag y = r,       then x = x0 + M^dag y            (Saad, 2nd ed., section 8.3.2; "Craig's method")
// Both are drivers around any solver of a Hermitian positive definite system (plain CG, or the
// mixed-precision reliable-update CG): the `solve(x, b, params)` callable receives fields of M's type and
// returns its SolveResult. The record reports the TRUE residual of M x = b.
//
// Why the drivers loop: CG's stopping test sees the residual of the system it iterates on.
//   - CGNR's residual is M^dag (b - M x), which can be smaller than b - M x by up to the smallest singular
//     value of M. The driver therefore computes |b - M x| / |b| after CG stops; if it is above tolerance,
//     CG is run again from the current x with its tolerance tightened by the missing factor (times 1/2),
//     counted in `restarts`.
//   - CGNE's residual IS b - M x (r - M M^dag y = b - M (x0 + M^dag y)), so one pass normally suffices;
//     the same verification guards against residual drift.
// Each pass must halve the true residual, and at most params.max_restarts passes are made after the
// first; otherwise kStagnation. Iterations add up over passes.
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "solvers/cg.h"
#include "solvers/operators.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace detail {

// The verification loop shared by CGNR and CGNE. `pass(tolerance_factor)` runs one inner solve (it
// knows the current true residual through `r_norm2`) and returns its record.
template <typename Dirac, typename Pass>
void NormalEquationsLoop(const Dirac& M, typename Dirac::Field& x, const typename Dirac::Field& b,
                         typename Dirac::Field& r, double b_norm2, const SolverParams& params, SolveResult& result,
                         Pass&& pass) {
  double r_norm2 = ResidualNorm2(M, x, b, r, result);
  double previous_true = std::numeric_limits<double>::infinity();
  double tighten = 1;  // factor on the inner tolerance, < 1 after a failed verification
  // Verification restarts of THIS loop. result.restarts also absorbs the inner solver's own (a defect
  // correction inside counts each correction as one), which must not eat this loop's budget.
  int restarts = 0;
  for (int passes = 0;; ++passes) {
    const double true_residual = std::sqrt(r_norm2 / b_norm2);
    if (passes > 0) result.updates.push_back({result.krylov_iterations, result.iterated_residual, true_residual});
    if (true_residual <= params.tolerance) {
      Stop(result, SolveStatus::kConverged, "true residual " + Num(true_residual) + " <= " + Num(params.tolerance));
      result.true_residual = true_residual;
      return;
    }
    if (!Finite(true_residual)) {
      Stop(result, SolveStatus::kNotFinite, "true residual is " + Num(true_residual));
      result.true_residual = true_residual;
      return;
    }
    if (passes > 0) {
      if (result.status != SolveStatus::kConverged) {  // the inner solve failed: keep its reason
        result.true_residual = true_residual;
        return;
      }
      if (true_residual > 0.5 * previous_true || restarts >= params.max_restarts) {
        Stop(result, SolveStatus::kStagnation,
             "true residual " + Num(true_residual) + " (previous pass " + Num(previous_true) +
                 ") above tolerance after " + std::to_string(restarts) + " verification restarts");
        result.true_residual = true_residual;
        return;
      }
      restarts += 1;
      result.restarts += 1;
      tighten *= 0.5 * params.tolerance / true_residual;
    }
    previous_true = true_residual;
    const SolveResult inner = pass(tighten, r_norm2);
    Absorb(result, inner);
    result.status = inner.status;
    result.reason = inner.reason;
    r_norm2 = ResidualNorm2(M, x, b, r, result);
  }
}

template <typename Dirac>
SolveResult StartRecord(const std::string& solver, const Dirac& M) {
  SolveResult result;
  result.solver = solver;
  result.system = M.Name() + " x = b";
  return result;
}

}  // namespace detail

// CGNR with a given HPD solver: `solve(x, b_normal, params)` solves M^dag M x = b_normal.
template <typename Dirac, typename NormalSolve>
SolveResult SolveCgnr(const Dirac& M, typename Dirac::Field& x, const typename Dirac::Field& b,
                      const SolverParams& params, const std::string& inner_name, NormalSolve&& solve) {
  using B = typename Dirac::Backend;
  params.Validate("CGNR");
  detail::CheckSystem(M, x, b, "CGNR");
  detail::Stopwatch clock;
  SolveResult result = detail::StartRecord("CGNR[" + inner_name + "]", M);
  const double b_norm2 = B::Norm2(b);
  if (!detail::HandleZeroSource<Dirac>(x, b_norm2, result)) {
    typename Dirac::Field b_normal = M.NewField(), r = M.NewField();
    M.ApplyDagger(b_normal, b);
    result.operator_applications += 1;
    result.flops += M.FlopsPerApply();
    detail::NormalEquationsLoop(M, x, b, r, b_norm2, params, result, [&](double tighten, double) {
      SolverParams p = params;
      p.tolerance = params.tolerance * tighten;
      p.max_iterations = params.max_iterations - result.iterations;
      return solve(x, b_normal, p);
    });
  }
  result.seconds = clock.Seconds();
  return result;
}

// CGNE with a given HPD solver: `solve(y, r, params)` solves M M^dag y = r from y = 0.
template <typename Dirac, typename NormalSolve>
SolveResult SolveCgne(const Dirac& M, typename Dirac::Field& x, const typename Dirac::Field& b,
                      const SolverParams& params, const std::string& inner_name, NormalSolve&& solve) {
  using B = typename Dirac::Backend;
  params.Validate("CGNE");
  detail::CheckSystem(M, x, b, "CGNE");
  detail::Stopwatch clock;
  SolveResult result = detail::StartRecord("CGNE[" + inner_name + "]", M);
  const double b_norm2 = B::Norm2(b);
  if (!detail::HandleZeroSource<Dirac>(x, b_norm2, result)) {
    typename Dirac::Field r = M.NewField(), y = M.NewField(), dx = M.NewField();
    detail::NormalEquationsLoop(M, x, b, r, b_norm2, params, result, [&](double tighten, double r_norm2) {
      SolverParams p = params;
      // |r - M M^dag y| <= tol |b|  <=>  relative to |r|: tol |b| / |r|.
      p.tolerance = std::min(0.5, params.tolerance * tighten * std::sqrt(b_norm2 / r_norm2));
      p.max_iterations = params.max_iterations - result.iterations;
      B::Zero(y);
      SolveResult inner = solve(y, r, p);
      M.ApplyDagger(dx, y);
      B::Axpy(1.0, dx, x);
      inner.operator_applications += 1;
      inner.flops += M.FlopsPerApply() + vector_flops::kAxpy * B::Reals(x);
      return inner;
    });
  }
  result.seconds = clock.Seconds();
  return result;
}

// Plain double (or single) CGNR / CGNE with ConjugateGradient inside.
template <typename Dirac>
SolveResult Cgnr(const Dirac& M, typename Dirac::Field& x, const typename Dirac::Field& b,
                 const SolverParams& params) {
  const NormalOperator<Dirac> a(M);
  return SolveCgnr(M, x, b, params, std::string("CG<") + PrecisionTraits<typename Dirac::Precision>::kName + ">",
                   [&](typename Dirac::Field& xx, const typename Dirac::Field& bb, const SolverParams& p) {
                     return ConjugateGradient(a, xx, bb, p);
                   });
}

template <typename Dirac>
SolveResult Cgne(const Dirac& M, typename Dirac::Field& x, const typename Dirac::Field& b,
                 const SolverParams& params) {
  const DaggerNormalOperator<Dirac> a(M);
  return SolveCgne(M, x, b, params, std::string("CG<") + PrecisionTraits<typename Dirac::Precision>::kName + ">",
                   [&](typename Dirac::Field& y, const typename Dirac::Field& r, const SolverParams& p) {
                     return ConjugateGradient(a, y, r, p);
                   });
}

}  // namespace lqcd::solvers
