// hisq_links.h: the smeared links of improved staggered fermions (naive, asqtad, HISQ), from thin links U.
//
// Computes (all in double, plain loops; docs/conventions.md, "Staggered link smearing: fat7, Lepage, Naik,
// asqtad, HISQ"):
//   - FatLink(U, c): F_mu(n) = c.one_link U_mu(n) + c.three_staple sum S3 + c.five_staple sum S5
//                              + c.seven_staple sum S7 + c.lepage sum SL,
//     summed over every path of each kind that starts at n and ends at n + mu:
//       S3 (6 paths):  n -> n+a -> n+a+mu -> n+mu,                   a = +-nu, nu != mu;
//       S5 (24 paths): n -> n+b -> n+b+a -> n+b+a+mu -> n+b+mu -> n+mu, a, b signed, |a|, |b|, mu distinct;
//       S7 (48 paths): the same with a third transverse hop c outermost (|a|, |b|, |c|, mu all distinct);
//       SL (6 paths):  n -> n+a -> n+2a -> n+2a+mu -> n+a+mu -> n+mu (the Lepage term).
//     A hop to n - nu is U_nu(n - nu)^dag. Staggered phases are NOT in the links (the Dslash applies them), so
//     every coefficient is the physical one; MILC's path tables, which absorb the phases, show the 3- and
//     7-staple coefficients with the opposite sign. Tree level (unit links): F = c.TreeLevelSum() x 1 with
//     TreeLevelSum = one_link + 6 three_staple + 24 five_staple + 48 seven_staple + 6 lepage.
//   - NaikLink(U, c_naik): L_mu(n) = c_naik U_mu(n) U_mu(n + mu) U_mu(n + 2 mu) (the 3-hop to n + 3 mu).
//   - ProjectU3(V): the unitary factor W of the polar decomposition V = W (V^dag V)^(1/2), i.e.
//     W = V (V^dag V)^(-1/2), from the eigen-decomposition of the Hermitian V^dag V (regulator below). Not
//     reprojected to SU(3): HISQ uses U(3) (Follana et al.).
//   - Coefficient sets: Fat7Coefficients() (HISQ level 1), AsqtadCoefficients(u0), HisqCoefficients(epsilon)
//     (HISQ level 2), and the Naik coefficients AsqtadNaikCoefficient(u0), HisqNaikCoefficient(epsilon).
//   - NaiveLinks(U) = {U, 0} (for the Dslash, StaggeredLinks<double>::Naive(U) skips the zero long links);
//     AsqtadLinks(U, u0) = {FatLink(U, asqtad), NaikLink(U, -1/(24 u0^2))};
//     HisqLinks(U, epsilon) = {FatLink(W, hisq(epsilon)), NaikLink(W, -(1 + epsilon)/24)} with
//     W = HisqLevel1(U) = ProjectU3(FatLink(U, fat7)).
//   Tree level: asqtad (u0 = 1) and HISQ (epsilon = 0) give fat = 9/8, naik = -1/24, so the free staggered
//   operator with hops F psi(n + mu) and L psi(n + 3 mu) has the dispersion 9/8 sin p - 1/24 sin 3p = p + O(p^5).
//
// Coefficients (sources in docs/conventions.md):
//   fat7 (Orginos, Toussaint, Sugar, PRD 60 (1999) 054503; HISQ level 1): 1/8, 1/16, 1/64, 1/384, Lepage 0.
//   asqtad (ibid., with Lepage's term, PRD 59 (1999) 074502): one-link 5/8, 3-staple 1/16, 5-staple 1/64,
//     7-staple 1/384, Lepage -1/16, Naik -1/24; tadpole improvement divides every link by u0 and normalises
//     the one-link term to u0^0, so a path of length l carries u0^(1 - l): 3-staple and Naik u0^-2,
//     5-staple and Lepage u0^-4, 7-staple u0^-6.
//   HISQ level 2 (Follana et al., PRD 75 (2007) 054502, hep-lat/0610092): one-link 1 + epsilon/8, 3-staple
//     1/16, 5-staple 1/64, 7-staple 1/384, Lepage -1/8 (twice asqtad's), Naik -(1 + epsilon)/24, built from W;
//     no tadpole factor. The epsilon/8 one-link piece comes with the Naik correction (the paper's
//     -(1 + epsilon) a^2/6 Delta_mu^3 contains one-hop terms), so fat + 3 naik = 1 at tree level for every
//     epsilon. epsilon = 0 for light quarks.
//
// U(3) projection regulator: let V^dag V = sum_i lambda_i v_i v_i^dag (lambda descending). Then
// u_i = V v_i / |V v_i| (orthonormal in exact arithmetic) and W = sum_i u_i v_i^dag. The u_i are
// re-orthonormalised by two-pass Gram-Schmidt in the order of decreasing lambda, so W is unitary to rounding
// whatever V is. An eigenvalue lambda_i <= kU3ProjectionCutoff x lambda_0 is below what the rounding of
// V^dag V can resolve: its direction V v_i is noise, and u_i is instead completed to an orthonormal basis
// (conj(u_0 x u_1) for the last one; a unit vector for a rank-1 or zero V). For nonsingular V the result is
// the unique polar factor; for singular V the polar factor is not unique and this picks one deterministic
// unitary W that agrees with V on its range. No 1/sqrt(lambda) is ever formed. Degenerate eigenvalues are
// harmless: any orthonormal basis of an eigenspace gives the same W. No derivative of the projection is
// needed (we only build links; the HMC force, which would need it, is not part of the oracle).
//
// Errors (std::invalid_argument): u0 <= 0 or not finite; epsilon not finite; NaikLink, AsqtadLinks and
// HisqLinks on a lattice with an extent < 3 (the 3-hop n -> n + 3 mu would land on n + mu; extents are even,
// so every extent must be at least 4).
// Aliasing: none; every function returns new fields.
#pragma once

#include <initializer_list>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/types.h"

namespace lqcd {

// Coefficient of each kind of path in FatLink (per path; see the file comment for the path counts).
struct SmearingCoefficients {
  double one_link = 0;
  double three_staple = 0;
  double five_staple = 0;
  double seven_staple = 0;
  double lepage = 0;
  // F on unit links, divided by the unit matrix.
  double TreeLevelSum() const {
    return one_link + 6 * three_staple + 24 * five_staple + 48 * seven_staple + 6 * lepage;
  }
};

// Eigenvalues of V^dag V at or below this fraction of the largest count as zero in ProjectU3 (a small
// multiple of the unit roundoff 2^-53: the absolute rounding error of the eigenvalues of V^dag V).
inline constexpr double kU3ProjectionCutoff = 64 * 1.1102230246251565e-16;

// The Dslash (staggered_dslash.h) takes these as StaggeredLinks<double>{links.fat, links.naik}; its hop
// convention (F psi(n + mu), L psi(n + 3 mu), no factor 1/2) is the one the tree-level sums above assume.
// (Named apart from StaggeredLinks<T> so both headers can be included together; no dependency on the Dslash.)
struct SmearedLinks {
  GaugeField<double> fat;   // F_mu(n): multiplies psi(n + mu) in the forward one-hop
  GaugeField<double> naik;  // L_mu(n): multiplies psi(n + 3 mu) in the forward three-hop (zero for naive)
};

// A signed direction: dir in 0..3, forward (+dir) or backward (-dir).
struct SignedDirection {
  int dir;
  bool forward;
};

// The signed directions orthogonal to mu and to every direction in `used`, in the order FatLink sums its paths:
// direction ascending, forward before backward (6 for no `used`, 4 for one, 2 for two). The GPU smearing
// (gpu/hisq_smearing.h) follows the same order, so that its sums round as the oracle's.
std::vector<SignedDirection> TransverseDirections(int mu, std::initializer_list<int> used);

// Throws std::invalid_argument, naming `where`, the lattice and the direction, if an extent is below 3: the Naik
// 3-hop n -> n + 3 mu would wrap onto n + mu (NaikLink, AsqtadLinks, HisqLinks check it first).
void RequireNaikExtents(const Lattice& lat, const char* where);

SmearingCoefficients Fat7Coefficients();
SmearingCoefficients AsqtadCoefficients(double u0);
SmearingCoefficients HisqCoefficients(double epsilon_naik);
double AsqtadNaikCoefficient(double u0);
double HisqNaikCoefficient(double epsilon_naik);

GaugeField<double> FatLink(const GaugeField<double>& u, const SmearingCoefficients& c);
GaugeField<double> NaikLink(const GaugeField<double>& u, double c_naik);

ColorMatrix<double> ProjectU3(const ColorMatrix<double>& v);
GaugeField<double> ProjectU3(const GaugeField<double>& v);

// W = ProjectU3(FatLink(U, Fat7Coefficients())): the HISQ first level.
GaugeField<double> HisqLevel1(const GaugeField<double>& u);

SmearedLinks NaiveLinks(const GaugeField<double>& u);
SmearedLinks AsqtadLinks(const GaugeField<double>& u, double u0);
SmearedLinks HisqLinks(const GaugeField<double>& u, double epsilon_naik);

}  // namespace lqcd
