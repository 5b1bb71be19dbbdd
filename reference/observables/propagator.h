// propagator.h: the point-source quark propagator and the zero-momentum pion correlator, independent of
// how the 12 linear systems are solved (the caller passes a solve; experiments/propagator_driver.h drives the Krylov
// solvers, the tests use the sparse LU of sparse_wilson.h).
//
// Propagator: for a source site x0, S(x; x0) is the 12x12 matrix (index 3*s + c, spin s, colour c)
//     S(x; x0)_{(s',c'),(s,c)} = [M^{-1}]_{(x,s',c'),(x0,s,c)},
// i.e. column (s, c) is the solution psi of M psi = eta with the point source eta(x) = delta_{x,x0}
// delta_{s'',s} delta_{c'',c} (spinor_field.h PointSource). M is whichever Dirac matrix the solve inverts.
//
// Normalisation (docs/conventions.md, "Propagators and the pion correlator"): the oracle's matrices are
// m-normalised, M = (4 + m) - D/2 (+ A for clover), and the propagator stored here is M^{-1}. The
// kappa-normalised matrix is 1 - kappa D (+ 2 kappa A) = 2 kappa M, so its propagator is
//     G = (1 - kappa D + 2 kappa A)^{-1} = M^{-1} / (2 kappa),      kappa = 1 / (2 (4 + m)),
// and correlators bilinear in the propagator differ by (2 kappa)^2:  C_kappa(t) = C_m(t) / (4 kappa^2).
// Effective masses do not depend on the normalisation.
//
// Pion correlator (zero spatial momentum; source time slice t0 = time coordinate of x0):
//     C(t) = sum_{x} tr[S(x, t0 + t; x0) S(x, t0 + t; x0)^dag]     (trace over spin and colour)
//          = sum over the 12 columns of |psi|^2 summed over the sites of time slice t0 + t (mod L_t).
// It is the pion because M is gamma_5-Hermitian, M^dag = gamma_5 M gamma_5, so S(x0; x) = gamma_5 S(x; x0)^dag
// gamma_5 and the Wick contraction of <pi(x) pi^dag(x0)> with pi = dbar gamma_5 u,
//     C(t) = sum_x tr[gamma_5 S(x; x0) gamma_5 S(x0; x)]                               (PionCorrelatorFromContraction),
// turns into the sum of |S|^2. That sum is real and non-negative by construction and independent of the
// gamma basis (S -> V S V^dag with V unitary) and of the sign of the gamma matrices in the hop
// (gamma -> -gamma is the similarity transform with gamma_5). PionCorrelatorFromContraction evaluates the
// first form with an independent propagator of M^dag, S(x0; x) = S_dag(x; x0)^dag, where S_dag is the
// point-source propagator of M^dag; the tests use it to check the gamma_5-Hermiticity step.
//
// Folding: the ensemble average of C is symmetric under t -> L_t - t (time reflection; see
// docs/conventions.md), one configuration's C only approximately. FoldCorrelator returns
// (C(t) + C(L_t - t)) / 2, which averages the forward- and backward-moving halves of one configuration.
// Effective masses (C(t) of a pion on a periodic-in-time lattice ~ A cosh(m (t - L_t/2)) for large t):
//   - log form   m_log(t)  = log(C(t) / C(t + 1))        (= m only where the backward-moving state is negligible)
//   - cosh form  m_cosh(t): the m > 0 solving C(t) / C(t + 1) = cosh(m (t - L_t/2)) / cosh(m (t + 1 - L_t/2));
//     the right side is monotonic in m (increasing for t <= L_t/2 - 1, decreasing for t >= L_t/2), so the
//     solution is unique when it exists; NaN where it does not (ratio on the wrong side of 1, C <= 0).
// Errors: std::invalid_argument for a source site off the lattice, columns on another lattice or subset,
// or correlators of the wrong length.
// Threads: the constructor, PionCorrelator and ColumnNorms use every OpenMP thread; their results do not depend on
// the number (sums over sites are added in site order on one thread).
// Aliasing: none (everything returns new values).
#pragma once

#include <functional>
#include <vector>

#include "reference/gamma.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "reference/types.h"

namespace lqcd {

// The 12 columns of S(x; x0) for a point source at x0 (full-lattice double fields; new ones are zero).
class PointPropagator {
 public:
  PointPropagator(const Lattice& lattice, int source_site);

  const Lattice& lattice() const { return lattice_; }
  int source_site() const { return source_site_; }
  int source_time() const { return lattice_.Coords(source_site_)[3]; }

  // Column (spin, colour) = M^{-1} of the point source with that spin and colour. Assigning a field of
  // another lattice or subset throws std::invalid_argument.
  const SpinorField<double>& Column(int spin, int colour) const;
  void SetColumn(int spin, int colour, SpinorField<double> column);
  // The column itself, for a solver that writes its solution in place (a new one is zero: a zero initial
  // guess). Write its sites; do not assign a field of another lattice or subset to it.
  SpinorField<double>& MutableColumn(int spin, int colour);

  // S(x; x0) at lexicographic site x: row 3 s' + c' (sink), column 3 s + c (source).
  SpinColorMatrix<double> At(int site) const;

 private:
  static int ColumnIndex(int spin, int colour);

  Lattice lattice_;
  int source_site_;
  std::vector<SpinorField<double>> columns_;
};

// |column (s, c)| at index 3 s + c, each summed over the sites in site order (Norm2 of spinor_algebra.h), so the
// same whatever the number of threads computing the columns side by side.
std::vector<double> ColumnNorms(const PointPropagator& s);

// A solve of M psi = eta for one point source: returns psi (full lattice, double).
using PointSourceSolve = std::function<SpinorField<double>(const SpinorField<double>& source, int spin, int colour)>;

// Runs `solve` on the 12 point sources at `source_site` (spin-major order: (0,0), (0,1), ..., (3,2)).
PointPropagator ComputePointPropagator(const Lattice& lattice, int source_site, const PointSourceSolve& solve);

// C(t), t = 0 .. L_t - 1 counted from the source time slice (file comment): the m-normalised correlator if
// the propagator is M^{-1}.
std::vector<double> PionCorrelator(const PointPropagator& s);

// C(t) from the contraction tr[gamma_5 S(x; x0) gamma_5 S(x0; x)] with S(x0; x) = S_dag(x; x0)^dag, where
// `dagger_propagator` is the point-source propagator of M^dag at the same source; gamma_5 of `basis` (the
// basis both propagators were computed in). Complex: its imaginary part vanishes only if M is
// gamma_5-Hermitian in that basis.
std::vector<Complex<double>> PionCorrelatorFromContraction(const PointPropagator& s,
                                                           const PointPropagator& dagger_propagator,
                                                           GammaBasis basis);

// The kappa-normalised correlator C(t) / (4 kappa^2) (file comment).
std::vector<double> KappaNormalisedCorrelator(const std::vector<double>& c, double kappa);

// (C(t) + C((L_t - t) mod L_t)) / 2 for t = 0 .. L_t - 1 (symmetric by construction; C(0) unchanged).
std::vector<double> FoldCorrelator(const std::vector<double>& c);

// m_log(t) = log(C(t) / C(t + 1)) for t = 0 .. L_t - 2 (NaN where C(t) or C(t + 1) <= 0).
std::vector<double> LogEffectiveMass(const std::vector<double>& c);

// m_cosh(t) for t = 0 .. L_t - 2 with L_t = c.size() (file comment); NaN where no solution exists.
// Accurate to a few units of double roundoff in the ratio (bisection to the last bit).
std::vector<double> CoshEffectiveMass(const std::vector<double>& c);

}  // namespace lqcd
