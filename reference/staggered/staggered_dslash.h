// staggered_dslash.h: the staggered Dslash with fat and long links (naive, asqtad or HISQ), the staggered
// matrix M = 2m + D, its normal operator and the even-odd (Schur) operator.
//
// Computes, for fat links F_mu(n), optional long links L_mu(n) (GaugeField<T>: any 3x3 complex matrices,
// U(3)-like after smearing; absent = naive/unimproved), mass m and fermion boundary conditions:
//   (D psi)(n) = sum_mu eta_mu(n) [ s F_mu(n) psi(n + mu)        - s F_mu(n - mu)^dag psi(n - mu)
//                                 + s L_mu(n) psi(n + 3 mu)      - s L_mu(n - 3 mu)^dag psi(n - 3 mu) ]
//   eta_mu(n) = (-1)^(n_0 + ... + n_{mu-1}) (staggered_phases.h, MILC's convention, eta_x = 1);
//   s = HopBoundarySign: -1 for each crossing of an antiperiodic boundary along the hop (the 3-hop
//   included: it crosses at most once since every extent is >= 3 when long links are present).
//   Normalisation: no factor 1/2. On the free field (F = c_1, L = c_3 times unit links) and a plane wave
//   psi(n) = e^{i p.n} chi, (D psi)(n) = 2i sum_mu eta_mu(n) (c_1 sin p_mu + c_3 sin 3 p_mu) psi(n), and
//   D^2 psi = -4 sum_mu (c_1 sin p_mu + c_3 sin 3 p_mu)^2 psi. Naive: c_1 = 1, c_3 = 0 (sin p = p - p^3/6);
//   asqtad/HISQ tree level: c_1 = 9/8, c_3 = -1/24 (9/8 sin p - 1/24 sin 3p = p - 3 p^5 / 40 + ...).
//   M = 2m + D,   M^dag = 2m - D,   M^dag M = 4m^2 - D^2.
//   D_{p,p'}: D restricted to in on parity p', out on parity p (every hop, of 1 or 3 links, flips parity).
//   Schur operator on parity p:   M_pp = 4m^2 - D_{p,p'} D_{p',p}.
// Properties (docs/conventions.md, "Staggered fermions"):
//   - D^dag = -D (anti-Hermitian): the hop n -> n + k mu has coefficient eta_mu(n) s X, the hop back
//     n + k mu -> n has -eta_mu(n + k mu) s X^dag with the same link X and the same crossing sign s, and
//     eta_mu(n + k mu) = eta_mu(n). Hence the dagger here is exactly -D (a sign flip, bit for bit).
//   - D_{p',p} = -(D_{p,p'})^dag: (D_{p,p'})^dag = (D^dag)_{p',p} = -D_{p',p}.
//   - So M_pp = 4m^2 + D_{p,p'} (D_{p,p'})^dag: Hermitian, and positive definite with every eigenvalue
//     >= 4m^2 (> 0 for m != 0). It is the p block of M^dag M = 4m^2 - D^2 (D^2 keeps parity), and
//     2m times the Schur complement of the p' block of M: 2m [2m - D_{p,p'} (2m)^{-1} D_{p',p}].
//   - Even-odd solve of M x = b (m != 0):
//         M_pp x_p = b'_p,  b'_p = 2m b_p - D_{p,p'} b_{p'}       (PrepareStaggeredSchurSource)
//         x_{p'} = (b_{p'} - D_{p',p} x_p) / (2m)                  (ReconstructStaggeredSolution)
// Bad input: std::invalid_argument for fields and links on different lattices, a full field where a
// parity field is needed (or the reverse), a non-finite mass, m = 0 where 1/(2m) is needed, and long
// links on a lattice with an extent < 3 (there the 3-link hop wraps onto the row more than once: with
// L_mu = 2, n + 3 mu = n + mu = n - mu and the path crosses the boundary once or twice depending on n_mu;
// no smearing defines long links there, so it is refused rather than given a meaning).
// Flops (per output site, MILC's count; the sign eta s is free): naive D 8 x 66 (matrix-vector) + 7 x 6 (adds)
// = 570; with long links 16 x 66 + 15 x 6 = 1146.
// Aliasing: `out` must not be the same object as `in` in any function here (std::invalid_argument).
#pragma once

#include <optional>

#include "reference/fermion_boundary.h"
#include "reference/gauge_field.h"
#include "reference/staggered/colour_vector_field.h"
#include "reference/wilson.h"  // Dagger

namespace lqcd {

inline constexpr double kNaiveStaggeredFlopsPerSite = 570;
inline constexpr double kImprovedStaggeredFlopsPerSite = 1146;

// The links of the staggered Dslash. long_links absent: naive staggered (or only fat links).
template <typename T>
struct StaggeredLinks {
  GaugeField<T> fat;
  std::optional<GaugeField<T>> long_links;

  // Naive staggered: F = U, no long links.
  static StaggeredLinks Naive(const GaugeField<T>& u) { return StaggeredLinks{u, std::nullopt}; }
  const Lattice& lattice() const { return fat.lattice(); }
};

struct StaggeredParams {
  double mass = 0;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
};

// Throws std::invalid_argument unless fat and long links share a lattice and, with long links, every
// extent is >= 3. `where` names the caller in the message.
template <typename T>
void RequireUsableLinks(const StaggeredLinks<T>& links, const char* where);

// out = D in (full lattice), or D^dag in = -D in.
template <typename T>
void ApplyStaggeredDslash(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                          const FermionBoundary& boundary, Dagger dagger = Dagger::kNo);

// out_p = D_{p,p'} in_{p'}: `in` on one parity, `out` on the other (D_eo when out is even); or (D^dag)_{p,p'}.
template <typename T>
void ApplyStaggeredDslashParity(ColourVectorField<T>& out, const StaggeredLinks<T>& links,
                                const ColourVectorField<T>& in, const FermionBoundary& boundary,
                                Dagger dagger = Dagger::kNo);

// out = M in = 2m in + D in (full lattice), or M^dag in = 2m in - D in.
template <typename T>
void ApplyStaggered(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                    const StaggeredParams& params, Dagger dagger = Dagger::kNo);

// out = M^dag M in = M^dag (M in) (full lattice).
template <typename T>
void ApplyStaggeredNormal(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                          const StaggeredParams& params);

// out_p = M_pp in_p = 4m^2 in_p - D_{p,p'} D_{p',p} in_p on the parity of `in` (Hermitian: no dagger).
template <typename T>
void ApplyStaggeredSchur(ColourVectorField<T>& out, const StaggeredLinks<T>& links, const ColourVectorField<T>& in,
                         const StaggeredParams& params);

// b'_p = 2m b_p - D_{p,p'} b_{p'} from a full-lattice source b.
template <typename T>
ColourVectorField<T> PrepareStaggeredSchurSource(const StaggeredLinks<T>& links, const ColourVectorField<T>& b,
                                                 const StaggeredParams& params, Parity parity);

// The full solution from x_p and the full source b: x_{p'} = (b_{p'} - D_{p',p} x_p) / (2m). Needs m != 0.
template <typename T>
ColourVectorField<T> ReconstructStaggeredSolution(const StaggeredLinks<T>& links, const ColourVectorField<T>& x_p,
                                                  const ColourVectorField<T>& b, const StaggeredParams& params);

}  // namespace lqcd
