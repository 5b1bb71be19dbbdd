// Tests of heatbath.h: staples against the action, exactness of overrelaxation, the single-link
// heatbath distribution against the exact one-link integral, reproducibility across thread counts, the hot
// start, and input checks. The lattice physics checks are in heatbath_physics_test.cc.
#include "reference/ensemble/heatbath.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "reference/ensemble/binning.h"
#include "reference/ensemble/one_link_integral.h"
#include "reference/plaquette.h"
#include "reference/su3.h"

namespace lqcd {
namespace {

constexpr double kUnitRoundoff = 0x1.0p-53;

// Gram-Schmidt (su3.h Reunitarize): each entry of the result has a relative error of a few u (norm,
// division, subtraction, a two-product cross term); each entry of U U^dag sums 3 such products, so the
// deviation is <~ 3 * 9 u + 2 u ~ 29 u. Measured: up to 21 u over 4096 Haar links.
constexpr double kGramSchmidtDeviation = 32 * kUnitRoundoff;

ColorMatrix<double> RandomSu3(RandomStream& stream) {
  ColorMatrix<double> m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double re = stream.Gaussian(), im = stream.Gaussian();
      m(i, j) = {re, im};
    }
  return Reunitarize(m);
}

// A thermalised-looking field: hot start plus a few heatbath sweeps at beta = 5.5.
GaugeField<double> RoughField(const Lattice& lat, std::uint64_t seed) {
  GaugeField<double> u(lat);
  HotStart(u, seed);
  for (int s = 0; s < 3; ++s) HeatbathSweep(u, 5.5, seed, s);
  return u;
}

// Changing one link U -> V U changes the total action exactly by the change of -beta/3 Re Tr(U A): this
// pins down StapleSum (all six staples, their orientation and adjoints). Tolerance: the total action is
// beta/3 times a sum of 6V = 1536 plaquette traces of size <= 3, each with rounding <= ~20 u, accumulated
// with error <= 6V u times the sum: (20 + 1536) u * 3 * 1536 / 3 * beta ~ 5e-10 beta per evaluation,
// two evaluations: 1e-9 beta. A wrong staple changes Delta S by O(beta).
TEST(Staples, LocalActionChangeEqualsGlobalActionChange) {
  const Lattice lat(4, 4, 4, 4);
  GaugeField<double> u = RoughField(lat, 3);
  const double beta = 5.7;
  RandomStream stream(31, 0);
  for (int trial = 0; trial < 8; ++trial) {
    const int site = (trial * 37) % lat.volume(), mu = trial % kDims;
    const double global_before = WilsonGaugeAction(u, beta), local_before = LocalLinkAction(u, site, mu, beta);
    u.Link(site, mu) = RandomSu3(stream) * u.Link(site, mu);
    const double global_after = WilsonGaugeAction(u, beta), local_after = LocalLinkAction(u, site, mu, beta);
    EXPECT_GT(std::abs(local_after - local_before), 0.1) << "the change must be nontrivial";
    EXPECT_NEAR(global_after - global_before, local_after - local_before, 1e-9 * beta) << "trial " << trial;
  }
}

// Overrelaxation keeps Re Tr(U A), and each subgroup step is an involution. Tolerance: each of the 3
// subgroup steps perturbs the entries of U by a few u (the normalisation of S, S^dag S^dag, and two-term
// row sums: ~20 u per entry), so |U' - U'_exact|_F <~ 3 * 20 u * 3 = 180 u and the trace moves by at most
// that times |A|_F, plus 9 u |A|_F for the trace itself: 200 u |A|_F. Undoing the three steps in reverse
// order: 2 * 180 u, bound 400 u.
TEST(Overrelaxation, LinkUpdateKeepsTheLocalActionAndIsReversible) {
  RandomStream stream(32, 0);
  for (int trial = 0; trial < 50; ++trial) {
    const ColorMatrix<double> original = RandomSu3(stream);
    ColorMatrix<double> staple = ColorMatrix<double>::Zero();
    for (int k = 0; k < 6; ++k) staple += RandomSu3(stream);
    const double bound = 200 * kUnitRoundoff * staple.norm();
    ColorMatrix<double> link = original;
    OverrelaxLink(link, staple);
    EXPECT_NEAR((link * staple).trace().real(), (original * staple).trace().real(), bound) << "trial " << trial;
    EXPECT_GT((link - original).norm(), 1e-3) << "overrelaxation must move the link";
    EXPECT_LT(UnitarityDeviation(link), 100 * kUnitRoundoff);
    EXPECT_LT(DeterminantDeviation(link), 100 * kUnitRoundoff);
    ColorMatrix<double> w = link * staple;
    for (int subgroup = kNumSubgroups - 1; subgroup >= 0; --subgroup) OverrelaxSubgroup(link, w, subgroup);
    EXPECT_LT((link - original).norm(), 400 * kUnitRoundoff) << "trial " << trial;
  }
}

TEST(Overrelaxation, EachSubgroupStepIsAnInvolution) {
  RandomStream stream(34, 0);
  for (int subgroup = 0; subgroup < kNumSubgroups; ++subgroup) {
    const ColorMatrix<double> original = RandomSu3(stream);
    const ColorMatrix<double> staple = RandomSu3(stream) + RandomSu3(stream);
    ColorMatrix<double> link = original, w = original * staple;
    OverrelaxSubgroup(link, w, subgroup);
    EXPECT_GT((link - original).norm(), 1e-3);
    EXPECT_LT((w - link * staple).norm(), 100 * kUnitRoundoff * staple.norm()) << "w must follow the link";
    OverrelaxSubgroup(link, w, subgroup);
    EXPECT_LT((link - original).norm(), 200 * kUnitRoundoff) << "subgroup " << subgroup;
  }
}

// A whole overrelaxation sweep keeps the total action: each of the 4V = 1024 link updates moves it by
// <= 200 u |A|_F beta / 3 (|A|_F <= 6 sqrt(3)), i.e. <~ 1024 * 200 * 1.1e-16 * 3.5 * beta ~ 8e-11 beta,
// plus the rounding of the two action evaluations (1e-9 beta, see above).
TEST(Overrelaxation, SweepKeepsTheTotalActionAndMovesTheField) {
  const Lattice lat(4, 4, 4, 4);
  GaugeField<double> u = RoughField(lat, 4);
  const GaugeField<double> before = u;
  const double beta = 6.0;
  const double action_before = WilsonGaugeAction(u, beta);
  OverrelaxationSweep(u);
  EXPECT_NEAR(WilsonGaugeAction(u, beta), action_before, 1.1e-9 * beta);
  double moved = 0;
  for (std::size_t i = 0; i < u.links().size(); ++i) moved = std::fmax(moved, (u.links()[i] - before.links()[i]).norm());
  EXPECT_GT(moved, 0.1);
}

// Single link in a fixed staple A = c G (G in SU(3)): U G has the weight exp((beta c / 3) Re Tr(U G)), so
// <Re Tr(U A)> / (3c) = OneLinkTrace(beta c / 3) exactly. The Markov chain of heatbath updates (with and
// without overrelaxation in between, which must leave the distribution invariant) is compared with it
// within 4 binned standard errors (32 bins; the error estimate is good to ~13%).
BinnedEstimate SingleLinkChain(double x, int overrelaxation_steps) {
  RandomStream stream(33, 0);
  const ColorMatrix<double> g = RandomSu3(stream);
  const double c = 2.0, beta = 3.0 * x / c;
  const ColorMatrix<double> staple = c * g;
  ColorMatrix<double> link = ColorMatrix<double>::Identity();
  constexpr int kSteps = 16384;
  std::vector<double> series(kSteps);
  for (int n = 0; n < kSteps; ++n) {
    const std::uint64_t ids[kNumSubgroups] = {3u * n, 3u * n + 1, 3u * n + 2};
    HeatbathLink(link, staple, beta, 99, ids);
    for (int k = 0; k < overrelaxation_steps; ++k) OverrelaxLink(link, staple);
    series[n] = (link * staple).trace().real() / (3 * c);
  }
  EXPECT_LT(UnitarityDeviation(link), 1e-12);
  return BinnedMean(series);
}

TEST(HeatbathLink, SingleLinkDistributionMatchesTheExactIntegral) {
  for (double x : {0.4, 3.0, 10.0}) {
    for (int overrelaxation_steps : {0, 2}) {
      const BinnedEstimate e = SingleLinkChain(x, overrelaxation_steps);
      EXPECT_NEAR(e.mean, OneLinkTrace(x), 4 * e.error) << "x = " << x << ", overrelaxation " << overrelaxation_steps;
    }
  }
}

// The comparison has power: the same chains are far (> 4 errors) from the exact value at a coupling
// only 10% off, which is what a normalisation slip in a = 2 beta k / 3 would look like, only smaller.
TEST(HeatbathLink, TheComparisonCanSeeAWrongCoupling) {
  for (double x : {0.4, 3.0, 10.0}) {
    const BinnedEstimate e = SingleLinkChain(x, 0);
    EXPECT_GT(std::abs(e.mean - OneLinkTrace(0.9 * x)), 4 * e.error) << "x = " << x;
  }
}

// Same seed -> bit-identical field with 1 and 2 OpenMP threads (the checkerboard makes every update
// independent of scheduling); a different seed gives a different field.
GaugeField<double> Evolve(int threads, std::uint64_t seed) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  EXPECT_EQ(team, threads) << "the parallel regions must really use " << threads << " threads";
  const Lattice lat(4, 4, 4, 8);
  GaugeField<double> u(lat);
  HotStart(u, seed);
  for (std::uint64_t sweep = 0; sweep < 3; ++sweep) {
    HeatbathSweep(u, 5.8, seed, sweep);
    OverrelaxationSweep(u);
    OverrelaxationSweep(u);
    ReunitarizeField(u);
  }
  omp_set_num_threads(saved);
  return u;
}

// Golden value: the plaquette of Evolve(1, 2024), printed with %a. Every correct build on any machine must
// reproduce it bit for bit (portable_math.h; IEEE arithmetic without FMA contraction). If it changes
// after a change of the update algorithm or of the stream layout, ensembles made before are no longer
// reproducible: say so in docs/quenched_generator.md, update it, and bump kQuenchedChainVersion
// (quenched_generator.h; both are checked here together).
TEST(Reproducibility, GoldenPlaquette) {
  const GaugeField<double> u = Evolve(1, 2024);
  std::printf("plaquette after Evolve(1, 2024): %a\n", MeasurePlaquette(u).total);
  EXPECT_EQ(kQuenchedChainVersion, 2) << "the golden value below belongs to chain version 2";
  EXPECT_EQ(MeasurePlaquette(u).total, 0x1.ccd8a6d9ec1c2p-2)
      << "the Markov chain changed: bump kQuenchedChainVersion and update this value together";
}

TEST(Reproducibility, SameSeedSameFieldForOneAndTwoThreads) {
  const GaugeField<double> one = Evolve(1, 2024), two = Evolve(2, 2024), other = Evolve(2, 2025);
  ASSERT_EQ(one.links().size(), two.links().size());
  EXPECT_EQ(std::memcmp(one.links().data(), two.links().data(), one.links().size() * sizeof(ColorMatrix<double>)), 0);
  EXPECT_GT((one.links()[0] - other.links()[0]).norm(), 0.1);
}

// MeasurePlaquette computes a plane's plaquettes on all threads and sums them in site order on one
// (plaquette.h): the same bits for one and two threads, and the golden value above with either.
TEST(Reproducibility, PlaquetteIsTheSameForOneAndTwoThreads) {
  const GaugeField<double> u = Evolve(1, 2024);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const PlaquetteAverages one = MeasurePlaquette(u);
  omp_set_num_threads(2);
  const PlaquetteAverages two = MeasurePlaquette(u);
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(&one, &two, sizeof(PlaquetteAverages)), 0);
  EXPECT_EQ(two.total, 0x1.ccd8a6d9ec1c2p-2);
}

// Rounding drift without reunitarisation stays at the rounding level: each link update adds ~3 * 8 u
// to its unitarity deviation; 20 sweeps of heatbath + 2 overrelaxation = 60 updates per link: ~1440 u =
// 3.2e-13. After ReunitarizeField the deviation is that of Gram-Schmidt (kGramSchmidtDeviation).
TEST(Reunitarization, DriftIsRoundingAndIsRemoved) {
  const Lattice lat(4, 4, 4, 4);
  GaugeField<double> u(lat);
  HotStart(u, 6);
  for (int s = 0; s < 20; ++s) {
    HeatbathSweep(u, 6.0, 6, s);
    OverrelaxationSweep(u);
    OverrelaxationSweep(u);
  }
  double worst = 0;
  for (const auto& link : u.links()) worst = std::fmax(worst, UnitarityDeviation(link));
  EXPECT_LT(worst, 1440 * kUnitRoundoff);
  EXPECT_DOUBLE_EQ(ReunitarizeField(u), worst);
  for (const auto& link : u.links()) {
    EXPECT_LT(UnitarityDeviation(link), kGramSchmidtDeviation);
    EXPECT_LT(DeterminantDeviation(link), kGramSchmidtDeviation);
  }
}

TEST(Reunitarization, RejectsAFieldFarFromUnitary) {
  GaugeField<double> u(Lattice(2, 2, 2, 2));
  u.Link(3, 1) = ColorMatrix<double>::Zero();
  EXPECT_THROW(ReunitarizeField(u), std::domain_error);
}

// Haar distribution of the hot start: for Haar SU(3), <Tr U> = 0, <(Re Tr U)^2> = 1/2 and <|Tr U|^2> = 1
// with Var(|Tr U|^2) = <|Tr U|^4> - 1 = 1. Means over the 4V = 4096 links within 5 standard errors.
TEST(HotStart, LinksAreHaarDistributed) {
  const Lattice lat(4, 4, 4, 16);
  GaugeField<double> u(lat);
  HotStart(u, 8);
  const double n = u.links().size();
  double re_trace = 0, trace2 = 0;
  for (const auto& link : u.links()) {
    EXPECT_LT(UnitarityDeviation(link), kGramSchmidtDeviation);
    EXPECT_LT(DeterminantDeviation(link), kGramSchmidtDeviation);
    re_trace += link.trace().real() / n;
    trace2 += std::norm(link.trace()) / n;
  }
  EXPECT_NEAR(re_trace, 0.0, 5 * std::sqrt(0.5 / n));
  EXPECT_NEAR(trace2, 1.0, 5 * std::sqrt(1.0 / n));
  GaugeField<double> again(lat);
  HotStart(again, 8);
  EXPECT_EQ(std::memcmp(u.links().data(), again.links().data(), u.links().size() * sizeof(ColorMatrix<double>)), 0);
}

TEST(Inputs, BadBetaAndStreamOverflowAreRejected) {
  GaugeField<double> u(Lattice(2, 2, 2, 2));
  EXPECT_THROW(HeatbathSweep(u, -1.0, 1, 0), std::invalid_argument);
  EXPECT_THROW(HeatbathSweep(u, std::nan(""), 1, 0), std::invalid_argument);
  EXPECT_THROW(HeatbathSweep(u, INFINITY, 1, 0), std::invalid_argument);
  EXPECT_THROW(HeatbathSweep(u, 6.0, 1, std::uint64_t{1} << 62), std::overflow_error);
  // Stream ids are distinct for neighbouring (sweep, mu, site, subgroup).
  EXPECT_NE(HeatbathStreamId(0, 0, 0, 1, 16), HeatbathStreamId(0, 0, 1, 0, 16));
  EXPECT_EQ(HeatbathStreamId(1, 0, 0, 0, 16), std::uint64_t{4 * 16 * 3});
}

}  // namespace
}  // namespace lqcd
