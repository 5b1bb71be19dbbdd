// dslash_ladder_test: every rung of the Dslash teaching ladder (dslash_ladder.h) equals the CPU oracle
// (reference/wilson.h, double, DeGrand-Rossi) within a bound derived from the unit roundoff, on both parities;
// the ladder's own double kernels (rungs 1-3, 4a) are exact on small-integer inputs; rungs that differ only in
// layout (1, 2) or only in which words the temporal hops load (4a, 4b) agree bit for bit; the rung table
// changes one thing per rung; the cost model follows the paper's counts; bad inputs and labels throw clear
// errors. GPU tests skip without a device.
#include "gpu/dslash_ladder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/oracle_comparison.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd::gpu {
namespace {

constexpr double kUnitRoundoff = 0x1p-53;

// Rounding depths along any term of an output real (see docs/error_bounds.md, "GPU Dslash: tolerances of the oracle tests", for the method):
//   rungs 1-2: each spin of U psi is a 6-product sum (depth 6); the 4x4 projector multiply adds each of the 2
//              non-zero entries of a row (1, +-1 or +-i: exact products) into the output, so 8 hops x 2 = 16
//              accumulations: depth 6 + 16 = 22, gamma_22 < 23 u;
//   rung 3:    projection 1 + product sum 6 + 8 accumulations = 15 < 22;
//   oracle:    projection 1 + product sum 6 + 7 accumulations = 14, gamma_14 < 15 u.
// Every output real is a sum over 8 hops of two spin components of U psi (or U^dag psi), each a 6-product
// sum with sum |terms| <= sqrt 6 M (M = largest |real| of the input; a row or column of a unitary U has
// sum_j |Re U_ij| + |Im U_ij| <= sqrt 6). Storage is exact in double and no basis changes: so per real
//   |device - oracle| <= 16 sqrt 6 M (23 + 15) u.
double OwnKernelBound(double input_magnitude) { return 16 * std::sqrt(6.0) * input_magnitude * (23 + 15) * kUnitRoundoff; }

double LargestReal(const SpinorField<double>& f) {
  double m = 0;
  for (int i = 0; i < f.sites(); ++i) m = std::max({m, f[i].real().cwiseAbs().maxCoeff(), f[i].imag().cwiseAbs().maxCoeff()});
  return m;
}

class DslashLadderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // Extents all different and Lx / 2 odd, so index mix-ups cannot cancel; small enough for seconds.
  const Lattice lattice_{6, 4, 10, 8};
};

// out = D in with the rung's kernel; in and out in `basis` (LadderDslash::Upload says which rungs take UKQCD).
SpinorField<double> RunRung(const std::string& rung, const GaugeField<double>& u, const SpinorField<double>& in,
                            Parity out_parity, GammaBasis basis = GammaBasis::kDeGrandRossi) {
  LadderDslash d(rung, u, out_parity);
  d.Upload(in, basis);
  d.FillOutputBytes(0xff);  // NaN everywhere: a site the kernel misses fails the comparison
  d.Apply();
  return d.Download(basis);
}

int BitMismatches(const SpinorField<double>& a, const SpinorField<double>& b) {
  int mismatches = 0;
  for (int i = 0; i < a.sites(); ++i) mismatches += a[i] == b[i] ? 0 : 1;
  return mismatches;
}

// What `call` throws as std::invalid_argument, or "(no exception)".
template <typename F>
std::string InvalidArgumentMessage(F&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

// Bounds: rungs 1-3 compute in double on the host's DeGrand-Rossi numbers (OwnKernelBound). Every rung from
// 4a on computes in the UKQCD basis, so its input and output pass the 1/sqrt 2 basis change, which
// OwnKernelBound does not count: they take oracle_comparison.h's per-site bounds, which do (item 1, item 6). Rung
// 4a is double arithmetic on the same stored values as 4b, hop for hop the same operations (only the words its
// temporal hops load differ), so the production double bound is its bound. Rung 9a stores as half and computes
// in float on the decoded values: the half bound (storage to half a level plus the decode, float arithmetic)
// covers it as it covers 9b, whose levels arithmetic it was derived to include (docs/error_bounds.md).
TEST_F(DslashLadderTest, EveryRungMatchesTheOracleWithinItsDerivedBound) {
  const GaugeField<double> links = testing::RandomLinks(lattice_, 501, false);
  const GaugeField<double> fixed = testing::RandomLinks(lattice_, 501, true);
  for (const LadderRung& rung : DslashLadder()) {
    const GaugeField<double>& u = rung.temporal_gauge_fixed ? fixed : links;
    for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      SpinorField<double> in(lattice_, SubsetOf(Opposite(out_parity)));
      FillGaussian(in, 502 + std::stoi(rung.label));  // the rung's number: 4a and 4b (9a and 9b) share an input
      SpinorField<double> oracle(lattice_, SubsetOf(out_parity));
      ApplyHoppingParity(oracle, u, in, GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
      const SpinorField<double> got = RunRung(rung.label, u, in, out_parity);
      const std::string name = "rung " + std::string(rung.label) + " " + rung.name + " " + ToString(out_parity);
      if (rung.basis == GammaBasis::kDeGrandRossi) {
        const double bound = OwnKernelBound(LargestReal(in));
        double worst = 0;
        long violations = 0;
        for (int i = 0; i < got.sites(); ++i) {
          for (int s = 0; s < 4; ++s) {
            for (int c = 0; c < 3; ++c) {
              const Complex<double> d = got[i](s, c) - oracle[i](s, c);
              const double e = std::max(std::abs(d.real()), std::abs(d.imag()));
              worst = std::max(worst, e);
              violations += e <= bound ? 0 : 1;  // NaN counts
            }
          }
        }
        std::printf("%-40s max |error| %.2e  bound %.2e\n", name.c_str(), worst, bound);
        EXPECT_EQ(violations, 0) << name;
        continue;
      }
      // The per-site bounds of oracle_comparison.h (storage, links, basis changes, sums).
      testing::DslashBoundInputs b;
      b.precision = rung.precision;
      b.out_parity = out_parity;
      b.in_magnitude = testing::Magnitudes(in);
      b.in_error = testing::UploadErrors(in, rung.precision);
      b.link_error = testing::LinkErrorBounds(u, {rung.precision, rung.reconstruct, rung.temporal_gauge_fixed, 0});
      b.d_magnitude = testing::Magnitudes(oracle);
      b.out_magnitude = b.d_magnitude;
      const testing::Comparison r =
          testing::CompareWithBound(got, oracle, testing::DslashErrorBound(lattice_, b), b.out_magnitude);
      std::printf("%-40s max |error| %.2e  max error/bound %.3f\n", name.c_str(), r.max_error, r.max_ratio);
      EXPECT_EQ(r.violations, 0) << name << ": " << r.first_violation;
    }
  }
}

// Small integers: every product and sum is exact in double, and the projectors have entries 0, +-1, +-i in
// both bases (reference/gamma.h), so the ladder's own double kernels must reproduce the oracle exactly. Any
// indexing, sign, layout or boundary mistake changes an integer. Rung 4a computes in the UKQCD basis and would
// not be exact through the DeGrand-Rossi interface: the basis change multiplies by fl(1/sqrt 2), so integers
// become rounded irrationals (and fl(1/sqrt 2)^2 != 1/2 on the way back). It takes and returns its fields in
// the UKQCD basis instead, against the oracle run in that basis. (The production rungs have the same test in
// wilson_dslash_test; half-precision storage rounds integers.)
TEST_F(DslashLadderTest, OwnDoubleKernelsAreExactOnSmallIntegers) {
  const GaugeField<double> u = testing::IntegerLinks(lattice_, 511, false);
  int tested = 0;
  for (const LadderRung& rung : DslashLadder()) {
    if (rung.production() || rung.precision != Precision::kDouble) continue;
    ++tested;
    for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(Opposite(out_parity)), 512);
      SpinorField<double> oracle(lattice_, SubsetOf(out_parity));
      ApplyHoppingParity(oracle, u, in, rung.basis, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
      const SpinorField<double> got = RunRung(rung.label, u, in, out_parity, rung.basis);
      EXPECT_EQ(BitMismatches(got, oracle), 0) << "rung " << rung.label << " " << ToString(out_parity);
    }
  }
  EXPECT_EQ(tested, 4);  // rungs 1, 2, 3 and 4a
}

// Rungs 1 and 2 run the same arithmetic on differently laid out memory: the results agree bit for bit.
TEST_F(DslashLadderTest, LayoutChangesNoBit) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 521, false);
  SpinorField<double> in(lattice_, Subset::kEven);
  FillGaussian(in, 522);
  EXPECT_EQ(BitMismatches(RunRung("1", u, in, Parity::kOdd), RunRung("2", u, in, Parity::kOdd)), 0);
}

// Rungs 4a and 4b do the same operations on the same values in the same order; only the words the temporal
// hops load differ (all 24 reals of the neighbour, or the 12 its projector keeps): bit for bit the same.
TEST_F(DslashLadderTest, TemporalHalfSpinorLoadsChangeNoBit) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 523, false);
  for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
    SpinorField<double> in(lattice_, SubsetOf(Opposite(out_parity)));
    FillGaussian(in, 524);
    EXPECT_EQ(BitMismatches(RunRung("4a", u, in, out_parity), RunRung("4b", u, in, out_parity)), 0)
        << ToString(out_parity);
  }
}

TEST_F(DslashLadderTest, BadInputsThrowClearErrors) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 531, false);
  for (const char* rung : {"1", "2", "4a", "5"}) {
    LadderDslash d(rung, u, Parity::kEven);
    SpinorField<double> wrong_parity(lattice_, Subset::kEven);
    const std::string m = InvalidArgumentMessage([&] { d.Upload(wrong_parity); });
    EXPECT_NE(m.find("the odd sites of 6x4x10x8"), std::string::npos) << m;
    SpinorField<double> wrong_lattice(Lattice(4, 4, 4, 4), Subset::kOdd);
    const std::string l = InvalidArgumentMessage([&] { d.Upload(wrong_lattice); });
    EXPECT_NE(l.find("4x4x4x4"), std::string::npos) << l;
  }
  // The gauge-fixed rungs need links in temporal gauge; random links are refused, naming the problem.
  for (const char* rung : {"7", "9a"}) {
    const std::string gf = InvalidArgumentMessage([&] { LadderDslash d(rung, u, Parity::kEven); });
    EXPECT_NE(gf.find("temporally gauge fixed"), std::string::npos) << rung << ": " << gf;
  }
  // The DeGrand-Rossi rungs have no UKQCD storage to transfer into or out of.
  LadderDslash d("3", u, Parity::kEven);
  const SpinorField<double> in(lattice_, Subset::kOdd);
  for (const std::string& m : {InvalidArgumentMessage([&] { d.Upload(in, GammaBasis::kUkqcd); }),
                               InvalidArgumentMessage([&] { d.Download(GammaBasis::kUkqcd); })}) {
    EXPECT_NE(m.find("rung 3 computes in the DeGrand-Rossi basis"), std::string::npos) << m;
  }
}

// The table itself (no GPU needed): eleven rungs, labelled in order, from the naive kernel to the production
// half-precision one; each differs from the previous in exactly one property; production() holds exactly for
// the rungs that run the production kernel with its production arithmetic.
TEST(DslashLadderTableTest, EachRungChangesExactlyOneThing) {
  const std::vector<LadderRung>& ladder = DslashLadder();
  const std::vector<std::string> labels = {"1", "2", "3", "4a", "4b", "5", "6", "7", "8", "9a", "9b"};
  const std::vector<std::string> production = {"4b", "5", "6", "7", "8", "9b"};
  ASSERT_EQ(ladder.size(), labels.size());
  EXPECT_EQ(ladder.front().layout, SpinorLayout::kArrayOfStructs);
  EXPECT_FALSE(ladder.front().spin_projection);
  EXPECT_EQ(ladder.front().basis, GammaBasis::kDeGrandRossi);
  EXPECT_EQ(ladder.back().precision, Precision::kHalf);
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    const LadderRung& r = ladder[k];
    EXPECT_EQ(r.label, labels[k]);
    EXPECT_EQ(&DslashLadderRung(r.label), &r);
    EXPECT_GT(std::string(r.change).size(), 10u) << r.label;
    EXPECT_EQ(r.production(), std::count(production.begin(), production.end(), r.label) == 1) << r.label;
    // Properties that only make sense together: the diagonal gamma_4 exists in the UKQCD basis only, and
    // stored levels in half precision only.
    EXPECT_TRUE(!r.temporal_half_spinors || r.basis == GammaBasis::kUkqcd) << r.label;
    EXPECT_TRUE(!r.half_on_levels || r.precision == Precision::kHalf) << r.label;
    if (k == 0) continue;
    const LadderRung& p = ladder[k - 1];
    const int changes = (r.layout != p.layout) + (r.spin_projection != p.spin_projection) + (r.basis != p.basis) +
                        (r.temporal_half_spinors != p.temporal_half_spinors) + (r.precision != p.precision) +
                        (r.reconstruct != p.reconstruct) + (r.temporal_gauge_fixed != p.temporal_gauge_fixed) +
                        (r.half_on_levels != p.half_on_levels);
    EXPECT_EQ(changes, 1) << "rung " << r.label << " " << r.name;
  }
  for (const std::string bad : {"0", "4", "9", "10", "4A", "9c", ""}) {
    const std::string m = InvalidArgumentMessage([&] { DslashLadderRung(bad); });
    EXPECT_NE(m.find("no rung \"" + bad + "\" (the rungs are 1, 2, 3, 4a, 4b, 5, 6, 7, 8, 9a, 9b)"),
              std::string::npos)
        << m;
  }
  // LadderDslash resolves its label before it touches the device.
  const GaugeField<double> links(Lattice(4, 4, 4, 4));
  const std::string m = InvalidArgumentMessage([&] { LadderDslash d("4", links, Parity::kEven); });
  EXPECT_NE(m.find("no rung \"4\""), std::string::npos) << m;
}

// The byte model: rungs 1-4a load every hop's whole spinor and link, 8 (24 + 18) + 24 = 360 reals per site (the
// paper's 1440 bytes in single, 2880 in double); from rung 4b on the production model applies, whose UKQCD
// temporal hops save 2 x 12 reals; flops are 1320 per site throughout.
TEST(DslashLadderTableTest, CostFollowsThePapersCounts) {
  const Extents extents{24, 24, 24, 32};
  const double sites = 24.0 * 24 * 24 * 32 / 2;
  for (const LadderRung& r : DslashLadder()) {
    const KernelCost c = LadderCost(r, extents), production = WilsonDslashCost(r.Variant(), extents);
    EXPECT_DOUBLE_EQ(c.flops, 1320 * sites) << r.label;
    EXPECT_DOUBLE_EQ(c.minimum_bytes, production.minimum_bytes) << r.label;
    if (!r.temporal_half_spinors) {
      EXPECT_DOUBLE_EQ(c.bytes / sites, 2880) << r.label;
    } else {
      EXPECT_DOUBLE_EQ(c.bytes, production.bytes) << r.label;
    }
  }
  EXPECT_DOUBLE_EQ(LadderCost(DslashLadderRung("4a"), extents).bytes / sites, 8 * (8 * 24 + 8 * 18 + 24));
  EXPECT_DOUBLE_EQ(LadderCost(DslashLadderRung("4b"), extents).bytes / sites, 8 * (6 * 24 + 2 * 12 + 8 * 18 + 24));
  // Half precision's two rungs share their storage, hence their bytes.
  EXPECT_DOUBLE_EQ(LadderCost(DslashLadderRung("9a"), extents).bytes, LadderCost(DslashLadderRung("9b"), extents).bytes);
}

}  // namespace
}  // namespace lqcd::gpu
