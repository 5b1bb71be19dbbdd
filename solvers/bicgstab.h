// bicgstab.h: BiCGstab for a general (non-Hermitian) operator A, as the paper applies it to M and M_ee.
//
// Pseudo-code (H. A. van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631, the Bi-CGSTAB algorithm;
// same variables as Saad, "Iterative Methods for Sparse Linear Systems", 2nd ed., Algorithm 7.7), and the
// backend call that does each line:
//     r = b - A x;  r0 = r (shadow residual, fixed);  p = r;  rho = (r0, r)     ResidualNorm2, Copy, Dot
//     loop:
//       v = A p;  alpha = rho / (r0, v)                          ApplyDotNorm   [(r0, v) ~ 0: breakdown]
//       s = r - alpha v                                          DeferredCaxpyNorm (s overwrites r)
//       (if |s| <= tol |b|: x = x + alpha p, stop)               Caxpy
//       t = A s;  omega = (t, s) / (t, t)                        ApplyDotNorm   [omega ~ 0: breakdown]
//       r = s - omega t;  rho' = (r0, r)                         BicgstabResidual
//       x = x + alpha p + omega s                                BicgstabSolution
//       stop if |r| <= tol |b|                                                    [rho' ~ 0: breakdown]
//       beta = (rho' / rho) (alpha / omega);  rho = rho'
//       p = r + beta (p - omega v)                               BicgstabDirection
// "~ 0" means |(a, b)| <= u_double |a| |b|: the dot products are accumulated in double for every field
// precision, so below that the computed value cannot be told from zero (detail::DotVanishes). One Krylov
// iteration is one pass of the loop (two operator applications).
// The scalars are the backend's deferred scalars and every test reads them on the host only after the next
// piece of device work is queued (t = A s before the tests of alpha and |s|; the new residual before the
// test of omega; the x update before the test of |r|), so on the GPU no kernel waits for the host; on the
// CPU the order changes nothing. The tests still guard x: x is updated only after the scalars it uses passed.
// The iterated residual is verified against the true residual at the end, with restarts and stagnation
// detection exactly as for CG (cg.h, detail::RestartLoop and detail::VerifyTrueResidual); a restart takes
// r0 = the new true residual. The iteration is written in pieces split at the operator applications
// (detail::BicgstabQueueFirstHalf, BicgstabCheckFirstHalf, BicgstabSecondHalf, BicgstabNewDirection) so that
// the block solver and reliable updates run the same code.
// Aliasing: x and b must be different fields.
#pragma once

#include <cmath>
#include <complex>
#include <string>
#include <type_traits>
#include <utility>

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

// The fields of one BiCGstab iteration. The second half leaves the new residual in t and swaps r and t
// (a move of the two field objects, no copy), so r always names the current residual.
template <typename Field>
struct BicgstabFields {
  Field r, r0, p, v, t;
};

// The scalars carried from one iteration to the next. rho, alpha, omega and rho_new are the backend's
// deferred scalars (README.md, "Deferred scalars": on the GPU they stay on the device and the next kernels
// read them there); what the host tests is read with B::HostValue.
template <typename B>
struct BicgstabScalars {
  typename B::ComplexScalar rho;      // (r0, r) of the current r
  typename B::ComplexScalar alpha, omega;
  typename B::ComplexScalar rho_new;  // (r0, r) of the new r, until BicgstabNewDirection
  double r0_norm2 = 0;                // |r0|^2, for the breakdown tests
  double rr = 0;                      // |r|^2 of the current r (of s after a half-step exit)
  // Queued by BicgstabQueueFirstHalf, tested by BicgstabCheckFirstHalf:
  typename B::ComplexScalar r0v;      // (r0, v)
  typename B::RealScalar v_norm2, ss;  // |v|^2, |s|^2
};

enum class BicgstabOutcome { kIterated, kConvergedOnHalfStep, kFailed };

// Whether the operator has the optional ApplyDotNorm(out, in, w) (README.md).
template <typename Op, typename = void>
struct HasApplyDotNorm : std::false_type {};
template <typename Op>
struct HasApplyDotNorm<Op, std::void_t<decltype(std::declval<const Op&>().ApplyDotNorm(
                               std::declval<typename Op::Field&>(), std::declval<const typename Op::Field&>(),
                               std::declval<const typename Op::Field&>()))>> : std::true_type {};

// out = A in, then (out, w) and |out|^2 as deferred scalars (.dot, .norm2): the operator's ApplyDotNorm when
// it has one (it may fuse the reduction into the application), else Apply and B::DeferredDotNorm. The caller
// counts the application and the DotNorm's flops.
template <typename Op>
auto ApplyDotNorm(const Op& A, typename Op::Field& out, const typename Op::Field& in, const typename Op::Field& w) {
  if constexpr (HasApplyDotNorm<Op>::value) {
    return A.ApplyDotNorm(out, in, w);
  } else {
    A.Apply(out, in);
    return Op::Backend::DeferredDotNorm(out, w);
  }
}

// (Re)starts the recurrence from the current r: r0 = p = r, rho = |r|^2.
template <typename B, typename Field>
void BicgstabStart(BicgstabFields<Field>& f, BicgstabScalars<B>& s) {
  B::Copy(f.r0, f.r);
  B::Copy(f.p, f.r);
  s.rr = B::Norm2(f.r);
  s.r0_norm2 = s.rr;
  s.rho = std::complex<double>(s.rr);
}

// An iteration is split at its two operator applications, so that the single solver (BicgstabAdvance)
// and the block solver (block_bicgstab.h, one batched application for all systems) run the same lines.
// The caller applies A and counts it. Each host test comes after the next piece of device work has been
// queued, so the device is never idle waiting for the host: a test guards only what cannot be undone (x),
// and a failed test leaves r, t, p or v as scratch that the caller recomputes from x.
//
// First half, after v = A p with vr0 = (v, r0) and |v|^2 (ApplyDotNorm), queued without a host read:
// alpha = rho / (r0, v), s = r - alpha v (r holds s), |s|^2. The caller then queues t = A s and calls
// BicgstabCheckFirstHalf.
template <typename B, typename Field, typename DotNorm>
void BicgstabQueueFirstHalf(BicgstabFields<Field>& f, BicgstabScalars<B>& s, const DotNorm& vr0,
                            SolveResult& result) {
  namespace vf = vector_flops;
  using std::conj;
  const double reals = B::Reals(f.r);
  s.r0v = conj(vr0.dot);
  s.v_norm2 = vr0.norm2;
  s.alpha = s.rho / s.r0v;
  s.ss = B::DeferredCaxpyNorm(-s.alpha, f.v, f.r);  // r now holds s
  result.flops += vf::kCaxpyNorm * reals;
}

// The tests of the first half: (r0, v) ~ 0 is a breakdown; kConvergedOnHalfStep (x += alpha p, iteration
// counted) when |s|^2 <= stop_rr; kIterated when the second half follows. s.rr = |s|^2.
template <typename B, typename Field>
BicgstabOutcome BicgstabCheckFirstHalf(Field& x, BicgstabFields<Field>& f, BicgstabScalars<B>& s, double stop_rr,
                                       double b_norm2, bool record_history, SolveResult& result) {
  const std::complex<double> r0v = B::HostValue(s.r0v);
  const double v_norm2 = B::HostValue(s.v_norm2);
  if (!Finite(std::abs(r0v)) || !Finite(v_norm2)) {
    Stop(result, SolveStatus::kNotFinite, "(r0, A p) = " + Num(std::abs(r0v)));
    return BicgstabOutcome::kFailed;
  }
  if (DotVanishes(r0v, s.r0_norm2, v_norm2)) {
    Stop(result, SolveStatus::kBreakdown,
         "(r0, A p) = " + Num(std::abs(r0v)) + " vanishes at iteration " + std::to_string(result.iterations));
    return BicgstabOutcome::kFailed;
  }
  const double ss = B::HostValue(s.ss);
  if (!Finite(ss)) {
    Stop(result, SolveStatus::kNotFinite, "|s|^2 = " + Num(ss));
    return BicgstabOutcome::kFailed;
  }
  s.rr = ss;  // |s|^2: the omega breakdown test needs it
  if (ss <= stop_rr) {  // converged on the half step: x = x + alpha p
    B::Caxpy(s.alpha, f.p, x);
    result.flops += vector_flops::kCaxpy * B::Reals(x);
    RecordIteration(result, ss, b_norm2, record_history);
    return BicgstabOutcome::kConvergedOnHalfStep;
  }
  return BicgstabOutcome::kIterated;
}

// Second half, after t = A s with ts = (t, s) and |t|^2 (ApplyDotNorm): omega = (t, s) / (t, t); the new
// residual t = s - omega t with |r|^2 and rho_new = (r0, r) is queued before the host tests omega [~0:
// breakdown]; then x += alpha p + omega s, r and t swap, and the host reads |r|^2 while the device updates x.
// Counts the iteration. The search direction is advanced separately (BicgstabNewDirection) so that a
// reliable update can replace r in between.
template <typename B, typename Field, typename DotNorm>
BicgstabOutcome BicgstabSecondHalf(Field& x, BicgstabFields<Field>& f, BicgstabScalars<B>& s, const DotNorm& ts,
                                   double b_norm2, bool record_history, SolveResult& result) {
  namespace vf = vector_flops;
  const double reals = B::Reals(x);
  const double ss = s.rr;
  s.omega = ts.dot / ts.norm2;
  const auto update = B::BicgstabResidual(s.omega, f.t, f.r, f.r0);  // t = s - omega t: the new residual
  result.flops += vf::kBicgstabResidual * reals;
  const std::complex<double> t_s = B::HostValue(ts.dot);
  const double t_norm2 = B::HostValue(ts.norm2);
  if (!Finite(t_norm2) || !Finite(std::abs(t_s))) {
    Stop(result, SolveStatus::kNotFinite, "(t, s) or |t|^2 not finite");
    return BicgstabOutcome::kFailed;
  }
  if (t_norm2 == 0 || DotVanishes(t_s, t_norm2, ss)) {
    Stop(result, SolveStatus::kBreakdown,
         "omega = (t, s) / (t, t) vanishes (|(t, s)| = " + Num(std::abs(t_s)) + ", |t|^2 = " + Num(t_norm2) +
             ") at iteration " + std::to_string(result.iterations));
    return BicgstabOutcome::kFailed;
  }
  B::BicgstabSolution(s.alpha, f.p, s.omega, f.r, x);  // x = x + alpha p + omega s
  result.flops += vf::kBicgstabSolution * reals;
  std::swap(f.r, f.t);
  const double rr = B::HostValue(update.norm2);
  s.rho_new = update.dot;
  RecordIteration(result, rr, b_norm2, record_history);
  if (!Finite(rr) || !Finite(std::abs(B::HostValue(s.rho_new)))) {
    Stop(result, SolveStatus::kNotFinite, "|r|^2 = " + Num(rr));
    return BicgstabOutcome::kFailed;
  }
  s.rr = rr;
  return BicgstabOutcome::kIterated;
}

// One BiCGstab iteration up to the new residual: v = A p, the first half, t = A s, the second half.
// Leaves (r0, r_new) in s.rho_new. Counts the iteration and the applications in `result` (t = A s is
// applied before the half-step test, so a half-step exit has applied it too).
template <typename Op>
BicgstabOutcome BicgstabAdvance(const Op& A, typename Op::Field& x, BicgstabFields<typename Op::Field>& f,
                                BicgstabScalars<typename Op::Backend>& s, double stop_rr, double b_norm2,
                                bool record_history, SolveResult& result) {
  using B = typename Op::Backend;
  BicgstabQueueFirstHalf<B>(f, s, ApplyDotNorm(A, f.v, f.p, f.r0), result);  // v = A p; (v, r0), |v|^2
  const auto ts = ApplyDotNorm(A, f.t, f.r, f.r);                              // t = A s; (t, s), |t|^2
  result.operator_applications += 2;
  result.flops += 2 * A.FlopsPerApply() + 2 * vector_flops::kDotNorm * B::Reals(x);
  const BicgstabOutcome first = BicgstabCheckFirstHalf<B>(x, f, s, stop_rr, b_norm2, record_history, result);
  if (first != BicgstabOutcome::kIterated) return first;
  return BicgstabSecondHalf<B>(x, f, s, ts, b_norm2, record_history, result);
}

// beta = (rho_new / rho) (alpha / omega); p = r + beta (p - omega v); rho = rho_new.
// Returns false (breakdown recorded) when rho_new vanishes.
template <typename B, typename Field>
bool BicgstabNewDirection(BicgstabFields<Field>& f, BicgstabScalars<B>& s, SolveResult& result) {
  const std::complex<double> rho_new = B::HostValue(s.rho_new);
  if (DotVanishes(rho_new, s.r0_norm2, s.rr)) {
    Stop(result, SolveStatus::kBreakdown,
         "rho = (r0, r) = " + Num(std::abs(rho_new)) + " vanishes at iteration " + std::to_string(result.iterations));
    return false;
  }
  const typename B::ComplexScalar beta = (s.rho_new / s.rho) * (s.alpha / s.omega);
  s.rho = s.rho_new;
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
  using B = typename Op::Backend;
  BicgstabScalars<B> s;
  BicgstabStart<B>(f, s);
  if (s.rr <= stop_rr) return true;
  for (;;) {
    if (BudgetSpent(result, max_iterations, s.rr, b_norm2)) return false;
    const BicgstabOutcome o = BicgstabAdvance(A, x, f, s, stop_rr, b_norm2, record_history, result);
    if (o == BicgstabOutcome::kFailed) return false;
    if (o == BicgstabOutcome::kConvergedOnHalfStep || s.rr <= stop_rr) return true;
    if (!BicgstabNewDirection<B>(f, s, result)) return false;
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
