// cg.h: the conjugate gradient method for a Hermitian positive definite operator A.
//
// Pseudo-code (Hestenes and Stiefel, J. Res. NBS 49 (1952) 409; in the notation of Saad, "Iterative
// Methods for Sparse Linear Systems", 2nd ed., Algorithm 6.18), and the backend call that does each line:
//     r = b - A x                                  ResidualNorm2 (A.Apply, Xpay, Norm2)
//     p = r                                        Copy
//     loop:
//       q = A p;  alpha = (r, r) / (p, q)          ApplyCurvature         [(p, q) <= 0: kNonPositiveCurvature]
//       r = r - alpha q                            DeferredAxpyNorm (returns (r, r))
//         (both lines in one ApplyCurvatureUpdate when the operator has it: q is then never stored)
//       x = x + alpha p                            CgSolutionDirection (with the direction below)
//       stop if |r| <= tol |b|
//       beta = (r_new, r_new) / (r, r)
//       p = r + beta p                             CgSolutionDirection
// The iterated residual r drifts from b - A x in finite precision, so when it meets the tolerance the
// true residual is recomputed; if that is above tolerance CG restarts from the current x (counted in
// SolveResult::restarts). A restart that does not halve the true residual, or more than
// params.max_restarts restarts, ends with kStagnation: the precision floor lies above the tolerance.
// The record's true_residual is |b - A x| / |b| with A in the operator's precision (double for the
// double solvers; mixed-precision solvers compute it with their double operator).
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "solvers/operators.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace detail {

// Counts one Krylov iteration in `result`: iterations (paper counting), Krylov iterations, the iterated
// residual |r| / |b| and its history.
inline void RecordIteration(SolveResult& result, double r_norm2, double b_norm2, bool record_history) {
  result.iterations += 1;
  result.krylov_iterations += 1;
  result.iterated_residual = std::sqrt(r_norm2 / b_norm2);
  if (record_history) result.residual_history.push_back(result.iterated_residual);
}

enum class StepOutcome { kContinue, kConverged, kFailed };

// Whether the operator has the optional ApplyCurvature(out, in) (README.md).
template <typename Op, typename = void>
struct HasApplyCurvature : std::false_type {};
template <typename Op>
struct HasApplyCurvature<Op, std::void_t<decltype(std::declval<const Op&>().ApplyCurvature(
                                 std::declval<typename Op::Field&>(), std::declval<const typename Op::Field&>()))>>
    : std::true_type {};

// q = A p and CG's curvature (p, A p) as a deferred scalar: the operator's ApplyCurvature when it has one (it
// may fuse the reduction into the application), else Apply and B::DeferredReDot. The caller counts the
// application and the ReDot's flops.
template <typename Op>
typename Op::Backend::RealScalar ApplyCurvature(const Op& A, typename Op::Field& q, const typename Op::Field& p) {
  if constexpr (HasApplyCurvature<Op>::value) {
    return A.ApplyCurvature(q, p);
  } else {
    A.Apply(q, p);
    return Op::Backend::DeferredReDot(p, q);
  }
}

// Whether the operator has the optional ApplyCurvatureUpdate(p, r, rr) (README.md).
template <typename Op, typename = void>
struct HasApplyCurvatureUpdate : std::false_type {};
template <typename Op>
struct HasApplyCurvatureUpdate<Op, std::void_t<decltype(std::declval<const Op&>().ApplyCurvatureUpdate(
                                       std::declval<const typename Op::Field&>(), std::declval<typename Op::Field&>(),
                                       0.0))>> : std::true_type {};

// After q = A p with pAp = (p, q): alpha = rr / pAp and r -= alpha q with |r|^2, queued. Counts the AxpyNorm.
template <typename B, typename Field>
CurvatureUpdate<typename B::RealScalar> QueueResidualUpdate(Field& r, const Field& q,
                                                            const typename B::RealScalar& pAp, double rr,
                                                            SolveResult& result) {
  using Real = typename B::RealScalar;
  const Real alpha = Real(rr) / pAp;
  const Real rr_new = B::DeferredAxpyNorm(-alpha, q, r);  // r = r - alpha q
  result.flops += vector_flops::kAxpyNorm * B::Reals(r);
  return {pAp, alpha, rr_new};
}

// q = A p, alpha = rr / (p, q) and r -= alpha q with |r|^2, queued: the operator's ApplyCurvatureUpdate when it
// has one (it fuses the update into the application and leaves q alone), else ApplyCurvature and
// QueueResidualUpdate. Counts the application, the curvature's ReDot and the AxpyNorm (the same in both forms).
template <typename Op>
CurvatureUpdate<typename Op::Backend::RealScalar> ApplyCurvatureUpdate(const Op& A, typename Op::Field& q,
                                                                       const typename Op::Field& p,
                                                                       typename Op::Field& r, double rr,
                                                                       SolveResult& result) {
  using B = typename Op::Backend;
  result.operator_applications += 1;
  result.flops += A.FlopsPerApply() + vector_flops::kReDot * B::Reals(p);
  if constexpr (HasApplyCurvatureUpdate<Op>::value) {
    result.flops += vector_flops::kAxpyNorm * B::Reals(r);
    return A.ApplyCurvatureUpdate(p, r, rr);
  } else {
    const typename B::RealScalar pAp = ApplyCurvature(A, q, p);  // q = A p; (p, q)
    return QueueResidualUpdate<B>(r, q, pAp, rr, result);
  }
}

// The parts of a CG iteration after q = A p, pAp = (p, q), alpha = rr / pAp and the queued r -= alpha q with
// rr_new = |r|^2 (`step`: ApplyCurvatureUpdate, or QueueResidualUpdate after the caller's own application),
// written once for the single solver (CgIterate), the block solver (block_cg.h) and reliable-update CG
// (reliable_update.h, which replaces the residual between x's update and the new direction):
//   CgAdvance:       the host tests (p, q) [<= 0: kNonPositiveCurvature; r is then scratch] while the device
//                    updates r; queue_x(alpha, rr_new) queues the x update (alone: CgUpdateX; or with the next
//                    direction: CgStep) before the host reads rr_new; counts the iteration. kContinue, or
//                    kFailed with the status set.
//   CgNewDirection:  p = r + (rr_new / rr) p.
// (p, q), alpha and rr_new are the backend's deferred scalars (README.md): on the GPU the device computes alpha
// and beta itself and never waits for the host; x changes only after its alpha passed the test.
template <typename B, typename QueueX>
StepOutcome CgAdvance(const CurvatureUpdate<typename B::RealScalar>& step, double& rr_new, double b_norm2,
                      bool record_history, SolveResult& result, QueueX&& queue_x) {
  const typename B::RealScalar& pAp = step.pAp;
  const typename B::RealScalar& alpha = step.alpha;
  const typename B::RealScalar& rr_queued = step.rr_new;
  const double pAp_host = B::HostValue(pAp);
  if (!Finite(pAp_host)) {
    Stop(result, SolveStatus::kNotFinite, "p^dag A p = " + Num(pAp_host));
    return StepOutcome::kFailed;
  }
  if (pAp_host <= 0) {
    Stop(result, SolveStatus::kNonPositiveCurvature,
         "p^dag A p = " + Num(pAp_host) + " <= 0 at iteration " + std::to_string(result.iterations) +
             ": the operator is not positive definite");
    return StepOutcome::kFailed;
  }
  queue_x(alpha, rr_queued);
  rr_new = B::HostValue(rr_queued);
  RecordIteration(result, rr_new, b_norm2, record_history);
  if (!Finite(rr_new)) {
    Stop(result, SolveStatus::kNotFinite, "|r|^2 = " + Num(rr_new) + " at iteration " +
                                              std::to_string(result.iterations));
    return StepOutcome::kFailed;
  }
  return StepOutcome::kContinue;
}

// CgAdvance's queue_x for a caller that sets the next direction itself: x = x + alpha p.
template <typename B, typename Field>
auto CgUpdateX(Field& x, const Field& p, SolveResult& result) {
  return [&x, &p, &result](const typename B::RealScalar& alpha, const typename B::RealScalar&) {
    B::Axpy(alpha, p, x);
    result.flops += vector_flops::kAxpy * B::Reals(x);
  };
}

template <typename B, typename Field>
void CgNewDirection(const Field& r, double rr_new, double rr, Field& p, SolveResult& result) {
  B::Xpay(r, rr_new / rr, p);
  result.flops += vector_flops::kXpay * B::Reals(r);
}

// One CG iteration after `step` (r's update queued): CgAdvance with x = x + alpha p and the next direction
// p = r + (rr_new / rr) p in one pass (CgSolutionDirection: rr_new stays on the device; if r has converged
// the new p is simply not used), then kConverged when |r|^2 <= stop_rr. `rr` is |r|^2 on entry and on exit.
template <typename B, typename Field>
StepOutcome CgStep(Field& x, Field& r, Field& p, const CurvatureUpdate<typename B::RealScalar>& step, double& rr,
                   double stop_rr, double b_norm2, bool record_history, SolveResult& result) {
  using Real = typename B::RealScalar;
  double rr_new = 0;
  const auto solution_and_direction = [&](const Real& alpha, const Real& rr_queued) {
    B::CgSolutionDirection(alpha, rr_queued / Real(rr), r, x, p);
    result.flops += (vector_flops::kAxpy + vector_flops::kXpay) * B::Reals(x);
  };
  if (CgAdvance<B>(step, rr_new, b_norm2, record_history, result, solution_and_direction) == StepOutcome::kFailed) {
    return StepOutcome::kFailed;
  }
  rr = rr_new;
  return rr_new <= stop_rr ? StepOutcome::kConverged : StepOutcome::kContinue;
}

// CgStep after the caller's own q = A p with pAp = (p, q) (the block solvers' batched application).
template <typename B, typename Field>
StepOutcome CgStep(Field& x, Field& r, Field& p, const Field& q, const typename B::RealScalar& pAp, double& rr,
                   double stop_rr, double b_norm2, bool record_history, SolveResult& result) {
  return CgStep<B>(x, r, p, QueueResidualUpdate<B>(r, q, pAp, rr, result), rr, stop_rr, b_norm2, record_history,
                   result);
}

// Stops with kMaxIterations and returns true when the iteration budget is spent.
inline bool BudgetSpent(SolveResult& result, int max_iterations, double rr, double b_norm2) {
  if (result.iterations < max_iterations) return false;
  Stop(result, SolveStatus::kMaxIterations,
       "reached " + std::to_string(max_iterations) + " iterations at residual " + Num(std::sqrt(rr / b_norm2)));
  return true;
}

// CG iterations on A x = b from the current x, with r = b - A x and rr = |r|^2 on entry. Returns true
// when |r|^2 <= stop_rr; otherwise sets result.status (max iterations, curvature, not finite) and
// returns false. result.iterations counts against max_iterations.
template <typename Op>
bool CgIterate(const Op& A, typename Op::Field& x, typename Op::Field& r, typename Op::Field& p,
               typename Op::Field& q, double rr, double stop_rr, double b_norm2, int max_iterations,
               bool record_history, SolveResult& result) {
  using B = typename Op::Backend;
  B::Copy(p, r);
  for (;;) {
    if (BudgetSpent(result, max_iterations, rr, b_norm2)) return false;
    const auto step = ApplyCurvatureUpdate(A, q, p, r, rr, result);  // q = A p; (p, q); r -= alpha q
    const StepOutcome o = CgStep<B>(x, r, p, step, rr, stop_rr, b_norm2, record_history, result);
    if (o != StepOutcome::kContinue) return o == StepOutcome::kConverged;
  }
}

// The verification every restarted Krylov solver makes after its iteration claims convergence (and once
// at the start), written once for the single and the block solvers. Given rr = |b - A x|^2 recomputed in
// the operator's precision: converged, or not finite, or -- on a restart -- stagnation when the restart
// did not halve the true residual or params.max_restarts restarts are spent (the precision floor lies
// above the tolerance); each of those ends the solve (kDone, status set). Otherwise kIterate: (re)start
// the iteration from the current x. Records the true residual and, after the first pass, the update.
struct Verification {
  double previous_true = std::numeric_limits<double>::infinity();
  int pass = 0;
};
enum class Verdict { kDone, kIterate };

inline Verdict VerifyTrueResidual(double rr, double b_norm2, double tolerance, int max_restarts, Verification& v,
                                  SolveResult& result) {
  const double true_residual = std::sqrt(rr / b_norm2);
  result.true_residual = true_residual;
  if (v.pass > 0) result.updates.push_back({result.krylov_iterations, result.iterated_residual, true_residual});
  if (rr <= tolerance * tolerance * b_norm2) {
    Stop(result, SolveStatus::kConverged, "true residual " + Num(true_residual) + " <= " + Num(tolerance));
    return Verdict::kDone;
  }
  if (!Finite(rr)) {
    Stop(result, SolveStatus::kNotFinite, "true residual is " + Num(true_residual));
    return Verdict::kDone;
  }
  if (v.pass > 0) {
    if (true_residual > 0.5 * v.previous_true) {
      Stop(result, SolveStatus::kStagnation,
           "a restart reduced the true residual only from " + Num(v.previous_true) + " to " + Num(true_residual) +
               " (tolerance " + Num(tolerance) + ")");
      return Verdict::kDone;
    }
    if (result.restarts >= max_restarts) {
      Stop(result, SolveStatus::kStagnation,
           "true residual " + Num(true_residual) + " still above tolerance after " + std::to_string(result.restarts) +
               " restarts");
      return Verdict::kDone;
    }
    result.restarts += 1;
  }
  v.previous_true = true_residual;
  v.pass += 1;
  return Verdict::kIterate;
}

// The restart loop of the single-system Krylov solvers: verify, (re)start the iteration, verify again.
// `iterate(rr, stop_rr)` runs the Krylov iteration from the current x with r = b - A x and returns true
// when its iterated residual converged.
template <typename Op, typename Iterate>
void RestartLoop(const Op& A, typename Op::Field& x, const typename Op::Field& b, typename Op::Field& r,
                 double b_norm2, const SolverParams& params, SolveResult& result, Iterate&& iterate) {
  const double stop_rr = params.tolerance * params.tolerance * b_norm2;
  Verification v;
  for (;;) {
    const double rr = ResidualNorm2(A, x, b, r, result);
    if (VerifyTrueResidual(rr, b_norm2, params.tolerance, params.max_restarts, v, result) == Verdict::kDone) return;
    if (!iterate(rr, stop_rr)) {
      // The iteration stopped for its own reason: report the true residual of the x it left.
      Conclude(result, std::sqrt(ResidualNorm2(A, x, b, r, result) / b_norm2), params.tolerance);
      return;
    }
  }
}

// Zero source: the solution is x = 0, no iteration. Returns true when it handled the solve.
template <typename Op>
bool HandleZeroSource(typename Op::Field& x, double b_norm2, SolveResult& result) {
  if (b_norm2 != 0) return false;
  Op::Backend::Zero(x);
  Stop(result, SolveStatus::kConverged, "zero source: x = 0");
  result.true_residual = 0;
  return true;
}

}  // namespace detail

// Solves A x = b for Hermitian positive definite A; x holds the initial guess on entry.
template <typename Op>
SolveResult ConjugateGradient(const Op& A, typename Op::Field& x, const typename Op::Field& b,
                              const SolverParams& params) {
  using B = typename Op::Backend;
  params.Validate("ConjugateGradient");
  detail::CheckSystem(A, x, b, "ConjugateGradient");
  detail::Stopwatch clock;
  SolveResult result;
  result.solver = std::string("CG<") + PrecisionTraits<typename Op::Precision>::kName + ">";
  result.system = A.Name() + " x = b";
  const double b_norm2 = B::Norm2(b);
  if (!detail::HandleZeroSource<Op>(x, b_norm2, result)) {
    typename Op::Field r = A.NewField(), p = A.NewField(), q = A.NewField();
    detail::RestartLoop(A, x, b, r, b_norm2, params, result, [&](double rr, double stop_rr) {
      return detail::CgIterate(A, x, r, p, q, rr, stop_rr, b_norm2, params.max_iterations, params.record_history,
                               result);
    });
  }
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace lqcd::solvers
