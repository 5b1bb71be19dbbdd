// multi_mass.h: solve A(m_i) x_i = b for several masses with a single-mass solver, heaviest mass first,
// each solve starting from an initial guess built from the solutions already found (Alexandru, Pelissier,
// Gamari, Lee, arXiv:1103.5103, section 6.2 and Eq. 26).
//
//     order the masses heaviest (largest m, least singular) to lightest
//     for each mass m in that order:
//         x0 = guess from the earlier solutions             initial_guess.h
//              kZero:            x0 = 0
//              kPolynomial:      Lagrange extrapolation in m through the q most recent solutions,
//                                q = min(order + 1, solutions so far) (order kHighestOrder: all of them)
//              kMinimalResidual: x0 minimises |b - A(m) x0| over the span of all earlier solutions
//         x = solve(m, x0)                                   the single-mass solver, x0 as initial guess
// "Heaviest first" because lighter masses are more expensive and profit most from good guesses (the
// paper's argument). The mass must be the parameter that grows AWAY from the singular point (the quark
// mass of Wilson fermions above the critical mass; a shift sigma of A + sigma).
//
// The driver is generic: `make_operator(m)` returns the operator A(m) whose system defines the residual
// (needed by the minimal-residual guess and by the guess-residual measurement), `solve(m, x, b, params)`
// runs any single-mass solver from the initial guess in x (CG, BiCGstab, even-odd BiCGstab on the full
// lattice, a mixed-precision solver, ...) and returns its SolveResult.
// Minimal residual needs the columns d_j = A(m) x_j:
//   - in general: k operator applications for the k-th mass (counted in guess_applications);
//   - for a shifted family (options.shifted_family: A(m) = A(m') + (m - m') 1 for all masses, true for the
//     full Wilson matrix M(m) and for A + sigma), d_j = A(m_j) x_j + (m - m_j) x_j with A(m_j) x_j computed
//     once after solve j: one application per mass. The paper's Eq. 20, d_j = b + (m - m_j) x_j, is the same
//     with A(m_j) x_j replaced by b, i.e. exact only for exact solves; computing A(m_j) x_j keeps d_j exact.
//     The even-odd Schur complement M_ee(m) is NOT a shifted family in m (kappa enters squared); drive
//     even-odd solves with the full operator M(m) as A(m) (full-lattice x and guesses; the solver
//     restricts the guess to one parity).
// Records: the SolveResult of every solve (in the order the masses were given), the total iterations,
// the guess residual |b - A(m) x0| / |b| of each guess (1 for zero; one application each when
// options.measure_guess_residual), and, with options.measure_baseline, the same masses solved from zero
// guesses: baseline_iterations, and gain() = total_iterations / baseline_iterations (the paper's Eq. 26:
// below 1 means the guesses saved iterations).
// The x_i on entry are ignored (overwritten by the guesses). Bad input (repeated or non-finite masses,
// fields of the wrong shape, NaN/Inf in b, a negative polynomial order other than kHighestOrder) throws
// std::invalid_argument.
// Aliasing: the x_i must be distinct fields, all different from b.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/initial_guess.h"
#include "solvers/solve_result.h"
#include "solvers/solver_common.h"
#include "solvers/vector_flops.h"

namespace lqcd::solvers {

enum class GuessStrategy { kZero, kPolynomial, kMinimalResidual };

inline const char* ToString(GuessStrategy g) {
  switch (g) {
    case GuessStrategy::kZero: return "zero";
    case GuessStrategy::kPolynomial: return "polynomial";
    case GuessStrategy::kMinimalResidual: return "minimal-residual";
  }
  return "unknown";
}

struct MultiMassOptions {
  static constexpr int kHighestOrder = -1;
  GuessStrategy guess = GuessStrategy::kPolynomial;
  // Polynomial degree of the extrapolation (0: the previous solution; 1: linear through two; ...), capped
  // by the number of solutions available; kHighestOrder uses all of them (the paper's best choice).
  int polynomial_order = kHighestOrder;
  // A(m) = A(m') + (m - m') 1 for every pair of masses (file comment).
  bool shifted_family = false;
  // Apply A(m) to every nonzero guess to record |b - A(m) x0| / |b| (one application per mass).
  bool measure_guess_residual = true;
  // Also solve every mass from x = 0 (doubles the cost) to report the baseline and the gain.
  bool measure_baseline = false;

  void Validate() const {
    if (polynomial_order < kHighestOrder) {
      throw std::invalid_argument("MultiMassOptions: polynomial_order must be >= 0 or kHighestOrder");
    }
  }
};

struct MultiMassResult {
  std::string strategy;                 // e.g. "polynomial order 2", "minimal-residual"
  std::vector<double> masses;           // as given
  std::vector<int> solve_order;         // indices into masses, heaviest first
  std::vector<SolveResult> solves;      // one per mass, in the order given
  std::vector<double> guess_residuals;  // |b - A(m) x0| / |b| per mass (1 for x0 = 0; -1 if not measured)
  std::vector<int> guess_basis;         // solutions used by the guess (minimal residual: the rank kept)
  int total_iterations = 0;             // sum of the solves' iterations (paper counting)
  long long guess_applications = 0;     // operator applications spent on guesses and their residuals
  long long operator_applications = 0;  // all of them, guesses and solves
  double flops = 0;
  double seconds = 0;
  std::vector<int> baseline_per_mass;   // zero-guess iterations per mass (with measure_baseline)
  int baseline_iterations = -1;         // their total, -1 if not measured

  bool all_converged() const {
    return std::all_of(solves.begin(), solves.end(), [](const SolveResult& r) { return r.converged(); });
  }
  // The paper's Eq. 26: total iterations / baseline. Throws if the baseline was not measured.
  double gain() const {
    if (baseline_iterations <= 0) throw std::logic_error("MultiMassResult::gain: no baseline measured");
    return static_cast<double>(total_iterations) / baseline_iterations;
  }
  std::string Summary() const {
    std::ostringstream s;
    s << "multi-mass, " << strategy << " guesses: " << masses.size() << " masses, " << total_iterations
      << " iterations, " << operator_applications << " operator applications (" << guess_applications
      << " for guesses), " << flops << " flops in " << seconds << " s";
    if (baseline_iterations > 0) s << "; zero-guess baseline " << baseline_iterations << " iterations, gain " << gain();
    for (int i : solve_order) {
      s << "\n  m = " << masses[i] << ": " << ToString(solves[i].status) << ", " << solves[i].iterations
        << " iterations, guess residual " << guess_residuals[i] << " (basis " << guess_basis[i]
        << "), true residual " << solves[i].true_residual;
      if (!baseline_per_mass.empty()) s << ", zero guess " << baseline_per_mass[i] << " iterations";
    }
    return s.str();
  }
};

template <typename Field, typename MakeOperator, typename Solve>
MultiMassResult SolveMultiMass(const std::vector<double>& masses, std::vector<Field>& x, const Field& b,
                               const SolverParams& params, const MultiMassOptions& options,
                               MakeOperator&& make_operator, Solve&& solve) {
  using Op = std::decay_t<decltype(make_operator(0.0))>;
  using B = typename Op::Backend;
  static_assert(std::is_same_v<typename Op::Field, Field>, "make_operator must return an operator on Field");
  namespace vf = vector_flops;
  params.Validate("SolveMultiMass");
  options.Validate();
  if (masses.empty()) throw std::invalid_argument("SolveMultiMass: no masses given");
  if (x.size() != masses.size()) {
    throw std::invalid_argument("SolveMultiMass: " + std::to_string(masses.size()) + " masses but " +
                                std::to_string(x.size()) + " solution fields");
  }
  for (std::size_t i = 0; i < masses.size(); ++i) {
    if (!std::isfinite(masses[i])) throw std::invalid_argument("SolveMultiMass: mass " + detail::Num(masses[i]) + " is not finite");
    for (std::size_t j = 0; j < i; ++j) {
      if (masses[i] == masses[j]) throw std::invalid_argument("SolveMultiMass: mass " + detail::Num(masses[i]) + " given twice");
    }
  }
  detail::Stopwatch clock;
  MultiMassResult out;
  out.masses = masses;
  out.strategy = ToString(options.guess);
  if (options.guess == GuessStrategy::kPolynomial) {
    out.strategy += options.polynomial_order == MultiMassOptions::kHighestOrder
                        ? std::string(" (highest order)")
                        : " order " + std::to_string(options.polynomial_order);
  }
  if (options.guess == GuessStrategy::kMinimalResidual && options.shifted_family) out.strategy += " (shifted family)";
  const std::size_t n = masses.size();
  out.solve_order.resize(n);
  std::iota(out.solve_order.begin(), out.solve_order.end(), 0);
  std::stable_sort(out.solve_order.begin(), out.solve_order.end(),
                   [&](int a, int c) { return masses[a] > masses[c]; });
  out.solves.resize(n);
  out.guess_residuals.assign(n, -1.0);
  out.guess_basis.assign(n, 0);
  {
    // The x_i are outputs (overwritten by the guesses), so only their shape is checked; b must be finite.
    const Op a0 = make_operator(masses[out.solve_order[0]]);
    const Field shape = a0.NewField();
    if (!B::Compatible(shape, b) || !B::AllFinite(b)) {
      throw std::invalid_argument("SolveMultiMass: the source is " + B::Describe(b) + " (operator " + a0.Name() +
                                  " acts on " + B::Describe(shape) + ") or contains NaN or Inf");
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!B::Compatible(shape, x[i])) {
        throw std::invalid_argument("SolveMultiMass: solution " + std::to_string(i) + " is " + B::Describe(x[i]) +
                                    " but " + a0.Name() + " acts on " + B::Describe(shape));
      }
    }
  }
  const double b_norm2 = B::Norm2(b);
  const double reals = B::Reals(b);

  std::vector<const Field*> done;         // solutions so far, in solve order
  std::vector<double> done_masses;
  std::vector<Field> images;               // shifted family: A(m_j) x_j, in solve order
  std::vector<Field> columns;              // scratch for d_j = A(m) x_j
  Field r = make_operator(masses[out.solve_order[0]]).NewField();
  for (std::size_t step = 0; step < n; ++step) {
    const int i = out.solve_order[step];
    const double m = masses[i];
    const Op a = make_operator(m);
    const std::size_t k = done.size();
    // The initial guess.
    if (k == 0 || options.guess == GuessStrategy::kZero) {
      B::Zero(x[i]);
      out.guess_residuals[i] = 1.0;
    } else if (options.guess == GuessStrategy::kPolynomial) {
      const std::size_t q = options.polynomial_order == MultiMassOptions::kHighestOrder
                                ? k
                                : std::min<std::size_t>(k, static_cast<std::size_t>(options.polynomial_order) + 1);
      const std::vector<const Field*> sol(done.end() - static_cast<long>(q), done.end());
      const std::vector<double> nodes(done_masses.end() - static_cast<long>(q), done_masses.end());
      out.flops += PolynomialGuess<B>(x[i], sol, nodes, m);
      out.guess_basis[i] = static_cast<int>(q);
    } else {
      while (columns.size() < k) columns.push_back(a.NewField());
      std::vector<const Field*> cols;
      for (std::size_t j = 0; j < k; ++j) {
        if (options.shifted_family) {
          B::Copy(columns[j], images[j]);
          B::Axpy(m - done_masses[j], *done[j], columns[j]);
          out.flops += vf::kAxpy * reals;
        } else {
          a.Apply(columns[j], *done[j]);
          out.guess_applications += 1;
          out.flops += a.FlopsPerApply();
        }
        cols.push_back(&columns[j]);
      }
      const GramSolution g = MinimalResidualGuess<B>(x[i], done, cols, b, out.flops);
      out.guess_basis[i] = g.rank;
    }
    if (options.measure_guess_residual && out.guess_residuals[i] < 0) {
      a.Apply(r, x[i]);
      B::Xpay(b, -1.0, r);
      out.guess_residuals[i] = std::sqrt(B::Norm2(r) / b_norm2);
      out.guess_applications += 1;
      out.flops += a.FlopsPerApply() + (vf::kXpay + vf::kNorm2) * reals;
    }
    // The solve.
    out.solves[i] = solve(m, x[i], b, params);
    out.total_iterations += out.solves[i].iterations;
    out.operator_applications += out.solves[i].operator_applications;
    out.flops += out.solves[i].flops;
    done.push_back(&x[i]);
    done_masses.push_back(m);
    if (options.guess == GuessStrategy::kMinimalResidual && options.shifted_family && step + 1 < n) {
      images.push_back(a.NewField());
      a.Apply(images.back(), x[i]);
      out.guess_applications += 1;
      out.flops += a.FlopsPerApply();
    }
  }
  out.operator_applications += out.guess_applications;
  out.seconds = clock.Seconds();  // the baseline below is a measurement, not part of the multi-mass solve
  if (options.measure_baseline) {
    out.baseline_per_mass.assign(n, 0);
    out.baseline_iterations = 0;
    Field x0 = make_operator(masses[0]).NewField();
    for (int i : out.solve_order) {
      B::Zero(x0);
      const SolveResult base = solve(masses[i], x0, b, params);
      out.baseline_per_mass[i] = base.iterations;
      out.baseline_iterations += base.iterations;
    }
  }
  return out;
}

}  // namespace lqcd::solvers
