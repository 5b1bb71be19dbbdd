// staggered_phases.h: the Kawamoto-Smit phases of staggered fermions, the parity sign epsilon, and the
// fermion boundary sign of a hop of several links.
//
// Computes (docs/conventions.md, "Staggered fermions"):
//   - StaggeredEta(n, mu) = eta_mu(n) = (-1)^(n_0 + ... + n_{mu-1}), directions mu = 0..3 = x, y, z, t:
//         eta_x = 1,  eta_y = (-1)^x,  eta_z = (-1)^(x+y),  eta_t = (-1)^(x+y+z).
//     This is MILC's convention (x first, t last; the paper's eta_1 = 1). eta_mu(n) does not depend on
//     n_mu, so eta_mu(n + k mu) = eta_mu(n) for any k, which makes the staggered Dslash anti-Hermitian.
//     Phases are NOT folded into the links: the links stay the gauge (or smeared) links and the Dslash
//     multiplies by eta. (MILC folds eta, and the antiperiodic boundary, into its links; same operator.)
//   - StaggeredEpsilon(n) = epsilon(n) = (-1)^(x+y+z+t): +1 on even sites, -1 on odd ones.
//     epsilon D epsilon = -D because D connects only sites of opposite parity.
//   - HopBoundarySign(lattice, boundary, site, mu, steps, forward): the factor of the hop from n to
//     n + steps mu (forward) or n - steps mu (backward): WrapSign(mu)^c, c = the number of times the
//     straight path of `steps` links crosses the boundary n_mu = L_mu - 1 -> 0 (walking one link at a time,
//     Lattice::ForwardCrossesBoundary). For steps <= L_mu, c is 0 or 1.
//   - StaggeredPhases(lattice): eta_mu(n) and epsilon(n) tabulated per lexicographic site.
// The fermion boundary (fermion_boundary.h; antiperiodic in time by default) is applied by the operators,
// not stored in the phases.
// Errors: steps < 1 throws std::invalid_argument. Aliasing: none (values only).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/fermion_boundary.h"
#include "reference/lattice.h"
#include "reference/types.h"

namespace lqcd {

// eta_mu(n) = (-1)^(n_0 + ... + n_{mu-1}): +1 or -1.
int StaggeredEta(const Coordinates& n, int mu);

// epsilon(n) = (-1)^(n_0 + n_1 + n_2 + n_3): +1 or -1.
int StaggeredEpsilon(const Coordinates& n);

// WrapSign(mu)^(number of boundary crossings of the path n -> n +- steps mu); +1.0 or -1.0.
double HopBoundarySign(const Lattice& lattice, const FermionBoundary& boundary, int site, int mu, int steps,
                       bool forward);

// The phases of every site, looked up in the operators' inner loop.
class StaggeredPhases {
 public:
  explicit StaggeredPhases(const Lattice& lattice);

  int eta(int site, int mu) const { return eta_[kDims * static_cast<std::size_t>(site) + mu]; }
  int epsilon(int site) const { return epsilon_[site]; }

 private:
  std::vector<std::int8_t> eta_;
  std::vector<std::int8_t> epsilon_;
};

}  // namespace lqcd
