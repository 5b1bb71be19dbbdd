// sparse_staggered.cc: explicit sparse assembly of the staggered operators (see sparse_staggered.h).
// Deliberately written without Lattice::Forward/Backward, CheckerboardIndex, staggered_phases.h or the site
// kernel of staggered_dslash.cc: neighbours, crossings, phases and parity indices come from coordinates.
#include "reference/staggered/sparse_staggered.h"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace lqcd {
namespace {

using C = std::complex<double>;
using Triplet = Eigen::Triplet<C>;

// The site n + shift mu (shift may be negative), and the boundary sign: (-1)^(crossings) for an
// antiperiodic direction, crossings = |floor((n_mu + shift) / L_mu)|.
struct Shifted {
  int site;
  double sign;
};

Shifted Shift(const Lattice& lattice, const FermionBoundary& boundary, std::array<int, kDims> n, int mu, int shift) {
  const int extent = lattice.extent(mu);
  const int moved = n[mu] + shift;
  const int wraps = moved >= 0 ? moved / extent : (moved - extent + 1) / extent;  // floor division
  n[mu] = moved - wraps * extent;
  const bool odd_crossings = (wraps % 2) != 0;
  const double sign =
      boundary.condition[mu] == BoundaryCondition::kAntiperiodic && odd_crossings ? -1.0 : 1.0;
  return {SparseSiteIndex(lattice, n), sign};
}

void AddBlock(std::vector<Triplet>& triplets, int row_site, int column_site, const ColorMatrix<double>& block,
              double factor) {
  for (int c = 0; c < 3; ++c) {
    for (int d = 0; d < 3; ++d) triplets.emplace_back(3 * row_site + c, 3 * column_site + d, factor * block(c, d));
  }
}

SparseComplexMatrix Identity(int n) {
  SparseComplexMatrix id(n, n);
  id.setIdentity();
  return id;
}

}  // namespace

SparseComplexMatrix SparseStaggeredDslash(const StaggeredLinks<double>& links, const FermionBoundary& boundary) {
  RequireUsableLinks(links, "SparseStaggeredDslash");
  const Lattice& lattice = links.lattice();
  const int volume = lattice.volume();
  std::vector<Triplet> triplets;
  triplets.reserve(static_cast<std::size_t>(volume) * 16 * 9);
  for (int site = 0; site < volume; ++site) {
    const std::array<int, kDims> n = SparseSiteCoordinates(lattice, site);
    for (int mu = 0; mu < kDims; ++mu) {
      int eta_exponent = 0;
      for (int nu = 0; nu < mu; ++nu) eta_exponent += n[nu];
      const double eta = eta_exponent % 2 == 0 ? 1.0 : -1.0;
      for (int k : {1, 3}) {
        if (k == 3 && !links.long_links) continue;
        const GaugeField<double>& x = k == 1 ? links.fat : *links.long_links;
        const Shifted up = Shift(lattice, boundary, n, mu, k);
        AddBlock(triplets, site, up.site, x.Link(site, mu), eta * up.sign);
        const Shifted down = Shift(lattice, boundary, n, mu, -k);
        AddBlock(triplets, site, down.site, x.Link(down.site, mu).adjoint(), -eta * down.sign);
      }
    }
  }
  SparseComplexMatrix d(3 * volume, 3 * volume);
  d.setFromTriplets(triplets.begin(), triplets.end());
  return d;
}

SparseComplexMatrix SparseStaggeredDslashParity(const StaggeredLinks<double>& links, const FermionBoundary& boundary,
                                                Parity out_parity) {
  const SparseComplexMatrix d = SparseStaggeredDslash(links, boundary);
  const SparseComplexMatrix e_out = SparseParitySelection(links.lattice(), out_parity, 3);
  const SparseComplexMatrix e_in = SparseParitySelection(links.lattice(), Opposite(out_parity), 3);
  return e_out * d * SparseComplexMatrix(e_in.adjoint());
}

SparseComplexMatrix SparseStaggered(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                    Dagger dagger) {
  const SparseComplexMatrix m =
      SparseComplexMatrix(C(2.0 * params.mass) * Identity(3 * links.lattice().volume())) +
      SparseStaggeredDslash(links, params.boundary);
  return dagger == Dagger::kNo ? m : SparseComplexMatrix(m.adjoint());
}

SparseComplexMatrix SparseStaggeredSchur(const StaggeredLinks<double>& links, const StaggeredParams& params,
                                         Parity parity) {
  const SparseComplexMatrix d_pq = SparseStaggeredDslashParity(links, params.boundary, parity);
  const SparseComplexMatrix d_qp = SparseStaggeredDslashParity(links, params.boundary, Opposite(parity));
  const SparseComplexMatrix product = d_pq * d_qp;
  return SparseComplexMatrix(C(4.0 * params.mass * params.mass) * Identity(3 * links.lattice().half_volume())) -
         product;
}

ComplexVector ToVector(const ColourVectorField<double>& field) {
  ComplexVector v(field.size());
  for (int i = 0; i < field.sites(); ++i) {
    for (int c = 0; c < 3; ++c) v(3 * i + c) = field[i](c);
  }
  return v;
}

ColourVectorField<double> ColourFieldFromVector(const ComplexVector& v, const Lattice& lattice, Subset subset) {
  ColourVectorField<double> field(lattice, subset);
  if (v.size() != field.size()) {
    throw std::invalid_argument("ColourFieldFromVector: vector of length " + std::to_string(v.size()) + " but the " +
                                ToString(subset) + " field on " + lattice.ToString() + " has " +
                                std::to_string(field.size()) + " components");
  }
  for (int i = 0; i < field.sites(); ++i) {
    for (int c = 0; c < 3; ++c) field[i](c) = v(3 * i + c);
  }
  return field;
}

ColourVectorField<double> ApplySparse(const SparseComplexMatrix& a, const ColourVectorField<double>& x,
                                      Subset out_subset) {
  if (a.cols() != x.size()) {
    throw std::invalid_argument("ApplySparse: matrix has " + std::to_string(a.cols()) + " columns but the field has " +
                                std::to_string(x.size()) + " components");
  }
  return ColourFieldFromVector(a * ToVector(x), x.lattice(), out_subset);
}

}  // namespace lqcd
