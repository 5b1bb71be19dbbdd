// wilson_dslash_test: the device Dslash equals the CPU oracle (reference/wilson.h, double, DeGrand-Rossi)
// for every variant the code supports -- precision x reconstruction x temporal gauge fixing x dagger x xpay,
// both parities -- within per-site bounds derived from the unit roundoffs (oracle_comparison.h), and
// exactly for small-integer inputs; padding and the block size change nothing; the tuner remembers and
// preserves aliased outputs; bad arguments throw clear errors; the cost model matches the paper's counts.
#include "gpu/wilson_dslash.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/oracle_comparison.h"
#include "gpu/tune.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd::gpu {
namespace {

using testing::Comparison;
using testing::DslashBoundInputs;
using testing::DslashCase;

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};

// a and b are dyadic, so they are exact in every precision.
constexpr double kA = 1.25, kB = -0.375;

class WilsonDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ClearForcedBlockSize();
  }
  void TearDown() override { LaunchTuner::Instance().ClearForcedBlockSize(); }
  // Extents all different and Lx / 2 odd, so index mix-ups cannot cancel; small enough for seconds.
  const Lattice lattice_{6, 4, 10, 8};
};

SpinorField<double> Combine(double a, const SpinorField<double>& x, double b, const SpinorField<double>& y) {
  SpinorField<double> out(x.lattice(), x.subset());
  for (int i = 0; i < x.sites(); ++i) out[i] = a * x[i] + b * y[i];
  return out;
}

// One variant: the device result (downloaded to DR) against the oracle, with its derived bound.
// source_scale multiplies both input spinors (a power of two keeps them exact).
Comparison RunAgainstOracle(const DslashCase& c, const GaugeField<double>& u, const FermionBoundary& boundary,
                            std::uint64_t seed, double source_scale = 1) {
  const Lattice& lat = u.lattice();
  const Parity in_parity = Opposite(c.out_parity);
  SpinorField<double> in(lat, SubsetOf(in_parity)), x(lat, SubsetOf(c.out_parity));
  FillGaussian(in, seed);
  FillGaussian(x, seed + 1);
  for (int i = 0; i < in.sites(); ++i) in[i] *= source_scale;
  for (int i = 0; i < x.sites(); ++i) x[i] *= source_scale;
  SpinorField<double> d_oracle(lat, SubsetOf(c.out_parity));
  ApplyHoppingParity(d_oracle, u, in, GammaBasis::kDeGrandRossi, boundary, c.dagger);
  const SpinorField<double> oracle = c.xpay ? Combine(kA, x, kB, d_oracle) : d_oracle;

  const GaugeLayout layout{c.precision, c.reconstruct, c.gauge_fixed, 0};
  const DeviceGaugeField gauge(u, layout);
  DeviceSpinorField in_device(lat, SubsetOf(in_parity), c.precision);
  DeviceSpinorField x_device(lat, SubsetOf(c.out_parity), c.precision);
  DeviceSpinorField out_device(lat, SubsetOf(c.out_parity), c.precision);
  in_device.Upload(in);
  x_device.Upload(x);
  out_device.FillBytes(0xff);  // NaN everywhere: a site the kernel misses fails the comparison
  if (c.xpay) {
    ApplyWilsonDslashXpay(out_device.View(), gauge, in_device.View(), c.dagger, x_device.View(), kA, kB, boundary);
  } else {
    ApplyWilsonDslash(out_device.View(), gauge, in_device.View(), c.dagger, boundary);
  }
  const SpinorField<double> got = out_device.Download();

  const DslashBoundInputs b = testing::DslashBoundInputsOf(c.precision, c.out_parity, u, layout, in, d_oracle, oracle,
                                                           c.xpay ? &x : nullptr, kA, kB);
  const std::vector<double> bound = testing::DslashErrorBound(lat, b);
  return testing::CompareWithBound(got, oracle, bound, b.out_magnitude);
}

void ExpectWithinBound(const DslashCase& c, const Comparison& r) {
  std::printf("%-28s max |error| %.2e  max error/bound %.3f\n", c.Name().c_str(), r.max_error, r.max_ratio);
  EXPECT_EQ(r.violations, 0) << c.Name() << ": " << r.first_violation;
}

// 2 gauge fixings x 3 precisions x 3 reconstructions x 2 daggers x 2 xpay x 2 parities = 144 cases.
TEST_F(WilsonDslashTest, EveryVariantMatchesTheOracleOnRandomLinks) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 101, gauge_fixed);
    for (Precision precision : kPrecisions) {
      for (Reconstruct reconstruct : kReconstructions) {
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          for (bool xpay : {false, true}) {
            for (Parity parity : {Parity::kEven, Parity::kOdd}) {
              const DslashCase c{precision, reconstruct, gauge_fixed, dagger, xpay, parity};
              ExpectWithinBound(c, RunAgainstOracle(c, u, FermionBoundary::AntiperiodicTime(), 200));
            }
          }
        }
      }
    }
  }
}

// 8 reals on fields with links in the singular form (N = 0; device_gauge_field.h): the free field (every
// link 1) and random links with some diag(e^{i theta}, e^{-i theta}, 1) and unit links among them.
TEST_F(WilsonDslashTest, EightRealsHandleTheFreeFieldAndSingularFormLinks) {
  GaugeField<double> mixed = testing::RandomLinks(lattice_, 103, false);
  for (int k = 0; k < 8; ++k) {
    ColorMatrix<double> d = ColorMatrix<double>::Identity();
    if (k % 2 == 0) {
      d(0, 0) = std::polar(1.0, 0.4 * k - 1.3);
      d(1, 1) = std::conj(d(0, 0));
    }
    mixed.Link((37 * k + 11) % lattice_.volume(), k % kDims) = d;
  }
  const GaugeField<double> fields[] = {GaugeField<double>(lattice_), mixed};
  for (const GaugeField<double>& u : fields) {
    for (Precision precision : kPrecisions) {
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        for (bool xpay : {false, true}) {
          const DslashCase c{precision, Reconstruct::k8, false, dagger, xpay, xpay ? Parity::kOdd : Parity::kEven};
          ExpectWithinBound(c, RunAgainstOracle(c, u, FermionBoundary::AntiperiodicTime(), 400));
        }
      }
    }
  }
}

TEST_F(WilsonDslashTest, EveryPrecisionAndLinkFormMatchesTheOracleOnSmoothLinks) {
  const GaugeField<double> u = testing::SmoothLinks(lattice_, 102, 0.5);
  for (Precision precision : kPrecisions) {
    for (Reconstruct reconstruct : kReconstructions) {
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        const DslashCase c{precision, reconstruct, false, dagger, true, Parity::kOdd};
        ExpectWithinBound(c, RunAgainstOracle(c, u, FermionBoundary::AntiperiodicTime(), 300));
      }
    }
  }
}

// Tiny spinors, scaled by 2^-116 (largest real ~4e-35): in half, 32767 / norm overflows float for such
// sites (the output store once wrote all levels 0), and the decode scale norm / 32767 and the hop
// coefficient are subnormal floats; in single the values stay normal floats. The bounds are the same
// derivation, relative to the scaled magnitudes, plus the absolute term of a subnormal scale
// (oracle_comparison.h, item 1). Half with 12 or 18 reals once folded the link unit 1/32767 into the
// coefficient, which then went subnormal below norms of ~1.3e-29 and failed here by 14.5x.
TEST_F(WilsonDslashTest, TinySpinorsKeepTheirRelativeAccuracy) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 105, false);
  for (Precision precision : kPrecisions) {
    for (Reconstruct reconstruct : kReconstructions) {
      for (bool xpay : {false, true}) {
        const DslashCase c{precision, reconstruct, false, Dagger::kNo, xpay, Parity::kEven};
        ExpectWithinBound(c, RunAgainstOracle(c, u, FermionBoundary::AntiperiodicTime(), 500, 0x1p-116));
      }
    }
  }
}

// Boundary phases per direction: all periodic, and antiperiodic in every direction.
TEST_F(WilsonDslashTest, BoundaryPhasesFollowTheBoundaryConditions) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 103, false);
  FermionBoundary all_antiperiodic;
  for (auto& condition : all_antiperiodic.condition) condition = BoundaryCondition::kAntiperiodic;
  for (const FermionBoundary& boundary : {FermionBoundary::Periodic(), all_antiperiodic}) {
    for (Precision precision : {Precision::kDouble, Precision::kHalf}) {
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        const DslashCase c{precision, Reconstruct::k12, false, dagger, false, Parity::kEven};
        SCOPED_TRACE(boundary.ToString());
        ExpectWithinBound(c, RunAgainstOracle(c, u, boundary, 400));
      }
    }
  }
}

// Small integers: every product and sum is exact in double and in single, in the UKQCD basis (whose
// gamma matrices have entries 0, +-1, +-i; the oracle builds them exactly). Any indexing, sign or
// boundary mistake changes an integer. Links with 18 reals (integer links are not SU(3)).
TEST_F(WilsonDslashTest, SmallIntegerInputsGiveTheOraclesResultExactly) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::IntegerLinks(lattice_, 104, gauge_fixed);
    for (Precision precision : {Precision::kDouble, Precision::kSingle}) {
      const DeviceGaugeField gauge(u, {precision, Reconstruct::k18, gauge_fixed, 0});
      for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
        for (bool xpay : {false, true}) {
          for (Parity parity : {Parity::kEven, Parity::kOdd}) {
            const DslashCase c{precision, Reconstruct::k18, gauge_fixed, dagger, xpay, parity};
            const SpinorField<double> in = testing::IntegerSpinors(lattice_, SubsetOf(Opposite(parity)), 105);
            const SpinorField<double> x = testing::IntegerSpinors(lattice_, SubsetOf(parity), 106);
            SpinorField<double> oracle(lattice_, SubsetOf(parity));
            ApplyHoppingParity(oracle, u, in, GammaBasis::kUkqcd, FermionBoundary::AntiperiodicTime(), dagger);
            if (xpay) oracle = Combine(2.0, x, -3.0, oracle);
            DeviceSpinorField in_device(lattice_, SubsetOf(Opposite(parity)), precision);
            DeviceSpinorField x_device(lattice_, SubsetOf(parity), precision);
            DeviceSpinorField out_device(lattice_, SubsetOf(parity), precision);
            in_device.Upload(in, GammaBasis::kUkqcd);
            x_device.Upload(x, GammaBasis::kUkqcd);
            out_device.FillBytes(0xff);
            if (xpay) {
              ApplyWilsonDslashXpay(out_device.View(), gauge, in_device.View(), dagger, x_device.View(), 2.0, -3.0);
            } else {
              ApplyWilsonDslash(out_device.View(), gauge, in_device.View(), dagger);
            }
            const SpinorField<double> got = out_device.Download(GammaBasis::kUkqcd);
            int mismatches = 0;
            for (int i = 0; i < got.sites(); ++i) mismatches += got[i] == oracle[i] ? 0 : 1;
            EXPECT_EQ(mismatches, 0) << c.Name();
          }
        }
      }
    }
  }
}

// Padding (the paper's partition-camping fix) moves the data, not the arithmetic: bit-identical results.
TEST_F(WilsonDslashTest, PaddingGivesBitIdenticalResults) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 107, false);
  SpinorField<double> in(lattice_, Subset::kEven);
  FillGaussian(in, 108);
  const int pad = DeviceSpinorField::PaperPad(lattice_);
  for (Precision precision : kPrecisions) {
    for (Reconstruct reconstruct : kReconstructions) {
      SpinorField<double> results[2] = {SpinorField<double>(lattice_, Subset::kOdd),
                                        SpinorField<double>(lattice_, Subset::kOdd)};
      for (int padded = 0; padded < 2; ++padded) {
        const DeviceGaugeField gauge(u, {precision, reconstruct, false, padded ? pad : 0});
        DeviceSpinorField in_device(lattice_, Subset::kEven, precision, padded ? pad : 0);
        DeviceSpinorField out_device(lattice_, Subset::kOdd, precision, padded ? pad + 7 : 0);
        in_device.Upload(in);
        out_device.FillBytes(0xff);
        ApplyWilsonDslash(out_device.View(), gauge, in_device.View(), Dagger::kNo);
        results[padded] = out_device.Download();
      }
      int mismatches = 0;
      for (int i = 0; i < in.sites(); ++i) mismatches += results[0][i] == results[1][i] ? 0 : 1;
      EXPECT_EQ(mismatches, 0) << ToString(precision) << "/" << ToString(reconstruct);
    }
  }
}

// One thread per site: the block size cannot change a single bit, and the tuned launch agrees too.
TEST_F(WilsonDslashTest, BlockSizeNeverChangesTheResult) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 109, true);
  SpinorField<double> in(lattice_, Subset::kOdd), x(lattice_, Subset::kEven);
  FillGaussian(in, 110);
  FillGaussian(x, 111);
  for (Precision precision : kPrecisions) {
    const DeviceGaugeField gauge(u, {precision, Reconstruct::k8, true, 0});
    DeviceSpinorField in_device(lattice_, Subset::kOdd, precision), x_device(lattice_, Subset::kEven, precision);
    DeviceSpinorField out_device(lattice_, Subset::kEven, precision);
    in_device.Upload(in);
    x_device.Upload(x);
    std::vector<SpinorField<double>> results;
    for (int block : {0, 32, 64, 96, 160, 256}) {  // 0: the tuner's choice
      if (block == 0) {
        LaunchTuner::Instance().ClearForcedBlockSize();
      } else {
        LaunchTuner::Instance().ForceBlockSize(block);
      }
      out_device.FillBytes(0xff);
      ApplyWilsonDslashXpay(out_device.View(), gauge, in_device.View(), Dagger::kYes, x_device.View(), kA, kB);
      results.push_back(out_device.Download());
    }
    LaunchTuner::Instance().ClearForcedBlockSize();
    for (std::size_t k = 1; k < results.size(); ++k) {
      int mismatches = 0;
      for (int i = 0; i < in.sites(); ++i) mismatches += results[k][i] == results[0][i] ? 0 : 1;
      EXPECT_EQ(mismatches, 0) << ToString(precision) << ", block size number " << k;
    }
  }
}

// The tuner times each (kernel, variant, volume) once and remembers it; tuning an xpay whose output is
// its x input (out = a out + b D in) must leave that input as it was before the timing runs.
TEST_F(WilsonDslashTest, TunerRemembersAndPreservesAnAliasedOutput) {
  const Lattice lattice(4, 6, 4, 6);  // a volume no other test uses: the first call here tunes
  const GaugeField<double> u = testing::RandomLinks(lattice, 112, false);
  SpinorField<double> in(lattice, Subset::kEven), x(lattice, Subset::kOdd);
  FillGaussian(in, 113);
  FillGaussian(x, 114);
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  DeviceSpinorField in_device(lattice, Subset::kEven, Precision::kSingle);
  DeviceSpinorField x_device(lattice, Subset::kOdd, Precision::kSingle);
  DeviceSpinorField separate(lattice, Subset::kOdd, Precision::kSingle);
  in_device.Upload(in);
  x_device.Upload(x);

  LaunchTuner::Instance().ForceBlockSize(64);  // reference result, no tuning
  ApplyWilsonDslashXpay(separate.View(), gauge, in_device.View(), Dagger::kNo, x_device.View(), kA, kB);
  LaunchTuner::Instance().ClearForcedBlockSize();

  const int tunings_before = LaunchTuner::Instance().tunings_performed();
  ApplyWilsonDslashXpay(x_device.View(), gauge, in_device.View(), Dagger::kNo, x_device.View(), kA, kB);  // in place
  EXPECT_EQ(LaunchTuner::Instance().tunings_performed(), tunings_before + 1) << "the first call tunes";
  const SpinorField<double> in_place = x_device.Download(), expected = separate.Download();
  int mismatches = 0;
  for (int i = 0; i < in_place.sites(); ++i) mismatches += in_place[i] == expected[i] ? 0 : 1;
  EXPECT_EQ(mismatches, 0) << "tuning compounded the in-place update";

  ApplyWilsonDslash(separate.View(), gauge, in_device.View(), Dagger::kNo);
  ApplyWilsonDslash(separate.View(), gauge, in_device.View(), Dagger::kNo);
  EXPECT_EQ(LaunchTuner::Instance().tunings_performed(), tunings_before + 2) << "a variant is tuned once";
  bool found = false;
  for (const auto& [key, result] : LaunchTuner::Instance().results()) {
    if (key.find("WilsonDslash single/12/xpay 4x6x4x6") != std::string::npos) {
      found = true;
      EXPECT_GE(result.block, 32);
      EXPECT_EQ(result.block % 32, 0);
      EXPECT_GT(result.microseconds, 0);
    }
  }
  EXPECT_TRUE(found) << "the tuned block size is remembered under its key";
}

TEST_F(WilsonDslashTest, BadArgumentsThrowClearErrors) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 115, false);
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  DeviceSpinorField even(lattice_, Subset::kEven, Precision::kSingle), odd(lattice_, Subset::kOdd, Precision::kSingle);
  DeviceSpinorField odd2(lattice_, Subset::kOdd, Precision::kSingle);
  DeviceSpinorField half_odd(lattice_, Subset::kOdd, Precision::kHalf);
  DeviceSpinorField other_lattice(Lattice(4, 4, 4, 4), Subset::kOdd, Precision::kSingle);
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  auto contains = [](const std::string& text, const char* word) { return text.find(word) != std::string::npos; };
  const std::string same_parity = message([&] { ApplyWilsonDslash(odd.View(), gauge, odd2.View(), Dagger::kNo); });
  EXPECT_TRUE(contains(same_parity, "parity")) << same_parity;
  const std::string precision = message([&] { ApplyWilsonDslash(half_odd.View(), gauge, even.View(), Dagger::kNo); });
  EXPECT_TRUE(contains(precision, "precision")) << precision;
  const std::string lattice =
      message([&] { ApplyWilsonDslash(other_lattice.View(), gauge, even.View(), Dagger::kNo); });
  EXPECT_TRUE(contains(lattice, "4x4x4x4")) << lattice;
  const std::string x_parity =
      message([&] { ApplyWilsonDslashXpay(odd.View(), gauge, even.View(), Dagger::kNo, even.View(), 1, 1); });
  EXPECT_TRUE(contains(x_parity, "x must be on the parity of out")) << x_parity;
  const std::string not_finite =
      message([&] { ApplyWilsonDslashXpay(odd.View(), gauge, even.View(), Dagger::kNo, odd2.View(), NAN, 1); });
  EXPECT_TRUE(contains(not_finite, "finite")) << not_finite;

  // A launch the device refuses (more threads per block than any GPU allows) is a CudaError that names
  // the launch and CUDA's reason (the H100 says cudaErrorInvalidValue for 4096 threads).
  LaunchTuner::Instance().ForceBlockSize(4096);
  try {
    ApplyWilsonDslash(odd.View(), gauge, even.View(), Dagger::kNo);
    FAIL() << "a launch with 4096 threads per block succeeded";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.what(), "launch of WilsonDslash single/12 6x4x10x8")) << e.what();
    EXPECT_TRUE(contains(e.what(), "with 4096 threads per block failed: cudaError")) << e.what();
    EXPECT_NE(e.cuda_status(), 0);
  }
  LaunchTuner::Instance().ClearForcedBlockSize();
  ApplyWilsonDslash(odd.View(), gauge, even.View(), Dagger::kNo);  // the context is still usable
  EXPECT_NO_THROW(odd.Download());
}

// The cost model against the paper's section 4.3 counts (single precision, per site): 8 (24 + 18) loads
// and 24 stores for full spinors and 18 reals would be 1440 bytes; with half spinors for the temporal hops
// (UKQCD), 8-real links and gauge fixing the loads tend to 7 (24) + 6 (8) and the total to 960 bytes
// (+ 2 t-links x 8 reals / Lt from the boundary slices).
TEST(WilsonDslashCostTest, MatchesThePapersCounts) {
  const Extents extents{24, 24, 24, 64};
  const double sites = 24.0 * 24 * 24 * 64 / 2;
  DslashVariant v{Precision::kSingle, Reconstruct::k18, false, Dagger::kNo, false};
  KernelCost cost = WilsonDslashCost(v, extents);
  EXPECT_DOUBLE_EQ(cost.flops, 1320 * sites);
  EXPECT_DOUBLE_EQ(cost.bytes / sites, 4 * (6 * 24 + 2 * 12 + 8 * 18 + 24));  // 1440 - 2 * 12 * 4 (UKQCD)
  v.reconstruct = Reconstruct::k8;
  v.temporal_gauge_fixed = true;
  cost = WilsonDslashCost(v, extents);
  EXPECT_DOUBLE_EQ(cost.bytes / sites, 960 + 4 * 2.0 * 8 / 64);
  v.xpay = true;
  v.precision = Precision::kHalf;
  cost = WilsonDslashCost(v, extents);
  EXPECT_DOUBLE_EQ(cost.flops, (1320 + 48) * sites);
  // half: 2-byte reals; spinors carry a 4-byte norm (8 neighbours, x, out).
  EXPECT_DOUBLE_EQ(cost.bytes / sites, 2 * (168 + (6 + 2.0 / 64) * 8 + 24 + 24) + 4 * 10);
  EXPECT_DOUBLE_EQ(cost.minimum_bytes / sites, 2 * (24 + (6 + 2.0 / 64) * 8 + 24 + 24) + 4 * 3);
}

}  // namespace
}  // namespace lqcd::gpu
