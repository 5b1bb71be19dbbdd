// multishift_bicgstab.h: BiCGstab-M, BiCGstab for the shifted family (M + sigma_i) x_i = b with a general
// (non-Hermitian) M, all shifts from one Krylov iteration. For Wilson fermions M(m_i) = M(m_s) + (m_i - m_s),
// so a set of quark masses is such a family (Alexandru et al., arXiv:1103.5103, Eq. 12-13).
//
// Reference: B. Jegerlehner, "Krylov space solvers for shifted linear systems", hep-lat/9612014 (1996),
// the BiCGstab-M algorithm; van der Vorst, SIAM J. Sci. Stat. Comput. 13 (1992) 631 for the seed
// iteration (the same as bicgstab.h). Derivation in docs/solvers.md ("Multi-shift solvers").
// With the seed s = the smallest shift, M_s = M + sigma_s, d = sigma_i - sigma_s, x = 0:
//   - BiCG part: the Lanczos residual polynomials of the shifted systems are collinear with the seed's;
//     zeta follows exactly the CG-M recurrence (multishift_cg.h) with BiCGstab's (complex) alpha and beta,
//     alpha^i_k = alpha_k zeta_{k+1} / zeta_k, beta^i_k = beta_k (zeta_{k+1} / zeta_k)^2.
//   - stabilising part: 1 - omega^i (M_s + d) = (1 - omega M_s) / (1 + omega d) for omega^i = omega / (1 + omega d),
//     so the shifted residuals stay collinear: r^i_k = z_k r_k, s^i_k = y_k s_k with
//     y_k = z_k zeta_{k+1} / zeta_k and z_{k+1} = y_k / (1 + omega_k d), z_0 = 1.
//   - the shifted direction p^i_{k+1} = r^i_{k+1} + beta^i (p^i - omega^i (M_s + d) p^i) needs (M_s + d) p^i,
//     which follows without an operator application from s^i = r^i - alpha^i (M_s + d) p^i. With the
//     seed's r_k = s_k + alpha_k v_k and the scaled direction phat^i = p^i / z this becomes
//       phat^i_{k+1} = r_{k+1} + betahat (phat^i_k - c_s s_k - c_v v_k),
//       betahat = beta^i z_k / z_{k+1},  c_v = omega^i zeta_k / zeta_{k+1},
//       c_s = (omega^i / alpha^i) (1 - zeta_{k+1} / zeta_k).
// Pseudo-code with the backend call of each line (seed lines as in bicgstab.h):
//     r = b; r0 = b; p = b; rho = |b|^2; phat^i = b; x^i = 0             Copy, Norm2, Zero
//     loop:
//       v = M_s p; alpha = rho / (r0, v)                                M_s.Apply, DotNorm  [~0: breakdown]
//       s = r - alpha v (into r)                                        CaxpyNorm
//       each active shift: zeta_{k+1}, alpha^i, y
//       if |s| <= tol |b|: x_s += alpha p; x^i += alpha^i z phat^i; stop    Caxpy
//       t = M_s s; omega = (t, s) / (t, t)                              M_s.Apply, DotNorm  [~0: breakdown]
//       each active shift: x^i += alpha^i z phat^i; x^i += omega^i y s; phat^i -= c_s s    Caxpy x3
//       x_s += alpha p + omega s; r = s - omega t; rho' = (r0, r)       BicgstabUpdate
//       each active shift: estimate |z_{k+1}| |r|; freeze if <= tol |b|
//       stop if |r| <= tol |b| (the seed)                               [rho' ~ 0: breakdown]
//       beta = (rho' / rho) (alpha / omega)
//       each active shift: phat^i = r + betahat (phat^i - c_v v)        BicgstabDirection
//       p = r + beta (p - omega v)                                      BicgstabDirection
// Then every shift's true residual is verified and, if needed, refined by single-shift BiCGstab
// (multishift_common.h). "~ 0" is bicgstab.h's detail::DotVanishes. A shift whose own recurrence breaks
// down (1 + omega d = 0, a zeta denominator 0, or not finite) stops with kBreakdown / kNotFinite.
// Memory: the seed needs r, r0, p, v, t (and x_s); each other shift x^i and phat^i.
// Aliasing: the x_i must be distinct fields, all different from b.
#pragma once

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "solvers/bicgstab.h"
#include "solvers/multishift_common.h"
#include "solvers/shifted_operator.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

// Solves (M + shifts[i]) x[i] = b for every i; x[i] on entry is ignored. See the file comment.
template <typename Op>
MultiShiftResult MultiShiftBiCGstab(const Op& M, const std::vector<double>& shifts,
                                    std::vector<typename Op::Field>& x, const typename Op::Field& b,
                                    const SolverParams& params) {
  using B = typename Op::Backend;
  using C = std::complex<double>;
  namespace vf = vector_flops;
  const int seed = detail::CheckMultiShift(M, shifts, x, b, params, "MultiShiftBiCGstab");
  detail::Stopwatch clock;
  const std::string name = std::string("BiCGstab-M<") + PrecisionTraits<typename Op::Precision>::kName + ">";
  MultiShiftResult out = detail::StartMultiShift(M, shifts, seed, name);
  const std::size_t n = shifts.size();
  const double b_norm2 = B::Norm2(b);
  for (auto& xi : x) B::Zero(xi);
  if (detail::ZeroSourceForAllShifts(out, b_norm2)) {
    out.seconds = clock.Seconds();
    return out;
  }

  const ShiftedOperator<Op> m_seed(M, shifts[seed]);
  const double reals = B::Reals(b);
  const double stop_rr = params.tolerance * params.tolerance * b_norm2;
  typename Op::Field r = M.NewField(), r0 = M.NewField(), p = M.NewField(), v = M.NewField(), t = M.NewField();
  B::Copy(r, b);
  B::Copy(r0, b);
  B::Copy(p, b);
  // phat[slot[i]] is the scaled direction of shift i != seed (the seed's direction is p).
  std::vector<typename Op::Field> phat;
  std::vector<int> slot(n, -1);
  phat.reserve(n - 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<int>(i) == seed) continue;
    slot[i] = static_cast<int>(phat.size());
    phat.push_back(M.NewField());
    B::Copy(phat.back(), b);
  }
  // Per-shift scalars of the current iteration k.
  struct Coefficients {
    C zeta_previous = 1, zeta = 1, zeta_next = 1;  // zeta_{k-1}, zeta_k, zeta_{k+1}
    C z = 1, z_next = 1;                           // r^i_k = z_k r_k
    C alpha, omega;                                // alpha^i_k, omega^i_k
    C y;                                           // s^i_k = y_k s_k
  };
  std::vector<Coefficients> c(n);
  std::vector<detail::ShiftState> state(n, detail::ShiftState::kActive);
  const double r0_norm2 = b_norm2;
  C rho = b_norm2, alpha_previous = 1, beta_previous = 0;
  double rr = b_norm2;
  auto is_seed = [&](std::size_t i) { return static_cast<int>(i) == seed; };
  auto active_shift = [&](std::size_t i) { return state[i] == detail::ShiftState::kActive && !is_seed(i); };
  auto fail_shift = [&](std::size_t i, SolveStatus status, const std::string& reason) {
    state[i] = detail::ShiftState::kFailed;
    detail::Stop(out.per_shift[i], status, reason + " at iteration " + std::to_string(out.iterations));
  };
  auto seed_fails = [&](SolveStatus status, const std::string& reason) {
    detail::FailActive(state, out, status, reason);
  };
  // Records one shared iteration for every active system; `rel(i)` is shift i's estimated residual.
  auto record = [&](auto&& rel) {
    for (std::size_t i = 0; i < n; ++i) {
      if (state[i] != detail::ShiftState::kActive) continue;
      SolveResult& rec = out.per_shift[i];
      rec.iterations += 1;
      rec.krylov_iterations += 1;
      rec.iterated_residual = rel(i);
      if (params.record_history) rec.residual_history.push_back(rec.iterated_residual);
      if (rec.iterated_residual <= params.tolerance) state[i] = detail::ShiftState::kClaimed;
    }
  };

  for (;;) {
    if (out.iterations >= params.max_iterations) {
      seed_fails(SolveStatus::kMaxIterations, "reached " + std::to_string(params.max_iterations) +
                                                  " shared iterations at seed residual " +
                                                  detail::Num(std::sqrt(rr / b_norm2)));
      break;
    }
    // v = M_s p, alpha = rho / (r0, v)
    m_seed.Apply(v, p);
    const auto vr0 = B::DotNorm(v, r0);
    const C r0v = std::conj(vr0.dot);
    out.operator_applications += 1;
    out.flops += m_seed.FlopsPerApply() + vf::kDotNorm * reals;
    if (!detail::Finite(std::abs(r0v)) || !detail::Finite(vr0.norm2)) {
      seed_fails(SolveStatus::kNotFinite, "(r0, A p) = " + detail::Num(std::abs(r0v)) + " in the seed system");
      break;
    }
    if (detail::DotVanishes(r0v, r0_norm2, vr0.norm2)) {
      seed_fails(SolveStatus::kBreakdown, "(r0, A p) = " + detail::Num(std::abs(r0v)) +
                                              " vanishes in the seed system at iteration " +
                                              std::to_string(out.iterations));
      break;
    }
    const C alpha = rho / r0v;
    const double ss = B::CaxpyNorm(-alpha, v, r);  // r holds s
    out.flops += vf::kCaxpyNorm * reals;
    if (!detail::Finite(ss)) {
      seed_fails(SolveStatus::kNotFinite, "|s|^2 = " + detail::Num(ss) + " in the seed system");
      break;
    }
    // zeta_{k+1}, alpha^i, y for every active shift.
    for (std::size_t i = 0; i < n; ++i) {
      if (!active_shift(i)) continue;
      Coefficients& k = c[i];
      const double d = shifts[i] - shifts[seed];
      const C denominator =
          alpha * beta_previous * (k.zeta_previous - k.zeta) + k.zeta_previous * alpha_previous * (1.0 + d * alpha);
      if (denominator == C(0)) {
        fail_shift(i, SolveStatus::kBreakdown, "zeta recurrence denominator vanishes");
        continue;
      }
      k.zeta_next = k.zeta * k.zeta_previous * alpha_previous / denominator;
      if (!detail::Finite(std::abs(k.zeta_next)) || k.zeta_next == C(0)) {
        fail_shift(i, SolveStatus::kNotFinite, "zeta recurrence gave " + detail::Num(std::abs(k.zeta_next)));
        continue;
      }
      k.alpha = alpha * k.zeta_next / k.zeta;
      k.y = k.z * k.zeta_next / k.zeta;
    }
    if (ss <= stop_rr) {  // the seed converged on the half step: x = x + alpha p for everyone
      B::Caxpy(alpha, p, x[seed]);
      out.flops += vf::kCaxpy * reals;
      for (std::size_t i = 0; i < n; ++i) {
        if (!active_shift(i)) continue;
        B::Caxpy(c[i].alpha * c[i].z, phat[slot[i]], x[i]);
        out.per_shift[i].flops += vf::kCaxpy * reals;
      }
      out.iterations += 1;
      const double s_rel = std::sqrt(ss / b_norm2);
      record([&](std::size_t i) { return is_seed(i) ? s_rel : std::abs(c[i].y) * s_rel; });
      break;
    }
    // t = M_s s, omega = (t, s) / (t, t)
    m_seed.Apply(t, r);
    const auto ts = B::DotNorm(t, r);
    out.operator_applications += 1;
    out.flops += m_seed.FlopsPerApply() + vf::kDotNorm * reals;
    if (!detail::Finite(ts.norm2) || !detail::Finite(std::abs(ts.dot))) {
      seed_fails(SolveStatus::kNotFinite, "(t, s) or |t|^2 not finite in the seed system");
      break;
    }
    if (ts.norm2 == 0 || detail::DotVanishes(ts.dot, ts.norm2, ss)) {
      seed_fails(SolveStatus::kBreakdown, "omega = (t, s) / (t, t) vanishes in the seed system at iteration " +
                                              std::to_string(out.iterations));
      break;
    }
    const C omega = ts.dot / ts.norm2;
    // Shifted solution updates, and the s-part of the new shifted directions (s is overwritten next).
    for (std::size_t i = 0; i < n; ++i) {
      if (!active_shift(i)) continue;
      Coefficients& k = c[i];
      const double d = shifts[i] - shifts[seed];
      const C one_plus = 1.0 + omega * d;
      if (one_plus == C(0)) {
        fail_shift(i, SolveStatus::kBreakdown, "1 + omega (sigma - sigma_seed) vanishes");
        continue;
      }
      k.omega = omega / one_plus;
      k.z_next = k.y / one_plus;
      typename Op::Field& ph = phat[slot[i]];
      B::Caxpy(k.alpha * k.z, ph, x[i]);
      B::Caxpy(k.omega * k.y, r, x[i]);
      B::Caxpy(-(k.omega / k.alpha) * (1.0 - k.zeta_next / k.zeta), r, ph);
      out.per_shift[i].flops += 3 * vf::kCaxpy * reals;
    }
    const auto update = B::BicgstabUpdate(alpha, p, omega, t, x[seed], r, r0);
    out.flops += vf::kBicgstabUpdate * reals;
    out.iterations += 1;
    if (!detail::Finite(update.norm2) || !detail::Finite(std::abs(update.dot))) {
      seed_fails(SolveStatus::kNotFinite, "|r|^2 = " + detail::Num(update.norm2) + " in the seed system");
      break;
    }
    rr = update.norm2;
    const double r_rel = std::sqrt(rr / b_norm2);
    record([&](std::size_t i) { return is_seed(i) ? r_rel : std::abs(c[i].z_next) * r_rel; });
    if (state[seed] != detail::ShiftState::kActive) break;
    const C rho_new = update.dot;
    if (detail::DotVanishes(rho_new, r0_norm2, rr)) {
      seed_fails(SolveStatus::kBreakdown, "rho = (r0, r) = " + detail::Num(std::abs(rho_new)) +
                                              " vanishes in the seed system at iteration " +
                                              std::to_string(out.iterations));
      break;
    }
    const C beta = (rho_new / rho) * (alpha / omega);
    for (std::size_t i = 0; i < n; ++i) {
      if (!active_shift(i)) continue;
      Coefficients& k = c[i];
      const C ratio = k.zeta_next / k.zeta;
      const C beta_shift = beta * ratio * ratio;
      B::BicgstabDirection(r, beta_shift * k.z / k.z_next, k.omega / ratio, v, phat[slot[i]]);
      out.per_shift[i].flops += vf::kBicgstabDirection * reals;
      k.zeta_previous = k.zeta;
      k.zeta = k.zeta_next;
      k.z = k.z_next;
    }
    B::BicgstabDirection(r, beta, omega, v, p);
    out.flops += vf::kBicgstabDirection * reals;
    rho = rho_new;
    alpha_previous = alpha;
    beta_previous = beta;
  }
  for (auto& s : state) {
    if (s == detail::ShiftState::kActive) s = detail::ShiftState::kSeedStopped;
  }

  detail::FinishShifts(M, x, b, b_norm2, params, state, out,
                       [](const ShiftedOperator<Op>& s, typename Op::Field& xi, const typename Op::Field& bb,
                          const SolverParams& p) { return BiCGstab(s, xi, bb, p); });
  for (auto& rec : out.per_shift) rec.seconds = clock.Seconds();
  out.seconds = clock.Seconds();
  return out;
}

}  // namespace lqcd::solvers
