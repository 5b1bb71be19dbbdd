// wilson.h: the Wilson-Dirac operator of the paper's Eq. (1), its even-odd pieces and the Schur complement.
//
// Computes, for a gauge field U, mass m, gamma basis and fermion boundary conditions:
//   hopping term  (D psi)(n) = sum_mu [ (1 - gamma_mu) U_mu(n) psi(n + mu) + (1 + gamma_mu) U_mu(n - mu)^dag psi(n - mu) ]
//   Wilson matrix  M = (4 + m) - D / 2 = (1 / 2 kappa) (1 - kappa D),   kappa = 1 / (2 (4 + m))
//   D_eo, D_oe     D restricted to odd -> even and even -> odd sites (D = D_eo + D_oe)
//   Schur complement on parity p (p = even is the paper's Eq. (2)):
//                  M_pp = 1 - kappa^2 D_{p,p'} D_{p',p}   (p' the other parity)
//   daggers        D^dag is D with gamma_mu -> -gamma_mu (projectors swapped); M^dag and M_pp^dag follow.
// Hops that wrap around an antiperiodic direction carry a factor -1 (fermion_boundary.h).
//
// Normalisation (docs/conventions.md, "Even-odd preconditioning"): in (even, odd) blocks
//     M = (1 / 2 kappa) [[1, -kappa D_eo], [-kappa D_oe, 1]],
// so M x = b is solved by
//     M_ee x_e = b'_e,  b'_e = 2 kappa (b_e + kappa D_eo b_o)   (PrepareSchurSource)
//     x_o = 2 kappa b_o + kappa D_oe x_e                        (ReconstructSolution)
// and M_ee equals 2 kappa times the Schur complement of the odd block of M.
//
// Flops (the paper's convention, per output site): D costs 1320; M adds 48 (scale and subtract);
// M_pp costs 2 x 1320 on half the sites plus 48.
// Threads: the hopping term's loop over output sites runs on OpenMP's threads; each site is computed alone by
// the same code, so the result is the same for any thread count (inside an enclosing parallel region, e.g. the
// main job's columns, it runs on that region's thread).
// Aliasing: `out` must not be the same object as `in` in any function here.
#pragma once

#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"

namespace lqcd {

enum class Dagger { kNo, kYes };

inline constexpr double kHoppingFlopsPerSite = 1320;  // the paper's count for one Dslash site

struct WilsonParams {
  double mass = 0;
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();

  // kappa = 1 / (2 (4 + m)). Throws std::invalid_argument unless 4 + m > 0 and finite.
  double kappa() const;
  static WilsonParams FromKappa(double kappa, GammaBasis basis = GammaBasis::kDeGrandRossi,
                                FermionBoundary boundary = FermionBoundary::AntiperiodicTime());
};

// out = D in (full lattice) or D^dag in.
template <typename T>
void ApplyHopping(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, GammaBasis basis,
                  const FermionBoundary& boundary, Dagger dagger);

// out_p = D_{p,p'} in_{p'}: `in` on one parity, `out` on the other (D_eo when out is even).
template <typename T>
void ApplyHoppingParity(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, GammaBasis basis,
                        const FermionBoundary& boundary, Dagger dagger);

// out = M in = (4 + m) in - D in / 2 (full lattice), or M^dag in.
template <typename T>
void ApplyWilson(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, const WilsonParams& params,
                 Dagger dagger);

// out = M^dag M in (full lattice): the normal operator of CG.
template <typename T>
void ApplyWilsonNormal(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in,
                       const WilsonParams& params);

// out_p = M_pp in_p = in_p - kappa^2 D_{p,p'} D_{p',p} in_p on the parity of `in` (or M_pp^dag).
template <typename T>
void ApplySchur(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in, const WilsonParams& params,
                Dagger dagger);

// out_p = M_pp^dag M_pp in_p.
template <typename T>
void ApplySchurNormal(SpinorField<T>& out, const GaugeField<T>& u, const SpinorField<T>& in,
                      const WilsonParams& params);

// b'_p = 2 kappa (b_p + kappa D_{p,p'} b_{p'}) from a full-lattice source b (see the file comment).
template <typename T>
SpinorField<T> PrepareSchurSource(const GaugeField<T>& u, const SpinorField<T>& b, const WilsonParams& params,
                                  Parity parity);

// The full solution x from the Schur solution x_p and the full source b: x_{p'} = 2 kappa b_{p'} + kappa D_{p',p} x_p.
template <typename T>
SpinorField<T> ReconstructSolution(const GaugeField<T>& u, const SpinorField<T>& x_p, const SpinorField<T>& b,
                                   const WilsonParams& params);

}  // namespace lqcd
