// bicgstab.h: BiCGstab for a general (non-Hermitian) operator A, as the paper applies it to M and M_ee.
//
// Pseudo-code (H. A. van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631, the Bi-CGSTAB algorithm;
// same variables as Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., Algorithm 7.7), and the
// backend call that does each line:
//     r = b - A x;  r0 = r (shadow residual, fixed);  p = r;  rho = (r0, r)     ResidualNorm2, Copy, Dot
//     loop:
//       v = A p;  alpha = rho / (r0, v)                          A.Apply, DotNorm [(r0, v) ~ 0: breakdown]
//       s = r - alpha v                                          CaxpyNorm (s overwrites r)
//       (if |s| <= tol |b|: x = x + alpha p, stop)               Caxpy
//       t = A s;  omega = (t, s) / (t, t)                        A.Apply, DotNorm [omega ~ 0: breakdown]
//       x = x + alpha p + omega s;  r = s - omega t;  rho' = (r0, r)   BicgstabUpdate
//       stop if |r| <= tol |b|                                                    [rho' ~ 0: breakdown]
//       beta = (rho' / rho) (alpha / omega);  rho = rho'
//       p = r + beta (p - omega v)                               BicgstabDirection
// "~ 0" means |(a, b)| <= u_double |a| |b|: the dot products are accumulated in double for every field
// precision, so below that the computed value cannot be told from zero (detail::DotVanishes). One Krylov
// iteration is one pass of the loop (two operator applications).
// The iterated residual is verified against the true residual at the end, with restarts and stagnation
// detection exactly as for CG (cg.h, detail::RestartLoop and detail::VerifyTrueResidual); a restart takes
// r0 = the new true residual. The iteration is written as two halves split at the operator applications
// (detail::BicgstabFirstHalf, detail::BicgstabSecondHalf) so that the block solver runs the same code.
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <complex>
#include <string>

#include "solvers/cg.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace detail {

// True when |dot| is numerically zero relative to the norms of its two vectors. Every reduction of the
// backend is accumulated in double (README.md), so the computed (a, b) of the STORED a and b is known to
// about u_double |a| |b| whatever the field precision; below that it cannot be told from zero. (The
// storage precision decides how far r drifts from b - A x, which the true-residual checks and reliable
// updates repair; it does not make a dot product of the stored vectors less accurate.)
inline bool DotVanishes(std::complex<double> dot, double norm2_a, double norm2_b) {
  return std::abs(dot) <= PrecisionTraits<double>::kUnitRoundoff * std::sqrt(norm2_a * norm2_b);
}

// The fields of one BiCGstab iteration.
template <typename Field>
struct BicgstabFields {
  Field r, r0, p, v, t;
};

// The scalars carried from one iteration to the next.
struct BicgstabScalars {
  std::complex<double> rho;      // (r0, r) of the current r
  std::complex<double> alpha, omega;
  double r0_norm2 = 0;           // |r0|^2, for the breakdown tests
  double rr = 0;                 // |r|^2 of the current r (of s after a half-step exit)
};

enum class BicgstabOutcome { kIterated, kConvergedOnHalfStep, kFailed };

// (Re)starts the recurrence from the current r: r0 = p = r, rho = |r|^2.
template <typename B, typename Field>
void BicgstabStart(BicgstabFields<Field>& f, BicgstabScalars& s) {
  B::Copy(f.r0, f.r);
  B::Copy(f.p, f.r);
  s.rr = B::Norm2(f.r);
  s.r0_norm2 = s.rr;
  s.rho = s.rr;
}

// An iteration is split at its two operator applications, so that the single solver (BicgstabAdvance)
// and the block solver (block_bicgstab.h, one batched application for all systems) run the same lines.
// The caller applies A and counts it.
//
// First half, after v = A p: alpha = rho / (r0, v) [~0: breakdown], s = r - alpha v (r holds s), and
// s.rr = |s|^2. kConvergedOnHalfStep (x += alpha p, iteration counted) when |s|^2 <= stop_rr; kIterated
// when t = A s is needed next.
template <typename B, typename Field>
BicgstabOutcome BicgstabFirstHalf(Field& x, BicgstabFields<Field>& f, BicgstabScalars& s, double stop_rr,
                                  double b_norm2, bool record_history, SolveResult& result) {
  namespace vf = vector_flops;
  const double reals = B::Reals(x);
  const auto vr0 = B::DotNorm(f.v, f.r0);  // (v, r0) and |v|^2 in one pass
  const std::complex<double> r0v = std::conj(vr0.dot);
  result.flops += vf::kDotNorm * reals;
  if (!Finite(std::abs(r0v)) || !Finite(vr0.norm2)) {
    Stop(result, SolveStatus::kNotFinite, "(r0, A p) = " + Num(std::abs(r0v)));
    return BicgstabOutcome::kFailed;
  }
  if (DotVanishes(r0v, s.r0_norm2, vr0.norm2)) {
    Stop(result, SolveStatus::kBreakdown,
         "(r0, A p) = " + Num(std::abs(r0v)) + " vanishes at iteration " + std::to_string(result.iterations));
    return BicgstabOutcome::kFailed;
  }
  s.alpha = s.rho / r0v;
  const double ss = B::CaxpyNorm(-s.alpha, f.v, f.r);  // r now holds s
  result.flops += vf::kCaxpyNorm * reals;
  if (!Finite(ss)) {
    Stop(result, SolveStatus::kNotFinite, "|s|^2 = " + Num(ss));
    return BicgstabOutcome::kFailed;
  }
  s.rr = ss;  // |s|^2: the omega breakdown test needs it
  if (ss <= stop_rr) {  // converged on the half step: x = x + alpha p
    B::Caxpy(s.alpha, f.p, x);
    result.flops += vf::kCaxpy * reals;
    RecordIteration(result, ss, b_norm2, record_history);
    return BicgstabOutcome::kConvergedOnHalfStep;
  }
  return BicgstabOutcome::kIterated;
}

// Second half, after t = A s: omega = (t, s) / (t, t) [~0: breakdown], x += alpha p + omega s,
// r = s - omega t, s.rr = |r|^2 and rho_new = (r0, r). Counts the iteration. The search direction is
// advanced separately (BicgstabNewDirection) so that a reliable update can replace r in between.
template <typename B, typename Field>
BicgstabOutcome BicgstabSecondHalf(Field& x, BicgstabFields<Field>& f, BicgstabScalars& s,
                                   std::complex<double>& rho_new, double b_norm2, bool record_history,
                                   SolveResult& result) {
  namespace vf = vector_flops;
  const double reals = B::Reals(x);
  const double ss = s.rr;
  const auto ts = B::DotNorm(f.t, f.r);  // (t, s), |t|^2
  result.flops += vf::kDotNorm * reals;
  if (!Finite(ts.norm2) || !Finite(std::abs(ts.dot))) {
    Stop(result, SolveStatus::kNotFinite, "(t, s) or |t|^2 not finite");
    return BicgstabOutcome::kFailed;
  }
  if (ts.norm2 == 0 || DotVanishes(ts.dot, ts.norm2, ss)) {
    Stop(result, SolveStatus::kBreakdown,
         "omega = (t, s) / (t, t) vanishes (|(t, s)| = " + Num(std::abs(ts.dot)) + ", |t|^2 = " + Num(ts.norm2) +
             ") at iteration " + std::to_string(result.iterations));
    return BicgstabOutcome::kFailed;
  }
  s.omega = ts.dot / ts.norm2;
  const auto update = B::BicgstabUpdate(s.alpha, f.p, s.omega, f.t, x, f.r, f.r0);
  result.flops += vf::kBicgstabUpdate * reals;
  RecordIteration(result, update.norm2, b_norm2, record_history);
  if (!Finite(update.norm2) || !Finite(std::abs(update.dot))) {
    Stop(result, SolveStatus::kNotFinite, "|r|^2 = " + Num(update.norm2));
    return BicgstabOutcome::kFailed;
  }
  s.rr = update.norm2;
  rho_new = update.dot;
  return BicgstabOutcome::kIterated;
}

// One BiCGstab iteration up to the new residual: v = A p, the first half, t = A s, the second half.
// Leaves (r0, r_new) in `rho_new`. Counts the iteration and both applications in `result`.
template <typename Op>
BicgstabOutcome BicgstabAdvance(const Op& A, typename Op::Field& x, BicgstabFields<typename Op::Field>& f,
                                BicgstabScalars& s, std::complex<double>& rho_new, double stop_rr, double b_norm2,
                                bool record_history, SolveResult& result) {
  using B = typename Op::Backend;
  A.Apply(f.v, f.p);
  result.operator_applications += 1;
  result.flops += A.FlopsPerApply();
  const BicgstabOutcome first = BicgstabFirstHalf<B>(x, f, s, stop_rr, b_norm2, record_history, result);
  if (first != BicgstabOutcome::kIterated) return first;
  A.Apply(f.t, f.r);
  result.operator_applications += 1;
  result.flops += A.FlopsPerApply();
  return BicgstabSecondHalf<B>(x, f, s, rho_new, b_norm2, record_history, result);
}

// beta = (rho_new / rho) (alpha / omega); p = r + beta (p - omega v); rho = rho_new.
// Returns false (breakdown recorded) when rho_new vanishes.
template <typename Op>
bool BicgstabNewDirection(BicgstabFields<typename Op::Field>& f, BicgstabScalars& s, std::complex<double> rho_new,
                          SolveResult& result) {
  using B = typename Op::Backend;
  if (DotVanishes(rho_new, s.r0_norm2, s.rr)) {
    Stop(result, SolveStatus::kBreakdown,
         "rho = (r0, r) = " + Num(std::abs(rho_new)) + " vanishes at iteration " + std::to_string(result.iterations));
    return false;
  }
  const std::complex<double> beta = (rho_new / s.rho) * (s.alpha / s.omega);
  s.rho = rho_new;
  B::BicgstabDirection(f.r, beta, s.omega, f.v, f.p);
  result.flops += vector_flops::kBicgstabDirection * B::Reals(f.p);
  return true;
}

// BiCGstab iterations on A x = b from the current x with r = b - A x on entry; r0 and p are
// (re)initialised from r. Returns true when |r|^2 <= stop_rr; otherwise sets result.status and returns
// false. result.iterations counts against max_iterations.
template <typename Op>
bool BicgstabIterate(const Op& A, typename Op::Field& x, BicgstabFields<typename Op::Field>& f, double stop_rr,
                     double b_norm2, int max_iterations, bool record_history, SolveResult& result) {
  BicgstabScalars s;
  BicgstabStart<typename Op::Backend>(f, s);
  if (s.rr <= stop_rr) return true;
  for (;;) {
    if (BudgetSpent(result, max_iterations, s.rr, b_norm2)) return false;
    std::complex<double> rho_new;
    const BicgstabOutcome o = BicgstabAdvance(A, x, f, s, rho_new, stop_rr, b_norm2, record_history, result);
    if (o == BicgstabOutcome::kFailed) return false;
    if (o == BicgstabOutcome::kConvergedOnHalfStep || s.rr <= stop_rr) return true;
    if (!BicgstabNewDirection<Op>(f, s, rho_new, result)) return false;
  }
}

}  // namespace detail

// Solves A x = b; x holds the initial guess on entry.
template <typename Op>
SolveResult BiCGstab(const Op& A, typename Op::Field& x, const typename Op::Field& b, const SolverParams& params) {
  using B = typename Op::Backend;
  params.Validate("BiCGstab");
  detail::CheckSystem(A, x, b, "BiCGstab");
  detail::Stopwatch clock;
  SolveResult result;
  result.solver = std::string("BiCGstab<") + PrecisionTraits<typename Op::Precision>::kName + ">";
  result.system = A.Name() + " x = b";
  const double b_norm2 = B::Norm2(b);
  if (!detail::HandleZeroSource<Op>(x, b_norm2, result)) {
    detail::BicgstabFields<typename Op::Field> f{A.NewField(), A.NewField(), A.NewField(), A.NewField(),
                                                 A.NewField()};
    detail::RestartLoop(A, x, b, f.r, b_norm2, params, result, [&](double rr, double stop_rr) {
      (void)rr;
      return detail::BicgstabIterate(A, x, f, stop_rr, b_norm2, params.max_iterations, params.record_history,
                                     result);
    });
  }
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace lqcd::solvers
