// partitioned_dslash_test: the self-partitioned Dslash (one rank exchanging its faces with itself through
// the pack / exchange / ghost path of partitioned_dslash.h) is bit for bit the unpartitioned kernel, for
// every set of partitioned directions and every variant -- precision x reconstruction x temporal gauge
// fixing x dagger x xpay x output parity; on a lattice with a partitioned extent of 2 (every site on both
// faces); with tuned block sizes; and bad set-ups are refused before any work.
#include "gpu/partitioned_dslash.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gpu/comm/communicator.h"
#include "gpu/device.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/nccl_communicator.h"
#include "gpu/device_spinor_field.h"
#include "gpu/oracle_comparison.h"
#include "gpu/tune.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {
namespace {

constexpr Precision kPrecisions[] = {Precision::kDouble, Precision::kSingle, Precision::kHalf};
constexpr Reconstruct kReconstructions[] = {Reconstruct::k18, Reconstruct::k12, Reconstruct::k8};
constexpr double kA = 1.25, kB = -0.375;  // dyadic: exact in every precision

std::array<bool, 4> MaskOf(int bits) { return {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0}; }
std::string MaskName(int bits) {
  std::string s;
  for (int mu = 0; mu < 4; ++mu) s += (bits >> mu) & 1 ? "xyzt"[mu] : '-';
  return s;
}

class PartitionedDslashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    LaunchTuner::Instance().ForceBlockSize(64);  // correctness does not depend on it; tuning is tested below
  }
  void TearDown() override { LaunchTuner::Instance().ClearForcedBlockSize(); }
};

struct Fields {
  DeviceSpinorField in, x, expected, got;
  Fields(const Lattice& lat, Parity out_parity, Precision p, std::uint64_t seed)
      : in(lat, SubsetOf(Opposite(out_parity)), p),
        x(lat, SubsetOf(out_parity), p),
        expected(lat, SubsetOf(out_parity), p),
        got(lat, SubsetOf(out_parity), p) {
    SpinorField<double> a(lat, SubsetOf(Opposite(out_parity))), b(lat, SubsetOf(out_parity));
    FillGaussian(a, seed);
    FillGaussian(b, seed + 1);
    in.Upload(a);
    x.Upload(b);
  }
};

// Number of sites whose downloaded values differ in any bit (the device basis: no arithmetic on the way);
// `first` describes the first of them.
int DifferingSites(const DeviceSpinorField& a, const DeviceSpinorField& b, std::string* first) {
  const SpinorField<double> da = a.Download(GammaBasis::kUkqcd), db = b.Download(GammaBasis::kUkqcd);
  int differing = 0;
  for (int i = 0; i < da.sites(); ++i) {
    if (std::memcmp(&da[i], &db[i], sizeof(da[i])) != 0 && differing++ == 0) {
      *first = "first at checkerboard site " + std::to_string(i) + ": " + std::to_string(da[i](0).real()) +
               " vs " + std::to_string(db[i](0).real());
    }
  }
  return differing;
}

// Runs every dagger x xpay x parity case of one gauge layout and one partitioning; returns failures.
int CompareAllCases(const DeviceGaugeField& gauge, const PartitionedWilsonDslash& dslash, const std::string& name,
                    std::uint64_t seed) {
  int failures = 0;
  const Lattice& lat = gauge.lattice();
  for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
    Fields f(lat, out_parity, gauge.layout().precision, seed);
    for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
      for (bool xpay : {false, true}) {
        f.expected.FillBytes(0xff);
        f.got.FillBytes(0xff);  // NaN: a site neither region writes fails
        if (xpay) {
          ApplyWilsonDslashXpay(f.expected.View(), gauge, f.in.View(), dagger, f.x.View(), kA, kB, dslash.boundary());
          dslash.ApplyXpay(f.got.View(), f.in.View(), dagger, f.x.View(), kA, kB);
        } else {
          ApplyWilsonDslash(f.expected.View(), gauge, f.in.View(), dagger, dslash.boundary());
          dslash.Apply(f.got.View(), f.in.View(), dagger);
        }
        std::string first;
        const int differing = DifferingSites(f.expected, f.got, &first);
        if (differing != 0) {
          ++failures;
          ADD_FAILURE() << name << (dagger == Dagger::kYes ? " dagger" : "") << (xpay ? " xpay" : "")
                        << (out_parity == Parity::kEven ? " even" : " odd") << ": " << differing << " of "
                        << lat.half_volume() << " sites differ, " << first;
        }
      }
    }
  }
  return failures;
}

// 15 partitionings x 3 precisions x 3 reconstructions x 2 gauge fixings x 2 daggers x 2 xpay x 2 parities,
// through both transports.
TEST_F(PartitionedDslashTest, SelfPartitionedEqualsUnpartitionedBitForBitInEveryVariant) {
  const Lattice lattice(6, 4, 10, 8);  // extents all different, Lx / 2 odd
  comm::SingleProcessCommunicator self;
  int cases = 0;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 31, gauge_fixed);
    for (Precision precision : kPrecisions) {
      for (Reconstruct reconstruct : kReconstructions) {
        const DeviceGaugeField gauge(u, GaugeLayout{precision, reconstruct, gauge_fixed, 0});
        for (int bits = 1; bits < 16; ++bits) {
          for (HaloTransport transport : {HaloTransport::kHostStaged, HaloTransport::kDevice}) {
            const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(bits),
                                                 transport);
            const std::string name = DslashVariant{precision, reconstruct, gauge_fixed}.Name() + " " +
                                     MaskName(bits) + " " + ToString(transport);
            CompareAllCases(gauge, dslash, name, 40 + bits);
            cases += 8;
          }
        }
      }
    }
  }
  std::printf("%d cases bit-identical\n", cases);
}

// The NCCL transport (a one-rank NCCL communicator: every face is sent to this rank and received from it, in the
// order that pairs each send with its ghost), each precision with 12-real links: x only, t only and all four
// directions (every ghost format) on the lattice above; y (extent 2: both faces are the same sites) and y and t
// on one with extents of 2. (Each object builds an NCCL communicator, about half a second: a few masks, not all.)
TEST_F(PartitionedDslashTest, NcclTransportEqualsUnpartitionedBitForBit) {
  if (const std::string why = NcclCommunicator::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  comm::SingleProcessCommunicator self;
  int cases = 0;
  const std::vector<std::pair<Lattice, std::vector<int>>> runs = {{Lattice(6, 4, 10, 8), {1, 8, 15}},
                                                                  {Lattice(4, 2, 6, 2), {2, 10}}};
  for (const auto& [lattice, masks] : runs) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 33, false);
    for (Precision precision : kPrecisions) {
      const DeviceGaugeField gauge(u, GaugeLayout{precision, Reconstruct::k12, false, 0});
      for (const int bits : masks) {
        const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(bits),
                                             HaloTransport::kNccl);
        const std::string name = lattice.ToString() + " " + ToString(precision) + " " + MaskName(bits) + " nccl";
        EXPECT_EQ(CompareAllCases(gauge, dslash, name, 80 + bits), 0);
        cases += 8;
      }
    }
  }
  std::printf("%d cases bit-identical through NCCL\n", cases);
}

// TimeOneCall: the points of one call's timeline come in the order the streams impose (packs, then ghosts,
// then the exterior, on the comm stream), the call computes what Apply computes, and an object with nothing
// partitioned refuses (the plain kernel has no timeline).
TEST_F(PartitionedDslashTest, OneCallsTimelineIsOrderedAndTheCallIsApply) {
  const Lattice lattice(4, 4, 4, 8);
  comm::SingleProcessCommunicator self;
  const GaugeField<double> u = testing::RandomLinks(lattice, 34, false);
  const DeviceGaugeField gauge(u, GaugeLayout{Precision::kSingle, Reconstruct::k12, false, 0});
  SpinorField<double> host(lattice, Subset::kOdd);
  FillGaussian(host, 35);
  DeviceSpinorField in(lattice, Subset::kOdd, Precision::kSingle), timed(lattice, Subset::kEven, Precision::kSingle),
      applied(lattice, Subset::kEven, Precision::kSingle);
  in.Upload(host);
  for (HaloTransport transport : {HaloTransport::kHostStaged, HaloTransport::kDevice}) {
    const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(8), transport);
    const PartitionedWilsonDslash::CallTimeline t = dslash.TimeOneCall(timed.View(), in.View(), Dagger::kNo);
    EXPECT_GE(t.interior_done, 0) << ToString(transport);
    EXPECT_GE(t.packs_done, 0) << ToString(transport);
    EXPECT_GE(t.ghosts_ready, t.packs_done) << ToString(transport);
    EXPECT_GE(t.exterior_done, t.ghosts_ready) << ToString(transport);
    EXPECT_GE(t.host_waiting, 0) << ToString(transport);
    EXPECT_GE(t.host_exchange, 0) << ToString(transport);
    dslash.Apply(applied.View(), in.View(), Dagger::kNo);
    const SpinorField<double> a = timed.Download(GammaBasis::kUkqcd), b = applied.Download(GammaBasis::kUkqcd);
    EXPECT_EQ(std::memcmp(a.data().data(), b.data().data(), a.sites() * sizeof(a[0])), 0) << ToString(transport);
  }
  const PartitionedWilsonDslash unpartitioned(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(0));
  EXPECT_THROW(unpartitioned.TimeOneCall(timed.View(), in.View(), Dagger::kNo), std::invalid_argument);
}

// A partitioned extent of 2 puts every site on both faces of that direction (everything is exterior), and
// periodic / all-antiperiodic boundaries move the signs to other faces.
TEST_F(PartitionedDslashTest, ThinDirectionsAndOtherBoundariesStayBitIdentical) {
  const Lattice lattice(4, 2, 6, 2);
  comm::SingleProcessCommunicator self;
  FermionBoundary all_antiperiodic;
  for (auto& condition : all_antiperiodic.condition) condition = BoundaryCondition::kAntiperiodic;
  for (const FermionBoundary& boundary : {FermionBoundary::Periodic(), all_antiperiodic}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 32, true);
    for (Precision precision : kPrecisions) {
      const DeviceGaugeField gauge(u, GaugeLayout{precision, Reconstruct::k12, true, 0});
      for (int bits = 1; bits < 16; ++bits) {
        const PartitionedWilsonDslash dslash(gauge, self, boundary, MaskOf(bits),
                                             bits % 2 ? HaloTransport::kDevice : HaloTransport::kHostStaged);
        if (bits & 10) {
          EXPECT_EQ(dslash.ExteriorSites(0), lattice.half_volume());  // y or t, of extent 2
        }
        const std::string name = boundary.ToString() + " " + ToString(precision) + " " + MaskName(bits);
        const int failures = CompareAllCases(gauge, dslash, name, 60 + bits);
        EXPECT_EQ(failures, 0);
      }
    }
  }
}

// The clover epilogues (C D in, a C x + b D in, a x + b C D in; C = T or T^{-1}) partitioned: the same bits as
// ApplyCloverDslash, for 4 partitionings x 3 precisions x 3 reconstructions x 2 gauge fixings x epilogue x
// T / T^{-1} x dagger (not for a x + b C D^dag in, which does not exist) x parity, both transports.
TEST_F(PartitionedDslashTest, CloverEpiloguesAreBitIdenticalToo) {
  const Lattice lattice(6, 4, 10, 8);
  comm::SingleProcessCommunicator self;
  CloverParams params;
  params.mass = 1.0;  // T well conditioned on random links (clover_dslash_test.cc)
  params.c_sw = 1.0;
  params.basis = GammaBasis::kDeGrandRossi;
  int cases = 0;
  for (bool gauge_fixed : {false, true}) {
    const GaugeField<double> u = testing::RandomLinks(lattice, 35, gauge_fixed);
    const CloverField<double> clover(u, params);
    for (Precision precision : kPrecisions) {
      const DeviceCloverField device_clover(clover, {precision, 0});
      for (Reconstruct reconstruct : kReconstructions) {
        const DeviceGaugeField gauge(u, GaugeLayout{precision, reconstruct, gauge_fixed, 0});
        for (int bits : {1, 8, 12, 15}) {
          const HaloTransport transport = bits == 12 ? HaloTransport::kHostStaged : HaloTransport::kDevice;
          const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(bits),
                                               transport);
          for (Parity out_parity : {Parity::kEven, Parity::kOdd}) {
            Fields f(lattice, out_parity, precision, 80 + bits);
            for (DslashEpilogue kind :
                 {DslashEpilogue::kClover, DslashEpilogue::kCloverXpay, DslashEpilogue::kXpayClover}) {
              for (bool inverse : {false, true}) {
                for (Dagger dagger : {Dagger::kNo, Dagger::kYes}) {
                  if (kind == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) continue;
                  CloverEpilogue e;
                  e.kind = kind;
                  e.clover = device_clover.View(out_parity, inverse);
                  e.x = f.x.View();
                  e.a = kA;
                  e.b = kB;
                  f.expected.FillBytes(0xff);
                  f.got.FillBytes(0xff);
                  ApplyCloverDslash(f.expected.View(), gauge, f.in.View(), dagger, e);
                  dslash.ApplyClover(f.got.View(), f.in.View(), dagger, e);
                  std::string first;
                  EXPECT_EQ(DifferingSites(f.expected, f.got, &first), 0)
                      << DslashVariant{precision, reconstruct, gauge_fixed, dagger}.Name() << " " << ToString(kind)
                      << (inverse ? " T^-1 " : " T ") << MaskName(bits) << " " << first;
                  ++cases;
                }
              }
            }
          }
        }
      }
    }
  }
  std::printf("%d clover cases bit-identical\n", cases);
}

TEST_F(PartitionedDslashTest, TunedBlockSizesGiveTheSameBits) {
  LaunchTuner::Instance().ClearForcedBlockSize();
  const Lattice lattice(6, 4, 10, 8);
  comm::SingleProcessCommunicator self;
  const GaugeField<double> u = testing::RandomLinks(lattice, 33, false);
  for (Precision precision : kPrecisions) {
    const DeviceGaugeField gauge(u, GaugeLayout{precision, Reconstruct::k12, false, 0});
    const PartitionedWilsonDslash dslash(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(9));
    EXPECT_EQ(CompareAllCases(gauge, dslash, "tuned", 70), 0);
  }
}

TEST_F(PartitionedDslashTest, FaceBytesFollowTheGhostFormats) {
  const Lattice lattice(6, 4, 10, 8);
  comm::SingleProcessCommunicator self;
  const GaugeField<double> u = testing::RandomLinks(lattice, 34, false);
  // Per face site: double 96 bytes, single 48, half 28 (temporal) or 52 (spatial: the whole site).
  const double per_site[3][2] = {{96, 96}, {48, 48}, {52, 28}};
  int k = 0;
  for (Precision precision : kPrecisions) {
    const DeviceGaugeField gauge(u, GaugeLayout{precision, Reconstruct::k18, false, 0});
    const PartitionedWilsonDslash z_only(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(4));
    const PartitionedWilsonDslash t_only(gauge, self, FermionBoundary::AntiperiodicTime(), MaskOf(8));
    const int z_face = 6 * 4 * 8 / 2, t_face = 6 * 4 * 10 / 2;
    EXPECT_EQ(z_only.FaceBytesPerCall(), 2 * z_face * per_site[k][0]);
    EXPECT_EQ(t_only.FaceBytesPerCall(), 2 * t_face * per_site[k][1]);
    ++k;
  }
}

TEST_F(PartitionedDslashTest, BadSetUpsAndArgumentsAreRefused) {
  comm::SingleProcessCommunicator self;
  // Arguments are checked as for the unpartitioned Dslash.
  const Lattice lattice(4, 4, 4, 4);
  const DeviceGaugeField links(GaugeField<double>(lattice), GaugeLayout{});
  const PartitionedWilsonDslash dslash(links, self, FermionBoundary::AntiperiodicTime(), MaskOf(8));
  DeviceSpinorField even(lattice, Subset::kEven, Precision::kDouble), other(lattice, Subset::kEven, Precision::kDouble);
  DeviceSpinorField single(lattice, Subset::kOdd, Precision::kSingle);
  EXPECT_THROW(dslash.Apply(even.View(), other.View(), Dagger::kNo), std::invalid_argument);   // same parity
  EXPECT_THROW(dslash.Apply(even.View(), single.View(), Dagger::kNo), std::invalid_argument);  // precision
  EXPECT_THROW(ParseHaloTransport("nvlink"), std::invalid_argument);
  EXPECT_EQ(ParseHaloTransport("device"), HaloTransport::kDevice);
  EXPECT_EQ(ParseHaloTransport("host"), HaloTransport::kHostStaged);
  EXPECT_EQ(ParseHaloTransport("nccl"), HaloTransport::kNccl);
}

}  // namespace
}  // namespace lqcd::gpu
