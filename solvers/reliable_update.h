// reliable_update.h: mixed-precision Krylov solvers with reliable updates (the paper's section 5.3,
// Algorithm 2, restated in /work/shared/papers/README.md), for BiCGstab and CG.
//
// The outer (high) and inner (low) precisions are the precisions of the two operators, e.g.
// ReliableBiCGstab(CpuWilsonSchur<double>, CpuWilsonSchur<Half>, ...). Algorithm 2:
//     r = b - A x (high);  x_acc = x                      [x is the caller's field: it IS x_acc]
//     r^ = r;  x^ = 0;  maxr = |r|                         Convert, Zero
//     while |r^| > eps |b|:
//         one low-precision Krylov iteration on x^, r^     (bicgstab.h / cg.h iteration, A^ = low operator)
//         if |r^| < delta * maxr:                          residual fell by delta since the last update
//             x_acc = x_acc + x^                           Convert(tmp, x^), Axpy (group-wise update)
//             r = b - A x_acc                              high-precision true residual
//             r^ = r;  x^ = 0;  maxr = |r|                  (counted: high_precision_updates = l)
//         else: maxr = max(maxr, |r^|)
//     x = x_acc + x^;  true residual recomputed
// When the low-precision iteration claims |r^| <= eps |b|, an update is forced, so convergence is always
// decided by the high-precision true residual. Iterations are counted as the paper does: k + l.
// Fields: 4 high-precision (b, r, x = x_acc, one temporary; the even-odd operator keeps its own scratch)
// and the low-precision solver's own (6 for BiCGstab: r^, x^, r0, p, v, t; 4 for CG: r^, x^, p, q).
//
// The Krylov search state carries on across an update (no restart):
//   - BiCGstab keeps p, v, the shadow residual r0 and alpha, omega; rho = (r0, r^) is recomputed from the
//     replaced r^ so that the next beta = (rho_new / rho)(alpha / omega) uses the residual actually
//     iterated on. (After an exit on BiCGstab's half step the recurrence is restarted from r^, since the
//     second half of that iteration never happened.)
//   - CG (the paper's footnote 9, citing Strzodka and Goeddeke, FCCM 2006: "take care when updating the
//     gradient vector"): CG's step length alpha = (r, r) / (p, A p) is the exact line search only while
//     (r, p) = (r, r), which holds because each new residual is orthogonal to the previous direction.
//     The replaced residual is not orthogonal to the old direction any more, so before forming the next
//     direction we restore that orthogonality, p <- p - ((r^, p) / (r^, r^)) r^ (one Dot and one Caxpy per
//     update), and then continue with beta = |r^_new|^2 / |r^_old|^2 and p = r^ + beta p. The paper does
//     not spell out the fix; this is the one we derived and use (docs/solvers.md).
// Stopping: converged when the true residual after an update is <= eps; kStagnation when the low precision
// cannot resolve further progress: params.max_stagnant_updates updates since the last progress in which
// the iterated residual claimed to be below the best true residual so far and the true residual did not
// confirm it (it stayed at or above that best). An update whose iterated residual was itself not below the
// best is not such evidence: it is the Krylov method's own non-monotone convergence (BiCGstab's residual
// rises by orders of magnitude near the critical mass, in any precision, and the updates then find
// iterated = true residual), and only the iteration budget limits it. kMaxIterations, kBreakdown,
// kNonPositiveCurvature, kNotFinite as in the plain solvers (x^ is folded into x before returning).
// delta must satisfy u_low < delta < 1 (the paper: any reduction beyond ulp_in is erroneous).
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

#include "solvers/bicgstab.h"
#include "solvers/cg.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace detail {

template <typename HighOp, typename LowOp>
void CheckMixedOperators(const HighOp& high, const LowOp& low, const SolverParams& params, const char* solver) {
  static_assert(std::is_same_v<typename HighOp::Backend, typename LowOp::Backend>,
                "mixed-precision operators must share a backend");
  using B = typename HighOp::Backend;
  if (!B::Compatible(high.NewField(), low.NewField())) {
    throw std::invalid_argument(std::string(solver) + ": " + high.Name() + " and " + low.Name() +
                                " act on different fields");
  }
  const double u_low = PrecisionTraits<typename LowOp::Precision>::kUnitRoundoff;
  if (!(params.delta > u_low)) {
    throw std::invalid_argument(std::string(solver) + ": delta = " + Num(params.delta) +
                                " must exceed the unit roundoff of the low precision (" + Num(u_low) + ")");
  }
}

template <typename HighOp, typename LowOp>
std::string MixedName(const char* algorithm, const SolverParams& params) {
  return std::string(algorithm) + "<" + PrecisionTraits<typename HighOp::Precision>::kName + "," +
         PrecisionTraits<typename LowOp::Precision>::kName + "> delta=" + Num(params.delta);
}

// The high-precision half of Algorithm 2: x += x^; r = b - A x; r^ = r; x^ = 0. Returns the true |r|^2.
// Bookkeeping: counts the update as an iteration (k + l), records it, and tracks stagnation.
template <typename HighOp, typename LowField>
struct ReliableUpdater {
  using HighField = typename HighOp::Field;
  using B = typename HighOp::Backend;
  const HighOp& A;
  HighField& x;
  const HighField& b;
  HighField& r;
  HighField& tmp;
  double b_norm2;
  const SolverParams& params;
  SolveResult& result;
  double best_true = std::numeric_limits<double>::infinity();
  int stagnant = 0;  // updates since the last progress whose iterated residual claimed an unconfirmed gain

  // Folds x^ into x (used by every exit path as well).
  void Accumulate(LowField& x_low) {
    B::Convert(tmp, x_low);
    B::Axpy(1.0, tmp, x);
    B::Zero(x_low);
    result.flops += vector_flops::kAxpy * B::Reals(x);
  }

  // Returns the true |r|^2 after the update; sets `done` (converged or stagnation) in result.
  double Update(LowField& x_low, LowField& r_low, bool& done) {
    Accumulate(x_low);
    return Judge(ResidualNorm2(A, x, b, r, result), r_low, done);
  }

  // The rest of Update once x^ is folded in and r = b - A x, rr = |r|^2 (and counted): r^ = r, the
  // bookkeeping and the stopping tests. (A block solver computes the residuals of several systems at once.)
  double Judge(double rr, LowField& r_low, bool& done) {
    const double claimed = result.iterated_residual;  // the low-precision |r^| / |b| that triggered it
    B::Convert(r_low, r);
    result.high_precision_updates += 1;
    result.iterations += 1;  // the paper's k + l
    const double true_residual = std::sqrt(rr / b_norm2);
    result.updates.push_back({result.krylov_iterations, result.iterated_residual, true_residual});
    done = false;
    if (!Finite(rr)) {
      Stop(result, SolveStatus::kNotFinite, "true residual is " + Num(true_residual));
      done = true;
    } else if (true_residual <= params.tolerance) {
      Stop(result, SolveStatus::kConverged, "true residual " + Num(true_residual) + " <= " + Num(params.tolerance));
      done = true;
    } else if (true_residual < best_true) {
      best_true = true_residual;
      stagnant = 0;
    } else if (claimed < best_true && ++stagnant >= params.max_stagnant_updates) {
      Stop(result, SolveStatus::kStagnation,
           std::to_string(stagnant) + " reliable updates in which the low-precision residual fell below " +
               Num(best_true) + " but the true residual did not (now " + Num(true_residual) + ", iterated " +
               Num(claimed) + ")");
      done = true;
    }
    return rr;
  }

  // The end of a reliable-update solve: after a failure (`done` false) x^ is folded in and the honest
  // residual recomputed; after convergence or stagnation the last update's true residual is the record's.
  void Finish(LowField& x_low, bool done) {
    if (!done) {
      Accumulate(x_low);
      Conclude(result, std::sqrt(ResidualNorm2(A, x, b, r, result) / b_norm2), params.tolerance);
    } else {
      result.true_residual = result.updates.back().true_residual;
    }
  }
};

template <typename HighOp, typename LowOp>
SolveResult StartMixed(const HighOp& A, const LowOp& A_low, typename HighOp::Field& x,
                       const typename HighOp::Field& b, const SolverParams& params, const char* algorithm) {
  params.Validate(algorithm);
  CheckMixedOperators(A, A_low, params, algorithm);
  CheckSystem(A, x, b, algorithm);
  SolveResult result;
  result.solver = MixedName<HighOp, LowOp>(algorithm, params);
  result.system = A.Name() + " x = b";
  return result;
}

}  // namespace detail

// Reliable-update BiCGstab: A (high precision) and A_low (low precision) represent the same matrix.
template <typename HighOp, typename LowOp>
SolveResult ReliableBiCGstab(const HighOp& A, const LowOp& A_low, typename HighOp::Field& x,
                             const typename HighOp::Field& b, const SolverParams& params) {
  using B = typename HighOp::Backend;
  using LowField = typename LowOp::Field;
  detail::Stopwatch clock;
  SolveResult result = detail::StartMixed(A, A_low, x, b, params, "ReliableUpdate-BiCGstab");
  const double b_norm2 = B::Norm2(b);
  if (detail::HandleZeroSource<HighOp>(x, b_norm2, result)) return result;
  const double stop_rr = params.tolerance * params.tolerance * b_norm2;

  typename HighOp::Field r = A.NewField(), tmp = A.NewField();
  LowField x_low = A_low.NewField();
  detail::BicgstabFields<LowField> f{A_low.NewField(), A_low.NewField(), A_low.NewField(), A_low.NewField(),
                                     A_low.NewField()};
  detail::ReliableUpdater<HighOp, LowField> updater{A, x, b, r, tmp, b_norm2, params, result};

  const double rr = detail::ResidualNorm2(A, x, b, r, result);
  result.true_residual = std::sqrt(rr / b_norm2);
  if (rr <= stop_rr) {
    detail::Stop(result, SolveStatus::kConverged, "initial guess already meets the tolerance");
    result.seconds = clock.Seconds();
    return result;
  }
  B::Convert(f.r, r);  // r^ = r, x^ = 0
  detail::BicgstabScalars<B> s;
  detail::BicgstabStart<B>(f, s);
  double max_r = std::sqrt(rr);
  bool done = false;
  while (!done) {
    if (result.iterations >= params.max_iterations) {
      detail::Stop(result, SolveStatus::kMaxIterations,
                   "reached " + std::to_string(params.max_iterations) + " iterations (k + l)");
      break;
    }
    const long long apps_before = result.operator_applications;
    const detail::BicgstabOutcome o =
        detail::BicgstabAdvance(A_low, x_low, f, s, stop_rr, b_norm2, params.record_history, result);
    result.low_precision_applications += result.operator_applications - apps_before;
    if (o == detail::BicgstabOutcome::kFailed) break;
    const double r_norm = std::sqrt(s.rr);
    const bool claims_convergence = s.rr <= stop_rr;
    if (claims_convergence || r_norm < params.delta * max_r) {
      const double rr_true = updater.Update(x_low, f.r, done);
      if (done) break;
      max_r = std::sqrt(rr_true);
      s.rr = B::Norm2(f.r);
      result.flops += vector_flops::kNorm2 * B::Reals(x);
      if (o == detail::BicgstabOutcome::kConvergedOnHalfStep) {
        detail::BicgstabStart<B>(f, s);  // the iteration's second half never happened: restart from r^
        continue;
      }
      s.rho_new = B::Dot(f.r0, f.r);  // rho of the replaced residual
      result.flops += vector_flops::kDot * B::Reals(x);
    } else {
      max_r = std::max(max_r, r_norm);  // (a half-step exit always claims convergence: not here)
    }
    if (!detail::BicgstabNewDirection<B>(f, s, result)) break;
  }
  updater.Finish(x_low, done);
  result.seconds = clock.Seconds();
  return result;
}

// Reliable-update CG for a Hermitian positive definite A (e.g. M^dag M, see normal_equations.h).
template <typename HighOp, typename LowOp>
SolveResult ReliableCg(const HighOp& A, const LowOp& A_low, typename HighOp::Field& x,
                       const typename HighOp::Field& b, const SolverParams& params) {
  using B = typename HighOp::Backend;
  using LowField = typename LowOp::Field;
  namespace vf = vector_flops;
  detail::Stopwatch clock;
  SolveResult result = detail::StartMixed(A, A_low, x, b, params, "ReliableUpdate-CG");
  const double b_norm2 = B::Norm2(b);
  if (detail::HandleZeroSource<HighOp>(x, b_norm2, result)) return result;
  const double stop_rr = params.tolerance * params.tolerance * b_norm2;

  typename HighOp::Field r = A.NewField(), tmp = A.NewField();
  LowField x_low = A_low.NewField(), r_low = A_low.NewField(), p = A_low.NewField(), q = A_low.NewField();
  detail::ReliableUpdater<HighOp, LowField> updater{A, x, b, r, tmp, b_norm2, params, result};
  const double reals = B::Reals(x);

  const double rr = detail::ResidualNorm2(A, x, b, r, result);
  result.true_residual = std::sqrt(rr / b_norm2);
  if (rr <= stop_rr) {
    detail::Stop(result, SolveStatus::kConverged, "initial guess already meets the tolerance");
    result.seconds = clock.Seconds();
    return result;
  }
  B::Convert(r_low, r);
  B::Copy(p, r_low);
  double rr_low = B::Norm2(r_low);
  double max_r = std::sqrt(rr);
  bool done = false;
  while (!done) {
    if (result.iterations >= params.max_iterations) {
      detail::Stop(result, SolveStatus::kMaxIterations,
                   "reached " + std::to_string(params.max_iterations) + " iterations (k + l)");
      break;
    }
    // q = A p; (p, q); r -= alpha q (counts the application)
    const auto step = detail::ApplyCurvatureUpdate(A_low, q, p, r_low, rr_low, result);
    result.low_precision_applications += 1;
    double rr_new = 0;
    if (detail::CgAdvance<B>(step, rr_new, b_norm2, params.record_history, result,
                             detail::CgUpdateX<B>(x_low, p, result)) == detail::StepOutcome::kFailed) {
      break;
    }
    const double r_norm = std::sqrt(rr_new);
    if (rr_new <= stop_rr || r_norm < params.delta * max_r) {
      const double rr_true = updater.Update(x_low, r_low, done);
      if (done) break;
      max_r = std::sqrt(rr_true);
      rr_new = B::Norm2(r_low);
      // Footnote 9: restore (r^, p) = 0 for the replaced residual before forming the next direction.
      const std::complex<double> rp = B::Dot(r_low, p);
      B::Caxpy(-rp / rr_new, r_low, p);
      result.flops += (vf::kNorm2 + vf::kDot + vf::kCaxpy) * reals;
    } else {
      max_r = std::max(max_r, r_norm);
    }
    detail::CgNewDirection<B>(r_low, rr_new, rr_low, p, result);
    rr_low = rr_new;
  }
  updater.Finish(x_low, done);
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace lqcd::solvers
