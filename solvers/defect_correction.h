// defect_correction.h: mixed-precision defect correction (iterative refinement), the paper's section 5.2,
// Algorithm 1:
//     r_0 = b - A x_0;  k = 0                                   (high precision)
//     while |r_k| > eps |b|:
//         solve A p_{k+1} = r_k to precision eps_in             (low precision, from p = 0)
//         x_{k+1} = x_k + p_{k+1}                               (high precision)
//         r_{k+1} = b - A x_{k+1}                               (high precision)
//         k = k + 1
// The inner solve is BiCGstab or CG (bicgstab.h, cg.h iterations on the low-precision operator, no
// true-residual verification inside: the outer loop is the verification). It stops when its iterated
// residual is below eps_in |r_k| (params.inner_tolerance); every inner solve starts a new Krylov space
// (the restart the paper blames for the extra iterations).
// Counting (the paper's Table 4, "including restart iterations"): iterations = all inner Krylov
// iterations; restarts = number of inner solves (outer corrections); `updates` lists the true residual
// after each correction.
// Stopping: converged when the true residual <= eps; kStagnation when params.max_stagnant_updates
// consecutive corrections fail to bring the true residual below the best one so far (the inner precision
// cannot resolve the correction: the paper's half precision at the critical mass, 1/rho(A) < ulp_in);
// kMaxIterations when the inner iterations exhaust params.max_iterations; an inner breakdown or
// non-positive curvature ends the solve with that status unless its partial correction made progress;
// kNotFinite for NaN/Inf.
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/reliable_update.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

enum class InnerSolver { kBiCGstab, kCg };

template <typename HighOp, typename LowOp>
SolveResult DefectCorrection(InnerSolver inner, const HighOp& A, const LowOp& A_low, typename HighOp::Field& x,
                             const typename HighOp::Field& b, const SolverParams& params) {
  using B = typename HighOp::Backend;
  using LowField = typename LowOp::Field;
  const char* name = inner == InnerSolver::kBiCGstab ? "DefectCorrection-BiCGstab" : "DefectCorrection-CG";
  params.Validate(name);
  detail::CheckMixedOperators(A, A_low, params, name);
  detail::CheckSystem(A, x, b, name);
  detail::Stopwatch clock;
  SolveResult result;
  result.solver = std::string(name) + "<" + PrecisionTraits<typename HighOp::Precision>::kName + "," +
                  PrecisionTraits<typename LowOp::Precision>::kName + "> eps_in=" + detail::Num(params.inner_tolerance);
  result.system = A.Name() + " x = b";
  const double b_norm2 = B::Norm2(b);
  if (detail::HandleZeroSource<HighOp>(x, b_norm2, result)) return result;
  const double stop_rr = params.tolerance * params.tolerance * b_norm2;

  typename HighOp::Field r = A.NewField(), tmp = A.NewField();
  LowField correction = A_low.NewField();
  detail::BicgstabFields<LowField> f{A_low.NewField(), A_low.NewField(), A_low.NewField(), A_low.NewField(),
                                     A_low.NewField()};  // CG uses f.r (residual), f.p, f.v (= A p)

  double rr = detail::ResidualNorm2(A, x, b, r, result);
  double best = std::numeric_limits<double>::infinity();
  int stagnant = 0;
  for (;;) {
    const double true_residual = std::sqrt(rr / b_norm2);
    result.true_residual = true_residual;
    if (result.restarts > 0) {
      result.updates.push_back({result.krylov_iterations, result.iterated_residual, true_residual});
    }
    if (!detail::Finite(rr)) {
      detail::Stop(result, SolveStatus::kNotFinite, "true residual is " + detail::Num(true_residual));
      break;
    }
    if (rr <= stop_rr) {
      detail::Stop(result, SolveStatus::kConverged,
                   "true residual " + detail::Num(true_residual) + " <= " + detail::Num(params.tolerance));
      break;
    }
    if (true_residual < best) {
      best = true_residual;
      stagnant = 0;
    } else if (++stagnant >= params.max_stagnant_updates) {
      detail::Stop(result, SolveStatus::kStagnation,
                   std::to_string(stagnant) + " consecutive corrections did not reduce the true residual below " +
                       detail::Num(best) + " (now " + detail::Num(true_residual) + ")");
      break;
    }
    if (result.status != SolveStatus::kConverged && stagnant > 0) break;  // an inner failure that did not help
    if (result.iterations >= params.max_iterations) {
      detail::Stop(result, SolveStatus::kMaxIterations,
                   "reached " + std::to_string(params.max_iterations) + " inner iterations");
      break;
    }
    // Solve A p = r_k in low precision to eps_in, from p = 0.
    B::Convert(f.r, r);
    B::Zero(correction);
    const double rr_low = B::Norm2(f.r);
    const double inner_stop = params.inner_tolerance * params.inner_tolerance * rr_low;
    const long long apps_before = result.operator_applications;
    result.status = SolveStatus::kConverged;
    const bool inner_ok =
        inner == InnerSolver::kBiCGstab
            ? detail::BicgstabIterate(A_low, correction, f, inner_stop, b_norm2, params.max_iterations,
                                      params.record_history, result)
            : detail::CgIterate(A_low, correction, f.r, f.p, f.v, rr_low, inner_stop, b_norm2, params.max_iterations,
                                params.record_history, result);
    result.low_precision_applications += result.operator_applications - apps_before;
    result.restarts += 1;
    if (!inner_ok && result.status == SolveStatus::kNotFinite) break;
    // x_{k+1} = x_k + p_{k+1}; r_{k+1} = b - A x_{k+1}.
    B::Convert(tmp, correction);
    B::Axpy(1.0, tmp, x);
    result.flops += vector_flops::kAxpy * B::Reals(x);
    rr = detail::ResidualNorm2(A, x, b, r, result);
    if (inner_ok) continue;
    if (result.status == SolveStatus::kMaxIterations) {  // budget spent: report the state reached
      detail::Conclude(result, std::sqrt(rr / b_norm2), params.tolerance);
      break;
    }
    // Breakdown or curvature inside: keep going only if the partial correction helped (checked above).
  }
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace lqcd::solvers
