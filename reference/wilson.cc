// wilson.cc: the Wilson-Dirac operator (see wilson.h). One site kernel, HoppingAtSite (the terms of
// wilson_stencil.h), serves the full-lattice and the single-parity operators; they differ only in how a
// neighbour's spinor is found.
#include "reference/wilson.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/spinor_algebra.h"
#include "reference/wilson_stencil.h"

namespace lqcd {

double WilsonParams::kappa() const {
  if (!std::isfinite(mass) || !(4.0 + mass > 0.0)) {
    throw std::invalid_argument("WilsonParams: need 4 + m > 0 and finite, got m = " + std::to_string(mass));
  }
  return 1.0 / (2.0 * (4.0 + mass));
}

WilsonParams WilsonParams::FromKappa(double kappa, GammaBasis basis, FermionBoundary boundary) {
  if (!std::isfinite(kappa) || !(kappa > 0.0)) {
    throw std::invalid_argument("WilsonParams::FromKappa: kappa must be positive and finite, got " +
                                std::to_string(kappa));
  }
  WilsonParams p;
  p.mass = 1.0 / (2.0 * kappa) - 4.0;
  p.basis = basis;
  p.boundary = boundary;
  return p;
}

namespace {

// (D psi)(site); neighbour(site') returns psi at lexicographic site'. The terms are wilson_stencil.h's.
template <typename T, typename Neighbour>
SiteSpinor<T> HoppingAtSite(const GaugeField<T>& u, int site, const HopProjectors<T>& proj,
                            const FermionBoundary& boundary, const Neighbour& neighbour) {
  SiteSpinor<T> sum = SiteSpinor<T>::Zero();
  ForEachHop(u, site, boundary, [&](const Hop<T>& hop) { AddHopTerm(sum, proj, hop, neighbour(hop.site)); });
  return sum;
}

void RequireSameLattice(const Lattice& a, const Lattice& b, const char* where) {
  if (a != b) {
    throw std::invalid_argument(std::string(where) + ": gauge field on " + a.ToString() + " but spinor on " +
                                b.ToString());
  }
}

}  // namespace

template <typename T>
void ApplyHopping(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, GammaBasis basis,
                  const FermionBoundary& boundary, Dagger dagger) {
  RequireSameLattice(u.lattice(), in.lattice(), "ApplyHopping");
  if (in.subset() != Subset::kFull) throw std::invalid_argument("ApplyHopping: input must be a full-lattice field");
  if (&out == &in) throw std::invalid_argument("ApplyHopping: out and in must be different fields");
  const HopProjectors<T> proj(basis, dagger);
  SpinorField<T> result(in.lattice());
#pragma omp parallel for schedule(static)
  for (int site = 0; site < in.sites(); ++site) {
    result[site] = HoppingAtSite(u, site, proj, boundary, [&](int n) -> const SiteSpinor<T>& { return in[n]; });
  }
  out = std::move(result);
}

template <typename T>
void ApplyHoppingParity(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, GammaBasis basis,
                        const FermionBoundary& boundary, Dagger dagger) {
  RequireSameLattice(u.lattice(), in.lattice(), "ApplyHoppingParity");
  if (in.subset() == Subset::kFull) throw std::invalid_argument("ApplyHoppingParity: input must be a single-parity field");
  if (&out == &in) throw std::invalid_argument("ApplyHoppingParity: out and in must be different fields");
  const HopProjectors<T> proj(basis, dagger);
  SpinorField<T> result(in.lattice(), SubsetOf(Opposite(in.parity())));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < result.sites(); ++i) {
    result[i] = HoppingAtSite(u, result.SiteIndex(i), proj, boundary,
                              [&](int n) -> const SiteSpinor<T>& { return in[Lattice::CheckerboardIndex(n)]; });
  }
  out = std::move(result);
}

template <typename T>
void ApplyWilson(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, const WilsonParams& params,
                 Dagger dagger) {
  const double kappa = params.kappa();
  SpinorField<T> d_in(in.lattice());
  ApplyHopping(d_in, u, in, params.basis, params.boundary, dagger);
  // M in = (4 + m) in - D in / 2 = (1 / 2 kappa) in - D in / 2
  Xpay(in, Complex<double>(-kappa), d_in);  // d_in <- in - kappa D in
  Scale(Complex<double>(1.0 / (2.0 * kappa)), d_in);
  out = std::move(d_in);
}

template <typename T>
void ApplyWilsonNormal(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in,
                       const WilsonParams& params) {
  SpinorField<T> m_in(in.lattice());
  ApplyWilson(m_in, u, in, params, Dagger::kNo);
  ApplyWilson(out, u, m_in, params, Dagger::kYes);
}

template <typename T>
void ApplySchur(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, const WilsonParams& params,
                Dagger dagger) {
  if (in.subset() == Subset::kFull) throw std::invalid_argument("ApplySchur: input must be a single-parity field");
  if (&out == &in) throw std::invalid_argument("ApplySchur: out and in must be different fields");
  const double kappa = params.kappa();
  SpinorField<T> other(in.lattice(), SubsetOf(Opposite(in.parity())));
  ApplyHoppingParity(other, u, in, params.basis, params.boundary, dagger);
  SpinorField<T> back(in.lattice(), in.subset());
  ApplyHoppingParity(back, u, other, params.basis, params.boundary, dagger);
  Xpay(in, Complex<double>(-kappa * kappa), back);  // back <- in - kappa^2 D D in
  out = std::move(back);
}

template <typename T>
void ApplySchurNormal(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in,
                      const WilsonParams& params) {
  SpinorField<T> m_in(in.lattice(), in.subset());
  ApplySchur(m_in, u, in, params, Dagger::kNo);
  ApplySchur(out, u, m_in, params, Dagger::kYes);
}

template <typename T>
SpinorField<T> PrepareSchurSource(const GaugeField<T>& u, const SpinorField<T>& b, const WilsonParams& params,
                                  Parity parity) {
  if (b.subset() != Subset::kFull) throw std::invalid_argument("PrepareSchurSource: source must be a full-lattice field");
  const double kappa = params.kappa();
  SpinorField<T> hopped(b.lattice(), SubsetOf(parity));
  ApplyHoppingParity(hopped, u, Extract(b, Opposite(parity)), params.basis, params.boundary, Dagger::kNo);
  Xpay(Extract(b, parity), Complex<double>(kappa), hopped);  // b_p + kappa D b_p'
  Scale(Complex<double>(2.0 * kappa), hopped);
  return hopped;
}

template <typename T>
SpinorField<T> ReconstructSolution(const GaugeField<T>& u, const SpinorField<T>& x_p, const SpinorField<T>& b,
                                   const WilsonParams& params) {
  if (x_p.subset() == Subset::kFull || b.subset() != Subset::kFull) {
    throw std::invalid_argument("ReconstructSolution: needs a single-parity solution and a full-lattice source");
  }
  const double kappa = params.kappa();
  const Parity other = Opposite(x_p.parity());
  SpinorField<T> x_other(b.lattice(), SubsetOf(other));
  ApplyHoppingParity(x_other, u, x_p, params.basis, params.boundary, Dagger::kNo);  // D x_p
  Scale(Complex<double>(kappa), x_other);
  Axpy(Complex<double>(2.0 * kappa), Extract(b, other), x_other);  // + 2 kappa b_p'
  SpinorField<T> x(b.lattice());
  Insert(x, x_p);
  Insert(x, x_other);
  return x;
}

#define LQCD_INSTANTIATE_WILSON(T)                                                                                 \
  template void ApplyHopping(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&, GammaBasis,             \
                             const FermionBoundary&, Dagger);                                                      \
  template void ApplyHoppingParity(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&, GammaBasis,       \
                                   const FermionBoundary&, Dagger);                                                \
  template void ApplyWilson(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&, const WilsonParams&,     \
                            Dagger);                                                                               \
  template void ApplyWilsonNormal(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&,                    \
                                  const WilsonParams&);                                                            \
  template void ApplySchur(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&, const WilsonParams&,      \
                           Dagger);                                                                                \
  template void ApplySchurNormal(SpinorField<T>&, const GaugeField<T>&, const SpinorField<T>&,                     \
                                 const WilsonParams&);                                                             \
  template SpinorField<T> PrepareSchurSource(const GaugeField<T>&, const SpinorField<T>&, const WilsonParams&,     \
                                             Parity);                                                              \
  template SpinorField<T> ReconstructSolution(const GaugeField<T>&, const SpinorField<T>&, const SpinorField<T>&,  \
                                              const WilsonParams&);

LQCD_INSTANTIATE_WILSON(double)
LQCD_INSTANTIATE_WILSON(float)
#undef LQCD_INSTANTIATE_WILSON

}  // namespace lqcd
