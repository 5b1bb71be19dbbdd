// staggered_dslash.cc: the staggered Dslash and the operators built on it (see staggered_dslash.h). One site
// kernel, DslashAtSite, serves the full-lattice and the single-parity operators; they differ only in how a
// neighbour's colour vector is found. The loops over output sites run on every core (OpenMP): each site is
// computed by one thread in the same order of operations, so the result is the same bit for bit for any thread
// count.
#include "reference/staggered/staggered_dslash.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/staggered/staggered_phases.h"

namespace lqcd {
namespace {

// (D psi)(site) times `overall` (+1 for D, -1 for D^dag = -D; an exact sign). Terms in the order
// mu = 0..3: fat forward, fat backward, long forward, long backward. neighbour(site') returns psi there.
template <typename T, typename Neighbour>
ColorVector<T> DslashAtSite(const StaggeredLinks<T>& links, const StaggeredPhases& phases,
                            const FermionBoundary& boundary, int site, T overall, const Neighbour& neighbour) {
  const Lattice& lat = links.lattice();
  ColorVector<T> sum = ColorVector<T>::Zero();
  for (int mu = 0; mu < kDims; ++mu) {
    const T eta = overall * static_cast<T>(phases.eta(site, mu));
    const int up = lat.Forward(site, mu);
    const T up_sign = static_cast<T>(HopBoundarySign(lat, boundary, site, mu, 1, true));
    sum += (eta * up_sign) * (links.fat.Link(site, mu) * neighbour(up));
    const int down = lat.Backward(site, mu);
    const T down_sign = static_cast<T>(HopBoundarySign(lat, boundary, site, mu, 1, false));
    sum -= (eta * down_sign) * (links.fat.Link(down, mu).adjoint() * neighbour(down));
    if (links.long_links) {
      const GaugeField<T>& l = *links.long_links;
      const int up3 = lat.Forward(lat.Forward(up, mu), mu);
      const T up3_sign = static_cast<T>(HopBoundarySign(lat, boundary, site, mu, 3, true));
      sum += (eta * up3_sign) * (l.Link(site, mu) * neighbour(up3));
      const int down3 = lat.Backward(lat.Backward(down, mu), mu);
      const T down3_sign = static_cast<T>(HopBoundarySign(lat, boundary, site, mu, 3, false));
      sum -= (eta * down3_sign) * (l.Link(down3, mu).adjoint() * neighbour(down3));
    }
  }
  return sum;
}

void RequireSameLattice(const Lattice& links, const Lattice& field, const char* where) {
  if (links != field) {
    throw std::invalid_argument(std::string(where) + ": links on " + links.ToString() + " but field on " +
                                field.ToString());
  }
}

void RequireFiniteMass(const StaggeredParams& params, const char* where) {
  if (!std::isfinite(params.mass)) {
    throw std::invalid_argument(std::string(where) + ": mass must be finite, got " + std::to_string(params.mass));
  }
}

void RequireNonzeroMass(const StaggeredParams& params, const char* where) {
  RequireFiniteMass(params, where);
  if (params.mass == 0.0) throw std::invalid_argument(std::string(where) + ": needs m != 0 (it divides by 2m)");
}

}  // namespace

template <typename T>
void RequireUsableLinks(const StaggeredLinks<T>& links, const char* where) {
  if (!links.long_links) return;
  const Lattice& lat = links.fat.lattice();
  if (links.long_links->lattice() != lat) {
    throw std::invalid_argument(std::string(where) + ": fat links on " + lat.ToString() + " but long links on " +
                                links.long_links->lattice().ToString());
  }
  for (int mu = 0; mu < kDims; ++mu) {
    if (lat.extent(mu) < 3) {
      throw std::invalid_argument(std::string(where) + ": long links need every extent >= 3 (the 3-link hop " +
                                  "would wrap onto itself); lattice " + lat.ToString() + " has extent " +
                                  std::to_string(lat.extent(mu)) + " in direction " + std::to_string(mu));
    }
  }
}

template <typename T>
void ApplyStaggeredDslash(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                          const FermionBoundary& boundary, Dagger dagger) {
  RequireUsableLinks(links, "ApplyStaggeredDslash");
  RequireSameLattice(links.lattice(), in.lattice(), "ApplyStaggeredDslash");
  if (in.subset() != Subset::kFull) {
    throw std::invalid_argument("ApplyStaggeredDslash: input must be a full-lattice field (use ApplyStaggeredDslashParity)");
  }
  if (&out == &in) throw std::invalid_argument("ApplyStaggeredDslash: out and in must be different fields");
  const StaggeredPhases phases(in.lattice());
  const T overall = dagger == Dagger::kNo ? T(1) : T(-1);
  ColourVectorField<T> result(in.lattice());
#pragma omp parallel for schedule(static)
  for (int site = 0; site < in.sites(); ++site) {
    result[site] = DslashAtSite(links, phases, boundary, site, overall,
                                [&](int n) -> const ColorVector<T>& { return in[n]; });
  }
  out = std::move(result);
}

template <typename T>
void ApplyStaggeredDslashParity(ColourVectorField<T>& out, const StaggeredLinks<T>& links,
                                const ColourVectorField<T>& in, const FermionBoundary& boundary, Dagger dagger) {
  RequireUsableLinks(links, "ApplyStaggeredDslashParity");
  RequireSameLattice(links.lattice(), in.lattice(), "ApplyStaggeredDslashParity");
  if (in.subset() == Subset::kFull) {
    throw std::invalid_argument("ApplyStaggeredDslashParity: input must be a single-parity field");
  }
  if (&out == &in) throw std::invalid_argument("ApplyStaggeredDslashParity: out and in must be different fields");
  const StaggeredPhases phases(in.lattice());
  const T overall = dagger == Dagger::kNo ? T(1) : T(-1);
  ColourVectorField<T> result(in.lattice(), SubsetOf(Opposite(in.parity())));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < result.sites(); ++i) {
    result[i] = DslashAtSite(links, phases, boundary, result.SiteIndex(i), overall,
                             [&](int n) -> const ColorVector<T>& { return in[Lattice::CheckerboardIndex(n)]; });
  }
  out = std::move(result);
}

template <typename T>
void ApplyStaggered(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                    const StaggeredParams& params, Dagger dagger) {
  RequireFiniteMass(params, "ApplyStaggered");
  if (&out == &in) throw std::invalid_argument("ApplyStaggered: out and in must be different fields");
  ColourVectorField<T> d_in(in.lattice());
  ApplyStaggeredDslash(d_in, links, in, params.boundary, dagger);
  Axpy(Complex<double>(2.0 * params.mass), in, d_in);  // d_in <- 2m in +- D in
  out = std::move(d_in);
}

template <typename T>
void ApplyStaggeredNormal(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                          const StaggeredParams& params) {
  if (&out == &in) throw std::invalid_argument("ApplyStaggeredNormal: out and in must be different fields");
  ColourVectorField<T> m_in(in.lattice());
  ApplyStaggered(m_in, links, in, params, Dagger::kNo);
  ApplyStaggered(out, links, m_in, params, Dagger::kYes);
}

template <typename T>
void ApplyStaggeredSchur(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                         const StaggeredParams& params) {
  RequireFiniteMass(params, "ApplyStaggeredSchur");
  if (in.subset() == Subset::kFull) throw std::invalid_argument("ApplyStaggeredSchur: input must be a single-parity field");
  if (&out == &in) throw std::invalid_argument("ApplyStaggeredSchur: out and in must be different fields");
  ColourVectorField<T> other(in.lattice(), SubsetOf(Opposite(in.parity())));
  ApplyStaggeredDslashParity(other, links, in, params.boundary, Dagger::kNo);
  ColourVectorField<T> back(in.lattice(), in.subset());
  ApplyStaggeredDslashParity(back, links, other, params.boundary, Dagger::kNo);
  Scale(Complex<double>(-1.0), back);                                    // exact
  Axpy(Complex<double>(4.0 * params.mass * params.mass), in, back);      // 4m^2 in - D D in
  out = std::move(back);
}

template <typename T>
ColourVectorField<T> PrepareStaggeredSchurSource(const StaggeredLinks<T>& links, const ColourVectorField<T>& b,
                                                 const StaggeredParams& params, Parity parity) {
  RequireFiniteMass(params, "PrepareStaggeredSchurSource");
  if (b.subset() != Subset::kFull) {
    throw std::invalid_argument("PrepareStaggeredSchurSource: source must be a full-lattice field");
  }
  ColourVectorField<T> hopped(b.lattice(), SubsetOf(parity));
  ApplyStaggeredDslashParity(hopped, links, Extract(b, Opposite(parity)), params.boundary, Dagger::kNo);
  Scale(Complex<double>(-1.0), hopped);                                  // exact
  Axpy(Complex<double>(2.0 * params.mass), Extract(b, parity), hopped);  // 2m b_p - D b_p'
  return hopped;
}

template <typename T>
ColourVectorField<T> ReconstructStaggeredSolution(const StaggeredLinks<T>& links, const ColourVectorField<T>& x_p,
                                                  const ColourVectorField<T>& b, const StaggeredParams& params) {
  RequireNonzeroMass(params, "ReconstructStaggeredSolution");
  if (x_p.subset() == Subset::kFull || b.subset() != Subset::kFull) {
    throw std::invalid_argument("ReconstructStaggeredSolution: needs a single-parity solution and a full-lattice source");
  }
  const Parity other = Opposite(x_p.parity());
  ColourVectorField<T> x_other(b.lattice(), SubsetOf(other));
  ApplyStaggeredDslashParity(x_other, links, x_p, params.boundary, Dagger::kNo);  // D x_p
  Xpay(Extract(b, other), Complex<double>(-1.0), x_other);                        // b_p' - D x_p
  Scale(Complex<double>(1.0 / (2.0 * params.mass)), x_other);
  ColourVectorField<T> x(b.lattice());
  Insert(x, x_p);
  Insert(x, x_other);
  return x;
}

#define LQCD_INSTANTIATE_STAGGERED(T)                                                                              \
  template void RequireUsableLinks(const StaggeredLinks<T>&, const char*);                                          \
  template void ApplyStaggeredDslash(ColourVectorField<T>&, const StaggeredLinks<T>&, const ColourVectorField<T>&,  \
                                     const FermionBoundary&, Dagger);                                               \
  template void ApplyStaggeredDslashParity(ColourVectorField<T>&, const StaggeredLinks<T>&,                         \
                                           const ColourVectorField<T>&, const FermionBoundary&, Dagger);            \
  template void ApplyStaggered(ColourVectorField<T>&, const StaggeredLinks<T>&, const ColourVectorField<T>&,        \
                               const StaggeredParams&, Dagger);                                                     \
  template void ApplyStaggeredNormal(ColourVectorField<T>&, const StaggeredLinks<T>&, const ColourVectorField<T>&,  \
                                     const StaggeredParams&);                                                       \
  template void ApplyStaggeredSchur(ColourVectorField<T>&, const StaggeredLinks<T>&, const ColourVectorField<T>&,   \
                                    const StaggeredParams&);                                                        \
  template ColourVectorField<T> PrepareStaggeredSchurSource(const StaggeredLinks<T>&, const ColourVectorField<T>&,  \
                                                            const StaggeredParams&, Parity);                        \
  template ColourVectorField<T> ReconstructStaggeredSolution(const StaggeredLinks<T>&, const ColourVectorField<T>&, \
                                                             const ColourVectorField<T>&, const StaggeredParams&);

LQCD_INSTANTIATE_STAGGERED(double)
LQCD_INSTANTIATE_STAGGERED(float)
#undef LQCD_INSTANTIATE_STAGGERED

}  // namespace lqcd
