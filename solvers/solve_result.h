// solve_result.h: the parameters every solver takes and the record every solve returns.
//
// A solve never ends silently wrong: `status` says whether the TRUE residual |b - A x| / |b|, recomputed
// in double precision after the iteration stopped, met the tolerance, and if not, why the iteration
// stopped. Bad input (fields of different shape, NaN/Inf in the source or the initial guess, nonsensical
// parameters) throws std::invalid_argument naming the problem instead.
//
// Iteration counting follows the paper: a Krylov iteration is one pass of the loop body (CG: one operator
// application; BiCGstab: two); reliable-update solvers count k + l (Krylov iterations plus high-precision
// updates, the paper's Table 5); defect correction counts all inner iterations of all restarts (Table 4).
#pragma once

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lqcd::solvers {

enum class SolveStatus {
  kConverged,              // true residual <= tolerance (also: zero source, x = 0, no iterations)
  kMaxIterations,          // iteration budget spent before convergence
  kBreakdown,              // BiCGstab: rho = (r0^, r), (r0^, A p) or omega = (t, s) / (t, t) numerically zero
  kNonPositiveCurvature,   // CG: p^dag A p <= 0, so A is not positive definite (singular or indefinite)
  kNotFinite,              // a NaN or Inf appeared in a residual norm or a coefficient
  kStagnation,             // the true residual stopped decreasing (precision floor reached above tolerance)
};

inline const char* ToString(SolveStatus s) {
  switch (s) {
    case SolveStatus::kConverged: return "converged";
    case SolveStatus::kMaxIterations: return "max-iterations";
    case SolveStatus::kBreakdown: return "breakdown";
    case SolveStatus::kNonPositiveCurvature: return "non-positive-curvature";
    case SolveStatus::kNotFinite: return "not-finite";
    case SolveStatus::kStagnation: return "stagnation";
  }
  return "unknown";
}

struct SolverParams {
  // Stop when the relative residual |b - A x| / |b| of the system the solver states is below this.
  double tolerance = 1e-12;
  // Budget of iterations, counted as in the file comment (k + l for reliable updates).
  int max_iterations = 10000;
  // Single-precision-family solvers (CG, BiCGstab) verify convergence with the true residual and restart
  // from the current x when it is above tolerance; after this many restarts they report kStagnation.
  int max_restarts = 5;
  // Reliable updates (Algorithm 2): update when |r^| < delta * max|r^| since the last update.
  double delta = 0.1;
  // Reliable updates: this many updates since the last progress in which the low-precision residual fell
  // below the best true residual so far but the true residual did not mean the low precision cannot make
  // further progress: kStagnation (reliable_update.h). Defect correction: this many consecutive
  // corrections that do not bring the true residual below the best one so far.
  int max_stagnant_updates = 3;
  // Defect correction (Algorithm 1): each inner solve reduces its residual by this factor (eps_in).
  double inner_tolerance = 1e-2;
  // Keep the relative iterated residual of every iteration in SolveResult::residual_history.
  bool record_history = true;

  void Validate(const char* solver) const {
    auto fail = [&](const std::string& what) {
      throw std::invalid_argument(std::string(solver) + ": " + what);
    };
    if (!(tolerance > 0) || !std::isfinite(tolerance)) fail("tolerance must be positive and finite");
    if (max_iterations < 0) fail("max_iterations must be >= 0");
    if (max_restarts < 0) fail("max_restarts must be >= 0");
    if (!(delta > 0 && delta < 1)) fail("delta must lie in (0, 1)");
    if (max_stagnant_updates < 1) fail("max_stagnant_updates must be >= 1");
    if (!(inner_tolerance > 0 && inner_tolerance < 1)) fail("inner_tolerance must lie in (0, 1)");
  }
};

// One high-precision residual replacement (reliable update) or outer correction (defect correction).
struct ResidualUpdate {
  int iteration = 0;              // Krylov iterations done when it happened
  double iterated_residual = 0;   // |r^| / |b| the low-precision iteration claimed
  double true_residual = 0;       // |b - A x| / |b| recomputed in high precision
};

struct SolveResult {
  SolveStatus status = SolveStatus::kConverged;
  std::string reason;       // one line: why the solve stopped, with the offending number
  std::string solver;       // e.g. "BiCGstab<double>", "ReliableUpdate-BiCGstab<double,half> delta=0.1"
  std::string system;       // the system whose true residual is reported, e.g. "M x = b", "M_ee x_e = b'_e"
  int iterations = 0;       // paper counting (file comment)
  int krylov_iterations = 0;            // loop bodies only (no updates)
  int restarts = 0;                     // true-residual restarts or defect-correction outer steps
  int high_precision_updates = 0;       // reliable updates (Algorithm 2's l)
  double true_residual = 0;             // |b - A x| / |b| recomputed in double at the end
  double iterated_residual = 0;         // the solver's own final |r| / |b|
  std::vector<double> residual_history; // iterated |r| / |b| after each Krylov iteration
  std::vector<ResidualUpdate> updates;  // every high-precision residual recomputation
  long long operator_applications = 0;       // all precisions
  long long low_precision_applications = 0;  // those in the inner (low) precision
  double flops = 0;         // operator flops (the paper's 1320 per Dslash site) + vector-operation flops
  double seconds = 0;       // wall-clock time of the solve

  bool converged() const { return status == SolveStatus::kConverged; }

  std::string Summary() const {
    std::ostringstream s;
    s << solver << " on " << system << ": " << ToString(status) << " (" << reason << "), iterations "
      << iterations << " (Krylov " << krylov_iterations << ", updates " << high_precision_updates << ", restarts "
      << restarts << "), true residual " << true_residual << ", iterated residual " << iterated_residual
      << ", operator applications " << operator_applications << " (low precision " << low_precision_applications
      << "), " << flops << " flops in " << seconds << " s";
    if (seconds > 0) s << " (" << flops / seconds * 1e-9 << " Gflop/s)";
    return s.str();
  }
};

// Throws std::runtime_error with the record's summary unless the solve converged.
inline void RequireConverged(const SolveResult& r) {
  if (!r.converged()) throw std::runtime_error("solve did not converge: " + r.Summary());
}

}  // namespace lqcd::solvers
