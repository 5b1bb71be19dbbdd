// fermion_boundary.h: boundary conditions of the quark fields, one per direction.
//
// Periodic: psi(n + L_mu mu) = psi(n). Antiperiodic: psi(n + L_mu mu) = -psi(n), the usual choice in
// time (it gives the thermal trace of fermions). The Dirac operators apply the sign to every hop that
// wraps around the lattice (Lattice::ForwardCrossesBoundary / BackwardCrossesBoundary); this equals
// flipping the sign of the links U_mu(n) with n_mu = L_mu - 1 inside the fermion operator only. The gauge
// field itself is always periodic.
#pragma once

#include <array>
#include <string>

#include "reference/types.h"

namespace lqcd {

enum class BoundaryCondition { kPeriodic, kAntiperiodic };

struct FermionBoundary {
  std::array<BoundaryCondition, kDims> condition{BoundaryCondition::kPeriodic, BoundaryCondition::kPeriodic,
                                                 BoundaryCondition::kPeriodic, BoundaryCondition::kAntiperiodic};

  // The default: periodic in space, antiperiodic in time.
  static FermionBoundary AntiperiodicTime() { return FermionBoundary{}; }
  static FermionBoundary Periodic() {
    FermionBoundary b;
    b.condition[3] = BoundaryCondition::kPeriodic;
    return b;
  }
  // Factor for a hop in direction mu that wraps around the lattice: +1 or -1.
  double WrapSign(int mu) const { return condition[mu] == BoundaryCondition::kAntiperiodic ? -1.0 : 1.0; }
  std::string ToString() const {
    std::string s;
    for (int mu = 0; mu < kDims; ++mu) s += (condition[mu] == BoundaryCondition::kAntiperiodic ? 'A' : 'P');
    return s;  // e.g. "PPPA"
  }
};

}  // namespace lqcd
