// plaquette.cc: MeasurePlaquette and LinkTrace (plaquette.h), built with OpenMP.
#include "reference/plaquette.h"

#include <cstdint>
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

template <typename T>
double LinkTrace(const GaugeField<T>& u) {
  const std::int64_t links = static_cast<std::int64_t>(u.links().size());
  std::vector<double> traces(links);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < links; ++i) traces[i] = static_cast<double>(u.links()[i].trace().real());
  double sum = 0;
  for (std::int64_t i = 0; i < links; ++i) sum += traces[i];  // in link order: independent of the threads
  return sum / (3.0 * links);
}

template double LinkTrace(const GaugeField<float>& u);
template double LinkTrace(const GaugeField<double>& u);

}  // namespace lqcd
