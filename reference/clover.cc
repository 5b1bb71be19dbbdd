// clover.cc: the Wilson-clover operator (see clover.h). The clover blocks are built in double from the
// dense definition (CloverTermMatrix in the DeGrand-Rossi basis), split into chiral blocks, inverted by a
// Hermitian eigen-decomposition (which also gives each block's condition number) and stored in T.
#include "reference/clover.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "reference/spinor_algebra.h"

namespace lqcd {

WilsonParams CloverParams::wilson() const {
  WilsonParams w;
  w.mass = mass;
  w.basis = basis;
  w.boundary = boundary;
  return w;
}

CloverParams CloverParams::FromKappa(double kappa, double c_sw, GammaBasis basis, FermionBoundary boundary) {
  const WilsonParams w = WilsonParams::FromKappa(kappa, basis, boundary);
  CloverParams p;
  p.mass = w.mass;
  p.c_sw = c_sw;
  p.basis = basis;
  p.boundary = boundary;
  return p;
}

namespace {

// A parameter as the user would write it: 10 significant digits, "1e-300" rather than "0.000000".
std::string Printed(double x) {
  std::ostringstream s;
  s.precision(10);
  s << x;
  return s.str();
}

void RequireCloverTrace(CloverTrace trace, const char* where) {
  if (trace != CloverTrace::kTraceless && trace != CloverTrace::kWithTrace) {
    throw std::invalid_argument(std::string(where) + ": trace convention " + std::to_string(static_cast<int>(trace)) +
                                " is neither kTraceless nor kWithTrace");
  }
}

}  // namespace

double MilcCloverCsw(double clov_c, double u0) {
  if (!std::isfinite(clov_c)) {
    throw std::invalid_argument("MILC clover coefficient: clov_c = " + Printed(clov_c) + " must be finite");
  }
  if (!std::isfinite(u0) || !(u0 > 0)) {
    throw std::invalid_argument("MILC clover coefficient: the tadpole factor u0 = " + Printed(u0) +
                                " must be finite and > 0 (c_sw = clov_c / u0^3)");
  }
  const double c_sw = clov_c / (u0 * u0 * u0);
  if (!std::isfinite(c_sw)) {
    throw std::invalid_argument("MILC clover coefficient: clov_c / u0^3 is not a finite double (clov_c = " +
                                Printed(clov_c) + ", u0 = " + Printed(u0) + ")");
  }
  return c_sw;
}

CloverParams CloverParams::FromMilc(double kappa, double clov_c, double u0, GammaBasis basis,
                                    FermionBoundary boundary) {
  const double c_sw = MilcCloverCsw(clov_c, u0);  // validates clov_c and u0 before anything else
  CloverParams p = FromKappa(kappa, c_sw, basis, boundary);
  p.trace = CloverTrace::kWithTrace;
  return p;
}

CloverParams CloverParams::FromChroma(double mass, double clov_coeff, GammaBasis basis, FermionBoundary boundary) {
  if (!std::isfinite(clov_coeff)) {
    throw std::invalid_argument("Chroma clover coefficient: clovCoeff = " + Printed(clov_coeff) +
                                " must be finite");
  }
  CloverParams p;
  p.mass = mass;
  p.c_sw = clov_coeff;
  p.basis = basis;
  p.boundary = boundary;
  p.trace = CloverTrace::kWithTrace;
  p.kappa();  // validates the mass: 4 + Mass > 0 and finite
  return p;
}

namespace {

void RequireDirections(int mu, int nu, const char* where) {
  if (mu < 0 || mu >= kDims || nu < 0 || nu >= kDims) {
    throw std::out_of_range(std::string(where) + ": directions must be 0..3, got mu = " + std::to_string(mu) +
                            ", nu = " + std::to_string(nu));
  }
}

void RequireSite(const Lattice& lat, int site, const char* where) {
  if (site < 0 || site >= lat.volume()) {
    throw std::out_of_range(std::string(where) + ": site " + std::to_string(site) + " outside " + lat.ToString());
  }
}

void RequireSameLattice(const Lattice& a, const Lattice& b, const char* where) {
  if (a != b) {
    throw std::invalid_argument(std::string(where) + ": fields live on different lattices (" + a.ToString() +
                                " vs " + b.ToString() + ")");
  }
}

template <typename T>
ColorMatrix<double> LinkInDouble(const GaugeField<T>& u, int site, int mu) {
  return u.Link(site, mu).template cast<Complex<double>>();
}

// y = B x for a Hermitian 6x6 block, reading only its lower triangle and the real part of its diagonal:
// 6 real-times-complex (12 flops), 15 entries used as b and conj(b) (30 complex multiplies, 180 flops)
// and 30 complex additions (60 flops): 252 flops, the half of the 504 in kCloverFlopsPerSite.
template <typename T>
Eigen::Matrix<Complex<T>, 6, 1> ApplyHermitianBlock(const ChiralBlock<T>& b, const Eigen::Matrix<Complex<T>, 6, 1>& x) {
  Eigen::Matrix<Complex<T>, 6, 1> y;
  for (int i = 0; i < 6; ++i) y(i) = b(i, i).real() * x(i);
  for (int i = 1; i < 6; ++i) {
    for (int j = 0; j < i; ++j) {
      y(i) += b(i, j) * x(j);
      y(j) += std::conj(b(i, j)) * x(i);
    }
  }
  return y;
}

}  // namespace

template <typename T>
ColorMatrix<double> CloverLeaves(const GaugeField<T>& u, int site, int mu, int nu) {
  RequireDirections(mu, nu, "CloverLeaves");
  if (mu == nu) throw std::invalid_argument("CloverLeaves: mu and nu must differ");
  const Lattice& lat = u.lattice();
  RequireSite(lat, site, "CloverLeaves");
  const int up_mu = lat.Forward(site, mu), up_nu = lat.Forward(site, nu);
  const int down_mu = lat.Backward(site, mu), down_nu = lat.Backward(site, nu);
  const int down_mu_up_nu = lat.Forward(down_mu, nu);    // n - mu + nu
  const int down_mu_down_nu = lat.Backward(down_mu, nu);  // n - mu - nu
  const int up_mu_down_nu = lat.Backward(up_mu, nu);      // n + mu - nu
  auto link = [&](int s, int d) { return LinkInDouble(u, s, d); };
  // Each leaf starts and ends at n and turns counter-clockwise in the (mu, nu) plane.
  // n -> n+mu -> n+mu+nu -> n+nu -> n
  const ColorMatrix<double> leaf1 =
      link(site, mu) * link(up_mu, nu) * link(up_nu, mu).adjoint() * link(site, nu).adjoint();
  // n -> n+nu -> n-mu+nu -> n-mu -> n
  const ColorMatrix<double> leaf2 =
      link(site, nu) * link(down_mu_up_nu, mu).adjoint() * link(down_mu, nu).adjoint() * link(down_mu, mu);
  // n -> n-mu -> n-mu-nu -> n-nu -> n
  const ColorMatrix<double> leaf3 =
      link(down_mu, mu).adjoint() * link(down_mu_down_nu, nu).adjoint() * link(down_mu_down_nu, mu) * link(down_nu, nu);
  // n -> n-nu -> n+mu-nu -> n+mu -> n
  const ColorMatrix<double> leaf4 =
      link(down_nu, nu).adjoint() * link(down_nu, mu) * link(up_mu_down_nu, nu) * link(site, mu).adjoint();
  return leaf1 + leaf2 + leaf3 + leaf4;
}

template <typename T>
ColorMatrix<double> FieldStrength(const GaugeField<T>& u, int site, int mu, int nu, CloverTrace trace) {
  RequireDirections(mu, nu, "FieldStrength");
  RequireSite(u.lattice(), site, "FieldStrength");
  RequireCloverTrace(trace, "FieldStrength");
  if (mu == nu) return ColorMatrix<double>::Zero();
  const ColorMatrix<double> q = CloverLeaves(u, site, mu, nu);
  // (Q - Q^dag) / (8 i) = (Q - Q^dag) * (-i / 8): exact scaling, so F is Hermitian to the last bit and
  // its trace, Im tr Q / 4, is exactly real.
  ColorMatrix<double> f = (q - q.adjoint()) * Complex<double>(0, -0.125);
  if (trace == CloverTrace::kWithTrace) return f;
  const double f_trace = f.trace().real();
  f -= (f_trace / 3.0) * ColorMatrix<double>::Identity();
  return f;
}

SpinMatrix Sigma(GammaBasis basis, int mu, int nu) {
  RequireDirections(mu, nu, "Sigma");
  const SpinMatrix& gm = Gamma(basis, mu);
  const SpinMatrix& gn = Gamma(basis, nu);
  return Complex<double>(0, 0.5) * (gm * gn - gn * gm);
}

template <typename T>
SpinColorMatrix<double> CloverTermMatrix(const GaugeField<T>& u, int site, double c_sw, GammaBasis basis,
                                         CloverTrace trace) {
  if (!std::isfinite(c_sw)) throw std::invalid_argument("CloverTermMatrix: c_sw must be finite");
  RequireCloverTrace(trace, "CloverTermMatrix");
  RequireSite(u.lattice(), site, "CloverTermMatrix");
  SpinColorMatrix<double> a = SpinColorMatrix<double>::Zero();
  for (int mu = 0; mu < kDims; ++mu) {
    for (int nu = mu + 1; nu < kDims; ++nu) {
      const SpinMatrix sigma = Sigma(basis, mu, nu);
      const ColorMatrix<double> f = FieldStrength(u, site, mu, nu, trace);
      // Kronecker product sigma (x) F on the index 3*s + c.
      for (int s = 0; s < 4; ++s) {
        for (int t = 0; t < 4; ++t) {
          if (sigma(s, t) == Complex<double>(0)) continue;
          a.template block<3, 3>(3 * s, 3 * t) += sigma(s, t) * f;
        }
      }
    }
  }
  return (-0.5 * c_sw) * a;
}

template <typename T>
CloverField<T>::CloverField(const CloverField& whole, const Lattice& lattice, const std::vector<int>& sites)
    : lattice_(lattice),
      params_(whole.params_),
      max_condition_(whole.max_condition_),
      min_eigenvalue_(whole.min_eigenvalue_),
      max_eigenvalue_(whole.max_eigenvalue_) {
  if (static_cast<long long>(sites.size()) != lattice.volume()) {
    throw std::invalid_argument("CloverField: " + std::to_string(sites.size()) + " sites for a piece on " +
                                lattice.ToString() + " of volume " + std::to_string(lattice.volume()));
  }
  for (const int site : sites) {
    if (site < 0 || site >= whole.lattice_.volume()) {
      throw std::invalid_argument("CloverField: site " + std::to_string(site) + " is not a site of the whole " +
                                  whole.lattice_.ToString() + " field");
    }
  }
  blocks_.reserve(sites.size());
  inverse_blocks_.reserve(sites.size());
  for (const int site : sites) {
    blocks_.push_back(whole.blocks_[site]);
    inverse_blocks_.push_back(whole.inverse_blocks_[site]);
  }
}

template <typename T>
CloverField<T>::CloverField(const GaugeField<T>& u, const CloverParams& params)
    : lattice_(u.lattice()), params_(params) {
  const double diagonal = 4.0 + params.mass;
  params.kappa();  // validates the mass
  if (!std::isfinite(params.c_sw)) throw std::invalid_argument("CloverField: c_sw must be finite");
  RequireCloverTrace(params.trace, "CloverField");
  const int volume = lattice_.volume();
  blocks_.resize(volume);
  inverse_blocks_.resize(volume);
  for (int site = 0; site < volume; ++site) {
    // Built in the DeGrand-Rossi basis, where sigma_{mu nu} commutes with gamma_5 = diag(1, 1, -1, -1)
    // and T(n) is block diagonal; the off-diagonal chiral blocks are exact zeros.
    const SpinColorMatrix<double> a =
        CloverTermMatrix(u, site, params.c_sw, GammaBasis::kDeGrandRossi, params.trace);
    for (int chirality = 0; chirality < 2; ++chirality) {
      const ChiralBlock<double> block =
          diagonal * ChiralBlock<double>::Identity() + a.template block<6, 6>(6 * chirality, 6 * chirality);
      Eigen::SelfAdjointEigenSolver<ChiralBlock<double>> eigen(block);
      if (eigen.info() != Eigen::Success) {
        throw std::domain_error("CloverField: eigen-decomposition failed at site " + std::to_string(site));
      }
      const Eigen::Matrix<double, 6, 1> lambda = eigen.eigenvalues();
      const double smallest = lambda.cwiseAbs().minCoeff(), largest = lambda.cwiseAbs().maxCoeff();
      const double condition = largest / smallest;
      if (!(smallest > 0) || !(condition <= kMaxBlockCondition)) {
        throw std::domain_error("CloverField: T(n) = 4 + m + A(n) is singular or ill-conditioned at site " +
                                std::to_string(site) + " (chirality " + std::to_string(chirality) +
                                ", eigenvalues |lambda| in [" + std::to_string(smallest) + ", " +
                                std::to_string(largest) + "]); lower c_sw or raise m");
      }
      max_condition_ = std::max(max_condition_, condition);
      const bool first = site == 0 && chirality == 0;
      min_eigenvalue_ = first ? lambda.minCoeff() : std::min(min_eigenvalue_, lambda.minCoeff());
      max_eigenvalue_ = first ? lambda.maxCoeff() : std::max(max_eigenvalue_, lambda.maxCoeff());
      const ChiralBlock<double> inverse =
          eigen.eigenvectors() * lambda.cwiseInverse().asDiagonal() * eigen.eigenvectors().adjoint();
      blocks_[site][chirality] = block.template cast<Complex<T>>();
      inverse_blocks_[site][chirality] = inverse.template cast<Complex<T>>();
    }
  }
}

template <typename T>
SiteSpinor<T> CloverField<T>::ApplyBlocks(const std::array<ChiralBlock<T>, 2>& blocks,
                                          const SiteSpinor<T>& psi) const {
  // In UKQCD, T = S T_DR S with S = H / sqrt 2, H = [[1, 1], [1, -1]] (x) 1_2 on spin: apply
  // (1/2) H T_DR H, whose only rounding beyond T_DR's is in the additions of H.
  const bool ukqcd = params_.basis == GammaBasis::kUkqcd;
  SiteSpinor<T> in = psi;
  if (ukqcd) {
    for (int s = 0; s < 2; ++s) {
      in.row(s) = psi.row(s) + psi.row(s + 2);
      in.row(s + 2) = psi.row(s) - psi.row(s + 2);
    }
  }
  SiteSpinor<T> out;
  for (int chirality = 0; chirality < 2; ++chirality) {
    Eigen::Matrix<Complex<T>, 6, 1> x;
    for (int s = 0; s < 2; ++s) {
      for (int c = 0; c < 3; ++c) x(3 * s + c) = in(2 * chirality + s, c);
    }
    const Eigen::Matrix<Complex<T>, 6, 1> y = ApplyHermitianBlock(blocks[chirality], x);
    for (int s = 0; s < 2; ++s) {
      for (int c = 0; c < 3; ++c) out(2 * chirality + s, c) = y(3 * s + c);
    }
  }
  if (ukqcd) {
    const SiteSpinor<T> dr = out;
    for (int s = 0; s < 2; ++s) {
      out.row(s) = T(0.5) * (dr.row(s) + dr.row(s + 2));
      out.row(s + 2) = T(0.5) * (dr.row(s) - dr.row(s + 2));
    }
  }
  return out;
}

template <typename T>
SiteSpinor<T> CloverField<T>::Apply(int site, const SiteSpinor<T>& psi) const {
  return ApplyBlocks(blocks_[site], psi);
}

template <typename T>
SiteSpinor<T> CloverField<T>::ApplyInverse(int site, const SiteSpinor<T>& psi) const {
  return ApplyBlocks(inverse_blocks_[site], psi);
}

namespace {

// Dense 12x12 of diag(b0, b1) in the DeGrand-Rossi basis, rotated to `basis`.
template <typename T>
SpinColorMatrix<T> DenseFromBlocks(const std::array<ChiralBlock<T>, 2>& blocks, GammaBasis basis) {
  SpinColorMatrix<double> dr = SpinColorMatrix<double>::Zero();
  for (int chirality = 0; chirality < 2; ++chirality) {
    dr.template block<6, 6>(6 * chirality, 6 * chirality) = blocks[chirality].template cast<Complex<double>>();
  }
  if (basis == GammaBasis::kDeGrandRossi) return dr.template cast<Complex<T>>();
  // S (x) 1_colour, with S = DeGrandRossiToUkqcd() acting on the spin index.
  const SpinMatrix& s = DeGrandRossiToUkqcd();
  SpinColorMatrix<double> big = SpinColorMatrix<double>::Zero();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) big.template block<3, 3>(3 * i, 3 * j) = s(i, j) * ColorMatrix<double>::Identity();
  }
  return (big * dr * big).template cast<Complex<T>>();
}

}  // namespace

template <typename T>
SpinColorMatrix<T> CloverField<T>::SiteMatrix(int site) const {
  RequireSite(lattice_, site, "CloverField::SiteMatrix");
  return DenseFromBlocks(blocks_[site], params_.basis);
}

template <typename T>
SpinColorMatrix<T> CloverField<T>::SiteInverse(int site) const {
  RequireSite(lattice_, site, "CloverField::SiteInverse");
  return DenseFromBlocks(inverse_blocks_[site], params_.basis);
}

namespace {

template <typename T, typename SiteOp>
void ApplySiteByParity(SpinorField<T>& out, const CloverField<T>& clover, const SpinorField<T>& in, const char* where,
                       const SiteOp& op) {
  RequireSameLattice(clover.lattice(), in.lattice(), where);
  SpinorField<T> result(in.lattice(), in.subset());
  for (int i = 0; i < in.sites(); ++i) result[i] = op(in.SiteIndex(i), in[i]);
  out = std::move(result);
}

template <typename T>
void RequireOperands(const GaugeField<T>& u, const CloverField<T>& clover, const SpinorField<T>& in,
                     const SpinorField<T>& out, const char* where) {
  RequireSameLattice(u.lattice(), in.lattice(), where);
  RequireSameLattice(clover.lattice(), in.lattice(), where);
  if (&out == &in) throw std::invalid_argument(std::string(where) + ": out and in must be different fields");
}

}  // namespace

template <typename T>
void ApplyCloverBlocks(SpinorField<T>& out, const CloverField<T>& clover, const SpinorField<T>& in) {
  ApplySiteByParity(out, clover, in, "ApplyCloverBlocks",
                    [&](int site, const SiteSpinor<T>& psi) { return clover.Apply(site, psi); });
}

template <typename T>
void ApplyCloverInverseBlocks(SpinorField<T>& out, const CloverField<T>& clover, const SpinorField<T>& in) {
  ApplySiteByParity(out, clover, in, "ApplyCloverInverseBlocks",
                    [&](int site, const SiteSpinor<T>& psi) { return clover.ApplyInverse(site, psi); });
}

template <typename T>
void ApplyWilsonClover(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                       const SpinorField<T>& in, Dagger dagger) {
  RequireOperands(u, clover, in, out, "ApplyWilsonClover");
  if (in.subset() != Subset::kFull) {
    throw std::invalid_argument("ApplyWilsonClover: input must be a full-lattice field");
  }
  const CloverParams& p = clover.params();
  SpinorField<T> hopped(in.lattice());
  ApplyHopping(hopped, u, in, p.basis, p.boundary, dagger);
  SpinorField<T> result(in.lattice());
  ApplyCloverBlocks(result, clover, in);
  Axpy(Complex<double>(-0.5), hopped, result);  // T in - D in / 2
  out = std::move(result);
}

template <typename T>
void ApplyWilsonCloverNormal(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                             const SpinorField<T>& in) {
  SpinorField<T> m_in(in.lattice());
  ApplyWilsonClover(m_in, u, clover, in, Dagger::kNo);
  ApplyWilsonClover(out, u, clover, m_in, Dagger::kYes);
}

template <typename T>
void ApplyCloverSchur(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                      const SpinorField<T>& in, CloverSchurForm form, Dagger dagger) {
  RequireOperands(u, clover, in, out, "ApplyCloverSchur");
  if (in.subset() == Subset::kFull) {
    throw std::invalid_argument("ApplyCloverSchur: input must be a single-parity field");
  }
  const CloverParams& p = clover.params();
  const Parity other = Opposite(in.parity());
  SpinorField<T> on_other(in.lattice(), SubsetOf(other));
  SpinorField<T> back(in.lattice(), in.subset());
  if (form == CloverSchurForm::kUnitDiagonal && dagger == Dagger::kYes) {
    // Mhat^dag = 1 - (1/4) D^dag_pp' T_p'p'^{-1} D^dag_p'p T_pp^{-1}: the inverse on p comes first.
    ApplyCloverInverseBlocks(back, clover, in);
    ApplyHoppingParity(on_other, u, back, p.basis, p.boundary, Dagger::kYes);
    ApplyCloverInverseBlocks(on_other, clover, on_other);
    ApplyHoppingParity(back, u, on_other, p.basis, p.boundary, Dagger::kYes);
    Xpay(in, Complex<double>(-0.25), back);  // in - back / 4
    out = std::move(back);
    return;
  }
  ApplyHoppingParity(on_other, u, in, p.basis, p.boundary, dagger);    // D_p'p in
  ApplyCloverInverseBlocks(on_other, clover, on_other);                // T_p'p'^{-1} D_p'p in
  ApplyHoppingParity(back, u, on_other, p.basis, p.boundary, dagger);  // D_pp' T^{-1} D in
  if (form == CloverSchurForm::kUnitDiagonal) {
    ApplyCloverInverseBlocks(back, clover, back);
    Xpay(in, Complex<double>(-0.25), back);  // in - T_pp^{-1} D T^{-1} D in / 4
    out = std::move(back);
  } else {
    SpinorField<T> result(in.lattice(), in.subset());
    ApplyCloverBlocks(result, clover, in);
    Axpy(Complex<double>(-0.25), back, result);  // T_pp in - D T^{-1} D in / 4
    out = std::move(result);
  }
}

template <typename T>
void ApplyCloverSchurNormal(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                            const SpinorField<T>& in, CloverSchurForm form) {
  SpinorField<T> x_in(in.lattice(), in.subset());
  ApplyCloverSchur(x_in, u, clover, in, form, Dagger::kNo);
  ApplyCloverSchur(out, u, clover, x_in, form, Dagger::kYes);
}

template <typename T>
SpinorField<T> PrepareCloverSchurSource(const GaugeField<T>& u, const CloverField<T>& clover, const SpinorField<T>& b,
                                        Parity parity, CloverSchurForm form) {
  RequireSameLattice(u.lattice(), b.lattice(), "PrepareCloverSchurSource");
  RequireSameLattice(clover.lattice(), b.lattice(), "PrepareCloverSchurSource");
  if (b.subset() != Subset::kFull) {
    throw std::invalid_argument("PrepareCloverSchurSource: source must be a full-lattice field");
  }
  const CloverParams& p = clover.params();
  SpinorField<T> other = Extract(b, Opposite(parity));
  ApplyCloverInverseBlocks(other, clover, other);  // T_p'p'^{-1} b_p'
  SpinorField<T> source(b.lattice(), SubsetOf(parity));
  ApplyHoppingParity(source, u, other, p.basis, p.boundary, Dagger::kNo);
  Xpay(Extract(b, parity), Complex<double>(0.5), source);  // b_p + D_pp' T^{-1} b_p' / 2
  if (form == CloverSchurForm::kUnitDiagonal) ApplyCloverInverseBlocks(source, clover, source);
  return source;
}

template <typename T>
SpinorField<T> ReconstructCloverSolution(const GaugeField<T>& u, const CloverField<T>& clover,
                                         const SpinorField<T>& x_p, const SpinorField<T>& b) {
  RequireSameLattice(u.lattice(), b.lattice(), "ReconstructCloverSolution");
  RequireSameLattice(clover.lattice(), b.lattice(), "ReconstructCloverSolution");
  RequireSameLattice(x_p.lattice(), b.lattice(), "ReconstructCloverSolution");
  if (x_p.subset() == Subset::kFull || b.subset() != Subset::kFull) {
    throw std::invalid_argument("ReconstructCloverSolution: needs a single-parity solution and a full-lattice source");
  }
  const CloverParams& p = clover.params();
  const Parity other = Opposite(x_p.parity());
  SpinorField<T> x_other(b.lattice(), SubsetOf(other));
  ApplyHoppingParity(x_other, u, x_p, p.basis, p.boundary, Dagger::kNo);  // D_p'p x_p
  Xpay(Extract(b, other), Complex<double>(0.5), x_other);                 // b_p' + D x_p / 2
  ApplyCloverInverseBlocks(x_other, clover, x_other);
  SpinorField<T> x(b.lattice());
  Insert(x, x_p);
  Insert(x, x_other);
  return x;
}

#define LQCD_INSTANTIATE_CLOVER(T)                                                                                  \
  template ColorMatrix<double> CloverLeaves(const GaugeField<T>&, int, int, int);                                   \
  template ColorMatrix<double> FieldStrength(const GaugeField<T>&, int, int, int, CloverTrace);                     \
  template SpinColorMatrix<double> CloverTermMatrix(const GaugeField<T>&, int, double, GammaBasis, CloverTrace);    \
  template class CloverField<T>;                                                                                    \
  template void ApplyCloverBlocks(SpinorField<T>&, const CloverField<T>&, const SpinorField<T>&);                   \
  template void ApplyCloverInverseBlocks(SpinorField<T>&, const CloverField<T>&, const SpinorField<T>&);            \
  template void ApplyWilsonClover(SpinorField<T>&, const GaugeField<T>&, const CloverField<T>&,                     \
                                  const SpinorField<T>&, Dagger);                                                   \
  template void ApplyWilsonCloverNormal(SpinorField<T>&, const GaugeField<T>&, const CloverField<T>&,               \
                                        const SpinorField<T>&);                                                     \
  template void ApplyCloverSchur(SpinorField<T>&, const GaugeField<T>&, const CloverField<T>&,                      \
                                 const SpinorField<T>&, CloverSchurForm, Dagger);                                   \
  template void ApplyCloverSchurNormal(SpinorField<T>&, const GaugeField<T>&, const CloverField<T>&,                \
                                       const SpinorField<T>&, CloverSchurForm);                                     \
  template SpinorField<T> PrepareCloverSchurSource(const GaugeField<T>&, const CloverField<T>&,                     \
                                                   const SpinorField<T>&, Parity, CloverSchurForm);                 \
  template SpinorField<T> ReconstructCloverSolution(const GaugeField<T>&, const CloverField<T>&,                    \
                                                    const SpinorField<T>&, const SpinorField<T>&);

LQCD_INSTANTIATE_CLOVER(double)
LQCD_INSTANTIATE_CLOVER(float)
#undef LQCD_INSTANTIATE_CLOVER

}  // namespace lqcd
