// multi_rhs_dslash_test: every right-hand side of the multi-RHS Dslash equals the CPU oracle within the derived
// per-site bound of wilson_dslash_test (oracle_comparison.h), for every variant (precision x reconstruction x
// temporal gauge fixing x dagger x xpay) and every mapping (1, 2 or 4 right-hand sides per thread, with partial
// groups); the sites that differ from the single-RHS kernel at all are counted and printed (the formula and its
// order are the same, but the compiler may contract products into fma differently in the two kernels);
// blocks larger than one launch, several blocks per site group, in-place xpay and mixed paddings; the block
// Schur operator against Apply; block BiCGstab and block CG on the GPU converge with verified true residuals
// like the separate solves; bad arguments are refused before any launch; the cost model counts links once.
#include "gpu/multi_rhs_dslash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_block_testing.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/multi_rhs_dslash_launch.h"
#include "gpu/oracle_comparison.h"
#include "gpu/schur_operator.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/bicgstab.h"
#include "solvers/block_bicgstab.h"
#include "solvers/block_cg.h"
#include "solvers/testing.h"

namespace lqcd::gpu {
namespace {

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr double kA = 1.25, kB = -0.375;  // dyadic: exact in every precision

class MultiRhsDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ClearForcedBlockSize();
  }
  const Lattice lattice_{6, 4, 10, 8};  // extents all different, Lx / 2 odd (as wilson_dslash_test)
};

using testing::DeviceBlock;

// n device fields on `subset` (testing::DeviceBlock) holding Gaussian noise, seeds seed, seed + 1, ...; the host
// copies are the oracle's inputs.
struct GaussianBlock : DeviceBlock {
  std::vector<SpinorField<double>> host;

  GaussianBlock(const Lattice& lat, Subset subset, Precision precision, int n, std::uint64_t seed, int pad_step = 0)
      : DeviceBlock(lat, subset, precision, n, pad_step) {
    for (int j = 0; j < n; ++j) {
      host.emplace_back(lat, subset);
      FillGaussian(host.back(), seed + j);
      fields[j]->Upload(host.back());
    }
  }
};

// The oracle's a x + b D in (or D in) for one right-hand side, with its derived per-site bound.
struct OracleResult {
  SpinorField<double> out;
  std::vector<double> bound, magnitude;
};
OracleResult Oracle(const testing::DslashCase& c, const GaugeField<double>& u, const GaugeLayout& layout,
                    const SpinorField<double>& in, const SpinorField<double>& x) {
  const Lattice& lat = u.lattice();
  SpinorField<double> d(lat, SubsetOf(c.out_parity));
  ApplyHoppingParity(d, u, in, GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime(), c.dagger);
  OracleResult r{SpinorField<double>(lat, SubsetOf(c.out_parity)), {}, {}};
  for (int i = 0; i < d.sites(); ++i) r.out[i] = c.xpay ? SiteSpinor<double>(kA * x[i] + kB * d[i]) : d[i];
  const testing::DslashBoundInputs b = testing::DslashBoundInputsOf(c.precision, c.out_parity, u, layout, in, d, r.out,
                                                                     c.xpay ? &x : nullptr, kA, kB);
  r.bound = testing::DslashErrorBound(lat, b);
  r.magnitude = b.out_magnitude;
  return r;
}

// The block call (n right-hand sides, mapping m; 0: tuned) on links u: every right-hand side against the
// oracle within its bound (returns the violations, all right-hand sides together); prints the largest
// error/bound and how many sites differ at all from the single-RHS kernel.
int BlockAgainstOracle(const testing::DslashCase& c, const GaugeField<double>& u, int n, int m, int pad_step = 0) {
  const Lattice& lat = u.lattice();
  const GaugeLayout layout{c.precision, c.reconstruct, c.gauge_fixed, 0};
  const DeviceGaugeField gauge(u, layout);
  const Subset out_subset = SubsetOf(c.out_parity), in_subset = SubsetOf(Opposite(c.out_parity));
  GaussianBlock in(lat, in_subset, c.precision, n, 1000, pad_step);
  GaussianBlock x(lat, out_subset, c.precision, n, 2000, pad_step);
  DeviceBlock out(lat, out_subset, c.precision, n, pad_step);
  DeviceSpinorField single(lat, out_subset, c.precision);
  if (c.xpay) {
    ApplyWilsonDslashXpayBlock(out.Views(), gauge, in.ConstViews(), c.dagger, x.ConstViews(), kA, kB,
                               FermionBoundary::AntiperiodicTime(), {m});
  } else {
    ApplyWilsonDslashBlock(out.Views(), gauge, in.ConstViews(), c.dagger, FermionBoundary::AntiperiodicTime(), {m});
  }
  int violations = 0, differing = 0;
  double worst = 0;
  for (int j = 0; j < n; ++j) {
    const SpinorField<double> got = out.fields[j]->Download();
    const OracleResult oracle = Oracle(c, u, layout, in.host[j], x.host[j]);
    const testing::Comparison r = testing::CompareWithBound(got, oracle.out, oracle.bound, oracle.magnitude);
    violations += r.violations;
    worst = std::max(worst, r.max_ratio);
    if (r.violations > 0) ADD_FAILURE() << c.Name() << " rhs " << j << ": " << r.first_violation;
    single.FillBytes(0xff);
    if (c.xpay) {
      ApplyWilsonDslashXpay(single.View(), gauge, in.ConstViews()[j], c.dagger, x.ConstViews()[j], kA, kB);
    } else {
      ApplyWilsonDslash(single.View(), gauge, in.ConstViews()[j], c.dagger);
    }
    differing += testing::DifferingSites(got, single.Download());
  }
  std::printf("%-26s n %2d m %d: max error/bound %.3f, sites differing from the single-RHS kernel %d of %d\n",
              c.Name().c_str(), n, m, worst, differing, n * lat.half_volume());
  return violations;
}

// 2 gauge fixings x 3 precisions x 3 reconstructions x 2 daggers x 2 xpay, each with every mapping on n = 3
// right-hand sides (so m = 2 and m = 4 leave a partial group; 4 exceeds n): 192 block calls.
TEST_F(MultiRhsDslashTest, EveryVariantAndMappingMatchesTheOracle) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 301, gauge_fixed);
    for (Precision precision : kPrecisions) {
      for (Reconstruct reconstruct : kReconstructions) {
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          for (bool xpay : {false, true}) {
            const testing::DslashCase c{precision, reconstruct, gauge_fixed, dagger, xpay,
                            xpay == (dagger == Dagger::kYes) ? Parity::kEven : Parity::kOdd};
            for (int m : {1, 2, 4}) {
              if (m == 4 && precision == Precision::kDouble) continue;  // not compiled (register spills)
              EXPECT_EQ(BlockAgainstOracle(c, u, 3, m), 0) << c.Name() << ", " << m << " per thread";
            }
          }
        }
      }
    }
  }
}

// 17 right-hand sides take two launches (16 + 1); the tuner's own choice of mapping and 16 groups over
// several blocks; fields with different
// paddings; xpay in place (out[j] = x[j]) equals out of place, also while the tuner times the candidates.
TEST_F(MultiRhsDslashTest, LargeBlocksPaddingsTunedMappingsAndInPlaceXpay) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 305, true);
  for (Precision precision : kPrecisions) {
    const DeviceGaugeField gauge(u, {precision, Reconstruct::k12, true, 0});
    const testing::DslashCase c{precision, Reconstruct::k12, true, Dagger::kYes, true, Parity::kEven};
    EXPECT_EQ(BlockAgainstOracle(c, u, 17, 0, 3), 0) << c.Name() << ", 17 right-hand sides, tuned";
    // One per thread: 16 groups of a site exceed one block of a register-heavy kernel (double: about 450
    // threads), so they spread over consecutive blocks.
    EXPECT_EQ(BlockAgainstOracle(c, u, 17, 1), 0) << c.Name() << ", 17 right-hand sides, 1 per thread";

    const int n = 6;
    GaussianBlock in(lattice_, Subset::kOdd, precision, n, 5000);
    GaussianBlock x(lattice_, Subset::kEven, precision, n, 6000);
    GaussianBlock x_copy(lattice_, Subset::kEven, precision, n, 6000);  // the same x, kept
    DeviceBlock separate(lattice_, Subset::kEven, precision, n);
    // In place first, on a block shape no earlier call used: the tuner times its mappings on x itself and must
    // restore x before the real call.
    ApplyWilsonDslashXpayBlock(x.Views(), gauge, in.ConstViews(), Dagger::kNo, x.ConstViews(), kA, kB);
    ApplyWilsonDslashXpayBlock(separate.Views(), gauge, in.ConstViews(), Dagger::kNo, x_copy.ConstViews(), kA, kB);
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(testing::DifferingSites(x.fields[j]->Download(), separate.fields[j]->Download()), 0)
          << ToString(precision) << ": in-place rhs " << j;
    }
  }
}

// Block BiCGstab on the GPU's block operator: every system converges, its true residual verified by the
// solver (recomputed with Apply), as the separate solves do, with iteration counts printed side by side (the
// same algorithm per system; the block operator and the reductions may round differently from Apply and the
// fused reductions of the single solve, so the counts may differ by rounding, not by design). Block CG on the
// normal equations through ApplyDaggerBlock converges the same way.
TEST_F(MultiRhsDslashTest, BlockSolversOnTheGpuConvergeLikeSeparateSolves) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = solvers::testing::RandomSu3Gauge(lattice, 309);
  const WilsonParams w = WilsonParams::FromKappa(0.12);
  auto gauge = UploadGauge<double>(u, {Reconstruct::k12, false, 0});
  const GpuWilsonSchur<double> schur(gauge, w, Parity::kEven);
  const int n = 5;
  std::vector<GpuSpinorField<double>> b, x_block;
  for (int k = 0; k < n; ++k) {
    SpinorField<double> host(lattice, Subset::kEven);
    FillGaussian(host, 310 + k);
    b.push_back(schur.NewField());
    b.back().Upload(host);
    x_block.push_back(schur.NewField());
  }
  solvers::SolverParams params;
  params.tolerance = 1e-10;
  params.max_iterations = 500;
  const solvers::BlockSolveResult block = solvers::BlockBiCGstab(schur, x_block, b, params);
  ASSERT_TRUE(block.all_converged()) << block.solver;
  for (int k = 0; k < n; ++k) {
    GpuSpinorField<double> x = schur.NewField();
    const solvers::SolveResult single = solvers::BiCGstab(schur, x, b[k], params);
    const solvers::SolveResult& rec = block.systems[k];
    std::printf("system %d: block %d iterations, true residual %.2e; alone %d, %.2e\n", k, rec.iterations,
                rec.true_residual, single.iterations, single.true_residual);
    EXPECT_TRUE(single.converged());
    EXPECT_LE(rec.true_residual, params.tolerance) << "system " << k;
  }

  const solvers::BlockNormalOperator<GpuWilsonSchur<double>> normal(schur);
  std::vector<GpuSpinorField<double>> x_cg, rhs;
  for (int k = 0; k < n; ++k) {
    x_cg.push_back(schur.NewField());
    rhs.push_back(schur.NewField());
    schur.ApplyDagger(rhs.back(), b[k]);
  }
  const solvers::BlockSolveResult cg = solvers::BlockCg(normal, x_cg, rhs, params);
  ASSERT_TRUE(cg.all_converged()) << cg.solver;
  for (int k = 0; k < n; ++k) EXPECT_LE(cg.systems[k].true_residual, params.tolerance) << "system " << k;
}

TEST_F(MultiRhsDslashTest, BadArgumentsAreRefusedBeforeAnyLaunch) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 311, false);
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  GaussianBlock in(lattice_, Subset::kEven, Precision::kSingle, 3, 8000);
  DeviceBlock out(lattice_, Subset::kOdd, Precision::kSingle, 3);
  GaussianBlock x(lattice_, Subset::kOdd, Precision::kSingle, 3, 9000);
  auto expect_refusal = [&](const std::function<void()>& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one containing '" << words << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_refusal([&] { ApplyWilsonDslashBlock({}, gauge, {}, Dagger::kNo); }, "no right-hand sides");
  expect_refusal([&] { ApplyWilsonDslashBlock(out.Views(), gauge, {in.ConstViews()[0]}, Dagger::kNo); },
                 "3 outputs for 1 inputs");
  auto twice = out.Views();
  twice[2] = twice[0];
  expect_refusal([&] { ApplyWilsonDslashBlock(twice, gauge, in.ConstViews(), Dagger::kNo); },
                 "outputs 0 and 2 are the same memory");
  auto crossed = x.ConstViews();
  crossed[1] = out.ConstViews()[0];
  expect_refusal([&] { ApplyWilsonDslashXpayBlock(out.Views(), gauge, in.ConstViews(), Dagger::kNo, crossed, kA, kB); },
                 "output 0 is the x of right-hand side 1");
  DeviceSpinorField half_field(lattice_, Subset::kEven, Precision::kHalf);
  auto mixed = in.ConstViews();
  mixed[2] = static_cast<const DeviceSpinorField&>(half_field).View();
  expect_refusal([&] { ApplyWilsonDslashBlock(out.Views(), gauge, mixed, Dagger::kNo); }, "right-hand side 2");
  auto parities = out.Views();
  DeviceSpinorField even_out(lattice_, Subset::kEven, Precision::kSingle);
  parities[1] = even_out.View();
  expect_refusal([&] { ApplyWilsonDslashBlock(parities, gauge, in.ConstViews(), Dagger::kNo); }, "right-hand side 1");
  expect_refusal([&] { ApplyWilsonDslashBlock(out.Views(), gauge, in.ConstViews(), Dagger::kNo,
                                              FermionBoundary::AntiperiodicTime(), {3}); },
                 "3 right-hand sides per thread");
  const DeviceGaugeField double_gauge(u, {Precision::kDouble, Reconstruct::k12, false, 0});
  GaussianBlock din(lattice_, Subset::kEven, Precision::kDouble, 4, 8100);
  DeviceBlock dout(lattice_, Subset::kOdd, Precision::kDouble, 4);
  expect_refusal([&] { ApplyWilsonDslashBlock(dout.Views(), double_gauge, din.ConstViews(), Dagger::kNo,
                                              FermionBoundary::AntiperiodicTime(), {4}); },
                 "4 per thread in double");
}

// The n-RHS model: flops n times, links once per launch, spinors n times (wilson_dslash.h). Single, 12 reals, no gauge
// fixing, plain: per site 8 x 12 x 4 = 384 link bytes, (6 x 24 + 2 x 12) x 4 = 672 in, 96 out; minimum 96 in.
TEST(MultiRhsDslashCost, LinksOnceSpinorsPerRightHandSide) {
  const Extents e{8, 8, 8, 8};
  const double sites = HalfVolume(e);
  const DslashVariant v{Precision::kSingle, Reconstruct::k12, false, Dagger::kNo, false};
  const KernelCost one = WilsonDslashCost(v, e), eight = WilsonDslashCost(v, e, 8);
  EXPECT_DOUBLE_EQ(one.bytes, sites * (384 + 672 + 96));
  EXPECT_DOUBLE_EQ(eight.bytes, sites * (384 + 8 * (672 + 96)));
  EXPECT_DOUBLE_EQ(eight.minimum_bytes, sites * (384 + 8 * (96 + 96)));
  EXPECT_DOUBLE_EQ(eight.flops, 8 * one.flops);
  // More than kMaxRhsPerLaunch right-hand sides go out in several launches, each reading the links.
  const KernelCost sixteen = WilsonDslashCost(v, e, 16), seventeen = WilsonDslashCost(v, e, 17);
  EXPECT_DOUBLE_EQ(sixteen.bytes, sites * (384 + 16 * (672 + 96)));
  EXPECT_DOUBLE_EQ(seventeen.bytes, sixteen.bytes + one.bytes);
  EXPECT_DOUBLE_EQ(seventeen.minimum_bytes, sixteen.minimum_bytes + one.minimum_bytes);
  EXPECT_THROW(WilsonDslashCost(v, e, 0), std::invalid_argument);
}

// The counts that share a tuning: 12 and 16 apart, each bucket's smallest count at least two thirds of its largest.
TEST(MultiRhsTuneBucket, SeparatesTwelveFromSixteen) {
  const int expected[17] = {0, 1, 2, 3, 4, 6, 6, 8, 8, 12, 12, 12, 12, 16, 16, 16, 16};
  for (int n = 1; n <= kMaxRhsPerLaunch; ++n) {
    EXPECT_EQ(MultiRhsTuneBucket(n), expected[n]) << n;
    EXPECT_GE(3 * n, 2 * MultiRhsTuneBucket(n)) << n;
  }
}

}  // namespace
}  // namespace lqcd::gpu
