// plaquette.h: gauge-invariant observables of a gauge field.
//
// The plaquette of the (mu, nu) plane at n is
//     U_p = U_mu(n) U_nu(n + mu) U_mu(n + nu)^dag U_nu(n)^dag,
// and the averages below are of Re Tr U_p / 3 (1 for the free field), over all sites and the planes
// named: "total" over the 6 planes, "spatial" over (xy, xz, yz), "temporal" over (xt, yt, zt).
// MILC prints the same averages NOT divided by 3; the NERSC header's PLAQUETTE is the total average.
// LinkTrace is <Re Tr U_mu(n)> / 3 over all sites and directions (NERSC's LINK_TRACE). Sums in double.
// Threads: MeasurePlaquette computes the plaquettes of a plane on all OpenMP threads and then sums them in site
// order on one, so its result is the same bits for any thread count; LinkTrace the same with the links' traces.
#pragma once

#include <array>

#include "reference/gauge_field.h"

namespace lqcd {

struct PlaquetteAverages {
  double total = 0, spatial = 0, temporal = 0;
  std::array<std::array<double, kDims>, kDims> plane{};  // plane[mu][nu] for mu < nu; zero elsewhere
};

template <typename T>
ColorMatrix<T> Plaquette(const GaugeField<T>& u, int site, int mu, int nu) {
  const Lattice& lat = u.lattice();
  return u.Link(site, mu) * u.Link(lat.Forward(site, mu), nu) * u.Link(lat.Forward(site, nu), mu).adjoint() *
         u.Link(site, nu).adjoint();
}

// Defined in plaquette.cc for T = float and double, which is built with OpenMP: a template defined here would
// be instantiated in every including object, and the linker keeps one of them, with or without threads.
template <typename T>
PlaquetteAverages MeasurePlaquette(const GaugeField<T>& u);
extern template PlaquetteAverages MeasurePlaquette(const GaugeField<float>& u);
extern template PlaquetteAverages MeasurePlaquette(const GaugeField<double>& u);

template <typename T>
double LinkTrace(const GaugeField<T>& u);
extern template double LinkTrace(const GaugeField<float>& u);
extern template double LinkTrace(const GaugeField<double>& u);

}  // namespace lqcd
