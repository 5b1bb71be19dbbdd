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
#include "solvers/block_bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/cg.h"
#include "solvers/reliable_update.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace block_detail {

enum class ReliablePhase { kIterate, kUpdate, kFinish, kDone };

// What every system of a block reliable-update solve holds: the single solver's locals outside its Krylov
// iteration (params with the system's tolerance, r, the temporary, x^, the updater, max_r). Held through
// pointers: the updater refers to r and tmp.
template <typename HighBlockOp, typename LowBlockOp>
struct ReliableSystem {
  using HighField = typename HighBlockOp::Field;
  using LowField = typename LowBlockOp::Field;
  ReliableSystem(const SolverParams& p, const HighBlockOp& high, const LowBlockOp& low)
      : params(p), r(high.NewField()), tmp(high.NewField()), x_low(low.NewField()) {}
  SolverParams params;
  HighField r, tmp;
  LowField x_low;
  std::unique_ptr<detail::ReliableUpdater<HighBlockOp, LowField>> updater;
  ReliablePhase phase = ReliablePhase::kIterate;
  double b_norm2 = 0, stop_rr = 0, max_r = 0, true_rr = 0;
  bool done = false;  // ReliableUpdater's `done`: converged or stagnated at an update
};

// The lockstep driver both reliable-update solvers share (file comment); System derives from ReliableSystem
// and adds the Krylov method's state, constructed as System(params, A, A_low), with updater_residual() the
// low-precision residual r^ that an update replaces. The method comes in three
// pieces: start(s) after the initial residual (r^ = r, x^ = 0, the iteration's start); iterate(which) one
// low-precision iteration of those systems, each ending in kIterate, kUpdate or kFinish; resume(s, rec) after
// an update that did not end the solve (back to kIterate, or kFinish on a breakdown).
template <typename System, typename HighBlockOp, typename LowBlockOp, typename Start, typename Iterate,
          typename Resume>
BlockSolveResult RunBlockReliable(const char* algorithm, const HighBlockOp& A, const LowBlockOp& A_low,
                                  std::vector<typename HighBlockOp::Field>& x,
                                  const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                  const std::vector<double>& tolerances, std::vector<std::unique_ptr<System>>& sys,
                                  BlockSolveResult& out, Start&& start, Iterate&& iterate, Resume&& resume) {
  using B = typename HighBlockOp::Backend;
  using LowField = typename LowBlockOp::Field;
  using Phase = ReliablePhase;
  const std::string block_name = std::string("Block") + algorithm;
  const std::vector<double> tol = CheckBlockSystem(A, x, b, params, tolerances, block_name.c_str());
  detail::CheckMixedOperators(A, A_low, params, block_name.c_str());
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  const std::string single_name = detail::MixedName<HighBlockOp, LowBlockOp>(algorithm, params);
  out.solver = "block-" + single_name + " n=" + std::to_string(n);
  out.systems.resize(n);
  std::vector<std::size_t> started;
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = single_name + " in " + out.solver;
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

  // The single solver's start: the initial true residual (batched), then start(s).
  TrueResidualsOf(A, started, x, b, sys, out);
  for (std::size_t k : started) {
    System& s = *sys[k];
    SolveResult& rec = out.systems[k];
    rec.true_residual = std::sqrt(s.true_rr / s.b_norm2);
    if (s.true_rr <= s.stop_rr) {
      detail::Stop(rec, SolveStatus::kConverged, "initial guess already meets the tolerance");
      s.phase = Phase::kDone;
      continue;
    }
    s.max_r = std::sqrt(s.true_rr);
    start(s);
  }

  while (!SystemsIn(sys, Phase::kIterate).empty()) {
    // One low-precision iteration of every iterating system within its budget (k + l).
    std::vector<std::size_t> which;
    for (std::size_t k : SystemsIn(sys, Phase::kIterate)) {
      if (out.systems[k].iterations >= sys[k]->params.max_iterations) {
        detail::Stop(out.systems[k], SolveStatus::kMaxIterations,
                     "reached " + std::to_string(params.max_iterations) + " iterations (k + l)");
        sys[k]->phase = Phase::kFinish;
      } else {
        which.push_back(k);
      }
    }
    iterate(which);
    // The reliable updates due: x += x^ each, one batched high-precision residual, then Judge and resume each.
    const std::vector<std::size_t> update = SystemsIn(sys, Phase::kUpdate);
    for (std::size_t k : update) sys[k]->updater->Accumulate(sys[k]->x_low);
    TrueResidualsOf(A, update, x, b, sys, out);
    for (std::size_t k : update) {
      System& s = *sys[k];
      const double rr_true = s.updater->Judge(s.true_rr, s.updater_residual(), s.done);
      if (s.done) {
        s.phase = Phase::kFinish;
        continue;
      }
      s.max_r = std::sqrt(rr_true);
      s.phase = Phase::kIterate;
      resume(s, out.systems[k]);
    }
    // Finished systems: ReliableUpdater::Finish (after a failure x^ folded in and the residual recomputed).
    for (std::size_t k : SystemsIn(sys, Phase::kFinish)) {
      sys[k]->updater->Finish(sys[k]->x_low, sys[k]->done);
      sys[k]->phase = Phase::kDone;
    }
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

// ApplyToSystems with the low block operator, counted as low-precision applications too.
template <typename LowBlockOp, typename To, typename From>
void ApplyLow(const LowBlockOp& A_low, const std::vector<std::size_t>& which, To&& to, From&& from,
              BlockSolveResult& out) {
  ApplyToSystems(A_low, which, to, from, out);
  for (std::size_t k : which) out.systems[k].low_precision_applications += 1;
}

// ApplyDotNormToSystems with the low block operator, counted as ApplyLow counts.
template <typename LowBlockOp, typename To, typename From, typename W>
auto ApplyLowDotNorm(const LowBlockOp& A_low, const std::vector<std::size_t>& which, To&& to, From&& from, W&& w,
                     BlockSolveResult& out) {
  auto sums = ApplyDotNormToSystems(A_low, which, to, from, w, out);
  for (std::size_t k : which) out.systems[k].low_precision_applications += 1;
  return sums;
}

// ApplyCurvatureUpdateToSystems with the low block operator, counted as ApplyLow counts.
template <typename LowBlockOp, typename Q, typename P, typename R, typename RR>
auto ApplyLowCurvatureUpdate(const LowBlockOp& A_low, const std::vector<std::size_t>& which, Q&& q, P&& p, R&& r,
                             RR&& rr, BlockSolveResult& out) {
  auto steps = ApplyCurvatureUpdateToSystems(A_low, which, q, p, r, rr, out);
  for (std::size_t k : which) out.systems[k].low_precision_applications += 1;
  return steps;
}

}  // namespace block_detail

// Reliable-update BiCGstab: A (high precision) and A_low (low precision) the same matrix as block operators;
// x[k] holds the initial guess on entry. See the file comment.
template <typename HighBlockOp, typename LowBlockOp>
BlockSolveResult BlockReliableBiCGstab(const HighBlockOp& A, const LowBlockOp& A_low,
                                       std::vector<typename HighBlockOp::Field>& x,
                                       const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                       const std::vector<double>& tolerances = {}) {
  using B = typename HighBlockOp::Backend;
  using LowField = typename LowBlockOp::Field;
  using Phase = block_detail::ReliablePhase;
  using detail::BicgstabOutcome;
  // ReliableBiCGstab's Krylov state: r^ = f.r, r0, p, v, t; the scalars; the outcome of the last iteration.
  struct System : block_detail::ReliableSystem<HighBlockOp, LowBlockOp> {
    System(const SolverParams& p, const HighBlockOp& high, const LowBlockOp& low)
        : block_detail::ReliableSystem<HighBlockOp, LowBlockOp>(p, high, low),
          f{low.NewField(), low.NewField(), low.NewField(), low.NewField(), low.NewField()} {}
    detail::BicgstabFields<LowField> f;
    detail::BicgstabScalars<B> s;
    BicgstabOutcome outcome = BicgstabOutcome::kIterated;
    LowField& updater_residual() { return f.r; }
  };
  std::vector<std::unique_ptr<System>> sys;
  using F = detail::BicgstabFields<LowField>;
  auto field = [&sys](LowField F::*member) {
    return [&sys, member](std::size_t k) -> LowField& { return sys[k]->f.*member; };
  };
  BlockSolveResult out;
  return block_detail::RunBlockReliable<System>(
      "ReliableUpdate-BiCGstab", A, A_low, x, b, params, tolerances, sys, out,
      [&](System& s) {  // r^ = r, x^ = 0
        B::Convert(s.f.r, s.r);
        detail::BicgstabStart<B>(s.f, s.s);
      },
      [&](const std::vector<std::size_t>& which) {  // one BiCGstab iteration: v = A^ p, t = A^ s (batched)
        block_detail::BicgstabBlockIteration<B, LowField>(
            which,
            [&](const std::vector<std::size_t>& which_here, LowField F::*to, LowField F::*from, LowField F::*w) {
              return block_detail::ApplyLowDotNorm(A_low, which_here, field(to), field(from), field(w), out);
            },
            [&](std::size_t k) {
              System& s = *sys[k];
              return block_detail::BicgstabSystemRef<B, LowField>{s.x_low, s.f, s.s, s.stop_rr, s.b_norm2};
            },
            params.record_history, out,
            [&](std::size_t k, BicgstabOutcome o) {
              System& s = *sys[k];
              s.outcome = o;
              if (o == BicgstabOutcome::kFailed) {
                s.phase = Phase::kFinish;
                return;
              }
              const double r_norm = std::sqrt(s.s.rr);
              if (s.s.rr <= s.stop_rr || r_norm < params.delta * s.max_r) {
                s.phase = Phase::kUpdate;
                return;
              }
              s.max_r = std::max(s.max_r, r_norm);
              if (!detail::BicgstabNewDirection<B>(s.f, s.s, out.systems[k])) s.phase = Phase::kFinish;
            });
      },
      [&](System& s, SolveResult& rec) {  // after an update, as ReliableBiCGstab
        s.s.rr = B::Norm2(s.f.r);
        rec.flops += vector_flops::kNorm2 * B::Reals(s.r);
        if (s.outcome == BicgstabOutcome::kConvergedOnHalfStep) {
          detail::BicgstabStart<B>(s.f, s.s);  // the iteration's second half never happened: restart from r^
          return;
        }
        s.s.rho_new = B::Dot(s.f.r0, s.f.r);  // rho of the replaced residual
        rec.flops += vector_flops::kDot * B::Reals(s.r);
        if (!detail::BicgstabNewDirection<B>(s.f, s.s, rec)) s.phase = Phase::kFinish;
      });
}

// Reliable-update CG for a Hermitian positive definite A (e.g. M^dag M as BlockNormalOperator), both precisions
// as block operators; x[k] holds the initial guess on entry. See the file comment.
template <typename HighBlockOp, typename LowBlockOp>
BlockSolveResult BlockReliableCg(const HighBlockOp& A, const LowBlockOp& A_low,
                                 std::vector<typename HighBlockOp::Field>& x,
                                 const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                 const std::vector<double>& tolerances = {}) {
  using B = typename HighBlockOp::Backend;
  using LowField = typename LowBlockOp::Field;
  using Phase = block_detail::ReliablePhase;
  namespace vf = vector_flops;
  // ReliableCg's Krylov state: r^, p, q = A^ p, |r^|^2 before and after the iteration.
  struct System : block_detail::ReliableSystem<HighBlockOp, LowBlockOp> {
    System(const SolverParams& p, const HighBlockOp& high, const LowBlockOp& low)
        : block_detail::ReliableSystem<HighBlockOp, LowBlockOp>(p, high, low), r_low(low.NewField()),
          p(low.NewField()), q(low.NewField()) {}
    LowField r_low, p, q;
    double rr_low = 0, rr_new = 0;
    LowField& updater_residual() { return r_low; }
  };
  std::vector<std::unique_ptr<System>> sys;
  BlockSolveResult out;
  return block_detail::RunBlockReliable<System>(
      "ReliableUpdate-CG", A, A_low, x, b, params, tolerances, sys, out,
      [&](System& s) {  // r^ = p = r, x^ = 0
        B::Convert(s.r_low, s.r);
        B::Copy(s.p, s.r_low);
        s.rr_low = B::Norm2(s.r_low);
      },
      [&](const std::vector<std::size_t>& which) {  // one CG iteration: q = A^ p, (p, q), r^ -= alpha q (batched)
        const auto steps = block_detail::ApplyLowCurvatureUpdate(
            A_low, which, [&](std::size_t k) -> LowField& { return sys[k]->q; },
            [&](std::size_t k) -> const LowField& { return sys[k]->p; },
            [&](std::size_t k) -> LowField& { return sys[k]->r_low; }, [&](std::size_t k) { return sys[k]->rr_low; },
            out);
        for (std::size_t index = 0; index < which.size(); ++index) {
          const std::size_t k = which[index];
          System& s = *sys[k];
          SolveResult& rec = out.systems[k];
          const auto& step = steps[index];
          if (detail::CgAdvance<B>(step, s.rr_new, s.b_norm2, params.record_history, rec,
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
      },
      [&](System& s, SolveResult& rec) {  // after an update, as ReliableCg
        s.rr_new = B::Norm2(s.r_low);
        // Footnote 9 (reliable_update.h): restore (r^, p) = 0 for the replaced residual before the next direction.
        const std::complex<double> rp = B::Dot(s.r_low, s.p);
        B::Caxpy(-rp / s.rr_new, s.r_low, s.p);
        rec.flops += (vf::kNorm2 + vf::kDot + vf::kCaxpy) * B::Reals(s.r);
        detail::CgNewDirection<B>(s.r_low, s.rr_new, s.rr_low, s.p, rec);
        s.rr_low = s.rr_new;
      });
}

}  // namespace lqcd::solvers
