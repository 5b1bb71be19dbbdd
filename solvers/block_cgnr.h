// block_cgnr.h: CGNR (normal_equations.h) on n systems M x_k = b_k with the same non-Hermitian M, in lockstep
// so that every application of M, M^dag or M^dag M serves all systems at once (a block Dirac operator with
// ApplyBlock and ApplyDaggerBlock, block_operators.h).
//
// Each system runs EXACTLY SolveCgnr's algorithm: b_n = M^dag b; an HPD solver on M^dag M x = b_n (BlockCgnr:
// BlockCg on the block normal operator, itself each system's ConjugateGradient, as Cgnr; BlockSolveCgnr: any
// block solver, e.g. block_reliable_update.h's BlockReliableCg on the normal operators of two precisions, as
// the mixed CGNR of spec_solve.h); then the true residual |b - M x| / |b| is checked, and a
// system above its tolerance runs CG again from its x with the tolerance tightened by the missing factor
// (times 1/2), as normal_equations.h's verification loop does: each pass must halve the true residual, at most
// params.max_restarts passes after the first, else kStagnation. The verification is per system; a pass runs
// the systems that need one together. Its record is the one Cgnr would return (same operations in the same
// order; a test checks equality), except in one corner: a pass gets one iteration budget for all its systems,
// the smallest of their remaining budgets (params.max_iterations less the iterations each has used), so a
// system whose budget is larger than a pass-mate's can stop at the smaller one.
// tolerances[k] (optional) gives each system its own tolerance (default params.tolerance).
// Aliasing: x[k] distinct and different from every b[j].
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

namespace block_detail {

// M^dag as a block operator (the first step of CGNR, b_n = M^dag b).
template <typename Dirac>
class BlockDaggerOperator {
 public:
  using Backend = typename Dirac::Backend;
  using Precision = typename Dirac::Precision;
  using Field = typename Dirac::Field;

  explicit BlockDaggerOperator(const Dirac& m) : m_(m) {}
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    m_.ApplyDaggerBlock(out, in);
  }
  double FlopsPerApply() const { return m_.FlopsPerApply(); }
  double BytesPerApply(int n) const { return m_.BytesPerApply(n); }

 private:
  const Dirac& m_;
};

// Adds what a block solve shared (applications, traffic) to `out`; the systems' records are absorbed apart.
inline void AddShared(BlockSolveResult& out, const BlockSolveResult& pass) {
  out.block_applications += pass.block_applications;
  out.vector_applications += pass.vector_applications;
  out.bytes += pass.bytes;
}

}  // namespace block_detail

// Solves M x[k] = b[k] for every k with the block HPD solver `inner(x, b_normal, params, tolerances)` on
// M^dag M (returning a BlockSolveResult, one record per system given); x[k] holds the initial guess on entry.
// See the file comment.
template <typename BlockDirac, typename InnerBlockSolve>
BlockSolveResult BlockSolveCgnr(const BlockDirac& M, std::vector<typename BlockDirac::Field>& x,
                                const std::vector<typename BlockDirac::Field>& b, const SolverParams& params,
                                const std::vector<double>& tolerances, const std::string& inner_name,
                                InnerBlockSolve&& inner_solve) {
  using B = typename BlockDirac::Backend;
  using Field = typename BlockDirac::Field;
  const std::vector<double> tol = block_detail::CheckBlockSystem(M, x, b, params, tolerances, "BlockCgnr");
  detail::Stopwatch clock;
  const std::size_t n = b.size();
  BlockSolveResult out;
  out.solver = "block-CGNR[" + inner_name + "] n=" + std::to_string(n);
  out.systems.resize(n);
  // One system's state of normal_equations.h's verification loop.
  struct System {
    Field b_normal, r;
    bool done = false;
    double b_norm2 = 0, r_norm2 = 0;
    double previous_true = std::numeric_limits<double>::infinity();
    double tighten = 1;
    int restarts = 0, passes = 0;
  };
  std::vector<System> sys;
  sys.reserve(n);
  std::vector<std::size_t> active;
  for (std::size_t k = 0; k < n; ++k) {
    SolveResult& rec = out.systems[k];
    rec.solver = "CGNR[" + inner_name + "] in " + out.solver;
    rec.system = M.Name() + " x = b";
    sys.push_back(System{M.NewField(), M.NewField()});
    sys[k].b_norm2 = B::Norm2(b[k]);
    sys[k].done = detail::HandleZeroSource<BlockDirac>(x[k], sys[k].b_norm2, rec);
    if (!sys[k].done) active.push_back(k);
  }
  const block_detail::BlockDaggerOperator<BlockDirac> dagger(M);
  block_detail::ApplyToSystems(
      dagger, active, [&](std::size_t k) -> Field& { return sys[k].b_normal; },
      [&](std::size_t k) -> const Field& { return b[k]; }, out);
  auto residuals = [&](const std::vector<std::size_t>& which) {  // r = b - M x, |r|^2 (ResidualNorm2)
    block_detail::TrueResiduals(
        M, which, x, b, [&](std::size_t k) -> Field& { return sys[k].r; },
        [&](std::size_t k, double rr) { sys[k].r_norm2 = rr; }, out);
  };
  residuals(active);

  while (!active.empty()) {
    // normal_equations.h's NormalEquationsLoop, one step of it for every system still running.
    std::vector<std::size_t> pass;
    for (std::size_t k : active) {
      System& s = sys[k];
      SolveResult& rec = out.systems[k];
      const double true_residual = std::sqrt(s.r_norm2 / s.b_norm2);
      if (s.passes > 0) rec.updates.push_back({rec.krylov_iterations, rec.iterated_residual, true_residual});
      s.done = true;
      if (true_residual <= tol[k]) {
        detail::Stop(rec, SolveStatus::kConverged,
                     "true residual " + detail::Num(true_residual) + " <= " + detail::Num(tol[k]));
        rec.true_residual = true_residual;
        continue;
      }
      if (!detail::Finite(true_residual)) {
        detail::Stop(rec, SolveStatus::kNotFinite, "true residual is " + detail::Num(true_residual));
        rec.true_residual = true_residual;
        continue;
      }
      if (s.passes > 0) {
        if (rec.status != SolveStatus::kConverged) {  // the inner solve failed: keep its reason
          rec.true_residual = true_residual;
          continue;
        }
        if (true_residual > 0.5 * s.previous_true || s.restarts >= params.max_restarts) {
          detail::Stop(rec, SolveStatus::kStagnation,
                       "true residual " + detail::Num(true_residual) + " (previous pass " +
                           detail::Num(s.previous_true) + ") above tolerance after " +
                           std::to_string(s.restarts) + " verification restarts");
          rec.true_residual = true_residual;
          continue;
        }
        s.restarts += 1;
        rec.restarts += 1;
        s.tighten *= 0.5 * tol[k] / true_residual;
      }
      s.previous_true = true_residual;
      s.done = false;
      pass.push_back(k);
    }
    if (pass.empty()) break;

    // One CG pass of those systems together: their fields move into the pass's block and back.
    std::vector<Field> x_pass, b_pass;
    std::vector<double> tol_pass;
    SolverParams p = params;
    for (std::size_t k : pass) {
      x_pass.push_back(std::move(x[k]));
      b_pass.push_back(std::move(sys[k].b_normal));
      tol_pass.push_back(tol[k] * sys[k].tighten);
      p.max_iterations = std::min(p.max_iterations, params.max_iterations - out.systems[k].iterations);
    }
    const BlockSolveResult inner = inner_solve(x_pass, b_pass, p, tol_pass);
    block_detail::AddShared(out, inner);
    for (std::size_t i = 0; i < pass.size(); ++i) {
      const std::size_t k = pass[i];
      x[k] = std::move(x_pass[i]);
      sys[k].b_normal = std::move(b_pass[i]);
      SolveResult& rec = out.systems[k];
      detail::Absorb(rec, inner.systems[i]);
      rec.status = inner.systems[i].status;
      rec.reason = inner.systems[i].reason;
      sys[k].passes += 1;
    }
    residuals(pass);
    active = pass;
  }
  for (const SolveResult& rec : out.systems) out.flops += rec.flops;
  out.seconds = clock.Seconds();
  for (SolveResult& rec : out.systems) rec.seconds = out.seconds;
  return out;
}

// Plain CGNR: BlockCg on the block normal operator (each system exactly Cgnr).
template <typename BlockDirac>
BlockSolveResult BlockCgnr(const BlockDirac& M, std::vector<typename BlockDirac::Field>& x,
                           const std::vector<typename BlockDirac::Field>& b, const SolverParams& params,
                           const std::vector<double>& tolerances = {}) {
  using Field = typename BlockDirac::Field;
  const BlockNormalOperator<BlockDirac> normal(M);
  return BlockSolveCgnr(M, x, b, params, tolerances,
                        std::string("CG<") + PrecisionTraits<typename BlockDirac::Precision>::kName + ">",
                        [&](std::vector<Field>& xx, const std::vector<Field>& bn, const SolverParams& p,
                            const std::vector<double>& tol) { return BlockCg(normal, xx, bn, p, tol); });
}

}  // namespace lqcd::solvers
