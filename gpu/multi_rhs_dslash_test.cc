// multi_rhs_dslash_test: the multi-RHS Dslash gives, for every right-hand side, bit for bit what the single-RHS
// kernel gives for that right-hand side alone (which wilson_dslash_test checks against the oracle), for every
// variant (precision x reconstruction x temporal gauge fixing x dagger x xpay) and every mapping (1, 2 or 4
// right-hand sides per thread, with partial groups); each right-hand side also against the oracle directly,
// within the derived bound; blocks larger than one launch, in-place xpay and mixed paddings; the block Schur
// operator equals Apply, and block BiCGstab on the GPU returns for each system exactly BiCGstab's record and
// solution; bad arguments are refused before any launch; the cost model counts the links once.
#include "gpu/multi_rhs_dslash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
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

// n device fields on `subset`, filled with Gaussian noise (seeds seed, seed + 1, ...) or poisoned (NaN).
struct DeviceBlock {
  std::vector<std::unique_ptr<DeviceSpinorField>> fields;
  std::vector<SpinorField<double>> host;

  DeviceBlock(const Lattice& lat, Subset subset, Precision precision, int n, std::uint64_t seed, bool poison = false,
              int pad_step = 0) {
    for (int j = 0; j < n; ++j) {
      fields.push_back(std::make_unique<DeviceSpinorField>(lat, subset, precision, pad_step * j));
      host.emplace_back(lat, subset);
      if (poison) {
        fields.back()->FillBytes(0xff);
      } else {
        FillGaussian(host.back(), seed + j);
        fields.back()->Upload(host.back());
      }
    }
  }
  std::vector<SpinorView> Views() {
    std::vector<SpinorView> v;
    for (auto& f : fields) v.push_back(f->View());
    return v;
  }
  std::vector<ConstSpinorView> ConstViews() const {
    std::vector<ConstSpinorView> v;
    for (const auto& f : fields) v.push_back(static_cast<const DeviceSpinorField&>(*f).View());
    return v;
  }
};

int Mismatches(const SpinorField<double>& a, const SpinorField<double>& b) {
  int mismatches = 0;
  for (int i = 0; i < a.sites(); ++i) mismatches += a[i] == b[i] ? 0 : 1;
  return mismatches;
}

struct Variant {
  Precision precision;
  Reconstruct reconstruct;
  bool gauge_fixed;
  Dagger dagger;
  bool xpay;
  Parity out_parity;
  std::string Name() const {
    return DslashVariant{precision, reconstruct, gauge_fixed, dagger, xpay}.Name() +
           (out_parity == Parity::kEven ? " even" : " odd");
  }
};

// The block call (n right-hand sides, mapping m) against n single-RHS calls: mismatching sites per RHS summed.
int BlockAgainstSingle(const Variant& c, const DeviceGaugeField& gauge, int n, int m, int pad_step = 0) {
  const Lattice& lat = gauge.lattice();
  const Subset out_subset = SubsetOf(c.out_parity), in_subset = SubsetOf(Opposite(c.out_parity));
  DeviceBlock in(lat, in_subset, c.precision, n, 1000, false, pad_step);
  DeviceBlock x(lat, out_subset, c.precision, n, 2000, false, pad_step);
  DeviceBlock out(lat, out_subset, c.precision, n, 0, true, pad_step);
  DeviceSpinorField single(lat, out_subset, c.precision);
  if (c.xpay) {
    ApplyWilsonDslashXpayBlock(out.Views(), gauge, in.ConstViews(), c.dagger, x.ConstViews(), kA, kB,
                               FermionBoundary::AntiperiodicTime(), {m});
  } else {
    ApplyWilsonDslashBlock(out.Views(), gauge, in.ConstViews(), c.dagger, FermionBoundary::AntiperiodicTime(), {m});
  }
  int mismatches = 0;
  for (int j = 0; j < n; ++j) {
    single.FillBytes(0xff);
    if (c.xpay) {
      ApplyWilsonDslashXpay(single.View(), gauge, in.ConstViews()[j], c.dagger, x.ConstViews()[j], kA, kB);
    } else {
      ApplyWilsonDslash(single.View(), gauge, in.ConstViews()[j], c.dagger);
    }
    mismatches += Mismatches(out.fields[j]->Download(), single.Download());
  }
  return mismatches;
}

// 2 gauge fixings x 3 precisions x 3 reconstructions x 2 daggers x 2 xpay, each with every mapping on n = 3
// right-hand sides (so m = 2 and m = 4 leave a partial group; 4 exceeds n): 192 block calls.
TEST_F(MultiRhsDslashTest, EveryVariantAndMappingEqualsTheSingleRhsKernelBitForBit) {
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 301, gauge_fixed);
    for (Precision precision : kPrecisions) {
      for (Reconstruct reconstruct : kReconstructions) {
        const DeviceGaugeField gauge(u, {precision, reconstruct, gauge_fixed, 0});
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          for (bool xpay : {false, true}) {
            const Variant c{precision, reconstruct, gauge_fixed, dagger, xpay,
                            xpay == (dagger == Dagger::kYes) ? Parity::kEven : Parity::kOdd};
            for (int m : {1, 2, 4}) {
              if (m == 4 && precision == Precision::kDouble) continue;  // not compiled (register spills)
              EXPECT_EQ(BlockAgainstSingle(c, gauge, 3, m), 0) << c.Name() << ", " << m << " per thread";
            }
          }
        }
      }
    }
  }
}

// Each right-hand side of a block against the oracle, within wilson_dslash_test's derived per-site bound.
TEST_F(MultiRhsDslashTest, EveryRightHandSideMatchesTheOracle) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 303, false);
  const int n = 5;
  for (Precision precision : kPrecisions) {
    for (Reconstruct reconstruct : kReconstructions) {
      const GaugeLayout layout{precision, reconstruct, false, 0};
      const DeviceGaugeField gauge(u, layout);
      DeviceBlock in(lattice_, Subset::kEven, precision, n, 3000);
      DeviceBlock x(lattice_, Subset::kOdd, precision, n, 4000);
      DeviceBlock out(lattice_, Subset::kOdd, precision, n, 0, true);
      ApplyWilsonDslashXpayBlock(out.Views(), gauge, in.ConstViews(), Dagger::kNo, x.ConstViews(), kA, kB);
      for (int j = 0; j < n; ++j) {
        SpinorField<double> d(lattice_, Subset::kOdd), oracle(lattice_, Subset::kOdd);
        ApplyHoppingParity(d, u, in.host[j], GammaBasis::kDeGrandRossi, FermionBoundary::AntiperiodicTime(), Dagger::kNo);
        for (int i = 0; i < d.sites(); ++i) oracle[i] = kA * x.host[j][i] + kB * d[i];
        testing::DslashBoundInputs b;
        b.precision = precision;
        b.out_parity = Parity::kOdd;
        b.in_magnitude = testing::Magnitudes(in.host[j]);
        b.in_error = testing::UploadErrors(in.host[j], precision);
        b.link_error = testing::LinkErrorBounds(u, layout);
        b.d_magnitude = testing::Magnitudes(d);
        b.out_magnitude = testing::Magnitudes(oracle);
        b.xpay = true;
        b.a = kA;
        b.b = kB;
        b.x_magnitude = testing::Magnitudes(x.host[j]);
        b.x_error = testing::UploadErrors(x.host[j], precision);
        const testing::Comparison r = testing::CompareWithBound(out.fields[j]->Download(), oracle,
                                                                testing::DslashErrorBound(lattice_, b), b.out_magnitude);
        std::printf("%s/%s rhs %d: max error/bound %.3f\n", ToString(precision), ToString(reconstruct), j, r.max_ratio);
        EXPECT_EQ(r.violations, 0) << ToString(precision) << "/" << ToString(reconstruct) << " rhs " << j << ": "
                                   << r.first_violation;
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
    const Variant c{precision, Reconstruct::k12, true, Dagger::kYes, true, Parity::kEven};
    EXPECT_EQ(BlockAgainstSingle(c, gauge, 17, 0, 3), 0) << c.Name() << ", 17 right-hand sides, tuned";
    // One per thread: 16 groups of a site exceed one block of a register-heavy kernel (double: about 450
    // threads), so they spread over consecutive blocks.
    EXPECT_EQ(BlockAgainstSingle(c, gauge, 17, 1), 0) << c.Name() << ", 17 right-hand sides, 1 per thread";

    const int n = 6;
    DeviceBlock in(lattice_, Subset::kOdd, precision, n, 5000);
    DeviceBlock x(lattice_, Subset::kEven, precision, n, 6000);
    DeviceBlock separate(lattice_, Subset::kEven, precision, n, 0, true);
    ApplyWilsonDslashXpayBlock(separate.Views(), gauge, in.ConstViews(), Dagger::kNo, x.ConstViews(), kA, kB);
    // A lattice-sized block no other call used: the in-place call below tunes its mappings on x itself.
    ApplyWilsonDslashXpayBlock(x.Views(), gauge, in.ConstViews(), Dagger::kNo, x.ConstViews(), kA, kB);
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(Mismatches(x.fields[j]->Download(), separate.fields[j]->Download()), 0)
          << ToString(precision) << ": in-place rhs " << j;
    }
  }
}

// The block Schur operator (both daggers, every precision) is Apply on each right-hand side, bit for bit.
TEST_F(MultiRhsDslashTest, BlockSchurOperatorEqualsApply) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 307, false);
  const double kappa = 0.124;
  for (Precision precision : kPrecisions) {
    const DeviceGaugeField gauge(u, {precision, Reconstruct::k18, false, 0});
    const DeviceSchurOperator op(gauge, kappa, Parity::kOdd);
    const int n = 4;
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      DeviceBlock in(lattice_, Subset::kOdd, precision, n, 7000);
      DeviceBlock out(lattice_, Subset::kOdd, precision, n, 0, true);
      op.ApplyBlock(out.Views(), in.ConstViews(), dagger);
      DeviceSpinorField single(lattice_, Subset::kOdd, precision);
      for (int j = 0; j < n; ++j) {
        op.Apply(single.View(), in.ConstViews()[j], dagger);
        EXPECT_EQ(Mismatches(out.fields[j]->Download(), single.Download()), 0) << ToString(precision) << " rhs " << j;
      }
      // In place: out[j] = in[j].
      op.ApplyBlock(in.Views(), in.ConstViews(), dagger);
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(Mismatches(in.fields[j]->Download(), out.fields[j]->Download()), 0) << "in place rhs " << j;
      }
    }
  }
}

// Block BiCGstab on the GPU's block operator: each system's record and solution are exactly those of BiCGstab
// alone (the block shares the operator's memory traffic, not the Krylov space), when both use the same
// reductions (the single solve without fused dot products, as the block solver sums them separately).
// Block CG (normal equations through ApplyDaggerBlock) converges with every true residual verified.
TEST_F(MultiRhsDslashTest, BlockSolversOnTheGpuEqualSeparateSolves) {
  const Lattice lattice(4, 4, 4, 8);
  const GaugeField<double> u = solvers::testing::RandomSu3Gauge(lattice, 309);
  const WilsonParams w = WilsonParams::FromKappa(0.12);
  auto gauge = UploadGauge<double>(u, {Reconstruct::k12, false, 0});
  GpuWilsonSchur<double> schur(gauge, w, Parity::kEven);
  schur.set_fused_dot_products(false);
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
    EXPECT_EQ(rec.iterations, single.iterations) << "system " << k;
    EXPECT_EQ(rec.true_residual, single.true_residual) << "system " << k;
    EXPECT_EQ(Mismatches(x_block[k].Download(), x.Download()), 0) << "system " << k;
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
  DeviceBlock in(lattice_, Subset::kEven, Precision::kSingle, 3, 8000);
  DeviceBlock out(lattice_, Subset::kOdd, Precision::kSingle, 3, 0, true);
  DeviceBlock x(lattice_, Subset::kOdd, Precision::kSingle, 3, 9000);
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
  DeviceBlock din(lattice_, Subset::kEven, Precision::kDouble, 4, 8100);
  DeviceBlock dout(lattice_, Subset::kOdd, Precision::kDouble, 4, 0, true);
  expect_refusal([&] { ApplyWilsonDslashBlock(dout.Views(), double_gauge, din.ConstViews(), Dagger::kNo,
                                              FermionBoundary::AntiperiodicTime(), {4}); },
                 "4 per thread in double");
}

// The n-RHS model: flops n times, links once, spinors n times (wilson_dslash.h). Single, 12 reals, no gauge
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
  EXPECT_THROW(WilsonDslashCost(v, e, 0), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
