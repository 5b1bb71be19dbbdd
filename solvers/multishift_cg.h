// multishift_cg.h: CG-M, conjugate gradients for the shifted family (A + sigma_i) x_i = b with A
// Hermitian and A + sigma_min positive definite (A = M^dag M, M_ee^dag M_ee, ...), all shifts from one
// Krylov iteration.
//
// Reference: B. Jegerlehner, "Krylov space solvers for shifted linear systems", hep-lat/9612014 (1996),
// the CG-M algorithm; derivation in docs/solvers.md ("Multi-shift solvers"). With the seed s = the
// smallest shift, A_s = A + sigma_s, d_i = sigma_i - sigma_s >= 0 and x = 0 on entry, CG on A_s x_s = b
// has residuals r_k; the shifted CG residuals are collinear, r^i_k = zeta^i_k r_k, with
//     zeta_{k+1} = zeta_k zeta_{k-1} alpha_{k-1}
//                  / ( alpha_k beta_{k-1} (zeta_{k-1} - zeta_k) + zeta_{k-1} alpha_{k-1} (1 + d alpha_k) ),
//     zeta_0 = zeta_{-1} = 1, alpha_{-1} = 1, beta_{-1} = 0,
//     alpha^i_k = alpha_k zeta_{k+1} / zeta_k,   beta^i_k = beta_k (zeta_{k+1} / zeta_k)^2.
// This file keeps each shifted search direction scaled by its zeta, phat^i_k = p^i_k / zeta^i_k, so that
// every shifted update is one backend call (no field scaling needed):
//     x^i = x^i + alpha_k zeta_{k+1} phat^i                      Axpy       (= x^i + alpha^i_k p^i_k)
//     phat^i = r_{k+1} + beta_k (zeta_{k+1} / zeta_k) phat^i     Xpay       (= p^i_{k+1} / zeta_{k+1})
// Pseudo-code with the backend call of each line:
//     r = b; p = b; phat^i = b; x^i = 0; rr = |b|^2                  Copy, Zero, Norm2
//     loop:
//       q = A_s p; alpha = rr / (p, q)                               A_s.Apply, ReDot   [(p, q) <= 0: curvature]
//       for each active shift i: zeta_{k+1}^i, x^i += alpha zeta_{k+1} phat^i          Axpy
//       x_s += alpha p; r -= alpha q; rr' = |r|^2                    CgUpdate
//       beta = rr' / rr
//       for each active shift i: estimate |zeta_{k+1}^i| |r|; freeze if <= tol |b|, else
//                                phat^i = r + beta zeta_{k+1} / zeta_k phat^i       Xpay
//       stop if |r| <= tol |b| (the seed); p = r + beta p            Xpay
// Then every shift's true residual is verified and, if needed, refined by single-shift CG
// (multishift_common.h). Memory: besides b, the seed needs r, p, q (and x_s), each other shift x^i and
// phat^i: 2 (n - 1) + 3 fields (Jegerlehner's count for n shifts including the seed).
// Per shared iteration: one application of A_s, one ReDot, one CgUpdate, one Xpay, plus one Axpy and
// one Xpay for every active shift.
// Aliasing: the x_i must be distinct fields, all different from b.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "solvers/cg.h"
#include "solvers/multishift_common.h"
#include "solvers/shifted_operator.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

// Solves (A + shifts[i]) x[i] = b for every i; x[i] on entry is ignored. See the file comment.
template <typename Op>
MultiShiftResult MultiShiftCg(const Op& A, const std::vector<double>& shifts, std::vector<typename Op::Field>& x,
                              const typename Op::Field& b, const SolverParams& params) {
  using B = typename Op::Backend;
  namespace vf = vector_flops;
  const int seed = detail::CheckMultiShift(A, shifts, x, b, params, "MultiShiftCg");
  detail::Stopwatch clock;
  const std::string name = std::string("CG-M<") + PrecisionTraits<typename Op::Precision>::kName + ">";
  MultiShiftResult out = detail::StartMultiShift(A, shifts, seed, name);
  const std::size_t n = shifts.size();
  const double b_norm2 = B::Norm2(b);
  for (auto& xi : x) B::Zero(xi);
  if (detail::ZeroSourceForAllShifts(out, b_norm2)) {
    out.seconds = clock.Seconds();
    return out;
  }

  const ShiftedOperator<Op> a_seed(A, shifts[seed]);
  const double reals = B::Reals(b);
  typename Op::Field r = A.NewField(), p = A.NewField(), q = A.NewField();
  B::Copy(r, b);
  B::Copy(p, b);
  // phat[slot[i]] is the scaled direction of shift i != seed (the seed's direction is p).
  std::vector<typename Op::Field> phat;
  std::vector<int> slot(n, -1);
  phat.reserve(n - 1);
  struct Zeta {
    double previous = 1, current = 1, next = 1;  // zeta_{k-1}, zeta_k, zeta_{k+1}
  };
  std::vector<Zeta> zeta(n);
  std::vector<detail::ShiftState> state(n, detail::ShiftState::kActive);
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<int>(i) == seed) continue;
    slot[i] = static_cast<int>(phat.size());
    phat.push_back(A.NewField());
    B::Copy(phat.back(), b);
  }
  double rr = b_norm2, alpha_previous = 1, beta_previous = 0;
  auto seed_fails = [&](SolveStatus status, const std::string& reason) {
    detail::FailActive(state, out, status, reason);
  };

  for (;;) {
    if (out.iterations >= params.max_iterations) {
      seed_fails(SolveStatus::kMaxIterations, "reached " + std::to_string(params.max_iterations) +
                                                  " shared iterations at seed residual " +
                                                  detail::Num(std::sqrt(rr / b_norm2)));
      break;
    }
    a_seed.Apply(q, p);
    const double pAp = B::ReDot(p, q);
    out.operator_applications += 1;
    out.flops += a_seed.FlopsPerApply() + vf::kReDot * reals;
    if (!detail::Finite(pAp)) {
      seed_fails(SolveStatus::kNotFinite, "p^dag A p = " + detail::Num(pAp) + " in the seed system");
      break;
    }
    if (pAp <= 0) {
      seed_fails(SolveStatus::kNonPositiveCurvature,
                 "p^dag (A + sigma_seed) p = " + detail::Num(pAp) + " <= 0 at iteration " +
                     std::to_string(out.iterations) + ": the seed operator is not positive definite");
      break;
    }
    const double alpha = rr / pAp;
    // Shifted solution updates with the directions of step k (before the directions move on).
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != detail::ShiftState::kActive || static_cast<int>(i) == seed) continue;
      Zeta& z = zeta[i];
      const double d = shifts[i] - shifts[seed];
      const double denominator =
          alpha * beta_previous * (z.previous - z.current) + z.previous * alpha_previous * (1 + d * alpha);
      z.next = z.current * z.previous * alpha_previous / denominator;
      SolveResult& rec = out.per_shift[i];
      if (!detail::Finite(z.next) || denominator == 0) {
        state[i] = detail::ShiftState::kFailed;
        detail::Stop(rec, SolveStatus::kNotFinite,
                     "zeta recurrence gave " + detail::Num(z.next) + " at iteration " + std::to_string(out.iterations));
        continue;
      }
      B::Axpy(alpha * z.next, phat[slot[i]], x[i]);
      rec.flops += vf::kAxpy * reals;
    }
    const double rr_new = B::CgUpdate(alpha, p, q, x[seed], r);
    out.flops += vf::kCgUpdate * reals;
    out.iterations += 1;
    if (!detail::Finite(rr_new)) {
      seed_fails(SolveStatus::kNotFinite, "|r|^2 = " + detail::Num(rr_new) + " at iteration " +
                                              std::to_string(out.iterations));
      break;
    }
    const double beta = rr_new / rr;
    const double r_rel = std::sqrt(rr_new / b_norm2);
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != detail::ShiftState::kActive) continue;
      SolveResult& rec = out.per_shift[i];
      const bool is_seed = static_cast<int>(i) == seed;
      const double z_next = is_seed ? 1.0 : zeta[i].next;
      rec.iterations += 1;
      rec.krylov_iterations += 1;
      rec.iterated_residual = std::fabs(z_next) * r_rel;
      if (params.record_history) rec.residual_history.push_back(rec.iterated_residual);
      if (rec.iterated_residual <= params.tolerance) {
        state[i] = detail::ShiftState::kClaimed;
        continue;
      }
      if (is_seed) continue;
      B::Xpay(r, beta * z_next / zeta[i].current, phat[slot[i]]);
      rec.flops += vf::kXpay * reals;
      zeta[i].previous = zeta[i].current;
      zeta[i].current = z_next;
    }
    if (state[seed] != detail::ShiftState::kActive) {
      for (auto& s : state) {
        if (s == detail::ShiftState::kActive) s = detail::ShiftState::kSeedStopped;
      }
      break;
    }
    B::Xpay(r, beta, p);
    out.flops += vf::kXpay * reals;
    rr = rr_new;
    alpha_previous = alpha;
    beta_previous = beta;
  }

  detail::FinishShifts(A, x, b, b_norm2, params, state, out,
                       [](const ShiftedOperator<Op>& s, typename Op::Field& xi, const typename Op::Field& bb,
                          const SolverParams& p) { return ConjugateGradient(s, xi, bb, p); });
  for (auto& rec : out.per_shift) rec.seconds = clock.Seconds();
  out.seconds = clock.Seconds();
  return out;
}

}  // namespace lqcd::solvers
