// staggered_phases_test: eta_mu(n) and epsilon(n) against their closed forms written out per direction,
// the property the Dslash's anti-Hermiticity rests on (eta_mu independent of n_mu), the table against the
// functions, and the multi-link boundary sign (crossings counted along the path). All exact integers.
#include "reference/staggered/staggered_phases.h"

#include <gtest/gtest.h>

namespace lqcd {
namespace {

TEST(StaggeredPhasesTest, EtaIsMilcConventionXFirst) {
  const Lattice lattice(4, 2, 6, 4);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    const int x = n[0], y = n[1], z = n[2];
    EXPECT_EQ(StaggeredEta(n, 0), 1);
    EXPECT_EQ(StaggeredEta(n, 1), x % 2 == 0 ? 1 : -1);
    EXPECT_EQ(StaggeredEta(n, 2), (x + y) % 2 == 0 ? 1 : -1);
    EXPECT_EQ(StaggeredEta(n, 3), (x + y + z) % 2 == 0 ? 1 : -1);
    EXPECT_EQ(StaggeredEpsilon(n), lattice.SiteParity(site) == Parity::kEven ? 1 : -1);
  }
}

TEST(StaggeredPhasesTest, EtaMuDoesNotDependOnNMu) {
  const Lattice lattice(4, 4, 4, 4);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) {
      Coordinates m = n;
      for (int k = 0; k < lattice.extent(mu); ++k) {
        m[mu] = k;
        EXPECT_EQ(StaggeredEta(m, mu), StaggeredEta(n, mu));
      }
    }
  }
}

TEST(StaggeredPhasesTest, TableMatchesFunctions) {
  const Lattice lattice(2, 4, 2, 6);
  const StaggeredPhases phases(lattice);
  for (int site = 0; site < lattice.volume(); ++site) {
    const Coordinates n = lattice.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) EXPECT_EQ(phases.eta(site, mu), StaggeredEta(n, mu));
    EXPECT_EQ(phases.epsilon(site), StaggeredEpsilon(n));
  }
}

TEST(StaggeredPhasesTest, HopBoundarySignCountsCrossings) {
  const Lattice lattice(4, 4, 4, 6);
  const FermionBoundary anti = FermionBoundary::AntiperiodicTime();
  for (int t = 0; t < 6; ++t) {
    const int site = lattice.Index({1, 2, 3, t});
    for (int steps : {1, 3}) {
      EXPECT_EQ(HopBoundarySign(lattice, anti, site, 3, steps, true), t + steps >= 6 ? -1.0 : 1.0) << t << " " << steps;
      EXPECT_EQ(HopBoundarySign(lattice, anti, site, 3, steps, false), t - steps < 0 ? -1.0 : 1.0) << t << " " << steps;
      // Periodic directions never change sign.
      EXPECT_EQ(HopBoundarySign(lattice, anti, site, 0, steps, true), 1.0);
      EXPECT_EQ(HopBoundarySign(lattice, FermionBoundary::Periodic(), site, 3, steps, false), 1.0);
    }
    // A path of 7 links on extent 6 crosses once or twice: the sign is (-1)^(crossings).
    const int crossings = (t + 7) / 6;
    EXPECT_EQ(HopBoundarySign(lattice, anti, site, 3, 7, true), crossings % 2 ? -1.0 : 1.0);
  }
  EXPECT_THROW(HopBoundarySign(lattice, anti, 0, 0, 0, true), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd
