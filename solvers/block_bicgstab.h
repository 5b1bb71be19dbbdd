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

namespace block_detail {

// One system's share of a lockstep BiCGstab iteration: its solution (or correction), Krylov fields and scalars,
// its stopping |r|^2 and |b|^2.
template <typename B, typename Field>
struct BicgstabSystemRef {
  Field& x;
  detail::BicgstabFields<Field>& f;
  detail::BicgstabScalars<B>& s;
  double stop_rr, b_norm2;
};

// Whether the block operator has the optional ApplyDotNormBlock(out, in, w) (README.md).
template <typename Op, typename = void>
struct HasApplyDotNormBlock : std::false_type {};
template <typename Op>
struct HasApplyDotNormBlock<Op, std::void_t<decltype(std::declval<const Op&>().ApplyDotNormBlock(
                                    std::declval<const std::vector<typename Op::Field*>&>(),
                                    std::declval<const std::vector<const typename Op::Field*>&>(),
                                    std::declval<const std::vector<const typename Op::Field*>&>()))>>
    : std::true_type {};

// ApplyToSystems for BiCGstab: to(k) = A from(k), and (to(k), w(k)) and |to(k)|^2 as deferred scalars, in the order
// of `which` (the block form of bicgstab.h's detail::ApplyDotNorm): the operator's ApplyDotNormBlock when it has one
// (it may sum them in the application), else ApplyBlock and B::DeferredDotNorm of each system. The caller counts
// the dot products' flops.
template <typename BlockOp, typename To, typename From, typename W>
auto ApplyDotNormToSystems(const BlockOp& A, const std::vector<std::size_t>& which, To&& to, From&& from, W&& w,
                           BlockSolveResult& out) {
  using B = typename BlockOp::Backend;
  using Field = typename BlockOp::Field;
  std::vector<decltype(B::DeferredDotNorm(std::declval<const Field&>(), std::declval<const Field&>()))> sums;
  if (which.empty()) return sums;
  if constexpr (HasApplyDotNormBlock<BlockOp>::value) {
    const auto a = ArgumentsOf<Field>(which, to, from);
    std::vector<const Field*> ws;
    for (std::size_t k : which) ws.push_back(&w(k));
    sums = A.ApplyDotNormBlock(a.out, a.in, ws);
    CountBlockApplication(A, which, out);
  } else {
    ApplyToSystems(A, which, to, from, out);
    for (std::size_t k : which) sums.push_back(B::DeferredDotNorm(to(k), w(k)));
  }
  return sums;
}

// One iteration of detail::BicgstabAdvance for every system in `which`, in lockstep: v = A p and t = A s each as
// ONE block application with its dot products, apply(which, to, from, w) with BicgstabFields member pointers
// (&F::v, &F::p, &F::r0, then &F::t, &F::r, &F::r) returning each system's (to, w) and |to|^2
// (ApplyDotNormToSystems), and each system's halves exactly as the single solver runs them. system(k) gives system k's
// BicgstabSystemRef; then(k, outcome) runs right after system k's halves (kIterated: a whole iteration,
// kConvergedOnHalfStep, kFailed), before the next system's, so each caller's next step is queued where the
// single solver queues it. Used by BlockBiCGstab, the block reliable-update and defect-correction solvers.
template <typename B, typename Field, typename Apply, typename SystemOf, typename Then>
void BicgstabBlockIteration(const std::vector<std::size_t>& which, Apply&& apply, SystemOf&& system,
                            bool record_history, BlockSolveResult& out, Then&& then) {
  using F = detail::BicgstabFields<Field>;
  const auto vr0 = apply(which, &F::v, &F::p, &F::r0);  // v = A p; (v, r0), |v|^2
  for (std::size_t index = 0; index < which.size(); ++index) {
    const std::size_t k = which[index];
    BicgstabSystemRef<B, Field> y = system(k);
    detail::BicgstabQueueFirstHalf<B>(y.f, y.s, vr0[index], out.systems[k]);
    out.systems[k].flops += vector_flops::kDotNorm * B::Reals(y.f.v);
  }
  // t = A s; (t, s), |t|^2: queued before the first half's host tests (detail::BicgstabAdvance)
  const auto ts_all = apply(which, &F::t, &F::r, &F::r);
  for (std::size_t index = 0; index < which.size(); ++index) {
    const std::size_t k = which[index];
    BicgstabSystemRef<B, Field> y = system(k);
    SolveResult& rec = out.systems[k];
    const auto& ts = ts_all[index];
    rec.flops += vector_flops::kDotNorm * B::Reals(y.f.t);
    detail::BicgstabOutcome o =
        detail::BicgstabCheckFirstHalf<B>(y.x, y.f, y.s, y.stop_rr, y.b_norm2, record_history, rec);
    if (o == detail::BicgstabOutcome::kIterated) {
      o = detail::BicgstabSecondHalf<B>(y.x, y.f, y.s, ts, y.b_norm2, record_history, rec);
    }
    then(k, o);
  }
}

}  // namespace block_detail

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
    std::vector<std::size_t> need_v;
    for (std::size_t k : systems_in(Phase::kNeedV)) {
      if (detail::BudgetSpent(out.systems[k], params.max_iterations, sys[k].s.rr, sys[k].b_norm2)) {
        sys[k].phase = Phase::kConclude;
      } else {
        need_v.push_back(k);
      }
    }
    // One lockstep iteration (two batched applications), then each system's next phase and direction.
    using F = detail::BicgstabFields<Field>;
    block_detail::BicgstabBlockIteration<B, Field>(
        need_v,
        [&](const std::vector<std::size_t>& which, Field F::*to, Field F::*from, Field F::*w) {
          return block_detail::ApplyDotNormToSystems(
              A, which, [&](std::size_t k) -> Field& { return sys[k].f.*to; },
              [&](std::size_t k) -> const Field& { return sys[k].f.*from; },
              [&](std::size_t k) -> const Field& { return sys[k].f.*w; }, out);
        },
        [&](std::size_t k) {
          return block_detail::BicgstabSystemRef<B, Field>{x[k], sys[k].f, sys[k].s, sys[k].stop_rr, sys[k].b_norm2};
        },
        params.record_history, out,
        [&](std::size_t k, detail::BicgstabOutcome o) {
          System& s = sys[k];
          if (o == detail::BicgstabOutcome::kFailed) {
            s.phase = Phase::kConclude;
          } else if (o == detail::BicgstabOutcome::kConvergedOnHalfStep || s.s.rr <= s.stop_rr) {
            s.phase = Phase::kVerify;
          } else {
            s.phase = detail::BicgstabNewDirection<B>(s.f, s.s, out.systems[k]) ? Phase::kNeedV : Phase::kConclude;
          }
        });
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
