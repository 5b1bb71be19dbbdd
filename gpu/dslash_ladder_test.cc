// dslash_ladder_test: every rung of the Dslash teaching ladder (dslash_ladder.h) equals the CPU oracle
// (reference/wilson.h, double, DeGrand-Rossi) within a bound derived from the unit roundoff, on both parities;
// the ladder's own kernels (rungs 1-3) are exact on small-integer inputs and rungs 1 and 2 (same arithmetic,
// different layout) agree bit for bit; the rung table changes one thing per rung; the cost model follows the
// paper's counts; bad inputs throw clear errors. GPU tests skip without a device.
#include "gpu/dslash_ladder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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

SpinorField<double> RunRung(int rung, const GaugeField<double>& u, const SpinorField<double>& in, Parity out_parity) {
  LadderDslash d(rung, u, out_parity);
  d.Upload(in);
  d.FillOutputBytes(0xff);  // NaN everywhere: a site the kernel misses fails the comparison
  d.Apply();
  return d.Download();
}

TEST_F(DslashLadderTest, EveryRungMatchesTheOracleWithinItsDerivedBound) {
  const GaugeField<double> links = testing::RandomLinks(lattice_, 501, false);
  const GaugeField<double> fixed = testing::RandomLinks(lattice_, 501, true);
  for (const LadderRung& rung : DslashLadder()) {
    const GaugeField<double>& u = rung.temporal_gauge_fixed ? fixed : links;
    for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      SpinorField<double> in(lattice_, SubsetOf(Opposite(out_parity)));
      FillGaussian(in, 502 + rung.number);
      SpinorField<double> oracle(lattice_, SubsetOf(out_parity));
      ApplyHoppingParity(oracle, u, in, GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
      const SpinorField<double> got = RunRung(rung.number, u, in, out_parity);
      const std::string name = "rung " + std::to_string(rung.number) + " " + rung.name + " " + ToString(out_parity);
      if (!rung.production()) {
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
        std::printf("%-32s max |error| %.2e  bound %.2e\n", name.c_str(), worst, bound);
        EXPECT_EQ(violations, 0) << name;
        continue;
      }
      // Production rungs: the per-site bounds of oracle_comparison.h (storage, links, basis changes, sums).
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
      std::printf("%-32s max |error| %.2e  max error/bound %.3f\n", name.c_str(), r.max_error, r.max_ratio);
      EXPECT_EQ(r.violations, 0) << name << ": " << r.first_violation;
    }
  }
}

// Small integers: every product and sum is exact in double, and the DeGrand-Rossi projectors have entries
// 0, +-1, +-i, so the ladder's own kernels must reproduce the oracle exactly. Any indexing, sign, layout or
// boundary mistake changes an integer. (The production rungs have the same test in wilson_dslash_test.)
TEST_F(DslashLadderTest, OwnKernelsAreExactOnSmallIntegers) {
  const GaugeField<double> u = testing::IntegerLinks(lattice_, 511, false);
  for (int rung = 1; rung <= 3; ++rung) {
    for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
      const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(Opposite(out_parity)), 512);
      SpinorField<double> oracle(lattice_, SubsetOf(out_parity));
      ApplyHoppingParity(oracle, u, in, GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
      const SpinorField<double> got = RunRung(rung, u, in, out_parity);
      int mismatches = 0;
      for (int i = 0; i < got.sites(); ++i) mismatches += got[i] == oracle[i] ? 0 : 1;
      EXPECT_EQ(mismatches, 0) << "rung " << rung << " " << ToString(out_parity);
    }
  }
}

// Rungs 1 and 2 run the same arithmetic on differently laid out memory: the results agree bit for bit.
TEST_F(DslashLadderTest, LayoutChangesNoBit) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 521, false);
  SpinorField<double> in(lattice_, Subset::kEven);
  FillGaussian(in, 522);
  const SpinorField<double> aos = RunRung(1, u, in, Parity::kOdd), soa = RunRung(2, u, in, Parity::kOdd);
  int mismatches = 0;
  for (int i = 0; i < aos.sites(); ++i) mismatches += aos[i] == soa[i] ? 0 : 1;
  EXPECT_EQ(mismatches, 0);
}

TEST_F(DslashLadderTest, BadInputsThrowClearErrors) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 531, false);
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  for (int rung : {1, 2, 5}) {
    LadderDslash d(rung, u, Parity::kEven);
    SpinorField<double> wrong_parity(lattice_, Subset::kEven);
    const std::string m = message([&] { d.Upload(wrong_parity); });
    EXPECT_NE(m.find("the odd sites of 6x4x10x8"), std::string::npos) << m;
    SpinorField<double> wrong_lattice(Lattice(4, 4, 4, 4), Subset::kOdd);
    const std::string l = message([&] { d.Upload(wrong_lattice); });
    EXPECT_NE(l.find("4x4x4x4"), std::string::npos) << l;
  }
  // The gauge-fixed rungs need links in temporal gauge; random links are refused, naming the problem.
  const std::string gf = message([&] { LadderDslash d(7, u, Parity::kEven); });
  EXPECT_NE(gf.find("temporally gauge fixed"), std::string::npos) << gf;
}

// The table itself (no GPU needed): nine rungs, numbered in order, from the naive kernel to the production
// half-precision one, and each rung differs from the previous in exactly one property.
TEST(DslashLadderTableTest, EachRungChangesExactlyOneThing) {
  const std::vector<LadderRung>& ladder = DslashLadder();
  ASSERT_EQ(ladder.size(), 9u);
  EXPECT_EQ(ladder.front().layout, SpinorLayout::kArrayOfStructs);
  EXPECT_FALSE(ladder.front().spin_projection);
  EXPECT_EQ(ladder.front().basis, GammaBasis::kDeGrandRossi);
  EXPECT_EQ(ladder.back().precision, Precision::kHalf);
  EXPECT_TRUE(ladder.back().production());
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    const LadderRung& r = ladder[k];
    EXPECT_EQ(r.number, static_cast<int>(k) + 1);
    EXPECT_EQ(&DslashLadderRung(r.number), &r);
    EXPECT_GT(std::string(r.change).size(), 10u) << r.name;
    if (k == 0) continue;
    const LadderRung& p = ladder[k - 1];
    const int changes = (r.layout != p.layout) + (r.spin_projection != p.spin_projection) + (r.basis != p.basis) +
                        (r.precision != p.precision) + (r.reconstruct != p.reconstruct) +
                        (r.temporal_gauge_fixed != p.temporal_gauge_fixed);
    EXPECT_EQ(changes, 1) << "rung " << r.number << " " << r.name;
  }
  for (int bad : {0, 10}) {
    try {
      DslashLadderRung(bad);
      ADD_FAILURE() << "rung " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("(1..9)"), std::string::npos) << e.what();
    }
  }
}

// The byte model: rungs 1-3 read every hop's whole spinor and link, 8 (24 + 18) + 24 = 360 reals per site
// (the paper's 1440 bytes in single, 2880 in double); from rung 4 on the production model applies, whose
// UKQCD temporal hops save 2 x 12 reals; flops are 1320 per site throughout.
TEST(DslashLadderTableTest, CostFollowsThePapersCounts) {
  const Extents extents{24, 24, 24, 32};
  const double sites = 24.0 * 24 * 24 * 32 / 2;
  for (const LadderRung& r : DslashLadder()) {
    const KernelCost c = LadderCost(r, extents);
    EXPECT_DOUBLE_EQ(c.flops, 1320 * sites) << r.name;
    EXPECT_DOUBLE_EQ(c.minimum_bytes, WilsonDslashCost(r.Variant(), extents).minimum_bytes) << r.name;
    if (!r.production()) {
      EXPECT_DOUBLE_EQ(c.bytes / sites, 2880) << r.name;
    } else {
      EXPECT_DOUBLE_EQ(c.bytes, WilsonDslashCost(r.Variant(), extents).bytes) << r.name;
    }
  }
  EXPECT_DOUBLE_EQ(LadderCost(DslashLadderRung(4), extents).bytes / sites, 8 * (6 * 24 + 2 * 12 + 8 * 18 + 24));
}

}  // namespace
}  // namespace lqcd::gpu
