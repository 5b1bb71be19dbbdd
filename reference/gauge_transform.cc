// gauge_transform.cc: gauge transformations, Polyakov lines and temporal gauge fixing (see gauge_transform.h).
#include "reference/gauge_transform.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "reference/random.h"
#include "reference/su3.h"
#include "reference/su3_random.h"

namespace lqcd {
namespace {

template <typename T>
void RequireUnitary(const ColorMatrix<T>& m, const char* where, const char* what, int site) {
  bool finite = true;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) finite = finite && std::isfinite(m(i, j).real()) && std::isfinite(m(i, j).imag());
  }
  const double deviation = finite ? UnitarityDeviation(m) : INFINITY;
  if (!(deviation <= kMaxGaugeMatrixDeviation)) {
    std::ostringstream message;
    message << where << ": " << what << " at site " << site << " is not unitary (|M M^dag - 1| = " << deviation
            << ", at most " << kMaxGaugeMatrixDeviation << " accepted)";
    throw std::invalid_argument(message.str());
  }
}

template <typename T>
void RequireValidTransformation(const GaugeTransformation<T>& g, const Lattice& lattice, const char* where) {
  if (g.lattice() != lattice) {
    throw std::invalid_argument(std::string(where) + ": the gauge transformation lives on " + g.lattice().ToString() +
                                ", the field on " + lattice.ToString());
  }
  for (int site = 0; site < lattice.volume(); ++site) RequireUnitary(g[site], where, "g(n)", site);
}

}  // namespace

template <typename T>
GaugeTransformation<T> RandomGaugeTransformation(const Lattice& lattice, std::uint64_t seed) {
  GaugeTransformation<T> g(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    RandomStream rng(seed, static_cast<std::uint64_t>(site));
    g[site] = HaarRandomSU3<double>(rng).template cast<Complex<T>>();
  }
  return g;
}

template <typename T>
GaugeField<T> ApplyGaugeTransformation(const GaugeTransformation<T>& g, const GaugeField<T>& u) {
  const Lattice& lattice = u.lattice();
  RequireValidTransformation(g, lattice, "ApplyGaugeTransformation");
  GaugeField<T> out(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const ColorMatrix<T> left = g[site] * u.Link(site, mu);
      out.Link(site, mu) = left * g[lattice.Forward(site, mu)].adjoint();
    }
  }
  return out;
}

template <typename T>
SpinorField<T> ApplyGaugeTransformation(const GaugeTransformation<T>& g, const SpinorField<T>& psi) {
  RequireValidTransformation(g, psi.lattice(), "ApplyGaugeTransformation");
  SpinorField<T> out(psi.lattice(), psi.subset());
  // Each spin row of psi is a colour vector v; g v as a row is v^T g^T.
  for (int i = 0; i < psi.sites(); ++i) out[i] = psi[i] * g[psi.SiteIndex(i)].transpose();
  return out;
}

template <typename T>
ColorMatrix<T> PolyakovLine(const GaugeField<T>& u, int spatial_index) {
  const Lattice& lattice = u.lattice();
  const int spatial_volume = lattice.volume() / lattice.extent(3);
  if (spatial_index < 0 || spatial_index >= spatial_volume) {
    throw std::invalid_argument("PolyakovLine: spatial index " + std::to_string(spatial_index) + " outside [0, " +
                                std::to_string(spatial_volume) + ")");
  }
  ColorMatrix<T> line = u.Link(spatial_index, 3);
  for (int t = 1; t < lattice.extent(3); ++t) {
    const ColorMatrix<T> next = line * u.Link(spatial_index + spatial_volume * t, 3);
    line = next;
  }
  return line;
}

template <typename T>
TemporalGauge<T> TemporalGaugeFix(const GaugeField<T>& u) {
  const Lattice& lattice = u.lattice();
  const int lt = lattice.extent(3);
  const int spatial_volume = lattice.volume() / lt;
  for (int site = 0; site < lattice.volume(); ++site) RequireUnitary(u.Link(site, 3), "TemporalGaugeFix", "U_t", site);
  GaugeTransformation<T> g(lattice);  // g(s, 0) = 1
  for (int t = 0; t + 1 < lt; ++t) {
    for (int s = 0; s < spatial_volume; ++s) {
      const int site = s + spatial_volume * t;
      g[site + spatial_volume] = g[site] * u.Link(site, 3);
    }
  }
  GaugeField<T> fixed = ApplyGaugeTransformation(g, u);
  for (int site = 0; site < spatial_volume * (lt - 1); ++site) fixed.Link(site, 3) = ColorMatrix<T>::Identity();
  return TemporalGauge<T>{std::move(fixed), std::move(g)};
}

#define LQCD_INSTANTIATE_GAUGE_TRANSFORM(T)                                                                  \
  template GaugeTransformation<T> RandomGaugeTransformation<T>(const Lattice&, std::uint64_t);              \
  template GaugeField<T> ApplyGaugeTransformation<T>(const GaugeTransformation<T>&, const GaugeField<T>&);   \
  template SpinorField<T> ApplyGaugeTransformation<T>(const GaugeTransformation<T>&, const SpinorField<T>&); \
  template ColorMatrix<T> PolyakovLine<T>(const GaugeField<T>&, int);                                       \
  template TemporalGauge<T> TemporalGaugeFix<T>(const GaugeField<T>&);

LQCD_INSTANTIATE_GAUGE_TRANSFORM(float)
LQCD_INSTANTIATE_GAUGE_TRANSFORM(double)

#undef LQCD_INSTANTIATE_GAUGE_TRANSFORM

}  // namespace lqcd
