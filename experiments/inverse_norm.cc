// inverse_norm.cc: see inverse_norm.h.
#include "experiments/inverse_norm.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/gamma.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"

namespace lqcd::experiments {
namespace {

void ApplyGamma5(SpinorField<double>& psi, GammaBasis basis) {
  const SpinMatrix g5 = Gamma5(basis);
  for (int i = 0; i < psi.sites(); ++i) psi[i] = (g5 * psi[i]).eval();
}

void Scale(SpinorField<double>& psi, double factor) {
  for (int i = 0; i < psi.sites(); ++i) psi[i] *= factor;
}

}  // namespace

InverseNormEstimate EstimateInverseNorm(DiracSolver& solver, const FermionAction& action,
                                        const solvers::SolverSpec& spec, const Lattice& lattice, int steps,
                                        std::uint64_t seed) {
  if (steps < 1) throw std::invalid_argument("EstimateInverseNorm: steps must be >= 1");
  const auto start = std::chrono::steady_clock::now();
  InverseNormEstimate out;
  SpinorField<double> v(lattice);
  FillGaussian(v, seed);
  Scale(v, 1 / std::sqrt(Norm2(v)));
  auto solve = [&](const SpinorField<double>& b) {
    SpinorField<double> x(lattice);
    const SolveOutcome r = solver.Solve(action, spec, b, x);
    if (!r.result.converged()) {
      throw std::runtime_error("EstimateInverseNorm: a solve did not converge: " + r.result.Summary());
    }
    out.iterations += r.result.iterations;
    return x;
  };
  for (int k = 0; k < steps; ++k) {
    const SpinorField<double> w = solve(v);  // |v| = 1
    const double estimate = std::sqrt(Norm2(w));
    if (!out.history.empty()) out.last_relative_change = std::abs(estimate - out.history.back()) / estimate;
    out.history.push_back(estimate);
    SpinorField<double> g5w = w;
    ApplyGamma5(g5w, action.basis);
    SpinorField<double> y = solve(g5w);  // M^{-dag} w = gamma_5 M^{-1} gamma_5 w
    ApplyGamma5(y, action.basis);
    Scale(y, 1 / std::sqrt(Norm2(y)));
    v = std::move(y);
  }
  out.norm = out.history.back();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace lqcd::experiments
