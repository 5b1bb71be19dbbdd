// plaquette.cc: MeasurePlaquette (plaquette.h), built with OpenMP.
#include "reference/plaquette.h"

#include <vector>

namespace lqcd {

template <typename T>
PlaquetteAverages MeasurePlaquette(const GaugeField<T>& u) {
  const Lattice& lat = u.lattice();
  const int volume = lat.volume();
  PlaquetteAverages out;
  std::vector<double> traces(volume);
  for (int mu = 0; mu < kDims; ++mu) {
    for (int nu = mu + 1; nu < kDims; ++nu) {
#pragma omp parallel for schedule(static)
      for (int site = 0; site < volume; ++site) traces[site] = static_cast<double>(Plaquette(u, site, mu, nu).trace().real());
      double sum = 0;
      for (int site = 0; site < volume; ++site) sum += traces[site];  // in site order: independent of the threads
      out.plane[mu][nu] = sum / (3.0 * lat.volume());
      out.total += out.plane[mu][nu] / 6;
      if (nu == 3) {
        out.temporal += out.plane[mu][nu] / 3;
      } else {
        out.spatial += out.plane[mu][nu] / 3;
      }
    }
  }
  return out;
}

template PlaquetteAverages MeasurePlaquette(const GaugeField<float>& u);
template PlaquetteAverages MeasurePlaquette(const GaugeField<double>& u);

}  // namespace lqcd
