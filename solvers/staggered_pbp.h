// staggered_pbp.h: the even-odd staggered solve on the CPU and the chiral condensate
//     pbp = (1/V) Re tr M^{-1},   M = 2m + D (staggered_dslash.h), the trace over sites and colours,
// estimated stochastically and computed exactly for small lattices.
//
// SolveStaggeredEvenOdd: M x = b by CG on the even Schur operator (cpu_staggered.h):
//     b'_e = 2m b_e - D_eo b_o;   CG on M_ee x_e = b'_e;   x_o = (b_o - D_oe x_e) / (2m),
//   with the Schur tolerance scaled so that the full residual |b - M x| / |b| meets solver.tolerance.
//   Reports the CG record of the Schur system and the true full residual |b - M x| / |b| (ApplyStaggered).
// SolveStaggeredEvenOddBlock: the same for n sources b_k at once: BlockCg (block_cg.h) on the even Schur
//   operator as a block operator, each system with its own Schur tolerance (the one SolveStaggeredEvenOdd
//   would use for that b_k) and its own stopping criterion. The block operator is LoopedBlockOperator over
//   CpuStaggeredSchur (block_operators.h): the staggered site kernel is private to the oracle
//   (reference/staggered/staggered_dslash.cc), so there is no link-reusing CPU block kernel here; BlockCg runs
//   each system through exactly the operations of ConjugateGradient, so x_k is bit-identical to the
//   one-at-a-time solve (staggered_pbp_test checks it). Model traffic per vector of M_ee (BytesPerApply(n)
//   = n times it): two parity hops over V/2 sites, each reading the links (8 x 18 reals, twice that with long
//   links) and 8 (16) neighbour vectors and writing one (6 reals each), plus 4m^2 x - y (two reads, one write):
//   (V/2) 8 bytes [2 (144 h + 6 (8 h + 1)) + 18], h = 1 naive, 2 with long links.
// Z2 noise (FillZ2Noise): every colour component of every site is +1 or -1 (real) with probability 1/2,
//   from RandomStream(seed, site) (reproducible, independent of loop order); E[eta eta^dag] = 1.
// EstimateChiralCondensate: for k = 0..N-1, eta_k = Z2 noise with seed (seed, k) mixed into one 64-bit seed
//   (NoiseSeed: seed * 0x9E3779B97F4A7C15 + k + 1), x_k = M^{-1} eta_k (SolveStaggeredEvenOdd), sample
//   s_k = (1/V) Re <eta_k, x_k>. E[s_k] = pbp exactly (unbiased: E[eta^dag A eta] = tr A). Returns the mean
//   and its standard error sqrt(sum (s_k - mean)^2 / (N (N - 1))) (N >= 2). block = n solves the vectors
//   k = 0..n-1, n..2n-1, ... with SolveStaggeredEvenOddBlock (the last block shorter); the samples do not
//   depend on n (bit-identical, above). The form with a NoiseBlockSolve takes the samples of each block from
//   it (from their noise seeds), so that a backend makes the noise, the sample and the residual where its
//   solution lives (gpu/gpu_staggered.h: on the device); HostNoiseSolve is that form for a StaggeredBlockSolve,
//   CpuNoiseSolve for the CPU's solves.
// EstimateDisconnectedSusceptibility: the disconnected chiral susceptibility's per-configuration piece
//       chi_disc = (Re tr M^{-1})^2 / V = V pbp^2
//   (the ensemble's disconnected susceptibility is <chi_disc> - V <pbp>^2; the V <pbp>^2 subtraction is an
//   ensemble average and is not done here), estimated from the samples s_k of EstimateChiralCondensate by
//   the distinct pairs only:
//       chi = V (1 / (N (N - 1))) sum_{k != l} s_k s_l = V [(sum s)^2 - sum s^2] / (N (N - 1)),
//   unbiased because s_k, s_l are independent for k != l: E[s_k s_l] = pbp^2 (the square of the mean,
//   V mean^2, is biased by + V var(s) / N; chi = V mean^2 - V var(s) / N with var the N - 1 sample variance).
//   Standard error: delete-one jackknife over the vectors, sqrt((N - 1) / N sum_i (chi_(i) - chi_(.))^2),
//   chi_(i) the same estimator without vector i. Needs N >= 3.
// ExactDisconnectedSusceptibility: V x^2 from an ExactPbp x (the square of the exact trace over V), with the
//   bound V (2 |x| b + b^2) from x's bound b.
// ExactChiralCondensate: (1/V) Re sum_i [M^{-1}]_ii with M^{-1} from Eigen's SparseLU applied to the 3V
//   columns of the identity, and a rigorous a posteriori bound on its error: column j's computed x_j has
//   |x_j - M^{-1} e_j| <= |r_j| / sigma_min(M), r_j = e_j - M x_j, and sigma_min(M) >= 2|m| (M^dag M =
//   4m^2 - D^2 with -D^2 = D^dag D >= 0); r_j is evaluated in double, its own rounding bounded by
//   gamma(n) (|e_j| + |M| |x_j|) with n = 49 (48 link products plus the mass term, complex: the sqrt(2) 2n
//   constant of staggered_dslash_test), and the final sum of 3V diagonal entries by gamma(3V) sum |x_jj|.
//   Everything divided by V.
// ExactChiralCondensateEvenOdd: the same quantity from the Schur operator alone, 4m tr M_ee^{-1} / V:
//   the even-even block of M^{-1} is (2m - D_eo D_oe / (2m))^{-1} = 2m M_ee^{-1}, the odd-odd one
//   2m M_oo^{-1}, and tr M_oo^{-1} = tr M_ee^{-1} (M_ee = 4m^2 + A A^dag, M_oo = 4m^2 + A^dag A with
//   A = D_eo square: same spectrum). Same style of bound with sigma_min(M_ee) >= 4m^2.
// FreeChiralCondensate: the closed form on the free field F = c1 1, L = c3 1 (unit links scaled):
//   D^2 = -4 sum_mu s(p_mu)^2 on every plane wave (staggered_dslash.h), s(p) = c1 sin p + c3 sin 3p, and
//   tr M^{-1} = tr (2m - D)(4m^2 - D^2)^{-1} = tr 2m (4m^2 - D^2)^{-1} (the D term flips parity while
//   (4m^2 - D^2)^{-1} keeps it: zero diagonal), so with the V plane waves a basis and 3 colours
//       pbp = (3/V) sum_p 2m / (4m^2 + 4 sum_mu s(p_mu)^2),
//   p_mu = 2 pi k / L_mu (periodic) or 2 pi (k + 1/2) / L_mu (antiperiodic), k = 0..L_mu - 1.
// Errors: std::invalid_argument for m = 0 or not finite, N < 2 (N < 3 for the susceptibility), block < 1,
//   mismatched links/fields.
#pragma once

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/random.h"
#include "reference/staggered/colour_vector_field.h"
#include "reference/staggered/sparse_staggered.h"
#include "reference/staggered/staggered_dslash.h"
#include "solvers/block_cg.h"
#include "solvers/block_operators.h"
#include "solvers/cg.h"
#include "solvers/cpu_staggered.h"

namespace lqcd::solvers {

struct StaggeredSolve {
  ColourVectorField<double> x;  // full-lattice solution of M x = b
  SolveResult schur;            // the CG record on M_ee x_e = b'_e
  double full_residual = 0;     // |b - M x| / |b| recomputed with ApplyStaggered (0 for b = 0)
};

inline void RequireStaggeredMass(double mass, const char* where) {
  if (!std::isfinite(mass) || mass == 0) {
    throw std::invalid_argument(std::string(where) + ": the mass must be finite and non-zero, got " +
                                std::to_string(mass));
  }
}

namespace pbp_detail {

inline void RequireFullSource(const StaggeredLinks<double>& links, const ColourVectorField<double>& b,
                              const char* where) {
  if (b.subset() != Subset::kFull || b.lattice() != links.lattice()) {
    throw std::invalid_argument(std::string(where) + ": needs a full-lattice source on " +
                                links.lattice().ToString());
  }
}

// The Schur tolerance that meets `solver.tolerance` on the full system. The full residual is the Schur one
// divided by 2m on the even sites and zero on the odd ones, so |b - M x| / |b| = |r_e| / (2|m| |b|).
// From the norms |b'_e| (the prepared source) and |b|, wherever those live (the GPU solve has them on the device).
inline double SchurTolerance(double norm_b_e, double norm_b, double mass, const SolverParams& solver) {
  if (norm_b_e > 0) return std::min(solver.tolerance, solver.tolerance * 2 * std::fabs(mass) * norm_b / norm_b_e);
  return solver.tolerance;
}
inline double SchurTolerance(const ColourVectorField<double>& b_e, const ColourVectorField<double>& b, double mass,
                             const SolverParams& solver) {
  return SchurTolerance(std::sqrt(Norm2(b_e)), std::sqrt(Norm2(b)), mass, solver);
}

// |b - M x| / |b| recomputed with the oracle (0 for b = 0).
inline double FullResidual(const StaggeredLinks<double>& links, const StaggeredParams& params,
                           const ColourVectorField<double>& x, const ColourVectorField<double>& b) {
  ColourVectorField<double> mx(b.lattice());
  ApplyStaggered(mx, links, x, params);
  const double nb = Norm2(b);
  return nb > 0 ? std::sqrt(Norm2(Difference(b, mx)) / nb) : 0;
}

// Bytes per vector of one M_ee application (file comment).
inline double SchurBytesPerVector(const StaggeredLinks<double>& links) {
  const double h = links.long_links ? 2 : 1;
  return links.lattice().half_volume() * 8.0 * (2 * (144 * h + 6 * (8 * h + 1)) + 18);
}

}  // namespace pbp_detail

inline StaggeredSolve SolveStaggeredEvenOdd(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                            const ColourVectorField<double>& b, const SolverParams& solver) {
  RequireStaggeredMass(params.mass, "SolveStaggeredEvenOdd");
  pbp_detail::RequireFullSource(links, b, "SolveStaggeredEvenOdd");
  const CpuStaggeredSchur<double> op(links, params, Parity::kEven);
  ColourVectorField<double> b_e = op.NewField(), x_e = op.NewField();
  op.PrepareSource(b_e, b);
  SolverParams schur_params = solver;
  schur_params.tolerance = pbp_detail::SchurTolerance(b_e, b, params.mass, solver);
  StaggeredSolve out{ColourVectorField<double>(b.lattice()), SolveResult{}, 0};
  out.schur = ConjugateGradient(op, x_e, b_e, schur_params);
  op.Reconstruct(out.x, x_e, b);
  out.full_residual = pbp_detail::FullResidual(links, params, out.x, b);
  return out;
}

inline std::vector<StaggeredSolve> SolveStaggeredEvenOddBlock(const StaggeredLinks<double>& links,
                                                              const StaggeredParams& params,
                                                              const std::vector<ColourVectorField<double>>& b,
                                                              const SolverParams& solver) {
  RequireStaggeredMass(params.mass, "SolveStaggeredEvenOddBlock");
  if (b.empty()) throw std::invalid_argument("SolveStaggeredEvenOddBlock: no sources");
  for (const auto& bk : b) pbp_detail::RequireFullSource(links, bk, "SolveStaggeredEvenOddBlock");
  const CpuStaggeredSchur<double> op(links, params, Parity::kEven);
  const LoopedBlockOperator<CpuStaggeredSchur<double>> block(op, pbp_detail::SchurBytesPerVector(links));
  std::vector<ColourVectorField<double>> b_e, x_e;
  std::vector<double> tolerances;
  for (const auto& bk : b) {
    b_e.push_back(op.NewField());
    x_e.push_back(op.NewField());
    op.PrepareSource(b_e.back(), bk);
    tolerances.push_back(pbp_detail::SchurTolerance(b_e.back(), bk, params.mass, solver));
  }
  // params.tolerance is only the default BlockCg validates; every system has its own in `tolerances`.
  const BlockSolveResult result = BlockCg(block, x_e, b_e, solver, tolerances);
  std::vector<StaggeredSolve> out;
  for (std::size_t k = 0; k < b.size(); ++k) {
    out.push_back(StaggeredSolve{ColourVectorField<double>(b[k].lattice()), result.systems[k], 0});
    op.Reconstruct(out.back().x, x_e[k], b[k]);
    out.back().full_residual = pbp_detail::FullResidual(links, params, out.back().x, b[k]);
  }
  return out;
}

inline void FillZ2Noise(ColourVectorField<double>& field, std::uint64_t seed) {
  for (int i = 0; i < field.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
    for (int c = 0; c < 3; ++c) field[i](c) = Complex<double>((rng.NextWord() & 1u) ? 1.0 : -1.0, 0.0);
  }
}

inline std::uint64_t NoiseSeed(std::uint64_t seed, int k) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(k) + 1;
}

struct PbpEstimate {
  double mean = 0;
  double standard_error = 0;
  std::vector<double> samples;         // (1/V) Re <eta_k, M^{-1} eta_k>
  double max_full_residual = 0;        // largest |eta - M x| / |eta| over the solves
  int total_iterations = 0;            // CG iterations over all solves
  bool all_converged = true;
};

// The solves of one block of noise vectors, x_k = M^{-1} eta_k, on whichever backend: the CPU's below
// (SolveStaggeredEvenOdd for one, SolveStaggeredEvenOddBlock for more), the GPU's in gpu/gpu_staggered.h.
using StaggeredBlockSolve =
    std::function<std::vector<StaggeredSolve>(const std::vector<ColourVectorField<double>>& eta)>;

// One noise vector's part of the estimate: its sample and its solve's record.
struct NoiseSolve {
  double sample = 0;         // (1/V) Re <eta_k, x_k>
  double full_residual = 0;  // |eta_k - M x_k| / |eta_k|
  SolveResult schur;         // the CG record on the Schur system
};

// The samples of one block of noise vectors, eta_k = FillZ2Noise of noise_seeds[k], in that order, computed
// wherever the backend keeps its fields: HostNoiseSolve below makes the noise on the host and solves it with a
// StaggeredBlockSolve; gpu/gpu_staggered.h makes it on the device, where the solution stays.
using NoiseBlockSolve = std::function<std::vector<NoiseSolve>(const std::vector<std::uint64_t>& noise_seeds)>;

// Host noise, `solve`'s solutions, the samples by Dot and the residuals `solve` reports.
inline NoiseBlockSolve HostNoiseSolve(const Lattice& lattice, StaggeredBlockSolve solve) {
  return [lattice, solve = std::move(solve)](const std::vector<std::uint64_t>& noise_seeds) {
    std::vector<ColourVectorField<double>> eta;
    for (const std::uint64_t s : noise_seeds) {
      eta.emplace_back(lattice);
      FillZ2Noise(eta.back(), s);
    }
    const std::vector<StaggeredSolve> solves = solve(eta);
    if (solves.size() != eta.size()) {
      throw std::logic_error("HostNoiseSolve: the solve returned " + std::to_string(solves.size()) +
                             " solutions for " + std::to_string(eta.size()) + " vectors");
    }
    std::vector<NoiseSolve> out;
    for (std::size_t k = 0; k < eta.size(); ++k) {
      out.push_back(NoiseSolve{Dot(eta[k], solves[k].x).real() / lattice.volume(), solves[k].full_residual,
                               solves[k].schur});
    }
    return out;
  };
}

inline PbpEstimate EstimateChiralCondensate(int n_noise, std::uint64_t seed, int block, const NoiseBlockSolve& solve);

// The CPU's solves of a block (SolveStaggeredEvenOdd for one vector, SolveStaggeredEvenOddBlock for more) with host
// noise. The function refers to links, params and solver: they must outlive it.
inline NoiseBlockSolve CpuNoiseSolve(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                     const SolverParams& solver) {
  RequireStaggeredMass(params.mass, "CpuNoiseSolve");
  return HostNoiseSolve(links.lattice(), [&links, &params, &solver](const std::vector<ColourVectorField<double>>& eta) {
    if (eta.size() == 1) return std::vector<StaggeredSolve>{SolveStaggeredEvenOdd(links, params, eta[0], solver)};
    return SolveStaggeredEvenOddBlock(links, params, eta, solver);
  });
}

inline PbpEstimate EstimateChiralCondensate(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                            int n_noise, std::uint64_t seed, const SolverParams& solver,
                                            int block = 1) {
  return EstimateChiralCondensate(n_noise, seed, block, CpuNoiseSolve(links, params, solver));
}

// The estimate with the solves of `solve` (blocks of `block` vectors, the last one shorter).
inline PbpEstimate EstimateChiralCondensate(int n_noise, std::uint64_t seed, int block, const NoiseBlockSolve& solve) {
  if (n_noise < 2) throw std::invalid_argument("EstimateChiralCondensate: needs at least 2 noise vectors");
  if (block < 1) throw std::invalid_argument("EstimateChiralCondensate: the block size must be >= 1");
  PbpEstimate out;
  for (int k0 = 0; k0 < n_noise; k0 += block) {
    const int n = std::min(block, n_noise - k0);
    std::vector<std::uint64_t> noise_seeds;
    for (int k = k0; k < k0 + n; ++k) noise_seeds.push_back(NoiseSeed(seed, k));
    const std::vector<NoiseSolve> solves = solve(noise_seeds);
    if (static_cast<int>(solves.size()) != n) {
      throw std::logic_error("EstimateChiralCondensate: the solve returned " + std::to_string(solves.size()) +
                             " results for " + std::to_string(n) + " vectors");
    }
    for (const NoiseSolve& s : solves) {
      out.samples.push_back(s.sample);
      out.max_full_residual = std::max(out.max_full_residual, s.full_residual);
      out.total_iterations += s.schur.iterations;
      out.all_converged = out.all_converged && s.schur.status == SolveStatus::kConverged;
    }
  }
  double sum = 0;
  for (double v : out.samples) sum += v;
  out.mean = sum / n_noise;
  double ss = 0;
  for (double v : out.samples) ss += (v - out.mean) * (v - out.mean);
  out.standard_error = std::sqrt(ss / (static_cast<double>(n_noise) * (n_noise - 1)));
  return out;
}

struct SusceptibilityEstimate {
  double value = 0;           // V (1 / (N (N - 1))) sum_{k != l} s_k s_l, estimates (Re tr M^{-1})^2 / V
  double standard_error = 0;  // delete-one jackknife over the vectors
};

inline SusceptibilityEstimate EstimateDisconnectedSusceptibility(const std::vector<double>& samples, double volume) {
  const std::size_t n = samples.size();
  if (n < 3) throw std::invalid_argument("EstimateDisconnectedSusceptibility: needs at least 3 noise vectors");
  if (!(volume > 0)) throw std::invalid_argument("EstimateDisconnectedSusceptibility: the volume must be > 0");
  double sum = 0, sum2 = 0;
  for (double v : samples) {
    sum += v;
    sum2 += v * v;
  }
  const double nd = static_cast<double>(n);
  SusceptibilityEstimate out;
  out.value = volume * (sum * sum - sum2) / (nd * (nd - 1));
  std::vector<double> jack(n);
  double jack_mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = sum - samples[i], q = sum2 - samples[i] * samples[i];
    jack[i] = volume * (s * s - q) / ((nd - 1) * (nd - 2));
    jack_mean += jack[i] / nd;
  }
  double ss = 0;
  for (double v : jack) ss += (v - jack_mean) * (v - jack_mean);
  out.standard_error = std::sqrt((nd - 1) / nd * ss);
  return out;
}

struct ExactPbp {
  double value = 0;        // (1/V) Re tr M^{-1}
  double error_bound = 0;  // rigorous bound on |value - exact| (file comment)
};

namespace pbp_detail {

inline double Gamma(double n) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  return n * u / (1 - n * u);
}

// (1/V) Re tr A^{-1} * scale for a sparse A with sigma_min(A) >= sigma_min, with the bound of the file
// comment; n_products bounds the complex products per row of A.
inline ExactPbp TraceOfInverse(const SparseComplexMatrix& a, double scale, double sigma_min, int n_products,
                               double volume) {
  Eigen::SparseLU<SparseComplexMatrix> lu;
  lu.compute(a);
  if (lu.info() != Eigen::Success) throw std::runtime_error("ExactChiralCondensate: SparseLU failed");
  const int n = static_cast<int>(a.rows());
  SparseComplexMatrix identity(n, n);
  identity.setIdentity();
  const Eigen::MatrixXcd x = lu.solve(Eigen::MatrixXcd(identity));
  const Eigen::MatrixXcd r = Eigen::MatrixXcd(identity) - a * x;
  SparseComplexMatrix abs_a = a.cwiseAbs().cast<std::complex<double>>();
  const Eigen::MatrixXd ax = (abs_a * x.cwiseAbs().cast<std::complex<double>>()).real();
  const double g = std::sqrt(2.0) * Gamma(2.0 * n_products);
  double trace = 0, abs_diag = 0, column_errors = 0;
  for (int j = 0; j < n; ++j) {
    trace += x(j, j).real();
    abs_diag += std::abs(x(j, j));
    const double rounding = g * (Eigen::VectorXd::Unit(n, j) + ax.col(j)).norm();
    column_errors += (r.col(j).norm() + rounding) / sigma_min;
  }
  ExactPbp out;
  out.value = scale * trace / volume;
  out.error_bound = std::abs(scale) * (column_errors + Gamma(n) * abs_diag) / volume;
  return out;
}

}  // namespace pbp_detail

inline ExactPbp ExactChiralCondensate(const StaggeredLinks<double>& links, const StaggeredParams& params) {
  RequireStaggeredMass(params.mass, "ExactChiralCondensate");
  const SparseComplexMatrix m = SparseStaggered(links, params);
  return pbp_detail::TraceOfInverse(m, 1.0, 2 * std::abs(params.mass), 49, links.lattice().volume());
}

// (Re tr M^{-1})^2 / V = V pbp^2 from the exact pbp and its bound (file comment).
inline ExactPbp ExactDisconnectedSusceptibility(const ExactPbp& pbp, double volume) {
  ExactPbp out;
  out.value = volume * pbp.value * pbp.value;
  out.error_bound = volume * (2 * std::abs(pbp.value) * pbp.error_bound + pbp.error_bound * pbp.error_bound);
  return out;
}

inline ExactPbp ExactChiralCondensateEvenOdd(const StaggeredLinks<double>& links, const StaggeredParams& params) {
  RequireStaggeredMass(params.mass, "ExactChiralCondensateEvenOdd");
  const SparseComplexMatrix m_ee = SparseStaggeredSchur(links, params, Parity::kEven);
  // A row of M_ee = 4m^2 - D_eo D_oe is a sum of at most 48 x 48 products plus the mass term (its
  // non-zeros are products accumulated by the sparse product; bounded generously by 48^2 + 1).
  ExactPbp out = pbp_detail::TraceOfInverse(m_ee, 4 * params.mass, 4 * params.mass * params.mass, 48 * 48 + 1,
                                            links.lattice().volume());
  // The stored M_ee is the rounded product: |E| <= sqrt(2) gamma(2 * 48) |D_eo| |D_oe| entrywise, and
  // |tr (A + E)^{-1} - tr A^{-1}| <= n |E|_2 / (sigma_min (sigma_min - |E|_2)) with |E|_2 <= |E|_F.
  const SparseComplexMatrix d_eo = SparseStaggeredDslashParity(links, params.boundary, Parity::kEven);
  const SparseComplexMatrix d_oe = SparseStaggeredDslashParity(links, params.boundary, Parity::kOdd);
  const SparseComplexMatrix abs_eo = d_eo.cwiseAbs().cast<std::complex<double>>();
  const SparseComplexMatrix abs_oe = d_oe.cwiseAbs().cast<std::complex<double>>();
  const SparseComplexMatrix prod = abs_eo * abs_oe;
  const double e = std::sqrt(2.0) * pbp_detail::Gamma(2.0 * 48) * prod.norm();
  const double s = 4 * params.mass * params.mass;
  if (e >= s) throw std::runtime_error("ExactChiralCondensateEvenOdd: rounding bound exceeds sigma_min");
  out.error_bound += std::abs(4 * params.mass) * m_ee.rows() * e / (s * (s - e)) / links.lattice().volume();
  return out;
}

inline double FreeChiralCondensate(const Lattice& lattice, double mass, const FermionBoundary& boundary, double c1,
                                   double c3) {
  RequireStaggeredMass(mass, "FreeChiralCondensate");
  const double pi = std::acos(-1.0);
  std::vector<double> s2[kDims];
  for (int mu = 0; mu < kDims; ++mu) {
    const int l = lattice.extent(mu);
    const double shift = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? 0.5 : 0.0;
    for (int k = 0; k < l; ++k) {
      const double p = 2 * pi * (k + shift) / l;
      const double s = c1 * std::sin(p) + c3 * std::sin(3 * p);
      s2[mu].push_back(s * s);
    }
  }
  double sum = 0;
  for (double a : s2[0])
    for (double b : s2[1])
      for (double c : s2[2])
        for (double d : s2[3]) sum += 2 * mass / (4 * mass * mass + 4 * (a + b + c + d));
  return 3 * sum / lattice.volume();
}

}  // namespace lqcd::solvers
