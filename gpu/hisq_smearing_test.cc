// hisq_smearing_test: the GPU link smearing (hisq_smearing.h) gives the oracle's links bit for bit: fat links for
// the fat7, asqtad and HISQ level-2 coefficients, Naik links and the whole asqtad construction, on Haar-random
// links and on smoother links (one level of fat7 and projection: the HISQ second level's input), on lattices with
// four different extents, the smallest the Naik term allows among them. The U(3) projection is u3_projection.h's on
// every link (its host build, the same bits; u3_projection_test compares that with the oracle's ProjectU3), and
// the HISQ links are the oracle's fat and Naik links of that projection, bit for bit. Bad arguments are refused
// before any device work (those cases run without a GPU); a link that cannot be projected is named.
#include "gpu/hisq_smearing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/device.h"
#include "reference/staggered/hisq_links.h"
#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

// Links of two fields that differ in any bit, and the first of them.
struct Difference {
  long links = 0;
  std::string first;
};

Difference Compare(const GaugeField<double>& got, const GaugeField<double>& want) {
  Difference d;
  for (std::size_t i = 0; i < want.links().size(); ++i) {
    if (std::memcmp(got.links()[i].data(), want.links()[i].data(), sizeof(want.links()[i])) != 0) {
      if (d.links++ == 0) {
        d.first = "link " + std::to_string(i) + " (site " + std::to_string(i / 4) + ", mu " + std::to_string(i % 4) +
                  "): largest difference " +
                  std::to_string((got.links()[i] - want.links()[i]).cwiseAbs().maxCoeff());
      }
    }
  }
  return d;
}

#define EXPECT_SAME_BITS(got, want)                                            \
  do {                                                                         \
    const Difference difference_ = Compare(got, want);                         \
    EXPECT_EQ(difference_.links, 0) << difference_.first;                      \
  } while (false)

class HisqSmearingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
  // Extents all different; 4 is the smallest the Naik 3-hop allows.
  const Lattice lattice_{6, 4, 8, 10};
};

TEST_F(HisqSmearingTest, FatLinksAreTheOraclesForEveryCoefficientSet) {
  const GaugeField<double> hot = RandomGaugeField<double>(lattice_, 41);
  const GaugeField<double> smooth = HisqLevel1(hot);  // the HISQ second level's kind of input (unitary, smoother)
  const SmearingCoefficients sets[] = {Fat7Coefficients(), AsqtadCoefficients(0.87), HisqCoefficients(0.0),
                                       HisqCoefficients(-0.35)};
  for (const GaugeField<double>* u : {&hot, &smooth}) {
    for (const SmearingCoefficients& c : sets) {
      SCOPED_TRACE("one-link coefficient " + std::to_string(c.one_link) + ", Lepage " + std::to_string(c.lepage) +
                   (u == &hot ? ", Haar links" : ", smeared links"));
      EXPECT_SAME_BITS(FatLinkOnGpu(*u, c), FatLink(*u, c));
    }
  }
  // Only some kinds of path: the recursion skips the 5- and 7-staples when their coefficients vanish.
  SmearingCoefficients three_only;
  three_only.one_link = 0.5;
  three_only.three_staple = 0.25;
  EXPECT_SAME_BITS(FatLinkOnGpu(hot, three_only), FatLink(hot, three_only));
}

TEST_F(HisqSmearingTest, NaikLinksAreTheOracles) {
  const GaugeField<double> u = RandomGaugeField<double>(lattice_, 43);
  EXPECT_SAME_BITS(NaikLinkOnGpu(u, -1.0 / 24), NaikLink(u, -1.0 / 24));
  EXPECT_SAME_BITS(NaikLinkOnGpu(u, HisqNaikCoefficient(-0.35)), NaikLink(u, HisqNaikCoefficient(-0.35)));
}

TEST_F(HisqSmearingTest, TheProjectionIsItsHostBuildOnEveryLink) {
  const GaugeField<double> hot = RandomGaugeField<double>(lattice_, 45);
  const GaugeField<double> fat7 = FatLink(hot, Fat7Coefficients());  // the projection's input in HISQ
  EXPECT_SAME_BITS(ProjectU3OnGpu(fat7), ProjectU3OnHost(fat7));
  EXPECT_SAME_BITS(ProjectU3OnGpu(hot), ProjectU3OnHost(hot));  // unitary input: V^dag V = 1 to rounding
}

TEST_F(HisqSmearingTest, AsqtadAndHisqLinksAreTheOracles) {
  const GaugeField<double> u = RandomGaugeField<double>(lattice_, 47);
  {
    const SmearedLinks got = AsqtadLinksOnGpu(u, 0.87), want = AsqtadLinks(u, 0.87);
    EXPECT_SAME_BITS(got.fat, want.fat);
    EXPECT_SAME_BITS(got.naik, want.naik);
  }
  const GaugeField<double> w = ProjectU3OnHost(FatLink(u, Fat7Coefficients()));
  for (double epsilon : {0.0, -0.35}) {
    SCOPED_TRACE("epsilon " + std::to_string(epsilon));
    const SmearedLinks got = HisqLinksOnGpu(u, epsilon);
    EXPECT_SAME_BITS(got.fat, FatLink(w, HisqCoefficients(epsilon)));
    EXPECT_SAME_BITS(got.naik, NaikLink(w, HisqNaikCoefficient(epsilon)));
  }
}

TEST_F(HisqSmearingTest, ALinkThatCannotBeProjectedIsNamed) {
  GaugeField<double> v = RandomGaugeField<double>(lattice_, 49);
  const int site = 37, mu = 2;
  v.Link(site, mu)(0, 1) = Complex<double>(std::numeric_limits<double>::quiet_NaN(), 0);
  v.Link(site + 5, 0)(2, 2) = Complex<double>(std::numeric_limits<double>::infinity(), 0);  // a later link
  try {
    ProjectU3OnGpu(v);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("site 37, direction 2 failed: an entry is not finite"), std::string::npos)
        << e.what();
  }
}

// The oracle's checks, made before anything reaches the device: no GPU needed.
TEST(HisqSmearingArguments, BadArgumentsAreRefusedBeforeAnyDeviceWork) {
  const GaugeField<double> u = RandomGaugeField<double>(Lattice(4, 4, 4, 4), 53);
  const GaugeField<double> thin_t = RandomGaugeField<double>(Lattice(4, 4, 4, 2), 59);
  auto expect_refusal = [](auto&& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one containing '" << words << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_refusal([&] { AsqtadLinksOnGpu(u, 0.0); }, "u0 = 0");
  expect_refusal([&] { AsqtadLinksOnGpu(u, -1.0); }, "u0 = -1");
  expect_refusal([&] { HisqLinksOnGpu(u, std::numeric_limits<double>::quiet_NaN()); }, "epsilon = nan");
  expect_refusal([&] { HisqLinksOnGpu(thin_t, 0.0); }, "extent 2 < 3 in direction 3");
  expect_refusal([&] { AsqtadLinksOnGpu(thin_t, 0.9); }, "extent 2 < 3 in direction 3");
  expect_refusal([&] { NaikLinkOnGpu(thin_t, -1.0 / 24); }, "extent 2 < 3 in direction 3");
}

}  // namespace
}  // namespace lqcd::gpu
