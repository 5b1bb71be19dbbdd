// multi_rhs_clover_dslash_test: the multi-RHS Dslash with the clover epilogues (multi_rhs_dslash.h's
// ApplyCloverDslashBlock) and GpuCloverSchur as a block operator (gpu_clover.h's ApplyBlock, ApplyDaggerBlock,
// BlockCost) against the CPU oracle (reference/clover.h, reference/wilson.h: double, DeGrand-Rossi):
//
//   - every right-hand side of every compiled variant (precision x reconstruction x temporal gauge fixing x
//     dagger x epilogue: C D in, a C x + b D in, and a x + b C D in for D only; C = T and T^{-1}) and both
//     compiled mappings (1 or 2 right-hand sides per thread) within the per-site bound of the single-RHS clover
//     launches (clover_oracle_chain.h's LaunchBound, oracle_comparison.h items 7-8), on n = 3 right-hand sides
//     (m = 2 leaves a partial group); the sites that differ at all from the single-RHS kernel are
//     counted and printed (the formula and its order are the same; the compiler may contract differently);
//   - 17 right-hand sides (two launches, 16 + 1), the tuner's mapping and one per thread, mixed paddings;
//     a C out + b D in in place while the tuner times on the output;
//   - bad arguments refused (std::invalid_argument naming the problem) before any launch: outputs untouched;
//   - GpuCloverSchur::ApplyBlock and ApplyDaggerBlock, both forms, both parities, in double, single and half,
//     every right-hand side within the chained bound of its launches (SchurChainOf), on blocks that grow and
//     shrink (scratch kept across calls); the block refusals; the block byte model (links and clover term once
//     per launch of at most 16);
//   - block BiCGstab on GpuCloverSchur<double>: every system's record and solution equal those of BiCGstab on
//     that system alone (the same backend calls in the same order; the block operator's bits and its fused dot
//     products are checked to be Apply's and ApplyDotNorm's first, which is what makes the records equal).
// Every GPU test skips itself without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpu/clover_apply.h"
#include "gpu/clover_oracle_chain.h"
#include "gpu/device.h"
#include "gpu/device_block_testing.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/multi_rhs_dslash.h"
#include "gpu/oracle_comparison.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"
#include "reference/error_testing.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/bicgstab.h"
#include "solvers/block_bicgstab.h"
#include "solvers/precision.h"

namespace lqcd::gpu {
namespace {

using solvers::Half;
using testing::ChainStep;
using testing::Comparison;
using testing::EpilogueCase;
using testing::OperatorSetup;
using testing::OracleLaunch;
using testing::SiteErrors;

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr DslashEpilogue kCloverEpilogues[] = {DslashEpilogue::kClover, DslashEpilogue::kCloverXpay,
                                               DslashEpilogue::kXpayClover};

// a and b of the epilogues: dyadic, so exact in every precision.
constexpr double kA = 1.25, kB = -0.375;

// c_sw = 1, m = 1 (as clover_dslash_test): on Haar-random links the eigenvalues of T(n) lie in [3.9, 6.1].
CloverParams Params(double mass) {
  CloverParams p;
  p.mass = mass;
  p.c_sw = 1.0;
  p.basis = GammaBasis::kDeGrandRossi;
  p.trace = CloverTrace::kTraceless;
  return p;
}

class MultiRhsCloverDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ClearForcedBlockSize();
  }
  // Extents all different and Lx / 2 odd, so index mix-ups cannot cancel (as the single-RHS tests).
  const Lattice lattice_{6, 4, 10, 8};
};

using testing::ConstPointers;
using testing::DeviceBlock;
using testing::DifferingSites;
using testing::Pointers;

// The worst ratio seen per precision, printed at the end of a test.
struct Worst {
  double ratio[3] = {0, 0, 0};
  void Add(Precision p, double r) { ratio[static_cast<int>(p)] = std::max(ratio[static_cast<int>(p)], r); }
  void Print(const char* what) const {
    std::printf("%s: worst error/bound double %.3f, single %.3f, half %.3f\n", what, ratio[0], ratio[1], ratio[2]);
  }
};

// The oracle's launches of one block: right-hand side j with inputs of seeds seed + 2 j (in) and seed + 2 j + 1 (x).
std::vector<OracleLaunch> OracleBlock(const GaugeField<double>& u, const CloverField<double>& clover,
                                      const EpilogueCase& c, int n, std::uint64_t seed) {
  std::vector<OracleLaunch> block;
  for (int j = 0; j < n; ++j) {
    block.push_back(
        testing::RunOracle(u, clover, c.out_parity, c.dagger, c.epilogue, c.inverse, kA, kB, seed + 2 * j));
  }
  return block;
}

// The device's side of one block: the oracle's inputs uploaded (paddings j * pad_step), outputs poisoned.
struct DeviceLaunchBlock {
  DeviceBlock in, x, out;
  DeviceLaunchBlock(const Lattice& lat, const EpilogueCase& c, const std::vector<OracleLaunch>& oracle, int pad_step)
      : in(lat, SubsetOf(Opposite(c.out_parity)), c.precision, static_cast<int>(oracle.size()), pad_step),
        x(lat, SubsetOf(c.out_parity), c.precision, static_cast<int>(oracle.size()), pad_step),
        out(lat, SubsetOf(c.out_parity), c.precision, static_cast<int>(oracle.size()), pad_step) {
    for (std::size_t j = 0; j < oracle.size(); ++j) {
      in.fields[j]->Upload(oracle[j].in);
      x.fields[j]->Upload(oracle[j].x);
    }
  }
  CloverBlockEpilogue Epilogue(const EpilogueCase& c, const DeviceCloverField& clover) const {
    CloverBlockEpilogue e;
    e.kind = c.epilogue;
    e.clover = clover.View(c.out_parity, c.inverse);
    if (UsesX(c.epilogue)) e.x = x.ConstViews();
    e.a = kA;
    e.b = kB;
    return e;
  }
};

// One block call of case c with mapping m (0: tuned) on the oracle's inputs: every right-hand side against its
// oracle within its bound (bounds[j]: LaunchBound's Compared()). Returns the violations; adds the worst ratio to
// `worst` and prints it with the number of sites that differ from the single-RHS kernel's result.
long BlockAgainstOracle(const EpilogueCase& c, const DeviceGaugeField& gauge, const DeviceCloverField& clover,
                        const std::vector<OracleLaunch>& oracle, const std::vector<std::vector<double>>& bounds, int m,
                        Worst& worst, int pad_step = 0) {
  const Lattice& lat = gauge.lattice();
  DeviceLaunchBlock d(lat, c, oracle, pad_step);
  const CloverBlockEpilogue e = d.Epilogue(c, clover);
  ApplyCloverDslashBlock(d.out.Views(), gauge, d.in.ConstViews(), c.dagger, e, FermionBoundary::AntiperiodicTime(),
                         {m});
  DeviceSpinorField single(lat, SubsetOf(c.out_parity), c.precision);
  long violations = 0;
  int differing = 0;
  double ratio = 0;
  for (std::size_t j = 0; j < oracle.size(); ++j) {
    const SpinorField<double> got = d.out.fields[j]->Download();
    const Comparison r = testing::CompareWithBound(got, oracle[j].out, bounds[j], oracle[j].out_magnitude);
    violations += r.violations;
    ratio = std::max(ratio, r.max_ratio);
    if (r.violations > 0) ADD_FAILURE() << c.Name() << " m " << m << " rhs " << j << ": " << r.first_violation;
    CloverEpilogue one;
    one.kind = e.kind;
    one.clover = e.clover;
    if (UsesX(c.epilogue)) one.x = e.x[j];
    one.a = kA;
    one.b = kB;
    single.FillBytes(0xff);
    ApplyCloverDslash(single.View(), gauge, d.in.ConstViews()[j], c.dagger, one);
    differing += DifferingSites(got, single.Download());
  }
  worst.Add(c.precision, ratio);
  std::printf("%-40s n %2zu m %d: max error/bound %.3f, sites differing from the single-RHS kernel %d of %zu\n",
              c.Name().c_str(), oracle.size(), m, ratio, differing, oracle.size() * lat.half_volume());
  return violations;
}

std::vector<std::vector<double>> BoundsOf(const EpilogueCase& c, const std::vector<OracleLaunch>& oracle,
                                          const Lattice& lat, const std::vector<double>& link_error,
                                          const std::vector<CloverSiteBlocks>& blocks) {
  std::vector<std::vector<double>> bounds;
  for (const OracleLaunch& o : oracle) bounds.push_back(testing::LaunchBound(lat, c, o, link_error, blocks).Compared());
  return bounds;
}

// The output parity of a case: both parities over the cases (even for T, odd for T^{-1}).
Parity OutParity(bool inverse) { return inverse ? Parity::kOdd : Parity::kEven; }

// 2 gauge fixings x 3 precisions x 3 reconstructions x 5 (dagger x epilogue) x T / T^{-1}, each with both
// compiled mappings on n = 3: 360 block calls.
TEST_F(MultiRhsCloverDslashTest, EveryVariantAndMappingMatchesTheOracle) {
  Worst worst;
  const int n = 3;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice_, 2101, gauge_fixed);
    const CloverField<double> clover(u, Params(1.0));  // built from the links used: gauge fixed or not
    const std::vector<CloverSiteBlocks> blocks[2] = {testing::AllSiteBlocks(clover, false),
                                                     testing::AllSiteBlocks(clover, true)};
    // The oracle's blocks, shared by every precision and link form.
    struct Case {
      Dagger dagger;
      DslashEpilogue epilogue;
      bool inverse;
      std::vector<OracleLaunch> oracle;
    };
    std::vector<Case> cases;
    std::uint64_t seed = 2200;
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (DslashEpilogue epilogue : kCloverEpilogues) {
        if (epilogue == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) continue;  // D only
        for (bool inverse : {false, true}) {
          const EpilogueCase c{Precision::kDouble, Reconstruct::k18, gauge_fixed, dagger, epilogue, inverse,
                               OutParity(inverse)};
          cases.push_back({dagger, epilogue, inverse, OracleBlock(u, clover, c, n, seed)});
          seed += 2 * n;
        }
      }
    }
    for (Precision precision : kPrecisions) {
      const DeviceCloverField device_clover(clover, {precision, 0});
      for (Reconstruct reconstruct : kReconstructions) {
        const GaugeLayout layout{precision, reconstruct, gauge_fixed, 0};
        const DeviceGaugeField gauge(u, layout);
        const std::vector<double> link_error = testing::LinkErrorBounds(u, layout);
        for (const Case& k : cases) {
          const EpilogueCase c{precision, reconstruct, gauge_fixed, k.dagger, k.epilogue, k.inverse,
                               OutParity(k.inverse)};
          const auto bounds = BoundsOf(c, k.oracle, lattice_, link_error, blocks[k.inverse]);
          for (int m : {1, 2}) {  // 4 is not compiled for the clover epilogues (multi_rhs_dslash.h)
            EXPECT_EQ(BlockAgainstOracle(c, gauge, device_clover, k.oracle, bounds, m, worst), 0)
                << c.Name() << ", " << m << " per thread";
          }
        }
      }
    }
  }
  worst.Print("multi-RHS clover epilogues, n = 3");
}

// 17 right-hand sides take two launches (16 + 1): the tuner's mapping with paddings 0, 3, 6, ... and one per
// thread (16 groups of a site spread over several blocks of a register-heavy kernel); then a C x + b D in with
// out[j] = x[j] (in place) equals the out-of-place result bit for bit, on a block shape no earlier call used, so
// the tuner times its candidates on x itself and must restore it.
TEST_F(MultiRhsCloverDslashTest, LargeBlocksPaddingsTunedMappingsAndInPlace) {
  Worst worst;
  const GaugeField<double> u = testing::RandomLinks(lattice_, 2301, true);
  const CloverField<double> clover(u, Params(1.0));
  const std::vector<CloverSiteBlocks> t = testing::AllSiteBlocks(clover, false);
  const std::vector<CloverSiteBlocks> t_inverse = testing::AllSiteBlocks(clover, true);
  for (Precision precision : kPrecisions) {
    const DeviceCloverField device_clover(clover, {precision, 0});
    const GaugeLayout layout{precision, Reconstruct::k12, true, 0};
    const DeviceGaugeField gauge(u, layout);
    const std::vector<double> link_error = testing::LinkErrorBounds(u, layout);
    // The Schur complement's second launch on D^dag and the unit-diagonal form's on D.
    const EpilogueCase cases[] = {
        {precision, Reconstruct::k12, true, Dagger::kYes, DslashEpilogue::kCloverXpay, false, Parity::kEven},
        {precision, Reconstruct::k12, true, Dagger::kNo, DslashEpilogue::kXpayClover, true, Parity::kOdd}};
    for (const EpilogueCase& c : cases) {
      const std::vector<OracleLaunch> oracle = OracleBlock(u, clover, c, 17, 2400);
      const auto bounds = BoundsOf(c, oracle, lattice_, link_error, c.inverse ? t_inverse : t);
      EXPECT_EQ(BlockAgainstOracle(c, gauge, device_clover, oracle, bounds, 0, worst, 3), 0) << c.Name() << ", tuned";
      EXPECT_EQ(BlockAgainstOracle(c, gauge, device_clover, oracle, bounds, 1, worst), 0) << c.Name() << ", m = 1";
    }

    const EpilogueCase c{precision, Reconstruct::k12, true, Dagger::kNo, DslashEpilogue::kCloverXpay, false,
                         Parity::kEven};
    const std::vector<OracleLaunch> oracle = OracleBlock(u, clover, c, 6, 2500);
    DeviceLaunchBlock in_place(lattice_, c, oracle, 0), separate(lattice_, c, oracle, 0);
    CloverBlockEpilogue e = in_place.Epilogue(c, device_clover);
    ApplyCloverDslashBlock(in_place.x.Views(), gauge, in_place.in.ConstViews(), c.dagger, e);
    ApplyCloverDslashBlock(separate.out.Views(), gauge, separate.in.ConstViews(), c.dagger,
                           separate.Epilogue(c, device_clover));
    for (int j = 0; j < 6; ++j) {
      EXPECT_EQ(DifferingSites(in_place.x.fields[j]->Download(), separate.out.fields[j]->Download()), 0)
          << c.Name() << ": in-place rhs " << j;
    }
  }
  worst.Print("multi-RHS clover epilogues, n = 17");
}

TEST_F(MultiRhsCloverDslashTest, BadArgumentsAreRefusedBeforeAnyLaunch) {
  const GaugeField<double> u = testing::RandomLinks(lattice_, 2601, false);
  const CloverField<double> host(u, Params(1.0));
  const DeviceGaugeField gauge(u, {Precision::kSingle, Reconstruct::k12, false, 0});
  const DeviceCloverField clover(host, {Precision::kSingle, 0}), clover_double(host, {Precision::kDouble, 0});
  const EpilogueCase c{Precision::kSingle, Reconstruct::k12, false, Dagger::kNo, DslashEpilogue::kCloverXpay, false,
                       Parity::kEven};
  const std::vector<OracleLaunch> oracle = OracleBlock(u, host, c, 3, 2700);
  DeviceLaunchBlock d(lattice_, c, oracle, 0);
  const CloverBlockEpilogue good = d.Epilogue(c, clover);
  // Every refusal must leave the outputs as they were (poisoned): nothing was launched.
  const SpinorField<double> poisoned = d.out.fields[0]->Download();
  auto refused = [&](const std::vector<SpinorView>& out, const std::vector<ConstSpinorView>& in, Dagger dagger,
                     const CloverBlockEpilogue& e, const std::string& words, MultiRhsMapping mapping = {}) {
    EXPECT_CONTAINS(ErrorOf([&] { ApplyCloverDslashBlock(out, gauge, in, dagger, e, FermionBoundary::AntiperiodicTime(),
                                                         mapping); }),
                    words);
    for (int j = 0; j < 3; ++j) {
      const SpinorField<double> now = d.out.fields[j]->Download();
      int touched = 0;
      for (int i = 0; i < now.sites(); ++i) {
        for (int s = 0; s < 4; ++s) {
          for (int col = 0; col < 3; ++col) touched += std::isnan(now[i](s, col).real()) ? 0 : 1;
        }
      }
      EXPECT_EQ(touched, 0) << "output " << j << " written by a refused call (" << words << ")";
    }
  };
  ASSERT_TRUE(std::isnan(poisoned[0](0, 0).real()));
  const auto out = d.out.Views();
  const auto in = d.in.ConstViews();
  refused({}, {}, Dagger::kNo, good, "no right-hand sides");
  refused(out, {in[0]}, Dagger::kNo, good, "3 outputs for 1 inputs");
  CloverBlockEpilogue e = good;
  e.x.pop_back();
  refused(out, in, Dagger::kNo, e, "2 x fields for 3 inputs");
  e = good;
  e.kind = DslashEpilogue::kClover;
  refused(out, in, Dagger::kNo, e, "3 x fields given, but the epilogue reads no x");
  e.kind = DslashEpilogue::kXpay;
  refused(out, in, Dagger::kNo, e, "epilogue xpay has no clover term");
  e = good;
  e.kind = DslashEpilogue::kXpayClover;
  refused(out, in, Dagger::kYes, e, "is not provided");
  e = good;
  e.clover = clover_double.View(Parity::kEven, false);
  refused(out, in, Dagger::kNo, e, "the clover field is in double precision but out in single");
  e.clover = clover.View(Parity::kOdd, false);
  refused(out, in, Dagger::kNo, e, "the clover field must be on the parity of out");
  e.clover = clover.View(Parity::kEven, false);
  e.clover.data = nullptr;
  refused(out, in, Dagger::kNo, e, "the clover field has no device memory");
  e = good;
  e.x[1] = out[0];
  refused(out, in, Dagger::kNo, e, "output 0 is the x of right-hand side 1");
  auto twice = out;
  twice[2] = twice[0];
  refused(twice, in, Dagger::kNo, good, "outputs 0 and 2 are the same memory");
  DeviceSpinorField half_field(lattice_, Subset::kOdd, Precision::kHalf);
  auto mixed = in;
  mixed[2] = static_cast<const DeviceSpinorField&>(half_field).View();
  refused(out, mixed, Dagger::kNo, good, "right-hand side 2");
  refused(out, in, Dagger::kNo, good, "3 right-hand sides per thread", {3});
  // Four per thread are not compiled for the clover epilogues: refused by the launcher, before its first kernel.
  refused(out, in, Dagger::kNo, good, "with 4 per thread in single precision with the clover-xpay epilogue", {4});
  // The good call is accepted.
  EXPECT_EQ(ErrorOf([&] { ApplyCloverDslashBlock(out, gauge, in, Dagger::kNo, good); }), "");
}

// ---- GpuCloverSchur as a block operator ----

template <typename P>
std::vector<GpuSpinorField<P>> UploadBlock(const GpuCloverSchur<P>& schur,
                                           const std::vector<SpinorField<double>>& host) {
  std::vector<GpuSpinorField<P>> block;
  for (const SpinorField<double>& h : host) {
    block.push_back(schur.NewField());
    block.back().Upload(h);
  }
  return block;
}

// ApplyBlock and ApplyDaggerBlock of both forms on both parities against the oracle's ApplyCloverSchur, every
// right-hand side within the bound of the launches chained (SchurChainOf); blocks of 3, then 17 (scratch grows,
// two launches per Dslash), then 2 on the same operator.
template <typename P>
void CheckSchurBlocks(Reconstruct reconstruct, Worst& worst) {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  const Lattice lat(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 2901, false);
  const CloverField<double> clover(u, Params(1.0));
  const std::vector<CloverSiteBlocks> t = testing::AllSiteBlocks(clover, false);
  const std::vector<CloverSiteBlocks> t_inverse = testing::AllSiteBlocks(clover, true);
  const OperatorSetup setup{u, clover, t, t_inverse, precision,
                            testing::LinkErrorBounds(u, {precision, reconstruct, false, 0})};
  const auto gauge = UploadGauge<P>(u, {reconstruct, false, 0});
  const GpuCloverTerm term = UploadClover<P>(clover);
  for (CloverSchurForm form : {CloverSchurForm::kComplement, CloverSchurForm::kUnitDiagonal}) {
    for (Parity p : {Parity::kEven, Parity::kOdd}) {
      const GpuCloverSchur<P> schur(gauge, term, form, p);
      for (int n : {3, 17, 2}) {
        std::vector<SpinorField<double>> host;
        for (int j = 0; j < n; ++j) {
          host.emplace_back(lat, SubsetOf(p));
          FillGaussian(host.back(), 3000 + 100 * n + j);
        }
        const std::vector<GpuSpinorField<P>> in = UploadBlock(schur, host);
        for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
          std::vector<GpuSpinorField<P>> out;
          for (int j = 0; j < n; ++j) {
            out.push_back(schur.NewField());
            out.back().device().FillBytes(0xff);
          }
          if (dagger == Dagger::kNo) {
            schur.ApplyBlock(Pointers(out), ConstPointers(in));
          } else {
            schur.ApplyDaggerBlock(Pointers(out), ConstPointers(in));
          }
          double ratio = 0;
          for (int j = 0; j < n; ++j) {
            SpinorField<double> oracle(lat, SubsetOf(p));
            ApplyCloverSchur(oracle, u, clover, host[j], form, dagger);
            const ChainStep chain = testing::SchurChainOf(setup, form, dagger, host[j]);
            const Comparison r = testing::CompareWithBound(out[j].Download(), oracle, chain.errors.Compared(),
                                                           testing::Magnitudes(oracle));
            EXPECT_EQ(r.violations, 0) << schur.Name() << (dagger == Dagger::kYes ? " dagger" : "") << " n " << n
                                       << " rhs " << j << ": " << r.first_violation;
            ratio = std::max(ratio, r.max_ratio);
          }
          worst.Add(precision, ratio);
          std::printf("%-28s %-16s n %2d: max error/bound %.3f\n", schur.Name().c_str(),
                      dagger == Dagger::kNo ? "ApplyBlock" : "ApplyDaggerBlock", n, ratio);
        }
      }
    }
  }
}

TEST_F(MultiRhsCloverDslashTest, SchurBlockApplicationsMatchTheOracle) {
  Worst worst;
  CheckSchurBlocks<double>(Reconstruct::k18, worst);
  CheckSchurBlocks<float>(Reconstruct::k8, worst);
  CheckSchurBlocks<Half>(Reconstruct::k12, worst);
  worst.Print("GpuCloverSchur blocks");
}

TEST_F(MultiRhsCloverDslashTest, SchurBlockRefusalsAndCostModel) {
  const Lattice lat(4, 6, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 3101, false);
  const CloverField<double> clover(u, Params(1.0));
  const auto gauge = UploadGauge<float>(u, {Reconstruct::k12, false, 0});
  const GpuCloverTerm term = UploadClover<float>(clover);
  const GpuCloverSchur<float> schur(gauge, term, CloverSchurForm::kComplement, Parity::kEven);
  std::vector<GpuSpinorField<float>> a, b;
  for (int j = 0; j < 3; ++j) {
    a.push_back(schur.NewField());
    b.push_back(schur.NewField());
  }
  GpuSpinorField<float> odd(lat, Subset::kOdd);
  EXPECT_CONTAINS(ErrorOf([&] { schur.ApplyBlock(Pointers(a), {&b[0]}); }), "3 outputs for 1 inputs");
  EXPECT_CONTAINS(ErrorOf([&] { schur.ApplyBlock({&a[0], &a[1]}, {&b[0], &a[0]}); }), "output 0 aliases input 1");
  EXPECT_CONTAINS(ErrorOf([&] { schur.ApplyDaggerBlock({&a[0], &a[0]}, {&b[0], &b[1]}); }),
                  "outputs 0 and 1 are the same field");
  EXPECT_CONTAINS(ErrorOf([&] { schur.ApplyBlock({&a[0], &odd}, {&b[0], &b[1]}); }), "ApplyBlock");
  EXPECT_CONTAINS(ErrorOf([&] { schur.ApplyDaggerBlock({&a[0]}, {&odd}); }), "ApplyDaggerBlock");

  // The byte model: each multi-RHS launch (at most 16 right-hand sides) reads the links and the clover term once.
  const Extents e{lat.extent(0), lat.extent(1), lat.extent(2), lat.extent(3)};
  DslashVariant first{Precision::kSingle, Reconstruct::k12, false, Dagger::kNo, false};
  first.clover_epilogue = DslashEpilogue::kClover;
  DslashVariant second = first;
  second.clover_epilogue = DslashEpilogue::kCloverXpay;
  auto launches = [&](int n) {
    return WilsonDslashCost(first, e, n).bytes + WilsonDslashCost(second, e, n).bytes;
  };
  EXPECT_DOUBLE_EQ(schur.BlockCost(1).bytes, schur.Cost().bytes);
  EXPECT_DOUBLE_EQ(schur.BlockCost(1).bytes, launches(1));
  EXPECT_DOUBLE_EQ(schur.BytesPerApply(8), launches(8));
  EXPECT_DOUBLE_EQ(schur.BytesPerApply(17), launches(16) + launches(1));
  EXPECT_LT(schur.BytesPerApply(8), 8 * schur.BytesPerApply(1));
  for (int n : {1, 8, 17}) {
    EXPECT_DOUBLE_EQ(schur.BlockCost(n).flops, n * schur.FlopsPerApply()) << n;
    EXPECT_DOUBLE_EQ(schur.BlockCost(n, Dagger::kYes).flops, n * schur.FlopsPerApply()) << n;
  }
  // The unit-diagonal dagger: n clover-term launches, then a T^{-1} D^dag and a plain xpay multi-RHS launch.
  const GpuCloverSchur<float> unit(gauge, term, CloverSchurForm::kUnitDiagonal, Parity::kEven);
  DslashVariant inverse_dagger = first;
  inverse_dagger.dagger = Dagger::kYes;
  const DslashVariant xpay_dagger{Precision::kSingle, Reconstruct::k12, false, Dagger::kYes, true};
  const double clover_term = CloverApplyCost(Precision::kSingle, e).bytes;
  EXPECT_DOUBLE_EQ(unit.BlockCost(4, Dagger::kYes).bytes,
                   4 * clover_term + WilsonDslashCost(inverse_dagger, e, 4).bytes +
                       WilsonDslashCost(xpay_dagger, e, 4).bytes);
  EXPECT_DOUBLE_EQ(unit.BlockCost(4, Dagger::kYes).flops, 4 * unit.FlopsPerApply());
  EXPECT_THROW(schur.BlockCost(0), std::invalid_argument);
}

// Block BiCGstab on the Schur complement in double with 18 reals: the operator's block application is Apply bit
// for bit, and its fused block dot products (ApplyDotNormBlock) are ApplyDotNorm's output and sums bit for bit
// (both checked first, for every block size the solve can meet: the same products summed in the same shuffle
// trees), so each system's lockstep solve makes the backend calls of its single solve in the same order and gets
// the same numbers: the same record and the same solution, bit for bit. One system with its own looser tolerance
// stops early.
TEST_F(MultiRhsCloverDslashTest, BlockBiCGstabEqualsSeparateSolves) {
  const Lattice lat(4, 4, 4, 8);
  const GaugeField<double> u = testing::RandomLinks(lat, 3201, false);
  const CloverField<double> clover(u, Params(-1.5));  // T in [1.47, 3.58] on Haar-random links: ~60 iterations
  const auto gauge = UploadGauge<double>(u, {Reconstruct::k18, false, 0});
  const GpuCloverSchur<double> schur(gauge, UploadClover<double>(clover), CloverSchurForm::kComplement);
  const int n = 4;
  std::vector<SpinorField<double>> host;
  for (int k = 0; k < n; ++k) {
    host.emplace_back(lat, Subset::kEven);
    FillGaussian(host.back(), 3300 + k);
  }
  const std::vector<GpuSpinorField<double>> b = UploadBlock(schur, host);

  for (int size = 1; size <= n; ++size) {
    std::vector<GpuSpinorField<double>> block, single;
    for (int k = 0; k < size; ++k) {
      block.push_back(schur.NewField());
      single.push_back(schur.NewField());
    }
    const std::vector<const GpuSpinorField<double>*> all = ConstPointers(b);
    const std::vector<const GpuSpinorField<double>*> in(all.begin(), all.begin() + size);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      if (dagger == Dagger::kNo) {
        schur.ApplyBlock(Pointers(block), in);
      } else {
        schur.ApplyDaggerBlock(Pointers(block), in);
      }
      for (int k = 0; k < size; ++k) {
        if (dagger == Dagger::kNo) {
          schur.Apply(single[k], *in[k]);
        } else {
          schur.ApplyDagger(single[k], *in[k]);
        }
        ASSERT_EQ(DifferingSites(block[k].Download(GammaBasis::kUkqcd), single[k].Download(GammaBasis::kUkqcd)), 0)
            << "block of " << size << ", rhs " << k << (dagger == Dagger::kYes ? ", dagger" : "")
            << ": the block operator is not Apply bit for bit, so the records cannot be compared";
      }
    }
    // BiCGstab's two fused forms: w a second field ((v, r0)) and w = in ((t, s)).
    for (const bool w_is_in : {false, true}) {
      const std::vector<const GpuSpinorField<double>*> w = w_is_in ? in : ConstPointers(single);
      std::vector<GpuSpinorField<double>> alone;
      for (int k = 0; k < size; ++k) alone.push_back(schur.NewField());
      const std::vector<blas::DeferredDotAndNorm> sums = schur.ApplyDotNormBlock(Pointers(block), in, w);
      for (int k = 0; k < size; ++k) {
        const blas::DeferredDotAndNorm d = schur.ApplyDotNorm(alone[k], *in[k], *w[k]);
        ASSERT_EQ(DifferingSites(block[k].Download(GammaBasis::kUkqcd), alone[k].Download(GammaBasis::kUkqcd)), 0)
            << "block of " << size << ", rhs " << k << ": ApplyDotNormBlock is not ApplyDotNorm bit for bit";
        ASSERT_EQ(sums[k].dot.Host(), d.dot.Host()) << "block of " << size << ", rhs " << k;
        ASSERT_EQ(sums[k].norm2.Host(), d.norm2.Host()) << "block of " << size << ", rhs " << k;
      }
    }
  }

  solvers::SolverParams params;
  params.tolerance = 1e-10;
  params.max_iterations = 1000;
  const std::vector<double> tolerances = {1e-10, 1e-10, 1e-6, 1e-10};
  std::vector<GpuSpinorField<double>> x;
  for (int k = 0; k < n; ++k) x.push_back(schur.NewField());
  const solvers::BlockSolveResult block = solvers::BlockBiCGstab(schur, x, b, params, tolerances);
  std::printf("%s\n", block.Summary().c_str());
  ASSERT_TRUE(block.all_converged()) << block.Summary();
  long long applications = 0;
  for (int k = 0; k < n; ++k) {
    SCOPED_TRACE("system " + std::to_string(k));
    solvers::SolverParams own = params;
    own.tolerance = tolerances[k];
    GpuSpinorField<double> x_single = schur.NewField();
    const solvers::SolveResult single = solvers::BiCGstab(schur, x_single, b[k], own);
    const solvers::SolveResult& r = block.systems[k];
    std::printf("system %d: block %d iterations, true residual %.3e; alone %d, %.3e\n", k, r.iterations,
                r.true_residual, single.iterations, single.true_residual);
    ASSERT_TRUE(single.converged()) << single.reason;
    EXPECT_EQ(r.iterations, single.iterations);
    EXPECT_EQ(r.operator_applications, single.operator_applications);
    EXPECT_EQ(r.true_residual, single.true_residual);
    EXPECT_EQ(r.iterated_residual, single.iterated_residual);
    EXPECT_EQ(r.flops, single.flops);
    EXPECT_EQ(DifferingSites(x[k].Download(GammaBasis::kUkqcd), x_single.Download(GammaBasis::kUkqcd)), 0);
    EXPECT_LE(r.true_residual, tolerances[k]);
    applications += r.operator_applications;
  }
  EXPECT_LT(block.systems[2].iterations, block.systems[0].iterations);  // the looser system stopped first
  EXPECT_EQ(block.vector_applications, applications);
  EXPECT_LT(block.block_applications, applications);
}

}  // namespace
}  // namespace lqcd::gpu
