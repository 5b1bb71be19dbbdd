// initial_guess.h: initial guesses for a system A(m) x = b from solutions x_j of earlier systems
// A(m_j) x_j = b, after Alexandru, Pelissier, Gamari, Lee, "Multi-mass solvers for lattice QCD on GPUs"
// (arXiv:1103.5103), section 6.2. Used by the multi-mass driver (multi_mass.h).
//
// Polynomial extrapolation (their Eq. 15-17): the polynomial psi(m) of degree q - 1 through q earlier
// solutions, evaluated at the new mass, in Lagrange form
//     x0 = sum_j w_j x_j,   w_j = prod_{i != j} (m - m_i) / (m_j - m_i)          (Eq. 17)
// (LagrangeWeights; the guess is built by Zero + one real Axpy per solution). The weights sum to 1
// (the polynomial reproduces constants), a property test checks. Distinct nodes are required.
//
// Solution-space minimisation (their Eq. 18-20): x0 = sum_j c_j x_j with c minimising |b - A(m) x0|,
// i.e. the least-squares problem min_c |b - D c| with columns d_j = A(m) x_j, solved through its
// normal equations G c = h, G_ij = (d_i, d_j), h_i = (d_i, b) (their Eq. 19; Eq. 20 is d_j for a
// shifted family, see multi_mass.h). G is small (k x k) and is solved in double
// (SolveGramLeastSquares) with this regularisation / rank check:
//   1. columns with d_j = 0 are dropped; the others are scaled to unit norm, Ghat = S G S with
//      S = diag(G_jj^{-1/2}) (the scaling removes the dependence on the sizes of the x_j);
//   2. Ghat = V diag(lambda) V^dag (Eigen::SelfAdjointEigenSolver);
//   3. eigenvalues lambda <= tau lambda_max are discarded, tau = k n u_double, where n is the number of
//      real components of a field: every entry of Ghat is a dot product of unit vectors accumulated in
//      double, so its rounding error is at most n u (worst case, Higham's gamma_n), and the 2-norm of a
//      k x k matrix of such errors is at most k n u (Weyl's theorem bounds each eigenvalue's error by it).
//      Eigenvalues below tau are therefore indistinguishable from 0: their directions are linear
//      dependencies among the earlier solutions (the x_j of nearby masses are nearly parallel);
//   4. c = S V_r diag(1 / lambda_r) V_r^dag S h over the r kept eigenvalues (the minimum-norm
//      least-squares solution on the numerically independent part of the span); r is reported.
// The guess is only a starting point: the solve that follows meets the tolerance whatever the guess, so
// the regularisation keeps the small solve well defined without affecting the final accuracy.
// Everything on fields goes through the backend interface (solvers/README.md): Zero, Axpy, Caxpy, Dot.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/precision.h"
#include "solvers/vector_flops.h"

namespace lqcd::solvers {

// w_j = prod_{i != j} (m - nodes_i) / (nodes_j - nodes_i). Throws std::invalid_argument for repeated or
// non-finite nodes. One node gives w = {1} (order 0: the previous solution).
inline std::vector<double> LagrangeWeights(const std::vector<double>& nodes, double m) {
  if (nodes.empty()) throw std::invalid_argument("LagrangeWeights: no nodes");
  if (!std::isfinite(m)) throw std::invalid_argument("LagrangeWeights: the evaluation point is not finite");
  std::vector<double> w(nodes.size(), 1.0);
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (!std::isfinite(nodes[j])) throw std::invalid_argument("LagrangeWeights: a node is not finite");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i == j) continue;
      if (nodes[i] == nodes[j]) throw std::invalid_argument("LagrangeWeights: repeated node");
      w[j] *= (m - nodes[i]) / (nodes[j] - nodes[i]);
    }
  }
  return w;
}

// guess = sum_j w_j solutions[j] with the Lagrange weights of `masses` at m. Returns the flops spent.
template <typename B, typename Field>
double PolynomialGuess(Field& guess, const std::vector<const Field*>& solutions, const std::vector<double>& masses,
                       double m) {
  if (solutions.size() != masses.size() || solutions.empty()) {
    throw std::invalid_argument("PolynomialGuess: need one mass per solution and at least one solution");
  }
  const std::vector<double> w = LagrangeWeights(masses, m);
  B::Zero(guess);
  for (std::size_t j = 0; j < w.size(); ++j) B::Axpy(w[j], *solutions[j], guess);
  return vector_flops::kAxpy * B::Reals(guess) * static_cast<double>(w.size());
}

struct GramSolution {
  std::vector<std::complex<double>> c;  // coefficients (0 for dropped columns)
  int rank = 0;                          // eigenvalues kept
  double threshold = 0;                  // tau: eigenvalues of Ghat below tau lambda_max were discarded
  // |b - D c|^2 / |b|^2 predicted from G, h and |b|^2 (clamped at 0). The formula cancels terms of size
  // |b|^2, so it is only accurate to about `threshold` in absolute terms: a diagnostic, not a residual.
  double predicted_residual2 = 0;
};

// The regularised least-squares solve of the file comment. `reals` is n (real components per field),
// `b_norm2` = |b|^2 (for the predicted residual).
inline GramSolution SolveGramLeastSquares(const Eigen::MatrixXcd& g, const Eigen::VectorXcd& h, double reals,
                                          double b_norm2) {
  const Eigen::Index k = g.rows();
  if (g.cols() != k || h.size() != k) throw std::invalid_argument("SolveGramLeastSquares: dimensions differ");
  if (!g.allFinite() || !h.allFinite()) throw std::invalid_argument("SolveGramLeastSquares: NaN or Inf in G or h");
  GramSolution out;
  out.c.assign(static_cast<std::size_t>(k), 0.0);
  std::vector<Eigen::Index> kept;
  for (Eigen::Index j = 0; j < k; ++j) {
    if (g(j, j).real() > 0) kept.push_back(j);
  }
  out.threshold = static_cast<double>(k) * reals * PrecisionTraits<double>::kUnitRoundoff;
  if (kept.empty()) {
    out.predicted_residual2 = 1;
    return out;
  }
  const Eigen::Index q = static_cast<Eigen::Index>(kept.size());
  Eigen::VectorXd scale(q);
  for (Eigen::Index a = 0; a < q; ++a) scale(a) = 1.0 / std::sqrt(g(kept[a], kept[a]).real());
  Eigen::MatrixXcd ghat(q, q);
  Eigen::VectorXcd hhat(q);
  for (Eigen::Index a = 0; a < q; ++a) {
    hhat(a) = scale(a) * h(kept[a]);
    for (Eigen::Index c = 0; c < q; ++c) ghat(a, c) = scale(a) * g(kept[a], kept[c]) * scale(c);
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> eig(ghat);
  if (eig.info() != Eigen::Success) throw std::runtime_error("SolveGramLeastSquares: eigen-decomposition failed");
  const Eigen::VectorXd& lambda = eig.eigenvalues();  // ascending
  const double cut = out.threshold * lambda(q - 1);
  Eigen::VectorXcd chat = Eigen::VectorXcd::Zero(q);
  for (Eigen::Index e = 0; e < q; ++e) {
    if (!(lambda(e) > cut)) continue;
    const Eigen::VectorXcd ve = eig.eigenvectors().col(e);
    chat += ve * (ve.adjoint() * hhat)(0) / lambda(e);
    out.rank += 1;
  }
  // |b - D c|^2 = |b|^2 - 2 Re(c^dag h) + c^dag G c, in the scaled variables.
  const double pred = b_norm2 - 2 * (chat.adjoint() * hhat)(0).real() + (chat.adjoint() * ghat * chat)(0).real();
  out.predicted_residual2 = std::max(0.0, pred / b_norm2);
  for (Eigen::Index a = 0; a < q; ++a) out.c[static_cast<std::size_t>(kept[a])] = scale(a) * chat(a);
  return out;
}

// Minimal-residual guess over the span of `solutions` with columns d_j = A(m) x_j given in `images`:
// guess = sum_j c_j solutions[j]. Returns the Gram solution; adds the flops spent to `flops`.
template <typename B, typename Field>
GramSolution MinimalResidualGuess(Field& guess, const std::vector<const Field*>& solutions,
                                  const std::vector<const Field*>& images, const Field& b, double& flops) {
  if (solutions.size() != images.size() || solutions.empty()) {
    throw std::invalid_argument("MinimalResidualGuess: need one image A x_j per solution and at least one");
  }
  const Eigen::Index k = static_cast<Eigen::Index>(solutions.size());
  const double reals = B::Reals(b);
  Eigen::MatrixXcd g(k, k);
  Eigen::VectorXcd h(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    h(i) = B::Dot(*images[i], b);
    for (Eigen::Index j = i; j < k; ++j) {
      g(i, j) = B::Dot(*images[i], *images[j]);
      g(j, i) = std::conj(g(i, j));
    }
    g(i, i) = g(i, i).real();
  }
  flops += vector_flops::kDot * reals * static_cast<double>(k + k * (k + 1) / 2);
  const GramSolution sol = SolveGramLeastSquares(g, h, reals, B::Norm2(b));
  B::Zero(guess);
  for (Eigen::Index j = 0; j < k; ++j) {
    if (sol.c[static_cast<std::size_t>(j)] != std::complex<double>(0)) {
      B::Caxpy(sol.c[static_cast<std::size_t>(j)], *solutions[j], guess);
    }
  }
  flops += (vector_flops::kNorm2 + vector_flops::kCaxpy * static_cast<double>(k)) * reals;
  return sol;
}

}  // namespace lqcd::solvers
