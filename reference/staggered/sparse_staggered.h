// sparse_staggered.h: the staggered operators of staggered_dslash.h as explicit sparse matrices, the
// cross-check of the matrix-free loops.
//
// Computes Eigen::SparseMatrix<std::complex<double>> for D, M = 2m + D, the parity blocks D_{p,p'} and the
// Schur operator M_pp = 4m^2 - D_{p,p'} D_{p',p}, assembled straight from the formula of staggered_dslash.h:
//     D(n, n + k mu) += eta_mu(n) s X_mu(n),   D(n, n - k mu) -= eta_mu(n) s X_mu(n - k mu)^dag
// for (k, X) = (1, F) and (3, L). The neighbours, the number of boundary crossings (hence s) and eta_mu(n)
// are computed here from the coordinates (not from Lattice::Forward, staggered_phases.h or
// staggered_dslash.cc), the parity blocks are cut out of D with 0/1 selection matrices, and M_pp is a
// sparse matrix product, so nothing but the documented conventions is shared with the matrix-free code.
// Duplicate entries are summed (what the formula asks for when n + mu = n - mu on an extent-2 lattice).
// Conventions (docs/conventions.md, "Staggered fermions"):
//   - full-lattice vectors: row/column 3 * site + colour, site lexicographic;
//   - single-parity vectors: 3 * (site / 2) + colour (the checkerboard index of lattice.h).
// Sizes: 3V rows; D has at most 48 non-zeros per row (16 hops x 3 colours). Everything in double.
// Errors: as staggered_dslash.h (mismatched lattices, long links with an extent < 3; std::invalid_argument).
// Aliasing: none (every function returns a new value).
#pragma once

#include <Eigen/SparseCore>
#include <complex>

#include "reference/sparse_indexing.h"
#include "reference/staggered/colour_vector_field.h"
#include "reference/staggered/staggered_dslash.h"

namespace lqcd {

// The same types as sparse_wilson.h (a repeated alias of the same type is allowed).
// SparseComplexMatrix, ComplexVector: reference/sparse_indexing.h.

// D (3V x 3V).
SparseComplexMatrix SparseStaggeredDslash(const StaggeredLinks<double>& links, const FermionBoundary& boundary);

// D_{p,p'} (3V/2 x 3V/2): maps a field on parity Opposite(out_parity) to out_parity.
SparseComplexMatrix SparseStaggeredDslashParity(const StaggeredLinks<double>& links, const FermionBoundary& boundary,
                                                Parity out_parity);

// M = 2m + D (3V x 3V), or M^dag (the sparse conjugate transpose).
SparseComplexMatrix SparseStaggered(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                    Dagger dagger = Dagger::kNo);

// M_pp = 4m^2 - D_{p,p'} D_{p',p} on `parity` (3V/2 x 3V/2).
SparseComplexMatrix SparseStaggeredSchur(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                         Parity parity);

// Field <-> vector in the index convention above (a parity field gives a 3V/2 vector).
ComplexVector ToVector(const ColourVectorField<double>& field);
ColourVectorField<double> ColourFieldFromVector(const ComplexVector& v, const Lattice& lattice, Subset subset);

// y = A x for a field x (the subset of the result is `out_subset`); checks the dimensions.
ColourVectorField<double> ApplySparse(const SparseComplexMatrix& a, const ColourVectorField<double>& x,
                                      Subset out_subset);

}  // namespace lqcd
