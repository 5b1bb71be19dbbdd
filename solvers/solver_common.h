// solver_common.h: bookkeeping shared by the algorithms (input checks, timing, the final true residual).
// Nothing here does linear algebra beyond calls into the backend interface (README.md).
#pragma once

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/precision.h"
#include "solvers/solve_result.h"
#include "solvers/vector_flops.h"

namespace lqcd::solvers::detail {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Throws std::invalid_argument unless x and b have the shape of the operator's fields and are finite.
template <typename Op>
void CheckSystem(const Op& A, const typename Op::Field& x, const typename Op::Field& b, const char* solver) {
  using B = typename Op::Backend;
  const typename Op::Field shape = A.NewField();
  if (!B::Compatible(shape, b)) {
    throw std::invalid_argument(std::string(solver) + ": source is " + B::Describe(b) + " but " + A.Name() +
                                " acts on " + B::Describe(shape));
  }
  if (!B::Compatible(shape, x)) {
    throw std::invalid_argument(std::string(solver) + ": solution is " + B::Describe(x) + " but " + A.Name() +
                                " acts on " + B::Describe(shape));
  }
  if (!B::AllFinite(b)) throw std::invalid_argument(std::string(solver) + ": the source contains NaN or Inf");
  if (!B::AllFinite(x)) throw std::invalid_argument(std::string(solver) + ": the initial guess contains NaN or Inf");
}

// r = b - A x; returns |r|^2. Counts one application.
template <typename Op>
double ResidualNorm2(const Op& A, const typename Op::Field& x, const typename Op::Field& b, typename Op::Field& r,
                     SolveResult& result) {
  using B = typename Op::Backend;
  A.Apply(r, x);
  B::Xpay(b, -1.0, r);
  result.operator_applications += 1;
  result.flops += A.FlopsPerApply() + (vector_flops::kXpay + vector_flops::kNorm2) * B::Reals(r);
  return B::Norm2(r);
}

inline bool Finite(double v) { return std::isfinite(v); }

// Sets status and reason.
inline void Stop(SolveResult& result, SolveStatus status, const std::string& reason) {
  result.status = status;
  result.reason = reason;
}

inline std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

// Applies the rule of solve_result.h to a finished solve: status converged iff the true residual meets the
// tolerance. A solver that stopped for its own reason keeps that reason; a solver that believed it had
// converged but whose true residual is above tolerance reports stagnation.
inline void Conclude(SolveResult& result, double true_residual, double tolerance) {
  result.true_residual = true_residual;
  if (!std::isfinite(true_residual)) {
    Stop(result, SolveStatus::kNotFinite, "true residual is " + Num(true_residual));
  } else if (result.status == SolveStatus::kConverged && true_residual > tolerance) {
    Stop(result, SolveStatus::kStagnation,
         "iteration claimed convergence but the true residual " + Num(true_residual) + " > tolerance " +
             Num(tolerance));
  } else if (result.status != SolveStatus::kConverged && true_residual <= tolerance) {
    // The iteration stopped (e.g. breakdown) exactly where the answer was already good enough.
    result.reason += "; true residual " + Num(true_residual) + " meets the tolerance";
    result.status = SolveStatus::kConverged;
  }
}

}  // namespace lqcd::solvers::detail

namespace lqcd::solvers::detail {

// Adds the work of an inner solve (of a driver: CGNR, CGNE, even-odd, defect correction) to the outer
// record. The inner residual history is appended as it is, relative to the inner system's own source.
inline void Absorb(SolveResult& outer, const SolveResult& inner) {
  outer.iterations += inner.iterations;
  outer.krylov_iterations += inner.krylov_iterations;
  outer.high_precision_updates += inner.high_precision_updates;
  outer.restarts += inner.restarts;
  outer.operator_applications += inner.operator_applications;
  outer.low_precision_applications += inner.low_precision_applications;
  outer.flops += inner.flops;
  outer.iterated_residual = inner.iterated_residual;
  outer.residual_history.insert(outer.residual_history.end(), inner.residual_history.begin(),
                                inner.residual_history.end());
  outer.updates.insert(outer.updates.end(), inner.updates.begin(), inner.updates.end());
}

}  // namespace lqcd::solvers::detail
