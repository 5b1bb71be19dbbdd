// sparse_wilson.h: the Wilson-Dirac operator as an explicit sparse matrix, and a direct (LU) solver that
// serves as ground truth for the Krylov solvers.
//
// Computes Eigen::SparseMatrix<std::complex<double>> for D, M = (4 + m) + A - D / 2 and its dagger, the
// parity blocks D_eo, D_oe and the Schur complement M_pp, assembled straight from the paper's Eq. (1):
//     D(n, n')  = sum_mu [ delta(n', n + mu) s_+ kron(1 - gamma_mu, U_mu(n))
//                        + delta(n', n - mu) s_- kron(1 + gamma_mu, U_mu(n - mu)^dag) ]
// with s_+- = -1 for a hop that wraps around an antiperiodic direction. The neighbours and wrap flags are
// computed here from coordinates (not from Lattice::Forward), the daggers are the sparse conjugate
// transposes, and the parity blocks are cut out of D with selection matrices, so nothing is shared with
// the matrix-free loops of wilson.cc except the gamma matrices and the documented conventions.
//
// Conventions (docs/conventions.md, "Sparse ground truth"):
//   - Full-lattice vectors: row/column 12 * site + 3 * spin + colour, site lexicographic.
//   - Single-parity vectors: 12 * (site / 2) + 3 * spin + colour (the checkerboard index of lattice.h).
//   - kron(P, U)(3 s + c, 3 s' + c') = P(s, s') U(c, c'), i.e. P acting on spin and U on colour.
//   - `site_terms` is an optional extra diagonal term A: one 12x12 block per lexicographic site (index
//     3 * spin + colour on both sides), added to (4 + m). Empty means A = 0 (pure Wilson). It exists so
//     that the clover term can be plugged in; with it the Schur complement generalises as
//         M_pp = 2 kappa [ T_pp - (1/4) D_{p,p'} T_{p'p'}^{-1} D_{p',p} ],   T = (4 + m) + A,
//     which for A = 0 is 1 - kappa^2 D_{p,p'} D_{p',p} (wilson.h), i.e. 2 kappa times the Schur complement
//     of the p' block of M.
// Sizes: 12 V rows; D has at most 48 non-zeros per row (8 hops x 2 spin x 3 colour), M adds the
// diagonal (or a 12-wide block). Everything is in double; the fields are double.
#pragma once

#include <Eigen/SparseCore>
#include <complex>
#include <memory>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/sparse_indexing.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd {

// SparseComplexMatrix, ComplexVector: sparse_indexing.h.

// Per-site 12x12 blocks of an extra diagonal term, indexed by lexicographic site (empty: none).
using SiteBlocks = std::vector<SpinColorMatrix<double>>;

// Hopping term D (12V x 12V), or D^dag.
SparseComplexMatrix SparseHopping(const GaugeField<double>& u, GammaBasis basis, const FermionBoundary& boundary,
                                  Dagger dagger = Dagger::kNo);

// D_{p,p'} (12V/2 x 12V/2): maps a field on parity p' = Opposite(out_parity) to parity out_parity; or its
// dagger version (D^dag)_{p,p'} = (D_{p',p})^dag.
SparseComplexMatrix SparseHoppingParity(const GaugeField<double>& u, GammaBasis basis,
                                        const FermionBoundary& boundary, Parity out_parity,
                                        Dagger dagger = Dagger::kNo);

// M = (4 + m) + A - D / 2 (12V x 12V), or M^dag.
SparseComplexMatrix SparseWilson(const GaugeField<double>& u, const WilsonParams& params,
                                 Dagger dagger = Dagger::kNo, const SiteBlocks& site_terms = {});

// Schur complement M_pp on `parity` (12V/2 x 12V/2) with the normalisation in the file comment, or M_pp^dag.
SparseComplexMatrix SparseSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity,
                                Dagger dagger = Dagger::kNo, const SiteBlocks& site_terms = {});

// T = (4 + m) + A restricted to `subset` (block diagonal: 12V x 12V, or 12V/2 x 12V/2 for a parity), and
// on one parity its inverse (dense 12x12 inverses, block by block). With these and SparseHoppingParity
// any other even-odd normalisation can be composed, e.g. clover.h's unit-diagonal form T_pp^{-1} S_pp.
SparseComplexMatrix SparseSiteTerm(const Lattice& lattice, const WilsonParams& params, Subset subset,
                                   const SiteBlocks& site_terms = {});
SparseComplexMatrix SparseInverseSiteTerm(const Lattice& lattice, const WilsonParams& params, Parity parity,
                                          const SiteBlocks& site_terms = {});

// Field <-> vector in the index convention above (a parity field gives a 12V/2 vector).
ComplexVector ToVector(const SpinorField<double>& field);
SpinorField<double> FromVector(const ComplexVector& v, const Lattice& lattice, Subset subset);

// y = A x for a field x (the subset of the result is `out_subset`); checks the dimensions.
SpinorField<double> ApplySparse(const SparseComplexMatrix& a, const SpinorField<double>& x, Subset out_subset);

// Ground truth for the solvers: an LU factorisation (Eigen::SparseLU, partial pivoting) of M (full
// lattice) or of the Schur complement M_pp (one parity), factorised once in the constructor and reused
// for any number of right-hand sides.
// Column ordering: COLAMD for M_pp. For M, COLAMD alone fills in badly (8.6 s at 4^3x8), so the
// unknowns are ordered odd sites first (kept in that order), then the even sites in the COLAMD order
// of the pattern that eliminating the odd ones leaves (that of D_eo D_oe). It is still an LU of the
// full M, pivoted by SparseLU; the ordering only decides where fill-in goes.
//   - Solve(b) with b on the full lattice returns x = M^{-1} b (or (M^dag)^{-1} b);
//   - with `parity` set, Solve(b_p) returns x_p = M_pp^{-1} b_p for b_p on that parity.
// Cost (one core; docs/cpu_oracle.md has the measured table): 4^4, M (3072 unknowns): about 1 s to
// factorise, 2.2 million non-zeros in L+U (~45 MB); 4^3x8, M (6144 unknowns): about 4 s, 7 million
// non-zeros (~140 MB); M_ee costs about the same as M (its factor is nearly as full). Each solve
// afterwards takes milliseconds. A 4-d lattice of extent 4 is small enough that every site is within a
// few hops of every other, so the factors are close to dense: do not use this beyond ~10^4 unknowns.
// Throws std::invalid_argument for a mismatched lattice or subset, std::runtime_error if the
// factorisation fails (a singular matrix, e.g. m very close to a zero mode).
class DirectWilsonSolver {
 public:
  DirectWilsonSolver(const GaugeField<double>& u, const WilsonParams& params, Dagger dagger = Dagger::kNo,
                     const SiteBlocks& site_terms = {});
  DirectWilsonSolver(const GaugeField<double>& u, const WilsonParams& params, Parity parity,
                     Dagger dagger = Dagger::kNo, const SiteBlocks& site_terms = {});

  SpinorField<double> Solve(const SpinorField<double>& b) const;

  const SparseComplexMatrix& matrix() const { return matrix_; }
  Subset subset() const { return subset_; }
  // Non-zeros of the L and U factors (the memory cost of the factorisation).
  long FactorNonZeros() const;

 private:
  struct Factorization;  // the SparseLU object and the odd-first permutation (sparse_wilson.cc)
  void Factorize();

  Lattice lattice_;
  Subset subset_;
  SparseComplexMatrix matrix_;
  std::shared_ptr<const Factorization> factorization_;  // shared: copies of the solver reuse it
};

// One-shot convenience: x = M^{-1} b (b full) or x_p = M_pp^{-1} b_p (b on one parity). Factorises every
// call; use DirectWilsonSolver for several right-hand sides.
SpinorField<double> DirectSolve(const GaugeField<double>& u, const WilsonParams& params,
                                const SpinorField<double>& b, Dagger dagger = Dagger::kNo,
                                const SiteBlocks& site_terms = {});

}  // namespace lqcd
