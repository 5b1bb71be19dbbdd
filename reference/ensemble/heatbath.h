// heatbath.h: the quenched SU(3) update for the Wilson plaquette action,
//     S = beta sum_p (1 - Re Tr U_p / 3)
// (sum over unoriented plaquettes, U_p as in plaquette.h): Cabibbo-Marinari heatbath over the three SU(2)
// subgroups (su2_subgroup.h) plus microcanonical overrelaxation, checkerboarded. docs/quenched_generator.md
// has the algorithm, the derivations and the checks.
//
// Link dependence of the action: the terms of S containing U = U_mu(n) are -beta/3 Re Tr(U A) with A the
// sum of the six staples (StapleSum),
//     A = sum_{nu != mu} [ U_nu(n+mu) U_mu(n+nu)^dag U_nu(n)^dag + U_nu(n+mu-nu)^dag U_mu(n-nu)^dag U_nu(n-nu) ].
// Updating U <- R U with R an SU(2) matrix in subgroup (i, j) changes Re Tr(U A) = Re Tr(W), W = U A, only
// through the (i, j) block w of W: the heatbath draws R from exp(beta/3 Re Tr(R W)), the overrelaxation
// step R = (S^dag)^2 (S = w's quaternion part, normalised) leaves Re Tr(R W) unchanged exactly.
//
// Ordering and independence: a sweep visits mu = 0..3 and, for each mu, first the even then the odd sites
// (site parity from lattice.h). The staples of U_mu(n) contain no U_mu(m) of the same parity as n, so all
// links of one (mu, parity) pass are updated independently of each other, in parallel (OpenMP) and with a
// result that does not depend on the number of threads or their scheduling.
//
// Random numbers: every (sweep, mu, site, subgroup) heatbath step has its own Philox stream (random.h),
// stream id HeatbathStreamId(...) = ((sweep * 4 + mu) * V + site) * 3 + subgroup, and the hot start has
// stream ids kHotStartStreamTag | (4 * site + mu). The samplers use only IEEE-754 arithmetic and the
// functions of portable_math.h (not the C library's log/exp/sin/cos, whose last bits vary between
// libraries and CPUs). Ensembles are therefore a function of (seed, lattice, parameters) only, for any
// thread count and on any machine running the same build (a build with FMA contraction or another
// vectorisation of Eigen's sums may differ in the last bits, and then diverge in detail, not in
// distribution). Overrelaxation uses no random numbers.
//
// Precision: double throughout. Aliasing: the sweeps update the field in place.
#pragma once

#include <cstdint>

#include "reference/gauge_field.h"
#include "reference/ensemble/su2_subgroup.h"

namespace lqcd {

// The version of the Markov chain: the field a given seed and set of options produce. Version 1 was the
// generator before commit dc63e20 (whose portable elementary functions summed their series differently);
// version 2 is the current one, pinned bit for bit by heatbath_test's Reproducibility.GoldenPlaquette.
// Bump it whenever that golden value has to change, so that caches keyed by it
// (experiments/quenched_ensemble.h) never mix configurations of two chains.
inline constexpr int kQuenchedChainVersion = 2;


// Nominal floating-point operations (complex multiply = 6, complex add = 2), excluding the random numbers
// and transcendental functions of the SU(2) sampler:
//   StapleSum: 12 SU(3) products (198 each) + 5 sums of 3x3 (18 each) = 2466;
//   W = U A: 198; per subgroup: projection 8, norm 8, normalisation 5, SU(2) product 28, update of the two
//   rows of U and of W 2 x 84 = 217; three subgroups 651. Total per link update (heatbath or
//   overrelaxation) 3315.
inline constexpr double kStapleSumFlops = 2466;
inline constexpr double kLinkUpdateFlops = 3315;
// Memory traffic per link update: 18 neighbour links and the link read, the link written, 144 bytes each
// (double complex 3x3), ignoring caches.
inline constexpr double kLinkUpdateBytes = 20 * 144;

// Stream ids are tagged so hot-start and heatbath streams never coincide.
inline constexpr std::uint64_t kHotStartStreamTag = std::uint64_t{1} << 63;

// Below this norm the quaternion part of a subgroup block has no usable direction; the heatbath then draws from
// the Haar measure (exact up to a factor exp(2 beta k / 3) = 1 + O(1e-100)) and overrelaxation skips the
// subgroup (it is a symmetry of a flat distribution).
inline constexpr double kNegligibleQuaternionNorm = 1e-100;

// Throws std::invalid_argument unless beta is finite and >= 0 (every heatbath sweep checks it first).
void CheckBeta(double beta);

// Stream id of one heatbath step; throws std::overflow_error if the id would reach the hot-start tag.
std::uint64_t HeatbathStreamId(std::uint64_t sweep, int mu, int site, int subgroup, int volume);

// Sum of the six staples of U_mu(site) (file comment).
ColorMatrix<double> StapleSum(const GaugeField<double>& u, int site, int mu);

// The subgroup steps. `w` must be link * staple on entry and is kept equal to it (both are left-multiplied
// by the same R), so the steps of the three subgroups can follow each other without recomputing it.
//   HeatbathSubgroup: R drawn from exp(beta/3 Re Tr(R w)) restricted to the subgroup.
//   OverrelaxSubgroup: R = (S^dag)^2 with S the normalised quaternion part of w's block; Re Tr(w) is
//   unchanged and the step is an involution (a second application restores link and w), both to rounding.
void HeatbathSubgroup(ColorMatrix<double>& link, ColorMatrix<double>& w, int subgroup, double beta,
                      RandomStream& stream);
void OverrelaxSubgroup(ColorMatrix<double>& link, ColorMatrix<double>& w, int subgroup);

// One Cabibbo-Marinari heatbath update of `link` in the field of `staple`: HeatbathSubgroup for subgroups
// 0, 1, 2 in turn, subgroup s with the random numbers of stream (seed, stream_ids[s]).
void HeatbathLink(ColorMatrix<double>& link, const ColorMatrix<double>& staple, double beta, std::uint64_t seed,
                  const std::uint64_t (&stream_ids)[kNumSubgroups]);

// One overrelaxation update of `link`: OverrelaxSubgroup for subgroups 0, 1, 2 in turn. Re Tr(link staple)
// is unchanged; the inverse map is the same steps in the opposite order.
void OverrelaxLink(ColorMatrix<double>& link, const ColorMatrix<double>& staple);

// A heatbath sweep over all links, in the order of the file comment; `sweep` numbers the random streams.
// Throws std::invalid_argument if beta is not finite and >= 0.
void HeatbathSweep(GaugeField<double>& u, double beta, std::uint64_t seed, std::uint64_t sweep);

// An overrelaxation sweep over all links, in the same order. The action is unchanged to rounding.
void OverrelaxationSweep(GaugeField<double>& u);

// Every link replaced by Reunitarize(link) (su3.h). Returns the largest UnitarityDeviation found before.
double ReunitarizeField(GaugeField<double>& u);

// Hot start: every link independent and Haar distributed, from stream kHotStartStreamTag | (4 * site + mu):
// the first two rows of a matrix of independent complex Gaussians (PortableGaussian), Gram-Schmidt
// orthonormalised, are distributed like the first two rows of a Haar U(3) matrix (their law is invariant
// under right multiplication by U(3)); the pairs of orthonormal rows are a copy of SU(3) on which SU(3)
// acts freely from the right, so that law is also the one of the first two rows of a Haar SU(3) matrix,
// and completing the third row as conj(row0 x row1) (su3.h Reunitarize) gives Haar SU(3).
void HotStart(GaugeField<double>& u, std::uint64_t seed);

// S = beta * sum_p (1 - Re Tr U_p / 3) = beta * 6 V (1 - <P>).
double WilsonGaugeAction(const GaugeField<double>& u, double beta);

// Local action of one link, -beta/3 Re Tr(U A) (the part of S that depends on U = U_mu(site)).
double LocalLinkAction(const GaugeField<double>& u, int site, int mu, double beta);

}  // namespace lqcd
