// clover.h: the Wilson-clover (Sheikholeslami-Wohlert) operator of the CPU oracle: clover-leaf field
// strength, the clover term, its per-site 12x12 blocks and their inverses, the full operator and two
// even-odd (Schur) forms. Derivations in docs/conventions.md, "Clover term".
//
// Field strength (lattice units, U_mu(n) ~ exp(i A_mu) with Hermitian A):
//   Q_{mu nu}(n) = sum of the four plaquettes in the (mu, nu) plane that start and end at n, all traversed
//                  counter-clockwise (+mu before +nu): the "clover leaves" (CloverLeaves).
//   F_{mu nu}(n) = (Q_{mu nu} - Q_{mu nu}^dag) / (8 i), then, by CloverTrace (FieldStrength):
//     kTraceless (the default): its traceless part, F - (Im tr Q / 12) 1_colour. The trace is removed
//                  because the continuum F lives in su(3); tr[(Q - Q^dag)/(8i)] = Im tr Q / 4 = O(F^3) is a
//                  pure lattice artefact.
//     kWithTrace:  as it stands, trace Im tr Q / 4 kept: the field strength of the clover terms of Chroma,
//                  MILC, QUDA and openQCD. CloverParams::FromChroma and FromMilc map Chroma's and MILC's
//                  parameters onto ours (docs/conventions.md, "Clover term").
//   Either way F is Hermitian, F_{nu mu} = -F_{mu nu}, and F = dA_nu/dx_mu - dA_mu/dx_nu + O(a^2). The two
//   differ by the colour singlet (Im tr Q / 12) 1_colour per plane, which vanishes where every leaf has a real
//   trace (links in SO(3) or in an embedded SU(2), for example).
// Clover term, with sigma_{mu nu} = (i/2) [gamma_mu, gamma_nu] (Hermitian, commutes with gamma_5):
//   A(n) = -(c_sw / 2) sum_{mu < nu} sigma_{mu nu} (x) F_{mu nu}(n)      (12x12 Hermitian, index 3*s + c)
//   with F in the convention CloverParams::trace. kWithTrace adds -(c_sw / 2) sum_{mu<nu} (Im tr Q_{mu nu} / 12)
//   sigma_{mu nu} (x) 1_colour to the default A.
//   This is Luscher-Sint-Sommer-Weisz's c_sw (i/4) sum_{mu,nu} sigma_{mu nu} Fhat_{mu nu} with their
//   anti-Hermitian Fhat = i F, so c_sw = 1 is tree-level O(a) improvement (tested).
// Operator, in the m-normalisation of wilson.h:
//   M = T - D / 2,   T(n) = (4 + m) + A(n),   M^dag = T - D^dag / 2   (T is Hermitian)
//   kappa-normalised: M = (1 / 2 kappa) [1 - kappa D + 2 kappa A],  2 kappa A = i kappa c_sw sum_{mu<nu} sigma Fhat.
// Even-odd, in (p, p') blocks: M = [[T_pp, -D_pp'/2], [-D_p'p/2, T_p'p']]. Two preconditioned forms
// (CloverSchurForm): the unit-diagonal form
//   Mhat_pp = 1 - (1/4) T_pp^{-1} D_pp' T_p'p'^{-1} D_p'p        (kUnitDiagonal: the brief's "asymmetric")
// and the Schur complement proper
//   S_pp    = T_pp - (1/4) D_pp' T_p'p'^{-1} D_p'p = T_pp Mhat_pp  (kComplement).
// QUDA names these the other way round (its MATPC_EVEN_EVEN is 1 - k^2 A^-1 D A^-1 D, its
// MATPC_EVEN_EVEN_ASYMMETRIC is A - k^2 D A^-1 D). With c_sw = 0, Mhat_pp is wilson.h's M_pp exactly.
// M x = b is solved by
//   S_pp x_p = b_p + (1/2) D_pp' T_p'p'^{-1} b_p'   (Mhat_pp x_p = T_pp^{-1} of that)   PrepareCloverSchurSource
//   x_p' = T_p'p'^{-1} (b_p' + (1/2) D_p'p x_p)                                        ReconstructCloverSolution
//
// Storage: in the DeGrand-Rossi basis sigma_{mu nu} is block diagonal in chirality (spins {0,1} have
// gamma_5 = +1, spins {2,3} gamma_5 = -1), so T(n) = diag(B_+(n), B_-(n)) with two 6x6 Hermitian blocks,
// 2 x 36 = 72 independent reals per site. CloverField stores these blocks (and their inverses) whatever
// the operator basis; in the UKQCD basis it applies S T_DR S (gamma.h's S, real and S^2 = 1), i.e.
//   T_UKQCD = (1/2) [[B_+ + B_-, B_+ - B_-], [B_+ - B_-, B_+ + B_-]]      (2x2 blocks in spin pairs),
// which does NOT split into independent blocks (gamma_5 is off-diagonal there); all four 6x6 blocks are
// Hermitian and there are still 72 independent reals.
// Flops (the paper's convention, per site): T psi with Hermitian 6x6 blocks costs 504
// (2 x [6 x 2 diagonal + 30 x 6 off-diagonal multiplies + 6 x 5 x 2 adds]); M = T - D/2 costs
// 1320 + 504 + 48 = 1872; Mhat_pp and S_pp cost 2 x (1320 + 504) + 48 = 3696 per site of parity p,
// the figure quoted by Babich, Clark, Joo (SC10) for the even-odd clover Dslash.
// Precision: F, A and the inverses are computed in double from the links (whatever T is) and stored in T.
// Preconditions: a CloverField must be used with the gauge field it was built from (not checkable
// cheaply; the lattice is checked). Aliasing: `out` must not be `in` except in ApplyCloverBlocks /
// ApplyCloverInverseBlocks, which work site by site.
#pragma once

#include <array>
#include <vector>

#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd {

inline constexpr double kCloverFlopsPerSite = 504;              // T(n) psi(n), two Hermitian 6x6 blocks
inline constexpr double kCloverRealsPerSite = 72;               // independent reals of T(n)
inline constexpr double kWilsonCloverFlopsPerSite = 1320 + 504 + 48;       // M = T - D/2: 1872
inline constexpr double kCloverSchurFlopsPerSite = 2 * (1320 + 504) + 48;  // Mhat_pp or S_pp: 3696

// What F_{mu nu} keeps of the trace of (Q - Q^dag) / (8 i) (file comment).
enum class CloverTrace {
  kTraceless,  // F = traceless part of (Q - Q^dag) / (8 i): this code's convention, the default
  kWithTrace,  // F = (Q - Q^dag) / (8 i), trace Im tr Q / 4 kept: the convention of Chroma and MILC
};
inline const char* ToString(CloverTrace t) { return t == CloverTrace::kTraceless ? "traceless" : "with-trace"; }

// c_sw = clov_c / u0^3: MILC's site term is R = 1 - CKU0 sum_{mu<nu} sigma_{mu nu} F_{mu nu} with
// CKU0 = kappa clov_c / u0^3, and ours, kappa-normalised, is 2 kappa T = 1 - kappa c_sw sum_{mu<nu} sigma F.
// Throws std::invalid_argument, naming the parameter, unless clov_c is finite and u0 is finite and > 0, or
// if clov_c / u0^3 is not a finite double.
double MilcCloverCsw(double clov_c, double u0);

struct CloverParams {
  double mass = 0;
  double c_sw = 0;
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  CloverTrace trace = CloverTrace::kTraceless;

  // kappa = 1 / (2 (4 + m)). Throws std::invalid_argument unless 4 + m > 0 and finite.
  double kappa() const { return wilson().kappa(); }
  // The Wilson parameters with the same mass, basis and boundary (the c_sw = 0 operator).
  WilsonParams wilson() const;
  static CloverParams FromKappa(double kappa, double c_sw, GammaBasis basis = GammaBasis::kDeGrandRossi,
                                FermionBoundary boundary = FermionBoundary::AntiperiodicTime());
  // MILC's clover action (clover_invert2's kappa, clov_c, u0): m from kappa, c_sw = MilcCloverCsw(clov_c, u0),
  // trace kWithTrace. MILC's matrix is then 2 kappa gamma_5 M gamma_5 = 2 kappa M^dag (its forward hop carries
  // 1 + gamma_mu, ours 1 - gamma_mu; same DeGrand-Rossi gammas), so its propagator is
  // gamma_5 M^{-1} gamma_5 / (2 kappa). Throws std::invalid_argument as FromKappa and MilcCloverCsw do.
  static CloverParams FromMilc(double kappa, double clov_c, double u0, GammaBasis basis = GammaBasis::kDeGrandRossi,
                               FermionBoundary boundary = FermionBoundary::AntiperiodicTime());
  // Chroma's isotropic clover action (CloverFermActParams: Mass, clovCoeff; no AnisoParam): m = Mass,
  // c_sw = clovCoeff, trace kWithTrace. Chroma's clover term ignores its u0 parameter (a tadpole factor goes
  // into clovCoeff), its matrix (4 + m) + A - D/2 is ours, and so is its propagator. Throws
  // std::invalid_argument unless 4 + Mass > 0 and both are finite.
  static CloverParams FromChroma(double mass, double clov_coeff, GammaBasis basis = GammaBasis::kDeGrandRossi,
                                 FermionBoundary boundary = FermionBoundary::AntiperiodicTime());
};

// Q_{mu nu}(n): the sum of the four counter-clockwise plaquettes with a corner at n (mu != nu), in double.
template <typename T>
ColorMatrix<double> CloverLeaves(const GaugeField<T>& u, int site, int mu, int nu);

// F_{mu nu}(n) = (Q_{mu nu} - Q_{mu nu}^dag) / (8 i), made traceless for kTraceless: Hermitian; zero for
// mu = nu. Throws std::invalid_argument for a `trace` that is not a CloverTrace enumerator.
template <typename T>
ColorMatrix<double> FieldStrength(const GaugeField<T>& u, int site, int mu, int nu,
                                  CloverTrace trace = CloverTrace::kTraceless);

// sigma_{mu nu} = (i/2) [gamma_mu, gamma_nu] in the given basis (entries 0, +-1, +-i; zero for mu = nu).
SpinMatrix Sigma(GammaBasis basis, int mu, int nu);

// A(n) = -(c_sw / 2) sum_{mu<nu} sigma_{mu nu} (x) F_{mu nu}(n) with F in the convention `trace`, dense 12x12
// (index 3*s + c) in `basis`, straight from the definition (the tests' independent route to CloverField).
template <typename T>
SpinColorMatrix<double> CloverTermMatrix(const GaugeField<T>& u, int site, double c_sw, GammaBasis basis,
                                         CloverTrace trace = CloverTrace::kTraceless);

// One site's spinor as a 12-vector with index 3*s + c, and back.
template <typename T>
Eigen::Matrix<Complex<T>, 12, 1> ToSpinColorVector(const SiteSpinor<T>& psi) {
  Eigen::Matrix<Complex<T>, 12, 1> v;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) v(3 * s + c) = psi(s, c);
  }
  return v;
}
template <typename T>
SiteSpinor<T> FromSpinColorVector(const Eigen::Matrix<Complex<T>, 12, 1>& v) {
  SiteSpinor<T> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi(s, c) = v(3 * s + c);
  }
  return psi;
}

// A 6x6 chiral block: index 3 * (s mod 2) + c within one chirality.
template <typename T>
using ChiralBlock = Eigen::Matrix<Complex<T>, 6, 6>;

// T(n) = (4 + m) + A(n) and T(n)^{-1} at every site (A in the convention params.trace), stored as two
// Hermitian 6x6 chiral blocks each (DeGrand-Rossi; see the file comment). Construction throws
// std::invalid_argument for a bad mass, c_sw or trace, and std::domain_error naming the site if some
// T(n) is singular or so ill-conditioned (condition number above kMaxBlockCondition) that its
// double-precision inverse would keep fewer than about 5 digits.
template <typename T>
class CloverField {
 public:
  // cond * 12 * 2^-53 < 1e-5: an inverse still good to ~5 digits in double.
  static constexpr double kMaxBlockCondition = 1e10;

  CloverField(const GaugeField<T>& u, const CloverParams& params);
  // A piece of `whole` on `lattice`: site n holds whole's blocks and inverse blocks of site sites[n], copied
  // bit for bit; the parameters and the spectral summary below are whole's (a bound over a superset of the
  // sites still bounds the piece). For a field split over several processes: T(n) needs the links around n,
  // so it is built on the whole lattice and then cut. Throws std::invalid_argument unless sites has
  // lattice.volume() entries, each a site of whole's lattice.
  CloverField(const CloverField& whole, const Lattice& lattice, const std::vector<int>& sites);

  const Lattice& lattice() const { return lattice_; }
  const CloverParams& params() const { return params_; }

  // chirality 0: DeGrand-Rossi spins 0, 1 (gamma_5 = +1); chirality 1: spins 2, 3 (gamma_5 = -1).
  const ChiralBlock<T>& Block(int site, int chirality) const { return blocks_[site][chirality]; }
  const ChiralBlock<T>& InverseBlock(int site, int chirality) const { return inverse_blocks_[site][chirality]; }
  // Over all sites and blocks (measured at construction, in double): the largest condition number
  // |lambda|_max / |lambda|_min of one block, and the extreme eigenvalues of T(n). The latter bound the
  // operator: ||T|| = max |lambda|, and the Hermitian part of M = T - D/2 is >= lambda_min - 4 (the
  // Hermitian part of D/2 has norm <= 4), so ||M^{-1}|| <= 1 / (lambda_min - 4) whenever that is positive.
  double max_condition() const { return max_condition_; }
  double min_eigenvalue() const { return min_eigenvalue_; }
  double max_eigenvalue() const { return max_eigenvalue_; }

  // T(n) and T(n)^{-1} as dense 12x12 matrices in params().basis.
  SpinColorMatrix<T> SiteMatrix(int site) const;
  SpinColorMatrix<T> SiteInverse(int site) const;

  // T(n) psi and T(n)^{-1} psi for a spinor in params().basis; the block products read only the lower
  // triangle and the real diagonal (the 504-flop kernel).
  SiteSpinor<T> Apply(int site, const SiteSpinor<T>& psi) const;
  SiteSpinor<T> ApplyInverse(int site, const SiteSpinor<T>& psi) const;

 private:
  SiteSpinor<T> ApplyBlocks(const std::array<ChiralBlock<T>, 2>& blocks, const SiteSpinor<T>& psi) const;

  Lattice lattice_;
  CloverParams params_;
  std::vector<std::array<ChiralBlock<T>, 2>> blocks_, inverse_blocks_;
  double max_condition_ = 0;
  double min_eigenvalue_ = 0, max_eigenvalue_ = 0;
};

enum class CloverSchurForm {
  kUnitDiagonal,  // Mhat_pp = 1 - (1/4) T_pp^{-1} D_pp' T_p'p'^{-1} D_p'p
  kComplement,    // S_pp    = T_pp - (1/4) D_pp' T_p'p'^{-1} D_p'p
};
inline const char* ToString(CloverSchurForm f) {
  return f == CloverSchurForm::kUnitDiagonal ? "unit-diagonal" : "Schur complement";
}

// out = T in or T^{-1} in on the sites of `in` (full lattice or one parity). out may be in.
template <typename T>
void ApplyCloverBlocks(SpinorField<T>& out, const CloverField<T>& clover, const SpinorField<T>& in);
template <typename T>
void ApplyCloverInverseBlocks(SpinorField<T>& out, const CloverField<T>& clover, const SpinorField<T>& in);

// out = M in = T in - D in / 2 (full lattice), or M^dag in = T in - D^dag in / 2.
template <typename T>
void ApplyWilsonClover(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                       const SpinorField<T>& in, Dagger dagger);

// out = M^dag M in (full lattice).
template <typename T>
void ApplyWilsonCloverNormal(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                             const SpinorField<T>& in);

// out_p = Mhat_pp in_p or S_pp in_p on the parity p of `in` (or their daggers:
//   Mhat^dag = 1 - (1/4) D^dag_pp' T_p'p'^{-1} D^dag_p'p T_pp^{-1},
//   S^dag    = T_pp - (1/4) D^dag_pp' T_p'p'^{-1} D^dag_p'p).
template <typename T>
void ApplyCloverSchur(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                      const SpinorField<T>& in, CloverSchurForm form, Dagger dagger);

// out_p = X^dag X in_p for X = Mhat_pp or S_pp.
template <typename T>
void ApplyCloverSchurNormal(SpinorField<T>& out, const GaugeField<T>& u, const CloverField<T>& clover,
                            const SpinorField<T>& in, CloverSchurForm form);

// The right-hand side on parity p for the chosen form, from a full-lattice source b (file comment).
template <typename T>
SpinorField<T> PrepareCloverSchurSource(const GaugeField<T>& u, const CloverField<T>& clover, const SpinorField<T>& b,
                                        Parity parity, CloverSchurForm form);

// The full solution from the Schur solution x_p and the full source b (the same for both forms).
template <typename T>
SpinorField<T> ReconstructCloverSolution(const GaugeField<T>& u, const CloverField<T>& clover,
                                         const SpinorField<T>& x_p, const SpinorField<T>& b);

}  // namespace lqcd
