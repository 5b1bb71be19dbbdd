// wilson_stencil.h: the Wilson hopping term at one site, written once. reference/wilson.cc applies it to
// one field; solvers/cpu_block_wilson.h applies the same terms to a block of fields sharing each link.
//
// (D psi)(n) = sum_mu [ s_+ (1 - gamma_mu) U_mu(n) psi(n + mu) + s_- (1 + gamma_mu) U_mu(n - mu)^dag psi(n - mu) ]
// (wilson.h; D^dag swaps the projectors), s_+/- = the boundary sign of a hop that wraps (fermion_boundary.h).
// In the 4x3 site layout (types.h) colour matrices act from the right: U psi is psi U^T, U^dag psi is
// psi conj(U).
//   HopProjectors<T>(basis, dagger)   the eight spin projectors of one application
//   ForEachHop(u, site, boundary, visit)   calls visit(hop) for the 8 hops of `site`, in the order
//                                     mu = 0..3, forward then backward: hop.site is the neighbour, hop.sign
//                                     its boundary sign, hop.link the link it crosses
//   AddHopTerm(sum, proj, hop, psi)   sum += that hop's term for the neighbour spinor psi
// Accumulating AddHopTerm over ForEachHop in this order IS the oracle's D; every user gets the same bits.
#pragma once

#include <array>

#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/types.h"
#include "reference/wilson.h"

namespace lqcd {

// Forward hops carry 1 - s gamma_mu, backward hops 1 + s gamma_mu, s = +1 for D and -1 for D^dag.
template <typename T>
struct HopProjectors {
  std::array<Eigen::Matrix<Complex<T>, 4, 4>, kDims> forward, backward;
  HopProjectors(GammaBasis basis, Dagger dagger) {
    const int s = dagger == Dagger::kNo ? 1 : -1;
    for (int mu = 0; mu < kDims; ++mu) {
      forward[mu] = Projector(basis, mu, -s).cast<Complex<T>>();
      backward[mu] = Projector(basis, mu, +s).cast<Complex<T>>();
    }
  }
};

template <typename T>
struct Hop {
  int mu;
  bool forward;                // n -> n + mu (link U_mu(n)) or n -> n - mu (link U_mu(n - mu), daggered)
  int site;                    // the neighbour, lexicographic
  T sign;                      // boundary sign of the hop
  const ColorMatrix<T>* link;  // the link the hop crosses
};

template <typename T, typename Visit>
void ForEachHop(const GaugeField<T>& u, int site, const FermionBoundary& boundary, Visit&& visit) {
  const Lattice& lat = u.lattice();
  for (int mu = 0; mu < kDims; ++mu) {
    const int up = lat.Forward(site, mu);
    visit(Hop<T>{mu, true, up, static_cast<T>(lat.ForwardCrossesBoundary(site, mu) ? boundary.WrapSign(mu) : 1.0),
                 &u.Link(site, mu)});
    const int down = lat.Backward(site, mu);
    visit(Hop<T>{mu, false, down,
                 static_cast<T>(lat.BackwardCrossesBoundary(site, mu) ? boundary.WrapSign(mu) : 1.0),
                 &u.Link(down, mu)});
  }
}

template <typename T>
void AddHopTerm(SiteSpinor<T>& sum, const HopProjectors<T>& proj, const Hop<T>& hop, const SiteSpinor<T>& psi) {
  if (hop.forward) {
    sum += hop.sign * (proj.forward[hop.mu] * psi * hop.link->transpose());
  } else {
    sum += hop.sign * (proj.backward[hop.mu] * psi * hop.link->conjugate());
  }
}

}  // namespace lqcd
