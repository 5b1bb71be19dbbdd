// multishift_common.h: what the multi-shift solvers (multishift_cg.h, multishift_bicgstab.h) share: the
// result record, input checks, the choice of the seed system, and the final verification of every shift.
//
// A multi-shift solve answers (A + sigma_i) x_i = b for i = 0..n-1 with ONE Krylov iteration: that of the
// seed system, the smallest shift sigma_s (the most singular system when the spectrum of A lies in the
// right half-plane, e.g. A = M^dag M, or M above the critical mass), of which every shifted system's
// iterates follow by scalar recurrences (Jegerlehner, hep-lat/9612014). Each shift is frozen when its
// recurrence-estimated residual |zeta_i| |r| meets the tolerance.
//
// Verification (FinishShifts): when the shared iteration has stopped, the TRUE residual
// |b - (A + sigma_i) x_i| / |b| of every shift is recomputed with ShiftedOperator in the operator's
// precision (reductions in double; double for double operators). A shift whose estimate claimed
// convergence but whose true residual is above tolerance, or that had not converged when the seed did,
// is refined by a single-shift solve (CG or BiCGstab on A + sigma_i) from its current x_i, if
// params.max_restarts > 0 and iterations are left; this is counted in its record's `restarts` and
// `iterations`. Without refinement its status says what happened (kStagnation: estimate claimed
// convergence but the true residual is above tolerance; kMaxIterations: the shared iteration stopped
// first). A status is kConverged iff the final true residual meets the tolerance (detail::Conclude).
//
// Records: MultiShiftResult::per_shift[i] is the record of shift i in the order given. Its `iterations`
// are the shared iterations during which shift i was updated (plus refinement iterations), its
// `residual_history` the recurrence estimate |zeta_i r| / |b| after each of them; its
// `operator_applications` and `flops` count only work attributable to shift i (its vector updates, its
// final residual, its refinement). The shared work (the seed's operator applications) is in the totals
// of MultiShiftResult, which also include every per-shift cost.
// Initial guesses: the x_i on entry are ignored and overwritten. A shifted Krylov method needs the same
// initial residual b for every shift (x_i = 0): only then are the residuals collinear.
#pragma once

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/shifted_operator.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"

namespace lqcd::solvers {

struct MultiShiftResult {
  std::string solver;                  // e.g. "CG-M<double>"
  std::vector<double> shifts;          // as given
  std::vector<SolveResult> per_shift;  // one record per shift, in the order given
  int seed = 0;                        // index of the seed system (the smallest shift)
  int iterations = 0;                  // shared Krylov iterations (passes of the seed's loop)
  long long operator_applications = 0; // all of them: seed loop, final residuals, refinements
  double flops = 0;                    // all of them
  double seconds = 0;

  bool all_converged() const {
    return std::all_of(per_shift.begin(), per_shift.end(), [](const SolveResult& r) { return r.converged(); });
  }
  int total_refinement_iterations() const {
    int n = 0;
    for (const SolveResult& r : per_shift) n += r.restarts > 0 ? r.iterations : 0;
    return n;
  }
  std::string Summary() const {
    std::ostringstream s;
    s << solver << ": " << shifts.size() << " shifts, seed sigma = " << shifts[seed] << ", " << iterations
      << " shared iterations, " << operator_applications << " operator applications, " << flops << " flops in "
      << seconds << " s";
    for (std::size_t i = 0; i < per_shift.size(); ++i) {
      s << "\n  sigma = " << shifts[i] << ": " << ToString(per_shift[i].status) << ", iterations "
        << per_shift[i].iterations << ", refinements " << per_shift[i].restarts << ", true residual "
        << per_shift[i].true_residual << ", estimated " << per_shift[i].iterated_residual << " ("
        << per_shift[i].reason << ")";
    }
    return s.str();
  }
};

namespace detail {

// How the shared iteration left a shift.
enum class ShiftState {
  kActive,        // still being updated
  kClaimed,       // its estimated residual met the tolerance
  kSeedStopped,   // the shared iteration stopped (seed converged) before its estimate met the tolerance
  kFailed,        // the shared iteration failed (status and reason set)
};

// Validates the inputs of a multi-shift solve; returns the index of the seed (the smallest shift; the
// first of equal ones).
template <typename Op>
int CheckMultiShift(const Op& A, const std::vector<double>& shifts, const std::vector<typename Op::Field>& x,
                    const typename Op::Field& b, const SolverParams& params, const char* solver) {
  using B = typename Op::Backend;
  params.Validate(solver);
  const std::string name(solver);
  if (shifts.empty()) throw std::invalid_argument(name + ": no shifts given");
  if (x.size() != shifts.size()) {
    throw std::invalid_argument(name + ": " + std::to_string(shifts.size()) + " shifts but " +
                                std::to_string(x.size()) + " solution fields");
  }
  for (double s : shifts) {
    if (!std::isfinite(s)) throw std::invalid_argument(name + ": shift " + Num(s) + " is not finite");
  }
  const typename Op::Field shape = A.NewField();
  if (!B::Compatible(shape, b)) {
    throw std::invalid_argument(name + ": source is " + B::Describe(b) + " but " + A.Name() + " acts on " +
                                B::Describe(shape));
  }
  if (!B::AllFinite(b)) throw std::invalid_argument(name + ": the source contains NaN or Inf");
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!B::Compatible(shape, x[i])) {
      throw std::invalid_argument(name + ": solution " + std::to_string(i) + " is " + B::Describe(x[i]) + " but " +
                                  A.Name() + " acts on " + B::Describe(shape));
    }
  }
  return static_cast<int>(std::min_element(shifts.begin(), shifts.end()) - shifts.begin());
}

template <typename Op>
MultiShiftResult StartMultiShift(const Op& A, const std::vector<double>& shifts, int seed, const std::string& solver) {
  MultiShiftResult out;
  out.solver = solver;
  out.shifts = shifts;
  out.seed = seed;
  out.per_shift.resize(shifts.size());
  for (std::size_t i = 0; i < shifts.size(); ++i) {
    out.per_shift[i].solver = solver + (static_cast<int>(i) == seed ? " (seed)" : "");
    out.per_shift[i].system = ShiftedOperator<Op>(A, shifts[i]).Name() + " x = b";
  }
  return out;
}

// Zero source: x[i] = 0 for every shift (the callers zero x first), each converged with no iteration.
// Returns true when it handled the solve.
inline bool ZeroSourceForAllShifts(MultiShiftResult& out, double b_norm2) {
  if (b_norm2 != 0) return false;
  for (SolveResult& rec : out.per_shift) Stop(rec, SolveStatus::kConverged, "zero source: x = 0");
  return true;
}

// Marks every still-active shift as stopped by a failure of the shared iteration (status and reason
// copied from the seed's failure).
inline void FailActive(std::vector<ShiftState>& state, MultiShiftResult& out, SolveStatus status,
                       const std::string& reason) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state[i] != ShiftState::kActive) continue;
    state[i] = ShiftState::kFailed;
    Stop(out.per_shift[i], status, reason);
  }
}

// The verification described in the file comment. `refine(S, x_i, b, params)` runs a single-shift solve
// on S = A + sigma_i from the current x_i and returns its record.
template <typename Op, typename Refine>
void FinishShifts(const Op& A, std::vector<typename Op::Field>& x, const typename Op::Field& b, double b_norm2,
                  const SolverParams& params, const std::vector<ShiftState>& state, MultiShiftResult& out,
                  Refine&& refine) {
  typename Op::Field r = A.NewField();
  for (std::size_t i = 0; i < x.size(); ++i) {
    SolveResult& rec = out.per_shift[i];
    const ShiftedOperator<Op> shifted(A, out.shifts[i]);
    if (state[i] == ShiftState::kClaimed) {
      Stop(rec, SolveStatus::kConverged,
           "estimated residual " + Num(rec.iterated_residual) + " <= " + Num(params.tolerance) + " after " +
               std::to_string(rec.iterations) + " shared iterations");
    } else if (state[i] == ShiftState::kSeedStopped) {
      Stop(rec, SolveStatus::kMaxIterations,
           "the shared iteration stopped (seed converged) at estimated residual " + Num(rec.iterated_residual));
    }
    const double true_residual = std::sqrt(ResidualNorm2(shifted, x[i], b, r, rec) / b_norm2);
    const bool wants_refinement =
        (state[i] == ShiftState::kClaimed || state[i] == ShiftState::kSeedStopped) && std::isfinite(true_residual) &&
        true_residual > params.tolerance;
    const int budget = params.max_iterations - out.iterations;
    if (wants_refinement && params.max_restarts > 0 && budget > 0) {
      rec.updates.push_back({rec.iterations, rec.iterated_residual, true_residual});
      SolverParams p = params;
      p.max_iterations = budget;
      const SolveResult inner = refine(shifted, x[i], b, p);
      const std::string why = rec.reason;
      Absorb(rec, inner);
      rec.restarts += 1;
      rec.status = inner.status;
      rec.true_residual = inner.true_residual;
      rec.reason = "refined by " + inner.solver + " from true residual " + Num(true_residual) + " (" + why +
                   "): " + inner.reason;
    } else {
      Conclude(rec, true_residual, params.tolerance);
    }
    out.operator_applications += rec.operator_applications;
    out.flops += rec.flops;
  }
}

}  // namespace detail
}  // namespace lqcd::solvers
