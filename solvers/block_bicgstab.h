// block_bicgstab.h: BiCGstab on n systems M x_k = b_k with the same (non-Hermitian) M, iterated in
// lockstep so that every operator application serves all systems at once (block operator,
// block_operators.h).
//
// Each system runs EXACTLY the algorithm of bicgstab.h (van der Vorst 1992, Saad's Algorithm 7.7, with
// the half-step exit, the breakdown tests of detail::DotVanishes and the true-residual verification,
// restarts and stagnation detection of detail::RestartLoop), with its own Krylov space and shadow
// residual; as for block_cg.h this shares the operator's memory traffic, not the Krylov space, so every
// record equals the one BiCGstab would return for that system alone (a test checks it).
// Per-system state machine (one pass of the outer loop advances every system by one step):
//     kVerify:   r = b - A x (batched); converged / NaN / stagnating -> done; else r0 = p = r,
//                rho = |r|^2 -> kNeedV
//     kNeedV:    [iterations >= max: -> kConclude]  v = A p (batched); alpha = rho / (r0, v) [~0: breakdown];
//                s = r - alpha v;  |s| <= tol |b|: x += alpha p -> kVerify;  else -> kNeedT
//     kNeedT:    t = A s (batched); omega = (t, s) / (t, t) [~0: breakdown];
//                x += alpha p + omega s; r = s - omega t;  |r| <= tol |b| -> kVerify;
//                rho' = (r0, r) [~0: breakdown]; p = r + beta (p - omega v) -> kNeedV
//     kConclude: r = b - A x (batched), status kept, detail::Conclude -> done
// A system that is done is frozen (fields and record). tolerances[k] (optional) per system.
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "solvers/bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

// Solves A x[k] = b[k] for every k; x[k] holds the initial guess on entry. See the file comment.
template <typename BlockOp>
BlockSolveResult BlockBiCGstab(const BlockOp& A, std::vector<typename BlockOp::Field>& x,
                               const std::vector<typename BlockOp::Field>& b, const SolverParams& params,
                               const std::vector<double>& tolerances = {}) {
  using B = typename BlockOp::Backend;
  using Field = typename BlockOp::Field;
  namespace vf = vector_flops;
  enum class Phase { kVerify, kNeedV, kNeedT, kConclude, kDone };
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockBiCGstab");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = std::string("block-BiCGstab<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> n=" +
               std::to_string(n);
  out.systems.resize(n);
  struct System {
    detail::BicgstabFields<Field> f;
    detail::BicgstabScalars s;
    Phase phase = Phase::kVerify;
    double b_norm2 = 0, stop_rr = 0, true_rr = 0;
    double previous_true = std::numeric_limits<double>::infinity();
    int pass = 0;
  };
  std::vector<System> sys;
  sys.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = std::string("BiCGstab<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> in " + out.solver;
    rec.system = A.Name() + " x = b";
    sys.push_back(System{{A.NewField(), A.NewField(), A.NewField(), A.NewField(), A.NewField()}, {}});
    System& s = sys.back();
    s.b_norm2 = B::Norm2(b[k]);
    s.stop_rr = tol[k] * tol[k] * s.b_norm2;
    if (detail::HandleZeroSource<BlockOp>(x[k], s.b_norm2, rec)) s.phase = Phase::kDone;
  }
  const double reals = B::Reals(b[0]);
  auto systems_in = [&](Phase phase) {
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < n; ++k) {
      if (sys[k].phase == phase) which.push_back(k);
    }
    return which;
  };
  auto residuals = [&](const std::vector<std::size_t>& which) {
    block_detail::ApplyToSystems(
        A, which, [&](std::size_t k) -> Field& { return sys[k].f.r; },
        [&](std::size_t k) -> const Field& { return x[k]; }, out);
    for (std::size_t k : which) {
      B::Xpay(b[k], -1.0, sys[k].f.r);
      out.systems[k].flops += (vf::kXpay + vf::kNorm2) * reals;
      sys[k].true_rr = B::Norm2(sys[k].f.r);
    }
  };
  auto record = [&](std::size_t k, double r2) {
    SolveResult& rec = out.systems[k];
    rec.iterations += 1;
    rec.krylov_iterations += 1;
    rec.iterated_residual = std::sqrt(r2 / sys[k].b_norm2);
    if (params.record_history) rec.residual_history.push_back(rec.iterated_residual);
  };
  auto fail = [&](std::size_t k, SolveStatus status, const std::string& reason) {
    detail::Stop(out.systems[k], status, reason);
    sys[k].phase = Phase::kConclude;
  };

  for (;;) {
    // Verification passes (detail::RestartLoop's loop head), then BicgstabStart.
    const std::vector<std::size_t> verify = systems_in(Phase::kVerify);
    residuals(verify);
    for (std::size_t k : verify) {
      System& s = sys[k];
      SolveResult& rec = out.systems[k];
      const double true_residual = std::sqrt(s.true_rr / s.b_norm2);
      if (s.pass > 0) rec.updates.push_back({rec.krylov_iterations, rec.iterated_residual, true_residual});
      s.phase = Phase::kDone;
      rec.true_residual = true_residual;
      if (s.true_rr <= s.stop_rr) {
        detail::Stop(rec, SolveStatus::kConverged,
                     "true residual " + detail::Num(true_residual) + " <= " + detail::Num(tol[k]));
        continue;
      }
      if (!detail::Finite(s.true_rr)) {
        detail::Stop(rec, SolveStatus::kNotFinite, "true residual is " + detail::Num(true_residual));
        continue;
      }
      if (s.pass > 0) {
        if (true_residual > 0.5 * s.previous_true) {
          detail::Stop(rec, SolveStatus::kStagnation,
                       "a restart reduced the true residual only from " + detail::Num(s.previous_true) + " to " +
                           detail::Num(true_residual) + " (tolerance " + detail::Num(tol[k]) + ")");
          continue;
        }
        if (rec.restarts >= params.max_restarts) {
          detail::Stop(rec, SolveStatus::kStagnation,
                       "true residual " + detail::Num(true_residual) + " still above tolerance after " +
                           std::to_string(rec.restarts) + " restarts");
          continue;
        }
        rec.restarts += 1;
      }
      s.previous_true = true_residual;
      s.pass += 1;
      s.s = detail::BicgstabScalars{};
      detail::BicgstabStart<B>(s.f, s.s);
      s.phase = s.s.rr <= s.stop_rr ? Phase::kVerify : Phase::kNeedV;
    }
    const std::vector<std::size_t> conclude = systems_in(Phase::kConclude);
    residuals(conclude);
    for (std::size_t k : conclude) {
      detail::Conclude(out.systems[k], std::sqrt(sys[k].true_rr / sys[k].b_norm2), tol[k]);
      sys[k].phase = Phase::kDone;
    }
    // First half of an iteration: v = A p, alpha, s = r - alpha v.
    std::vector<std::size_t> need_v;
    for (std::size_t k : systems_in(Phase::kNeedV)) {
      if (out.systems[k].iterations >= params.max_iterations) {
        fail(k, SolveStatus::kMaxIterations,
             "reached " + std::to_string(params.max_iterations) + " iterations at residual " +
                 detail::Num(std::sqrt(sys[k].s.rr / sys[k].b_norm2)));
      } else {
        need_v.push_back(k);
      }
    }
    block_detail::ApplyToSystems(
        A, need_v, [&](std::size_t k) -> Field& { return sys[k].f.v; },
        [&](std::size_t k) -> const Field& { return sys[k].f.p; }, out);
    for (std::size_t k : need_v) {
      System& s = sys[k];
      SolveResult& rec = out.systems[k];
      const auto vr0 = B::DotNorm(s.f.v, s.f.r0);
      const std::complex<double> r0v = std::conj(vr0.dot);
      rec.flops += vf::kDotNorm * reals;
      if (!detail::Finite(std::abs(r0v)) || !detail::Finite(vr0.norm2)) {
        fail(k, SolveStatus::kNotFinite, "(r0, A p) = " + detail::Num(std::abs(r0v)));
        continue;
      }
      if (detail::DotVanishes(r0v, s.s.r0_norm2, vr0.norm2)) {
        fail(k, SolveStatus::kBreakdown,
             "(r0, A p) = " + detail::Num(std::abs(r0v)) + " vanishes at iteration " + std::to_string(rec.iterations));
        continue;
      }
      s.s.alpha = s.s.rho / r0v;
      const double ss = B::CaxpyNorm(-s.s.alpha, s.f.v, s.f.r);  // r holds s
      rec.flops += vf::kCaxpyNorm * reals;
      if (!detail::Finite(ss)) {
        fail(k, SolveStatus::kNotFinite, "|s|^2 = " + detail::Num(ss));
        continue;
      }
      if (ss <= s.stop_rr) {  // converged on the half step
        B::Caxpy(s.s.alpha, s.f.p, x[k]);
        rec.flops += vf::kCaxpy * reals;
        s.s.rr = ss;
        record(k, ss);
        s.phase = Phase::kVerify;
        continue;
      }
      s.s.rr = ss;  // |s|^2, needed by the omega breakdown test
      s.phase = Phase::kNeedT;
    }
    // Second half: t = A s, omega, the updates, the new direction.
    const std::vector<std::size_t> need_t = systems_in(Phase::kNeedT);
    if (need_t.empty() && need_v.empty() && systems_in(Phase::kVerify).empty() &&
        systems_in(Phase::kConclude).empty() && systems_in(Phase::kNeedV).empty()) {
      break;
    }
    block_detail::ApplyToSystems(
        A, need_t, [&](std::size_t k) -> Field& { return sys[k].f.t; },
        [&](std::size_t k) -> const Field& { return sys[k].f.r; }, out);
    for (std::size_t k : need_t) {
      System& s = sys[k];
      SolveResult& rec = out.systems[k];
      const double ss = s.s.rr;
      const auto ts = B::DotNorm(s.f.t, s.f.r);
      rec.flops += vf::kDotNorm * reals;
      if (!detail::Finite(ts.norm2) || !detail::Finite(std::abs(ts.dot))) {
        fail(k, SolveStatus::kNotFinite, "(t, s) or |t|^2 not finite");
        continue;
      }
      if (ts.norm2 == 0 || detail::DotVanishes(ts.dot, ts.norm2, ss)) {
        fail(k, SolveStatus::kBreakdown,
             "omega = (t, s) / (t, t) vanishes (|(t, s)| = " + detail::Num(std::abs(ts.dot)) + ", |t|^2 = " +
                 detail::Num(ts.norm2) + ") at iteration " + std::to_string(rec.iterations));
        continue;
      }
      s.s.omega = ts.dot / ts.norm2;
      const auto update = B::BicgstabUpdate(s.s.alpha, s.f.p, s.s.omega, s.f.t, x[k], s.f.r, s.f.r0);
      rec.flops += vf::kBicgstabUpdate * reals;
      record(k, update.norm2);
      if (!detail::Finite(update.norm2) || !detail::Finite(std::abs(update.dot))) {
        fail(k, SolveStatus::kNotFinite, "|r|^2 = " + detail::Num(update.norm2));
        continue;
      }
      s.s.rr = update.norm2;
      if (s.s.rr <= s.stop_rr) {
        s.phase = Phase::kVerify;
        continue;
      }
      if (!detail::BicgstabNewDirection<BlockOp>(s.f, s.s, update.dot, rec)) {
        s.phase = Phase::kConclude;
        continue;
      }
      s.phase = Phase::kNeedV;
    }
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

}  // namespace lqcd::solvers
