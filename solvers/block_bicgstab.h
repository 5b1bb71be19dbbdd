// block_bicgstab.h: BiCGstab on n systems M x_k = b_k with the same (non-Hermitian) M, iterated in
// lockstep so that every operator application serves all systems at once (block operator,
// block_operators.h).
//
// Each system runs EXACTLY the algorithm of bicgstab.h through the same code: the pieces of an iteration
// (detail::BicgstabQueueFirstHalf after v = A p, detail::BicgstabCheckFirstHalf and
// detail::BicgstabSecondHalf after t = A s, with the half-step exit and the breakdown tests),
// detail::BicgstabNewDirection, and the true-residual verification of detail::VerifyTrueResidual are shared
// with BiCGstab; only the two operator applications are batched. Each system has its own Krylov space and
// shadow residual; as for block_cg.h this shares the operator's memory traffic, not the Krylov space, so
// every record equals the one BiCGstab would return for that system alone (a test checks it).
// Per-system state machine (one pass of the outer loop advances every system by one step):
//     kVerify:   r = b - A x (batched); converged / NaN / stagnating -> done; else r0 = p = r,
//                rho = |r|^2 -> kNeedV
//     kNeedV:    [iterations >= max: -> kConclude]  v = A p (batched); alpha = rho / (r0, v);
//                s = r - alpha v; t = A s (batched); [(r0, v) ~ 0: breakdown]
//                |s| <= tol |b|: x += alpha p -> kVerify; omega = (t, s) / (t, t) [~0: breakdown];
//                r = s - omega t; x += alpha p + omega s;  |r| <= tol |b| -> kVerify;
//                rho' = (r0, r) [~0: breakdown]; p = r + beta (p - omega v) -> kNeedV
//     kConclude: r = b - A x (batched), status kept, detail::Conclude -> done
// A system that is done is frozen (fields and record). tolerances[k] (optional) per system.
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <cmath>
#include <complex>
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
  enum class Phase { kVerify, kNeedV, kConclude, kDone };
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockBiCGstab");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = std::string("block-BiCGstab<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> n=" +
               std::to_string(n);
  out.systems.resize(n);
  struct System {
    detail::BicgstabFields<Field> f;
    detail::BicgstabScalars<B> s;
    Phase phase = Phase::kVerify;
    double b_norm2 = 0, stop_rr = 0, true_rr = 0;
    detail::Verification verification;
  };
  std::vector<System> sys;
  sys.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = std::string("BiCGstab<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> in " + out.solver;
    rec.system = A.Name() + " x = b";
    sys.push_back(System{{A.NewField(), A.NewField(), A.NewField(), A.NewField(), A.NewField()}, {}, Phase::kVerify, 0, 0, 0, {}});
    System& s = sys.back();
    s.b_norm2 = B::Norm2(b[k]);
    s.stop_rr = tol[k] * tol[k] * s.b_norm2;
    if (detail::HandleZeroSource<BlockOp>(x[k], s.b_norm2, rec)) s.phase = Phase::kDone;
  }
  auto systems_in = [&](Phase phase) { return block_detail::SystemsIn(sys, phase); };
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - A x; true_rr set
    block_detail::TrueResiduals(
        A, which, x, b, [&](std::size_t k) -> Field& { return sys[k].f.r; },
        [&](std::size_t k, double rr) { sys[k].true_rr = rr; }, out);
  };

  for (;;) {
    // Verification passes (detail::VerifyTrueResidual, as in detail::RestartLoop), then BicgstabStart.
    const std::vector<std::size_t> verify = systems_in(Phase::kVerify);
    residuals(verify);
    for (std::size_t k : verify) {
      System& s = sys[k];
      if (detail::VerifyTrueResidual(s.true_rr, s.b_norm2, tol[k], params.max_restarts, s.verification,
                                     out.systems[k]) == detail::Verdict::kDone) {
        s.phase = Phase::kDone;
        continue;
      }
      s.s = detail::BicgstabScalars<B>{};
      detail::BicgstabStart<B>(s.f, s.s);
      s.phase = s.s.rr <= s.stop_rr ? Phase::kVerify : Phase::kNeedV;
    }
    const std::vector<std::size_t> conclude = systems_in(Phase::kConclude);
    residuals(conclude);
    for (std::size_t k : conclude) {
      detail::Conclude(out.systems[k], std::sqrt(sys[k].true_rr / sys[k].b_norm2), tol[k]);
      sys[k].phase = Phase::kDone;
    }
    // An iteration: one batched v = A p, then detail::BicgstabQueueFirstHalf each.
    std::vector<std::size_t> need_v;
    for (std::size_t k : systems_in(Phase::kNeedV)) {
      if (detail::BudgetSpent(out.systems[k], params.max_iterations, sys[k].s.rr, sys[k].b_norm2)) {
        sys[k].phase = Phase::kConclude;
      } else {
        need_v.push_back(k);
      }
    }
    block_detail::ApplyToSystems(
        A, need_v, [&](std::size_t k) -> Field& { return sys[k].f.v; },
        [&](std::size_t k) -> const Field& { return sys[k].f.p; }, out);
    for (std::size_t k : need_v) {
      System& s = sys[k];
      detail::BicgstabQueueFirstHalf<B>(s.f, s.s, B::DeferredDotNorm(s.f.v, s.f.r0), out.systems[k]);
      out.systems[k].flops += vector_flops::kDotNorm * B::Reals(s.f.v);
    }
    // One batched t = A s (queued before the first half's host tests, as in detail::BicgstabAdvance), then
    // the tests, detail::BicgstabSecondHalf and the new direction each.
    block_detail::ApplyToSystems(
        A, need_v, [&](std::size_t k) -> Field& { return sys[k].f.t; },
        [&](std::size_t k) -> const Field& { return sys[k].f.r; }, out);
    for (std::size_t k : need_v) {
      System& s = sys[k];
      SolveResult& rec = out.systems[k];
      const auto ts = B::DeferredDotNorm(s.f.t, s.f.r);  // (t, s), |t|^2, as detail::BicgstabAdvance
      rec.flops += vector_flops::kDotNorm * B::Reals(s.f.t);
      switch (detail::BicgstabCheckFirstHalf<B>(x[k], s.f, s.s, s.stop_rr, s.b_norm2, params.record_history, rec)) {
        case detail::BicgstabOutcome::kIterated: break;
        case detail::BicgstabOutcome::kConvergedOnHalfStep: s.phase = Phase::kVerify; continue;
        case detail::BicgstabOutcome::kFailed: s.phase = Phase::kConclude; continue;
      }
      if (detail::BicgstabSecondHalf<B>(x[k], s.f, s.s, ts, s.b_norm2, params.record_history, rec) ==
          detail::BicgstabOutcome::kFailed) {
        s.phase = Phase::kConclude;
      } else if (s.s.rr <= s.stop_rr) {
        s.phase = Phase::kVerify;
      } else {
        s.phase = detail::BicgstabNewDirection<B>(s.f, s.s, rec) ? Phase::kNeedV : Phase::kConclude;
      }
    }
    if (need_v.empty() && systems_in(Phase::kVerify).empty() && systems_in(Phase::kConclude).empty() &&
        systems_in(Phase::kNeedV).empty()) {
      break;
    }
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

}  // namespace lqcd::solvers
