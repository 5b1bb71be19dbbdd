// block_reliable_update.h: the reliable-update solvers of reliable_update.h (the paper's Algorithm 2),
// BiCGstab and CG, on n systems A x_k = b_k with the same A, in lockstep: the low-precision iterations of all
// systems share each application of the low block operator, and the high-precision updates due in the same
// iteration share one application of the high block operator (block_operators.h).
//
// Each system runs EXACTLY ReliableBiCGstab (ReliableCg) through the same code: the low-precision iteration is
// bicgstab.h's split iteration (detail::BicgstabQueueFirstHalf, BicgstabCheckFirstHalf, BicgstabSecondHalf,
// BicgstabNewDirection) or cg.h's (detail::CgAdvance, CgUpdateX, CgNewDirection), the update is
// detail::ReliableUpdater (Accumulate, the batched true residual, Judge), with the single solver's update
// trigger (|r^| < delta max_r, or a claim of convergence), BiCGstab's restart after a half-step exit, CG's
// re-orthogonalisation of the direction after an update, and the iteration count k + l against
// params.max_iterations. Its record therefore equals the one the single solver would return for that system
// alone (a test checks it on the CPU); each system has its own Krylov space and stops on its own tolerance
// (tolerances[k], default params.tolerance).
// Per-system phases of one lockstep pass: kIterate (the budget test, then one low-precision iteration: BiCGstab
// batched v = A^ p and t = A^ s, CG batched q = A^ p) -> kUpdate (x += x^; batched r = b - A x; Judge) ->
// kIterate, or kFinish (a failure: x^ folded in, the true residual recomputed) -> kDone.
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "solvers/bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/cg.h"
#include "solvers/reliable_update.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

// Solves A x[k] = b[k] for every k, A (high precision) and A_low (low precision) the same matrix as block
// operators; x[k] holds the initial guess on entry. See the file comment.
template <typename HighBlockOp, typename LowBlockOp>
BlockSolveResult BlockReliableBiCGstab(const HighBlockOp& A, const LowBlockOp& A_low,
                                       std::vector<typename HighBlockOp::Field>& x,
                                       const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                       const std::vector<double>& tolerances = {}) {
  using B = typename HighBlockOp::Backend;
  using HighField = typename HighBlockOp::Field;
  using LowField = typename LowBlockOp::Field;
  constexpr const char* kAlgorithm = "ReliableUpdate-BiCGstab";
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockReliableBiCGstab");
  detail::CheckMixedOperators(A, A_low, params, "BlockReliableBiCGstab");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = "block-" + detail::MixedName<HighBlockOp, LowBlockOp>(kAlgorithm, params) + " n=" + std::to_string(n);
  out.systems.resize(n);
  enum class Phase { kIterate, kUpdate, kFinish, kDone };
  // One system's state: ReliableBiCGstab's locals. Held through pointers: the updater refers to r and tmp.
  struct System {
    System(const SolverParams& p, const HighBlockOp& high, const LowBlockOp& low)
        : params(p), r(high.NewField()), tmp(high.NewField()), x_low(low.NewField()),
          f{low.NewField(), low.NewField(), low.NewField(), low.NewField(), low.NewField()} {}
    SolverParams params;  // params with this system's tolerance
    HighField r, tmp;
    LowField x_low;
    detail::BicgstabFields<LowField> f;
    detail::BicgstabScalars<B> s;
    std::unique_ptr<detail::ReliableUpdater<HighBlockOp, LowField>> updater;
    Phase phase = Phase::kIterate;
    detail::BicgstabOutcome outcome = detail::BicgstabOutcome::kIterated;  // of the iteration before an update
    double b_norm2 = 0, stop_rr = 0, max_r = 0, true_rr = 0;
    bool done = false;  // ReliableUpdater's `done`: converged or stagnated at an update
  };
  std::vector<std::unique_ptr<System>> sys;
  std::vector<std::size_t> started;
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = detail::MixedName<HighBlockOp, LowBlockOp>(kAlgorithm, params) + " in " + out.solver;
    rec.system = A.Name() + " x = b";
    auto s = std::make_unique<System>(params, A, A_low);
    s->params.tolerance = tol[k];
    s->b_norm2 = B::Norm2(b[k]);
    s->stop_rr = tol[k] * tol[k] * s->b_norm2;
    s->updater = std::make_unique<detail::ReliableUpdater<HighBlockOp, LowField>>(
        detail::ReliableUpdater<HighBlockOp, LowField>{A, x[k], b[k], s->r, s->tmp, s->b_norm2, s->params, rec});
    if (detail::HandleZeroSource<HighBlockOp>(x[k], s->b_norm2, rec)) {
      s->phase = Phase::kDone;
    } else {
      started.push_back(k);
    }
    sys.push_back(std::move(s));
  }
  auto systems_in = [&](Phase phase) {
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < n; ++k) {
      if (sys[k]->phase == phase) which.push_back(k);
    }
    return which;
  };
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - A x (high), counted as ResidualNorm2
    block_detail::TrueResiduals(
        A, which, x, b, [&](std::size_t k) -> HighField& { return sys[k]->r; },
        [&](std::size_t k, double rr) { sys[k]->true_rr = rr; }, out);
  };
  auto apply_low = [&](const std::vector<std::size_t>& which, auto to, auto from) {
    block_detail::ApplyToSystems(
        A_low, which, [&](std::size_t k) -> LowField& { return sys[k]->f.*to; },
        [&](std::size_t k) -> const LowField& { return sys[k]->f.*from; }, out);
    for (std::size_t k : which) out.systems[k].low_precision_applications += 1;
  };

  // ReliableBiCGstab's start: the initial true residual, r^ = r, x^ = 0.
  residuals(started);
  for (std::size_t k : started) {
    System& s = *sys[k];
    SolveResult& rec = out.systems[k];
    rec.true_residual = std::sqrt(s.true_rr / s.b_norm2);
    if (s.true_rr <= s.stop_rr) {
      detail::Stop(rec, SolveStatus::kConverged, "initial guess already meets the tolerance");
      s.phase = Phase::kDone;
      continue;
    }
    B::Convert(s.f.r, s.r);
    detail::BicgstabStart<B>(s.f, s.s);
    s.max_r = std::sqrt(s.true_rr);
  }

  for (;;) {
    // One low-precision iteration of every iterating system within its budget (k + l).
    std::vector<std::size_t> iterate;
    for (std::size_t k : systems_in(Phase::kIterate)) {
      if (out.systems[k].iterations >= sys[k]->params.max_iterations) {
        detail::Stop(out.systems[k], SolveStatus::kMaxIterations,
                     "reached " + std::to_string(params.max_iterations) + " iterations (k + l)");
        sys[k]->phase = Phase::kFinish;
      } else {
        iterate.push_back(k);
      }
    }
    apply_low(iterate, &detail::BicgstabFields<LowField>::v, &detail::BicgstabFields<LowField>::p);  // v = A^ p
    for (std::size_t k : iterate) {
      System& s = *sys[k];
      detail::BicgstabQueueFirstHalf<B>(s.f, s.s, B::DeferredDotNorm(s.f.v, s.f.r0), out.systems[k]);
      out.systems[k].flops += vector_flops::kDotNorm * B::Reals(s.f.v);
    }
    apply_low(iterate, &detail::BicgstabFields<LowField>::t, &detail::BicgstabFields<LowField>::r);  // t = A^ s
    for (std::size_t k : iterate) {
      System& s = *sys[k];
      SolveResult& rec = out.systems[k];
      const auto ts = B::DeferredDotNorm(s.f.t, s.f.r);  // (t, s), |t|^2, as detail::BicgstabAdvance
      rec.flops += vector_flops::kDotNorm * B::Reals(s.f.t);
      s.outcome = detail::BicgstabCheckFirstHalf<B>(s.x_low, s.f, s.s, s.stop_rr, s.b_norm2,
                                                    params.record_history, rec);
      if (s.outcome == detail::BicgstabOutcome::kIterated) {
        s.outcome = detail::BicgstabSecondHalf<B>(s.x_low, s.f, s.s, ts, s.b_norm2, params.record_history, rec);
      }
      if (s.outcome == detail::BicgstabOutcome::kFailed) {
        s.phase = Phase::kFinish;
        continue;
      }
      const double r_norm = std::sqrt(s.s.rr);
      if (s.s.rr <= s.stop_rr || r_norm < params.delta * s.max_r) {
        s.phase = Phase::kUpdate;
        continue;
      }
      s.max_r = std::max(s.max_r, r_norm);
      if (!detail::BicgstabNewDirection<B>(s.f, s.s, rec)) s.phase = Phase::kFinish;
    }
    // The reliable updates due: x += x^ each, one batched high-precision residual, then Judge each.
    const std::vector<std::size_t> update = systems_in(Phase::kUpdate);
    for (std::size_t k : update) sys[k]->updater->Accumulate(sys[k]->x_low);
    residuals(update);
    for (std::size_t k : update) {
      System& s = *sys[k];
      SolveResult& rec = out.systems[k];
      const double rr_true = s.updater->Judge(s.true_rr, s.f.r, s.done);
      if (s.done) {
        s.phase = Phase::kFinish;
        continue;
      }
      s.max_r = std::sqrt(rr_true);
      s.s.rr = B::Norm2(s.f.r);
      rec.flops += vector_flops::kNorm2 * B::Reals(x[k]);
      s.phase = Phase::kIterate;
      if (s.outcome == detail::BicgstabOutcome::kConvergedOnHalfStep) {
        detail::BicgstabStart<B>(s.f, s.s);  // the iteration's second half never happened: restart from r^
        continue;
      }
      s.s.rho_new = B::Dot(s.f.r0, s.f.r);  // rho of the replaced residual
      rec.flops += vector_flops::kDot * B::Reals(x[k]);
      if (!detail::BicgstabNewDirection<B>(s.f, s.s, rec)) s.phase = Phase::kFinish;
    }
    // Finished systems: ReliableUpdater::Finish (after a failure x^ folded in and the residual recomputed).
    for (std::size_t k : systems_in(Phase::kFinish)) {
      sys[k]->updater->Finish(sys[k]->x_low, sys[k]->done);
      sys[k]->phase = Phase::kDone;
    }
    if (systems_in(Phase::kIterate).empty()) break;
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}


// Reliable-update CG for a Hermitian positive definite A (e.g. M^dag M as BlockNormalOperator), both precisions
// as block operators; x[k] holds the initial guess on entry. See the file comment.
template <typename HighBlockOp, typename LowBlockOp>
BlockSolveResult BlockReliableCg(const HighBlockOp& A, const LowBlockOp& A_low,
                                 std::vector<typename HighBlockOp::Field>& x,
                                 const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                 const std::vector<double>& tolerances = {}) {
  using B = typename HighBlockOp::Backend;
  using HighField = typename HighBlockOp::Field;
  using LowField = typename LowBlockOp::Field;
  namespace vf = vector_flops;
  constexpr const char* kAlgorithm = "ReliableUpdate-CG";
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockReliableCg");
  detail::CheckMixedOperators(A, A_low, params, "BlockReliableCg");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = "block-" + detail::MixedName<HighBlockOp, LowBlockOp>(kAlgorithm, params) + " n=" + std::to_string(n);
  out.systems.resize(n);
  enum class Phase { kIterate, kUpdate, kFinish, kDone };
  // One system's state: ReliableCg's locals. Held through pointers: the updater refers to r and tmp.
  struct System {
    System(const SolverParams& p, const HighBlockOp& high, const LowBlockOp& low)
        : params(p), r(high.NewField()), tmp(high.NewField()), x_low(low.NewField()), r_low(low.NewField()),
          p(low.NewField()), q(low.NewField()) {}
    SolverParams params;  // params with this system's tolerance
    HighField r, tmp;
    LowField x_low, r_low, p, q;
    std::unique_ptr<detail::ReliableUpdater<HighBlockOp, LowField>> updater;
    Phase phase = Phase::kIterate;
    double b_norm2 = 0, stop_rr = 0, max_r = 0, true_rr = 0, rr_low = 0, rr_new = 0;
    bool done = false;  // ReliableUpdater's `done`: converged or stagnated at an update
  };
  std::vector<std::unique_ptr<System>> sys;
  std::vector<std::size_t> started;
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = detail::MixedName<HighBlockOp, LowBlockOp>(kAlgorithm, params) + " in " + out.solver;
    rec.system = A.Name() + " x = b";
    auto s = std::make_unique<System>(params, A, A_low);
    s->params.tolerance = tol[k];
    s->b_norm2 = B::Norm2(b[k]);
    s->stop_rr = tol[k] * tol[k] * s->b_norm2;
    s->updater = std::make_unique<detail::ReliableUpdater<HighBlockOp, LowField>>(
        detail::ReliableUpdater<HighBlockOp, LowField>{A, x[k], b[k], s->r, s->tmp, s->b_norm2, s->params, rec});
    if (detail::HandleZeroSource<HighBlockOp>(x[k], s->b_norm2, rec)) {
      s->phase = Phase::kDone;
    } else {
      started.push_back(k);
    }
    sys.push_back(std::move(s));
  }
  auto systems_in = [&](Phase phase) {
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < n; ++k) {
      if (sys[k]->phase == phase) which.push_back(k);
    }
    return which;
  };
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - A x (high), counted as ResidualNorm2
    block_detail::TrueResiduals(
        A, which, x, b, [&](std::size_t k) -> HighField& { return sys[k]->r; },
        [&](std::size_t k, double rr) { sys[k]->true_rr = rr; }, out);
  };

  // ReliableCg's start: the initial true residual, r^ = p = r, x^ = 0.
  residuals(started);
  for (std::size_t k : started) {
    System& s = *sys[k];
    SolveResult& rec = out.systems[k];
    rec.true_residual = std::sqrt(s.true_rr / s.b_norm2);
    if (s.true_rr <= s.stop_rr) {
      detail::Stop(rec, SolveStatus::kConverged, "initial guess already meets the tolerance");
      s.phase = Phase::kDone;
      continue;
    }
    B::Convert(s.r_low, s.r);
    B::Copy(s.p, s.r_low);
    s.rr_low = B::Norm2(s.r_low);
    s.max_r = std::sqrt(s.true_rr);
  }

  for (;;) {
    // One low-precision CG iteration of every iterating system within its budget (k + l): batched q = A^ p.
    std::vector<std::size_t> iterate;
    for (std::size_t k : systems_in(Phase::kIterate)) {
      if (out.systems[k].iterations >= sys[k]->params.max_iterations) {
        detail::Stop(out.systems[k], SolveStatus::kMaxIterations,
                     "reached " + std::to_string(params.max_iterations) + " iterations (k + l)");
        sys[k]->phase = Phase::kFinish;
      } else {
        iterate.push_back(k);
      }
    }
    block_detail::ApplyToSystems(
        A_low, iterate, [&](std::size_t k) -> LowField& { return sys[k]->q; },
        [&](std::size_t k) -> const LowField& { return sys[k]->p; }, out);
    for (std::size_t k : iterate) {
      System& s = *sys[k];
      SolveResult& rec = out.systems[k];
      rec.low_precision_applications += 1;
      rec.flops += vf::kReDot * B::Reals(x[k]);
      if (detail::CgAdvance<B>(s.r_low, s.q, B::DeferredReDot(s.p, s.q), s.rr_low, s.rr_new, s.b_norm2,
                               params.record_history, rec,
                               detail::CgUpdateX<B>(s.x_low, s.p, rec)) == detail::StepOutcome::kFailed) {
        s.phase = Phase::kFinish;
        continue;
      }
      const double r_norm = std::sqrt(s.rr_new);
      if (s.rr_new <= s.stop_rr || r_norm < params.delta * s.max_r) {
        s.phase = Phase::kUpdate;
        continue;
      }
      s.max_r = std::max(s.max_r, r_norm);
      detail::CgNewDirection<B>(s.r_low, s.rr_new, s.rr_low, s.p, rec);
      s.rr_low = s.rr_new;
    }
    // The reliable updates due: x += x^ each, one batched high-precision residual, then Judge each.
    const std::vector<std::size_t> update = systems_in(Phase::kUpdate);
    for (std::size_t k : update) sys[k]->updater->Accumulate(sys[k]->x_low);
    residuals(update);
    for (std::size_t k : update) {
      System& s = *sys[k];
      SolveResult& rec = out.systems[k];
      const double rr_true = s.updater->Judge(s.true_rr, s.r_low, s.done);
      if (s.done) {
        s.phase = Phase::kFinish;
        continue;
      }
      s.max_r = std::sqrt(rr_true);
      s.rr_new = B::Norm2(s.r_low);
      // Footnote 9 (reliable_update.h): restore (r^, p) = 0 for the replaced residual before the next direction.
      const std::complex<double> rp = B::Dot(s.r_low, s.p);
      B::Caxpy(-rp / s.rr_new, s.r_low, s.p);
      rec.flops += (vf::kNorm2 + vf::kDot + vf::kCaxpy) * B::Reals(x[k]);
      detail::CgNewDirection<B>(s.r_low, s.rr_new, s.rr_low, s.p, rec);
      s.rr_low = s.rr_new;
      s.phase = Phase::kIterate;
    }
    // Finished systems: ReliableUpdater::Finish (after a failure x^ folded in and the residual recomputed).
    for (std::size_t k : systems_in(Phase::kFinish)) {
      sys[k]->updater->Finish(sys[k]->x_low, sys[k]->done);
      sys[k]->phase = Phase::kDone;
    }
    if (systems_in(Phase::kIterate).empty()) break;
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

}  // namespace lqcd::solvers
