// block_defect_correction.h: mixed-precision defect correction (defect_correction.h, the paper's Algorithm 1)
// on n systems A x_k = b_k with the same A, in lockstep: the inner low-precision iterations of all systems
// share each application of the low block operator, and the high-precision residuals after the corrections
// due in the same pass share one application of the high block operator (block_operators.h).
//
// Each system runs EXACTLY DefectCorrection through the same code: the outer tests (converged, not finite,
// stagnation after params.max_stagnant_updates corrections without a new best, an inner failure that did not
// help, the budget), the inner solve from p = 0 to eps_in |r_k| with bicgstab.h's split iteration
// (detail::BicgstabStart, BicgstabQueueFirstHalf, BicgstabCheckFirstHalf, BicgstabSecondHalf,
// BicgstabNewDirection, as detail::BicgstabIterate) or cg.h's (detail::CgStep, as detail::CgIterate), and the
// correction x += p, r = b - A x. Its record therefore equals the one DefectCorrection would return for that
// system alone (a test checks it on the CPU); each system stops on its own tolerance (tolerances[k], default
// params.tolerance).
// Per-system phases of one lockstep pass: kDecide (the outer tests; start an inner solve) -> kInner (one
// inner iteration: BiCGstab batched v = A^ p and t = A^ s, CG batched q = A^ p) -> kCorrect (x += p; batched
// r = b - A x) -> kDecide, or kDone.
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "solvers/bicgstab.h"
#include "solvers/block_bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/cg.h"
#include "solvers/defect_correction.h"
#include "solvers/reliable_update.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

// Solves A x[k] = b[k] for every k, A (high precision) and A_low (low precision) the same matrix as block
// operators, with the inner solver `inner`; x[k] holds the initial guess on entry. See the file comment.
template <typename HighBlockOp, typename LowBlockOp>
BlockSolveResult BlockDefectCorrection(InnerSolver inner, const HighBlockOp& A, const LowBlockOp& A_low,
                                       std::vector<typename HighBlockOp::Field>& x,
                                       const std::vector<typename HighBlockOp::Field>& b, const SolverParams& params,
                                       const std::vector<double>& tolerances = {}) {
  using B = typename HighBlockOp::Backend;
  using HighField = typename HighBlockOp::Field;
  using LowField = typename LowBlockOp::Field;
  const bool bicgstab = inner == InnerSolver::kBiCGstab;
  const char* name = bicgstab ? "DefectCorrection-BiCGstab" : "DefectCorrection-CG";
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockDefectCorrection");
  detail::CheckMixedOperators(A, A_low, params, "BlockDefectCorrection");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  const std::string single_name = std::string(name) + "<" + PrecisionTraits<typename HighBlockOp::Precision>::kName +
                                  "," + PrecisionTraits<typename LowBlockOp::Precision>::kName +
                                  "> eps_in=" + detail::Num(params.inner_tolerance);
  BlockSolveResult out;
  out.solver = "block-" + single_name + " n=" + std::to_string(n);
  out.systems.resize(n);
  enum class Phase { kDecide, kInner, kCorrect, kDone };
  // One system's state: DefectCorrection's locals (CG uses f.r as its residual, f.p, f.v as q = A p).
  struct System {
    System(const HighBlockOp& high, const LowBlockOp& low)
        : r(high.NewField()), tmp(high.NewField()), correction(low.NewField()),
          f{low.NewField(), low.NewField(), low.NewField(), low.NewField(), low.NewField()} {}
    HighField r, tmp;
    LowField correction;
    detail::BicgstabFields<LowField> f;
    detail::BicgstabScalars<B> s;
    Phase phase = Phase::kDecide;
    double b_norm2 = 0, stop_rr = 0, true_rr = 0, inner_stop = 0, cg_rr = 0;
    double best = std::numeric_limits<double>::infinity();
    int stagnant = 0;
    long long apps_before = 0;
    bool inner_ok = false;
  };
  std::vector<std::unique_ptr<System>> sys;
  std::vector<std::size_t> started;
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = single_name + " in " + out.solver;
    rec.system = A.Name() + " x = b";
    auto s = std::make_unique<System>(A, A_low);
    s->b_norm2 = B::Norm2(b[k]);
    s->stop_rr = tol[k] * tol[k] * s->b_norm2;
    if (detail::HandleZeroSource<HighBlockOp>(x[k], s->b_norm2, rec)) {
      s->phase = Phase::kDone;
    } else {
      started.push_back(k);
    }
    sys.push_back(std::move(s));
  }
  auto systems_in = [&](Phase phase) { return block_detail::SystemsIn(sys, phase); };
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - A x (high), counted as ResidualNorm2
    block_detail::TrueResidualsOf(A, which, x, b, sys, out);
  };
  auto apply_low = [&](const std::vector<std::size_t>& which, LowField detail::BicgstabFields<LowField>::*to,
                       LowField detail::BicgstabFields<LowField>::*from, LowField detail::BicgstabFields<LowField>::*w) {
    return block_detail::ApplyDotNormToSystems(
        A_low, which, [&](std::size_t k) -> LowField& { return sys[k]->f.*to; },
        [&](std::size_t k) -> const LowField& { return sys[k]->f.*from; },
        [&](std::size_t k) -> const LowField& { return sys[k]->f.*w; }, out);
  };

  residuals(started);
  while (!systems_in(Phase::kDecide).empty()) {
    // The outer tests of every system whose residual is new, and the start of its inner solve.
    for (std::size_t k : systems_in(Phase::kDecide)) {
      System& s = *sys[k];
      SolveResult& result = out.systems[k];
      s.phase = Phase::kDone;
      const double true_residual = std::sqrt(s.true_rr / s.b_norm2);
      result.true_residual = true_residual;
      if (result.restarts > 0) {
        result.updates.push_back({result.krylov_iterations, result.iterated_residual, true_residual});
      }
      if (!detail::Finite(s.true_rr)) {
        detail::Stop(result, SolveStatus::kNotFinite, "true residual is " + detail::Num(true_residual));
        continue;
      }
      if (s.true_rr <= s.stop_rr) {
        detail::Stop(result, SolveStatus::kConverged,
                     "true residual " + detail::Num(true_residual) + " <= " + detail::Num(tol[k]));
        continue;
      }
      if (true_residual < s.best) {
        s.best = true_residual;
        s.stagnant = 0;
      } else if (++s.stagnant >= params.max_stagnant_updates) {
        detail::Stop(result, SolveStatus::kStagnation,
                     std::to_string(s.stagnant) + " consecutive corrections did not reduce the true residual below " +
                         detail::Num(s.best) + " (now " + detail::Num(true_residual) + ")");
        continue;
      }
      if (result.status != SolveStatus::kConverged && s.stagnant > 0) continue;  // an inner failure that did not help
      if (result.iterations >= params.max_iterations) {
        detail::Stop(result, SolveStatus::kMaxIterations,
                     "reached " + std::to_string(params.max_iterations) + " inner iterations");
        continue;
      }
      // Solve A p = r_k in low precision to eps_in, from p = 0.
      B::Convert(s.f.r, s.r);
      B::Zero(s.correction);
      const double rr_low = B::Norm2(s.f.r);
      s.inner_stop = params.inner_tolerance * params.inner_tolerance * rr_low;
      s.apps_before = result.operator_applications;
      result.status = SolveStatus::kConverged;
      s.phase = Phase::kInner;
      if (bicgstab) {  // detail::BicgstabIterate's start
        s.s = detail::BicgstabScalars<B>{};
        detail::BicgstabStart<B>(s.f, s.s);
        if (s.s.rr <= s.inner_stop) {
          s.inner_ok = true;
          s.phase = Phase::kCorrect;
        }
      } else {  // detail::CgIterate's start
        s.cg_rr = rr_low;
        B::Copy(s.f.p, s.f.r);
      }
    }
    // Inner iterations in lockstep until every inner solve has ended (kCorrect).
    for (;;) {
      std::vector<std::size_t> iterate;
      for (std::size_t k : systems_in(Phase::kInner)) {
        System& s = *sys[k];
        if (detail::BudgetSpent(out.systems[k], params.max_iterations, bicgstab ? s.s.rr : s.cg_rr, s.b_norm2)) {
          s.inner_ok = false;
          s.phase = Phase::kCorrect;
        } else {
          iterate.push_back(k);
        }
      }
      if (iterate.empty()) break;
      if (bicgstab) {  // detail::BicgstabIterate's loop body (detail::BicgstabAdvance split at its applications)
        block_detail::BicgstabBlockIteration<B, LowField>(
            iterate, apply_low,
            [&](std::size_t k) {
              System& s = *sys[k];
              return block_detail::BicgstabSystemRef<B, LowField>{s.correction, s.f, s.s, s.inner_stop, s.b_norm2};
            },
            params.record_history, out,
            [&](std::size_t k, detail::BicgstabOutcome o) {
              System& s = *sys[k];
              if (o == detail::BicgstabOutcome::kFailed) {
                s.inner_ok = false;
                s.phase = Phase::kCorrect;
              } else if (o == detail::BicgstabOutcome::kConvergedOnHalfStep || s.s.rr <= s.inner_stop) {
                s.inner_ok = true;
                s.phase = Phase::kCorrect;
              } else if (!detail::BicgstabNewDirection<B>(s.f, s.s, out.systems[k])) {
                s.inner_ok = false;
                s.phase = Phase::kCorrect;
              }
            });
      } else {  // detail::CgIterate's loop body
        const auto curvatures = block_detail::ApplyCurvatureToSystems(  // q = A^ p and (p, q)
            A_low, iterate, [&](std::size_t k) -> LowField& { return sys[k]->f.v; },
            [&](std::size_t k) -> const LowField& { return sys[k]->f.p; }, out);
        for (std::size_t index = 0; index < iterate.size(); ++index) {
          const std::size_t k = iterate[index];
          System& s = *sys[k];
          SolveResult& rec = out.systems[k];
          rec.flops += vector_flops::kReDot * B::Reals(s.f.p);
          const detail::StepOutcome o =
              detail::CgStep<B>(s.correction, s.f.r, s.f.p, s.f.v, curvatures[index], s.cg_rr, s.inner_stop,
                                s.b_norm2, params.record_history, rec);
          if (o != detail::StepOutcome::kContinue) {
            s.inner_ok = o == detail::StepOutcome::kConverged;
            s.phase = Phase::kCorrect;
          }
        }
      }
    }
    // The corrections: x += p each, then one batched high-precision residual.
    std::vector<std::size_t> correct;
    for (std::size_t k : systems_in(Phase::kCorrect)) {
      System& s = *sys[k];
      SolveResult& result = out.systems[k];
      result.low_precision_applications += result.operator_applications - s.apps_before;
      result.restarts += 1;
      if (!s.inner_ok && result.status == SolveStatus::kNotFinite) {
        s.phase = Phase::kDone;
        continue;
      }
      B::Convert(s.tmp, s.correction);
      B::Axpy(1.0, s.tmp, x[k]);
      result.flops += vector_flops::kAxpy * B::Reals(x[k]);
      correct.push_back(k);
    }
    residuals(correct);
    for (std::size_t k : correct) {
      System& s = *sys[k];
      s.phase = Phase::kDecide;
      if (!s.inner_ok && out.systems[k].status == SolveStatus::kMaxIterations) {  // budget spent: the state reached
        detail::Conclude(out.systems[k], std::sqrt(s.true_rr / s.b_norm2), tol[k]);
        s.phase = Phase::kDone;
      }
    }
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

}  // namespace lqcd::solvers
