// sparse_wilson.cc: explicit sparse assembly of the Wilson-Dirac operator (see sparse_wilson.h).
// Deliberately written without Lattice::Forward/Backward, CheckerboardIndex or wilson.cc's site kernel:
// neighbours, wrap signs and parity indices are recomputed here from the coordinates.
#include "reference/sparse_wilson.h"

#include <Eigen/LU>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseLU>
#include <array>
#include <stdexcept>
#include <string>

namespace lqcd {
namespace {

using C = std::complex<double>;
using Triplet = Eigen::Triplet<C>;

// Adds sign * kron(spin, colour) as the 12x12 block (row_site, column_site).
void AddBlock(std::vector<Triplet>& triplets, int row_site, int column_site, const SpinMatrix& spin,
              const ColorMatrix<double>& colour, double sign) {
  for (int s = 0; s < 4; ++s) {
    for (int t = 0; t < 4; ++t) {
      if (spin(s, t) == C(0)) continue;
      for (int c = 0; c < 3; ++c) {
        for (int d = 0; d < 3; ++d) {
          triplets.emplace_back(12 * row_site + 3 * s + c, 12 * column_site + 3 * t + d, sign * spin(s, t) * colour(c, d));
        }
      }
    }
  }
}

// D itself (no dagger) from Eq. (1). setFromTriplets sums duplicates, which is what Eq. (1) asks for
// when L_mu = 2 and n + mu = n - mu.
SparseComplexMatrix AssembleHopping(const GaugeField<double>& u, GammaBasis basis, const FermionBoundary& boundary) {
  const Lattice& lattice = u.lattice();
  const int volume = lattice.volume();
  std::vector<Triplet> triplets;
  triplets.reserve(static_cast<std::size_t>(volume) * 8 * 2 * 9 * 4);
  for (int site = 0; site < volume; ++site) {
    const std::array<int, kDims> n = SparseSiteCoordinates(lattice, site);
    for (int mu = 0; mu < kDims; ++mu) {
      const SpinMatrix one_minus_gamma = SpinMatrix::Identity() - Gamma(basis, mu);
      const SpinMatrix one_plus_gamma = SpinMatrix::Identity() + Gamma(basis, mu);
      const double wrap_sign = boundary.condition[mu] == BoundaryCondition::kAntiperiodic ? -1.0 : 1.0;
      const int extent = lattice.extent(mu);

      std::array<int, kDims> up = n;
      up[mu] = n[mu] + 1 == extent ? 0 : n[mu] + 1;
      const double up_sign = n[mu] + 1 == extent ? wrap_sign : 1.0;
      AddBlock(triplets, site, SparseSiteIndex(lattice, up), one_minus_gamma, u.Link(site, mu), up_sign);

      std::array<int, kDims> down = n;
      down[mu] = n[mu] == 0 ? extent - 1 : n[mu] - 1;
      const double down_sign = n[mu] == 0 ? wrap_sign : 1.0;
      const int down_site = SparseSiteIndex(lattice, down);
      AddBlock(triplets, site, down_site, one_plus_gamma, u.Link(down_site, mu).adjoint(), down_sign);
    }
  }
  SparseComplexMatrix d(12 * volume, 12 * volume);
  d.setFromTriplets(triplets.begin(), triplets.end());
  return d;
}

// E_p: the (12V/2 x 12V) 0/1 matrix that picks the sites of parity p out of a full vector, placing site n
// at checkerboard index n / 2.
// T = (4 + m) + A as a block-diagonal sparse matrix on the full lattice.
SparseComplexMatrix FullSiteTerm(const Lattice& lattice, const WilsonParams& params, const SiteBlocks& site_terms) {
  const double diagonal = 1.0 / (2.0 * params.kappa());  // 4 + m, after kappa() has validated m
  if (!site_terms.empty() && static_cast<int>(site_terms.size()) != lattice.volume()) {
    throw std::invalid_argument("sparse_wilson: site_terms has " + std::to_string(site_terms.size()) +
                                " blocks but the lattice " + lattice.ToString() + " has " +
                                std::to_string(lattice.volume()) + " sites");
  }
  std::vector<Triplet> triplets;
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int i = 0; i < 12; ++i) {
      if (site_terms.empty()) {
        triplets.emplace_back(12 * site + i, 12 * site + i, C(diagonal));
        continue;
      }
      for (int j = 0; j < 12; ++j) {
        const C value = site_terms[site](i, j) + (i == j ? C(diagonal) : C(0));
        if (value != C(0)) triplets.emplace_back(12 * site + i, 12 * site + j, value);
      }
    }
  }
  SparseComplexMatrix t(12 * lattice.volume(), 12 * lattice.volume());
  t.setFromTriplets(triplets.begin(), triplets.end());
  return t;
}

// The column ordering of the full-M factorisation (see sparse_wilson.h). SparseLU default-constructs its
// ordering object, so the split is implied: the matrix handed to it is permuted odd sites first, and the
// two parities have V/2 sites each, so the first half of the columns is the odd parity.
struct OddFirstOrdering {
  template <typename MatrixType>
  void operator()(const MatrixType& matrix, Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int>& perm) {
    const Eigen::Index n = matrix.cols(), half = n / 2;
    const SparseComplexMatrix a = matrix;
    // Pattern left on the even sites after eliminating the odd ones: T_ee + D_eo (T_oo^{-1}) D_oe.
    SparseComplexMatrix remainder =
        SparseComplexMatrix(a.bottomRightCorner(half, half)) +
        SparseComplexMatrix(SparseComplexMatrix(a.bottomLeftCorner(half, half)) *
                            SparseComplexMatrix(a.topRightCorner(half, half)));
    remainder.makeCompressed();
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> remainder_order;
    Eigen::COLAMDOrdering<int>()(remainder, remainder_order);
    perm.resize(static_cast<int>(n));
    for (Eigen::Index i = 0; i < half; ++i) perm.indices()(i) = static_cast<int>(i);
    for (Eigen::Index i = 0; i < half; ++i) perm.indices()(half + i) = static_cast<int>(half + remainder_order.indices()(i));
  }
};

// Row/column permutation of a full vector that puts the odd sites first: site n goes to position
// n / 2 (odd) or V/2 + n / 2 (even), times 12 plus the spin-colour index.
Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> OddFirstPermutation(const Lattice& lattice) {
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(12 * lattice.volume());
  for (int site = 0; site < lattice.volume(); ++site) {
    const std::array<int, kDims> n = SparseSiteCoordinates(lattice, site);
    const bool odd = (n[0] + n[1] + n[2] + n[3]) % 2 == 1;
    const int position = odd ? site / 2 : lattice.half_volume() + site / 2;
    for (int k = 0; k < 12; ++k) p.indices()(12 * site + k) = 12 * position + k;
  }
  return p;
}

void RequireUsableParams(const WilsonParams& params) { params.kappa(); }  // throws for 4 + m <= 0

}  // namespace

SparseComplexMatrix SparseSiteTerm(const Lattice& lattice, const WilsonParams& params, Subset subset,
                                   const SiteBlocks& site_terms) {
  const SparseComplexMatrix t = FullSiteTerm(lattice, params, site_terms);
  if (subset == Subset::kFull) return t;
  const SparseComplexMatrix e =
      SparseParitySelection(lattice, subset == Subset::kEven ? Parity::kEven : Parity::kOdd, 12);
  return e * t * SparseComplexMatrix(e.adjoint());
}

SparseComplexMatrix SparseInverseSiteTerm(const Lattice& lattice, const WilsonParams& params, Parity parity,
                                          const SiteBlocks& site_terms) {
  const SparseComplexMatrix t_pp = SparseSiteTerm(lattice, params, SubsetOf(parity), site_terms);
  std::vector<Triplet> triplets;
  triplets.reserve(144 * static_cast<std::size_t>(lattice.half_volume()));
  for (int cb = 0; cb < lattice.half_volume(); ++cb) {
    const SpinColorMatrix<double> block = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic>(t_pp.block(12 * cb, 12 * cb, 12, 12));
    const Eigen::FullPivLU<SpinColorMatrix<double>> lu(block);
    if (!lu.isInvertible()) {
      throw std::invalid_argument("SparseInverseSiteTerm: the block (4 + m) + A at " + std::string(ToString(parity)) +
                                  " checkerboard index " + std::to_string(cb) + " is singular");
    }
    const SpinColorMatrix<double> inverse = lu.inverse();
    for (int i = 0; i < 12; ++i) {
      for (int j = 0; j < 12; ++j) triplets.emplace_back(12 * cb + i, 12 * cb + j, inverse(i, j));
    }
  }
  SparseComplexMatrix inv(t_pp.rows(), t_pp.cols());
  inv.setFromTriplets(triplets.begin(), triplets.end());
  return inv;
}

SparseComplexMatrix SparseHopping(const GaugeField<double>& u, GammaBasis basis, const FermionBoundary& boundary,
                                  Dagger dagger) {
  const SparseComplexMatrix d = AssembleHopping(u, basis, boundary);
  return dagger == Dagger::kNo ? d : SparseComplexMatrix(d.adjoint());
}

SparseComplexMatrix SparseHoppingParity(const GaugeField<double>& u, GammaBasis basis,
                                        const FermionBoundary& boundary, Parity out_parity, Dagger dagger) {
  const Lattice& lattice = u.lattice();
  const SparseComplexMatrix d = SparseHopping(u, basis, boundary, dagger);
  const SparseComplexMatrix rows = SparseParitySelection(lattice, out_parity, 12);
  const SparseComplexMatrix columns = SparseParitySelection(lattice, Opposite(out_parity), 12);
  return rows * d * SparseComplexMatrix(columns.adjoint());
}

SparseComplexMatrix SparseWilson(const GaugeField<double>& u, const WilsonParams& params, Dagger dagger,
                                 const SiteBlocks& site_terms) {
  RequireUsableParams(params);
  const SparseComplexMatrix m =
      FullSiteTerm(u.lattice(), params, site_terms) - 0.5 * AssembleHopping(u, params.basis, params.boundary);
  return dagger == Dagger::kNo ? m : SparseComplexMatrix(m.adjoint());
}

SparseComplexMatrix SparseSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity, Dagger dagger,
                                const SiteBlocks& site_terms) {
  RequireUsableParams(params);
  const Lattice& lattice = u.lattice();
  const double kappa = params.kappa();
  const SparseComplexMatrix d_p_other = SparseHoppingParity(u, params.basis, params.boundary, parity);
  const SparseComplexMatrix d_other_p = SparseHoppingParity(u, params.basis, params.boundary, Opposite(parity));
  SparseComplexMatrix schur;
  if (site_terms.empty()) {
    // 1 - kappa^2 D_{p,p'} D_{p',p}
    SparseComplexMatrix identity(12 * lattice.half_volume(), 12 * lattice.half_volume());
    identity.setIdentity();
    schur = identity - (kappa * kappa) * SparseComplexMatrix(d_p_other * d_other_p);
  } else {
    // 2 kappa [ T_pp - (1/4) D_{p,p'} T_{p'p'}^{-1} D_{p',p} ]
    const SparseComplexMatrix t_pp = SparseSiteTerm(lattice, params, SubsetOf(parity), site_terms);
    const SparseComplexMatrix t_other_inverse = SparseInverseSiteTerm(lattice, params, Opposite(parity), site_terms);
    schur = (2.0 * kappa) * (t_pp - 0.25 * SparseComplexMatrix(d_p_other * t_other_inverse * d_other_p));
  }
  return dagger == Dagger::kNo ? schur : SparseComplexMatrix(schur.adjoint());
}

ComplexVector ToVector(const SpinorField<double>& field) {
  ComplexVector v(12 * static_cast<Eigen::Index>(field.sites()));
  for (int i = 0; i < field.sites(); ++i) {
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) v(12 * i + 3 * s + c) = field[i](s, c);
    }
  }
  return v;
}

SpinorField<double> FromVector(const ComplexVector& v, const Lattice& lattice, Subset subset) {
  SpinorField<double> field(lattice, subset);
  if (v.size() != field.size()) {
    throw std::invalid_argument("FromVector: vector of length " + std::to_string(v.size()) + " for a " +
                                ToString(subset) + " field on " + lattice.ToString() + " (needs " +
                                std::to_string(field.size()) + ")");
  }
  for (int i = 0; i < field.sites(); ++i) {
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) field[i](s, c) = v(12 * i + 3 * s + c);
    }
  }
  return field;
}

SpinorField<double> ApplySparse(const SparseComplexMatrix& a, const SpinorField<double>& x, Subset out_subset) {
  if (a.cols() != x.size()) {
    throw std::invalid_argument("ApplySparse: matrix has " + std::to_string(a.cols()) + " columns but the " +
                                ToString(x.subset()) + " field has " + std::to_string(x.size()) + " components");
  }
  return FromVector(a * ToVector(x), x.lattice(), out_subset);
}

struct DirectWilsonSolver::Factorization {
  // Full lattice: LU of P M P^T with P = OddFirstPermutation. One parity: LU of M_pp.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> odd_first;
  Eigen::SparseLU<SparseComplexMatrix, OddFirstOrdering> full;
  Eigen::SparseLU<SparseComplexMatrix, Eigen::COLAMDOrdering<int>> parity;
};

DirectWilsonSolver::DirectWilsonSolver(const GaugeField<double>& u, const WilsonParams& params, Dagger dagger,
                                       const SiteBlocks& site_terms)
    : lattice_(u.lattice()), subset_(Subset::kFull), matrix_(SparseWilson(u, params, dagger, site_terms)) {
  Factorize();
}

DirectWilsonSolver::DirectWilsonSolver(const GaugeField<double>& u, const WilsonParams& params, Parity parity,
                                       Dagger dagger, const SiteBlocks& site_terms)
    : lattice_(u.lattice()), subset_(SubsetOf(parity)), matrix_(SparseSchur(u, params, parity, dagger, site_terms)) {
  Factorize();
}

void DirectWilsonSolver::Factorize() {
  matrix_.makeCompressed();
  auto f = std::make_shared<Factorization>();
  Eigen::ComputationInfo info;
  std::string message;
  if (subset_ == Subset::kFull) {
    f->odd_first = OddFirstPermutation(lattice_);
    SparseComplexMatrix permuted = f->odd_first * matrix_ * f->odd_first.inverse();
    permuted.makeCompressed();
    f->full.compute(permuted);
    info = f->full.info();
    message = f->full.lastErrorMessage();
  } else {
    f->parity.compute(matrix_);
    info = f->parity.info();
    message = f->parity.lastErrorMessage();
  }
  if (info != Eigen::Success) {
    throw std::runtime_error("DirectWilsonSolver: SparseLU failed on " + lattice_.ToString() + " (" +
                             ToString(subset_) + "): " + message);
  }
  factorization_ = std::move(f);
}

SpinorField<double> DirectWilsonSolver::Solve(const SpinorField<double>& b) const {
  if (b.lattice() != lattice_ || b.subset() != subset_) {
    throw std::invalid_argument("DirectWilsonSolver::Solve: factorised for a " + std::string(ToString(subset_)) +
                                " field on " + lattice_.ToString() + ", got a " + ToString(b.subset()) +
                                " field on " + b.lattice().ToString());
  }
  const Factorization& f = *factorization_;
  ComplexVector x;
  if (subset_ == Subset::kFull) {
    // M x = b  <=>  (P M P^T) (P x) = P b
    const ComplexVector permuted_b = f.odd_first * ToVector(b);
    const ComplexVector permuted_x = f.full.solve(permuted_b);
    x = f.odd_first.inverse() * permuted_x;
  } else {
    x = f.parity.solve(ToVector(b));
  }
  return FromVector(x, lattice_, subset_);
}

long DirectWilsonSolver::FactorNonZeros() const {
  const Factorization& f = *factorization_;
  if (subset_ == Subset::kFull) return static_cast<long>(f.full.nnzL() + f.full.nnzU());
  return static_cast<long>(f.parity.nnzL() + f.parity.nnzU());
}

SpinorField<double> DirectSolve(const GaugeField<double>& u, const WilsonParams& params,
                                const SpinorField<double>& b, Dagger dagger, const SiteBlocks& site_terms) {
  if (b.lattice() != u.lattice()) {
    throw std::invalid_argument("DirectSolve: gauge field on " + u.lattice().ToString() + " but source on " +
                                b.lattice().ToString());
  }
  if (b.subset() == Subset::kFull) return DirectWilsonSolver(u, params, dagger, site_terms).Solve(b);
  return DirectWilsonSolver(u, params, b.parity(), dagger, site_terms).Solve(b);
}

}  // namespace lqcd
