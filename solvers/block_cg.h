// block_cg.h: CG on n Hermitian positive definite systems A x_k = b_k with the same A, iterated in
// lockstep so that every operator application serves all systems at once (a block operator,
// block_operators.h: the gauge field is loaded once per site for the whole block).
//
// Each system runs EXACTLY the algorithm of cg.h, through the same code: the iteration body after q = A p
// is detail::CgStep and the true-residual verification, restarts and stagnation detection are
// detail::VerifyTrueResidual, both shared with ConjugateGradient; only the operator application is
// batched here. Each system has its own
// Krylov space: this is multiple-RHS CG in the sense of "several CGs sharing the matrix loads", not
// O'Leary's block CG (Linear Algebra Appl. 29 (1980) 293), which would share one block Krylov space and
// couple the systems. So each system needs the iterations it would need alone, and its record is the one
// ConjugateGradient would return (same operations in the same order; a test checks equality); what the
// block buys is memory traffic (BlockSolveResult::bytes, from the operator's BytesPerApply model).
// Per-system state machine (one pass of the outer loop advances every system by one step):
//     kVerify:  r = b - A x (true residual; batched);  converged -> done;  NaN -> done;
//               stagnating / too many restarts -> done;  else restart: p = r -> kIterate
//     kIterate: [iterations >= max: -> kConclude]  q = A p (batched);  alpha = (r, r) / (p, q)
//               [(p, q) <= 0 or NaN: -> kConclude];  x += alpha p, r -= alpha q;
//               |r| <= tol_k |b_k| -> kVerify;  else p = r + beta p
//     kConclude: r = b - A x (batched), status kept, detail::Conclude -> done
// A system that is done is never touched again: its fields and its record are frozen while the others
// continue. tolerances[k] (optional) gives each system its own tolerance (default params.tolerance).
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "solvers/block_operators.h"
#include "solvers/cg.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace block_detail {

enum class Phase { kVerify, kIterate, kConclude, kDone };

// Checks of a block solve; returns the tolerance of every system.
template <typename BlockOp>
std::vector<double> CheckBlockSystem(const BlockOp& A, const std::vector<typename BlockOp::Field>& x,
                                     const std::vector<typename BlockOp::Field>& b, const SolverParams& params,
                                     const std::vector<double>& tolerances, const char* solver) {
  params.Validate(solver);
  const std::string name(solver);
  if (b.empty()) throw std::invalid_argument(name + ": no right-hand sides");
  if (x.size() != b.size()) {
    throw std::invalid_argument(name + ": " + std::to_string(b.size()) + " right-hand sides but " +
                                std::to_string(x.size()) + " solution fields");
  }
  if (!tolerances.empty() && tolerances.size() != b.size()) {
    throw std::invalid_argument(name + ": " + std::to_string(tolerances.size()) + " tolerances for " +
                                std::to_string(b.size()) + " systems");
  }
  std::vector<double> tol(b.size(), params.tolerance);
  for (std::size_t k = 0; k < b.size(); ++k) {
    detail::CheckSystem(A, x[k], b[k], solver);
    if (!tolerances.empty()) {
      SolverParams p = params;
      p.tolerance = tolerances[k];
      p.Validate(solver);
      tol[k] = tolerances[k];
    }
  }
  return tol;
}

// One block application to the systems in `which`: counted in `out` and as one vector application in each
// system's record.
template <typename BlockOp>
void CountBlockApplication(const BlockOp& A, const std::vector<std::size_t>& which, BlockSolveResult& out) {
  out.block_applications += 1;
  out.vector_applications += static_cast<long long>(which.size());
  out.bytes += A.BytesPerApply(static_cast<int>(which.size()));
  for (std::size_t k : which) {
    out.systems[k].operator_applications += 1;
    out.systems[k].flops += A.FlopsPerApply();
  }
}

// A block application's arguments for the systems in `which`, in order: out[j] = &to(k_j), in[j] = &from(k_j).
template <typename Field>
struct BlockArguments {
  std::vector<Field*> out;
  std::vector<const Field*> in;
};
template <typename Field, typename To, typename From>
BlockArguments<Field> ArgumentsOf(const std::vector<std::size_t>& which, To&& to, From&& from) {
  BlockArguments<Field> a;
  for (std::size_t k : which) {
    a.out.push_back(&to(k));
    a.in.push_back(&from(k));
  }
  return a;
}

// Applies A to the fields `from(k)` of the systems listed in `which`, into `to(k)`, with one block
// application; counts it (CountBlockApplication).
template <typename BlockOp, typename To, typename From>
void ApplyToSystems(const BlockOp& A, const std::vector<std::size_t>& which, To&& to, From&& from,
                    BlockSolveResult& out) {
  if (which.empty()) return;
  const auto a = ArgumentsOf<typename BlockOp::Field>(which, to, from);
  A.ApplyBlock(a.out, a.in);
  CountBlockApplication(A, which, out);
}

// ApplyToSystems for CG: to(k) = A from(k) and the curvatures (from(k), to(k)) as deferred scalars (B::DeferredReDot),
// in the order of `which`. The caller counts the curvatures' flops.
template <typename BlockOp, typename To, typename From>
std::vector<typename BlockOp::Backend::RealScalar> ApplyCurvatureToSystems(const BlockOp& A,
                                                                           const std::vector<std::size_t>& which,
                                                                           To&& to, From&& from,
                                                                           BlockSolveResult& out) {
  using B = typename BlockOp::Backend;
  std::vector<typename B::RealScalar> curvatures;
  ApplyToSystems(A, which, to, from, out);
  for (std::size_t k : which) curvatures.push_back(B::DeferredReDot(from(k), to(k)));
  return curvatures;
}

// Whether the block operator has the optional ApplyCurvatureUpdateBlock(p, r, rr) (README.md).
template <typename Op, typename = void>
struct HasApplyCurvatureUpdateBlock : std::false_type {};
template <typename Op>
struct HasApplyCurvatureUpdateBlock<Op, std::void_t<decltype(std::declval<const Op&>().ApplyCurvatureUpdateBlock(
                                            std::declval<const std::vector<const typename Op::Field*>&>(),
                                            std::declval<const std::vector<typename Op::Field*>&>(),
                                            std::declval<const std::vector<double>&>()))>> : std::true_type {};

// CG's step for the systems of `which`, queued, in their order: q(k) = A p(k), pAp = (p(k), q(k)),
// alpha = rr(k) / pAp and r(k) -= alpha q(k) with |r(k)|^2 (the block form of cg.h's detail::ApplyCurvatureUpdate):
// the operator's ApplyCurvatureUpdateBlock when it has one (q is then never stored), else ApplyCurvatureToSystems
// and detail::QueueResidualUpdate of each system. Counts the application, the curvature's ReDot and the AxpyNorm
// in each system's record (the same in both forms).
template <typename BlockOp, typename Q, typename P, typename R, typename RR>
std::vector<CurvatureUpdate<typename BlockOp::Backend::RealScalar>> ApplyCurvatureUpdateToSystems(
    const BlockOp& A, const std::vector<std::size_t>& which, Q&& q, P&& p, R&& r, RR&& rr, BlockSolveResult& out) {
  using B = typename BlockOp::Backend;
  using Field = typename BlockOp::Field;
  std::vector<CurvatureUpdate<typename B::RealScalar>> steps;
  if (which.empty()) return steps;
  if constexpr (HasApplyCurvatureUpdateBlock<BlockOp>::value) {
    std::vector<const Field*> ps;
    std::vector<Field*> rs;
    std::vector<double> rrs;
    for (std::size_t k : which) {
      ps.push_back(&p(k));
      rs.push_back(&r(k));
      rrs.push_back(rr(k));
    }
    steps = A.ApplyCurvatureUpdateBlock(ps, rs, rrs);
    CountBlockApplication(A, which, out);
    for (std::size_t k : which) {
      out.systems[k].flops += (vector_flops::kReDot + vector_flops::kAxpyNorm) * B::Reals(r(k));
    }
  } else {
    const auto curvatures = ApplyCurvatureToSystems(A, which, q, p, out);
    for (std::size_t index = 0; index < which.size(); ++index) {
      const std::size_t k = which[index];
      out.systems[k].flops += vector_flops::kReDot * B::Reals(r(k));
      steps.push_back(detail::QueueResidualUpdate<B>(r(k), q(k), curvatures[index], rr(k), out.systems[k]));
    }
  }
  return steps;
}

// The indices of the systems whose `phase` member equals `phase`, in order.
template <typename System, typename Phase>
std::vector<std::size_t> SystemsIn(const std::vector<System>& sys, Phase phase) {
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < sys.size(); ++k) {
    if (sys[k].phase == phase) which.push_back(k);
  }
  return which;
}
// The same for systems held through pointers (state that refers to itself).
template <typename System, typename Phase>
std::vector<std::size_t> SystemsIn(const std::vector<std::unique_ptr<System>>& sys, Phase phase) {
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < sys.size(); ++k) {
    if (sys[k]->phase == phase) which.push_back(k);
  }
  return which;
}

// r(k) = b[k] - A x[k] for the systems in `which` (one block application) and |r(k)|^2 handed to
// set_norm2(k, value); counted in each system's record.
template <typename BlockOp, typename Residual, typename SetNorm2>
void TrueResiduals(const BlockOp& A, const std::vector<std::size_t>& which,
                   const std::vector<typename BlockOp::Field>& x, const std::vector<typename BlockOp::Field>& b,
                   Residual&& r, SetNorm2&& set_norm2, BlockSolveResult& out) {
  using B = typename BlockOp::Backend;
  namespace vf = vector_flops;
  ApplyToSystems(A, which, r, [&](std::size_t k) -> const typename BlockOp::Field& { return x[k]; }, out);
  for (std::size_t k : which) {
    B::Xpay(b[k], -1.0, r(k));
    out.systems[k].flops += (vf::kXpay + vf::kNorm2) * B::Reals(b[k]);
    set_norm2(k, B::Norm2(r(k)));
  }
}

// TrueResiduals into each system's r and true_rr, for systems held through pointers.
template <typename BlockOp, typename System>
void TrueResidualsOf(const BlockOp& A, const std::vector<std::size_t>& which,
                     const std::vector<typename BlockOp::Field>& x, const std::vector<typename BlockOp::Field>& b,
                     const std::vector<std::unique_ptr<System>>& sys, BlockSolveResult& out) {
  TrueResiduals(
      A, which, x, b, [&](std::size_t k) -> typename BlockOp::Field& { return sys[k]->r; },
      [&](std::size_t k, double rr) { sys[k]->true_rr = rr; }, out);
}

}  // namespace block_detail

// Solves A x[k] = b[k] for every k; x[k] holds the initial guess on entry. See the file comment.
template <typename BlockOp>
BlockSolveResult BlockCg(const BlockOp& A, std::vector<typename BlockOp::Field>& x,
                         const std::vector<typename BlockOp::Field>& b, const SolverParams& params,
                         const std::vector<double>& tolerances = {}) {
  using B = typename BlockOp::Backend;
  using block_detail::Phase;
  const std::vector<double> tol = block_detail::CheckBlockSystem(A, x, b, params, tolerances, "BlockCg");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = std::string("block-CG<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> n=" +
               std::to_string(n);
  out.systems.resize(n);
  struct System {
    typename BlockOp::Field r, p, q;
    Phase phase = Phase::kVerify;
    double b_norm2 = 0, stop_rr = 0, rr = 0;
    detail::Verification verification;
  };
  std::vector<System> sys;
  sys.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = std::string("CG<") + PrecisionTraits<typename BlockOp::Precision>::kName + "> in " + out.solver;
    rec.system = A.Name() + " x = b";
    sys.push_back(System{A.NewField(), A.NewField(), A.NewField(), Phase::kVerify, 0, 0, 0, {}});
    System& s = sys.back();
    s.b_norm2 = B::Norm2(b[k]);
    s.stop_rr = tol[k] * tol[k] * s.b_norm2;
    if (detail::HandleZeroSource<BlockOp>(x[k], s.b_norm2, rec)) s.phase = Phase::kDone;
  }
  auto systems_in = [&](Phase phase) { return block_detail::SystemsIn(sys, phase); };
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - A x; rr set
    block_detail::TrueResiduals(
        A, which, x, b, [&](std::size_t k) -> typename BlockOp::Field& { return sys[k].r; },
        [&](std::size_t k, double rr) { sys[k].rr = rr; }, out);
  };

  for (;;) {
    // Verification passes: detail::VerifyTrueResidual, as in detail::RestartLoop.
    std::vector<std::size_t> verify = systems_in(Phase::kVerify);
    residuals(verify);
    for (std::size_t k : verify) {
      System& s = sys[k];
      if (detail::VerifyTrueResidual(s.rr, s.b_norm2, tol[k], params.max_restarts, s.verification, out.systems[k]) ==
          detail::Verdict::kDone) {
        s.phase = Phase::kDone;
        continue;
      }
      B::Copy(s.p, s.r);  // CgIterate's start: p = r
      s.phase = Phase::kIterate;
    }
    // Final residuals of systems whose iteration failed.
    std::vector<std::size_t> conclude = systems_in(Phase::kConclude);
    residuals(conclude);
    for (std::size_t k : conclude) {
      detail::Conclude(out.systems[k], std::sqrt(sys[k].rr / sys[k].b_norm2), tol[k]);
      sys[k].phase = Phase::kDone;
    }
    // One CG iteration of every iterating system: one batched q = A p with the residual updates, then
    // detail::CgStep each.
    std::vector<std::size_t> iterate;
    for (std::size_t k : systems_in(Phase::kIterate)) {
      if (detail::BudgetSpent(out.systems[k], params.max_iterations, sys[k].rr, sys[k].b_norm2)) {
        sys[k].phase = Phase::kConclude;
      } else {
        iterate.push_back(k);
      }
    }
    if (iterate.empty() && systems_in(Phase::kVerify).empty() && systems_in(Phase::kConclude).empty()) break;
    const auto steps = block_detail::ApplyCurvatureUpdateToSystems(
        A, iterate, [&](std::size_t k) -> typename BlockOp::Field& { return sys[k].q; },
        [&](std::size_t k) -> const typename BlockOp::Field& { return sys[k].p; },
        [&](std::size_t k) -> typename BlockOp::Field& { return sys[k].r; }, [&](std::size_t k) { return sys[k].rr; },
        out);
    for (std::size_t index = 0; index < iterate.size(); ++index) {
      const std::size_t k = iterate[index];
      System& s = sys[k];
      switch (detail::CgStep<B>(x[k], s.r, s.p, steps[index], s.rr, s.stop_rr, s.b_norm2, params.record_history,
                                out.systems[k])) {
        case detail::StepOutcome::kContinue: break;
        case detail::StepOutcome::kConverged: s.phase = Phase::kVerify; break;
        case detail::StepOutcome::kFailed: s.phase = Phase::kConclude; break;
      }
    }
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

}  // namespace lqcd::solvers
