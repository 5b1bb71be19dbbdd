// sparse_indexing.h: the site indexing of the sparse ground-truth matrices (sparse_wilson.h,
// staggered/sparse_staggered.h), written once and deliberately without Lattice::Coords / Forward /
// CheckerboardIndex, so that the assembled matrices check the matrix-free operators' indexing instead of
// sharing it:
//   SparseComplexMatrix, ComplexVector   the matrix and vector types (index = components * site + component)
//   SparseSiteCoordinates(lattice, site) the coordinates of a lexicographic site, x fastest
//   SparseSiteIndex(lattice, n)          the lexicographic site of coordinates n (0 <= n_mu < L_mu)
//   SparseParitySelection(lattice, parity, components)
//                                        the 0/1 matrix taking a full-lattice vector to its `parity` block, in
//                                        checkerboard order (site / 2), `components` complex numbers per site
#pragma once

#include <Eigen/SparseCore>
#include <array>
#include <complex>
#include <cstddef>
#include <vector>

#include "reference/lattice.h"

namespace lqcd {

using SparseComplexMatrix = Eigen::SparseMatrix<std::complex<double>>;  // column major, int indices
using ComplexVector = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, 1>;

inline std::array<int, kDims> SparseSiteCoordinates(const Lattice& lattice, int site) {
  std::array<int, kDims> n{};
  for (int mu = 0; mu < kDims; ++mu) {
    n[mu] = site % lattice.extent(mu);
    site /= lattice.extent(mu);
  }
  return n;
}

inline int SparseSiteIndex(const Lattice& lattice, const std::array<int, kDims>& n) {
  int site = 0;
  for (int mu = kDims - 1; mu >= 0; --mu) site = site * lattice.extent(mu) + n[mu];
  return site;
}

inline SparseComplexMatrix SparseParitySelection(const Lattice& lattice, Parity parity, int components) {
  std::vector<Eigen::Triplet<std::complex<double>>> triplets;
  triplets.reserve(static_cast<std::size_t>(components) * lattice.half_volume());
  for (int site = 0; site < lattice.volume(); ++site) {
    const std::array<int, kDims> n = SparseSiteCoordinates(lattice, site);
    if ((n[0] + n[1] + n[2] + n[3]) % 2 != static_cast<int>(parity)) continue;
    for (int k = 0; k < components; ++k) {
      triplets.emplace_back(components * (site / 2) + k, components * site + k, std::complex<double>(1));
    }
  }
  SparseComplexMatrix e(components * lattice.half_volume(), components * lattice.volume());
  e.setFromTriplets(triplets.begin(), triplets.end());
  return e;
}

}  // namespace lqcd
