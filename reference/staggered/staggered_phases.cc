// staggered_phases.cc: eta_mu(n), epsilon(n) and multi-link boundary signs (see staggered_phases.h).
#include "reference/staggered/staggered_phases.h"

#include <stdexcept>
#include <string>

namespace lqcd {

int StaggeredEta(const Coordinates& n, int mu) {
  int sum = 0;
  for (int nu = 0; nu < mu; ++nu) sum += n[nu];
  return (sum & 1) ? -1 : 1;
}

int StaggeredEpsilon(const Coordinates& n) { return ((n[0] + n[1] + n[2] + n[3]) & 1) ? -1 : 1; }

double HopBoundarySign(const Lattice& lattice, const FermionBoundary& boundary, int site, int mu, int steps,
                       bool forward) {
  if (steps < 1) throw std::invalid_argument("HopBoundarySign: steps must be >= 1, got " + std::to_string(steps));
  double sign = 1.0;
  for (int k = 0; k < steps; ++k) {
    if (forward) {
      if (lattice.ForwardCrossesBoundary(site, mu)) sign *= boundary.WrapSign(mu);
      site = lattice.Forward(site, mu);
    } else {
      if (lattice.BackwardCrossesBoundary(site, mu)) sign *= boundary.WrapSign(mu);
      site = lattice.Backward(site, mu);
    }
  }
  return sign;
}

StaggeredPhases::StaggeredPhases(const Lattice& lattice)
    : eta_(kDims * static_cast<std::size_t>(lattice.volume())), epsilon_(lattice.volume()) {
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) eta_[kDims * static_cast<std::size_t>(site) + mu] = static_cast<std::int8_t>(StaggeredEta(n, mu));
    epsilon_[site] = static_cast<std::int8_t>(StaggeredEpsilon(n));
  }
}

}  // namespace lqcd
