// The staggered Dslash cost model against hand counts: the seed's single-precision flop/byte (0.73 at n = 1,
// 2.08 at n = 8, 18-real links), links counted once per call whatever n, compressed long links, naive
// staggered, half-precision norms, the minimum bytes, and refused input. Runs without a GPU; prints the
// flop/byte table of docs/staggered.md.
#include "gpu/staggered_dslash_cost.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

namespace lqcd::gpu {
namespace {

const Extents kLattice{32, 32, 32, 32};
const double kSites = 32.0 * 32 * 32 * 32 / 2;

double Intensity(const KernelCost& c) { return c.flops / c.bytes; }

TEST(StaggeredDslashCost, ReproducesTheSeedsSinglePrecisionIntensity) {
  // n = 1: links 16 x 18 x 4 = 1152 bytes, vectors (16 + 1) x 6 x 4 = 408 bytes, 1146 flops: 0.7346.
  // n = 8: 1152 + 8 x 408 = 4416 bytes, 8 x 1146 flops: 2.0761.
  const StaggeredDslashVariant single{Precision::kSingle, 18};
  EXPECT_DOUBLE_EQ(StaggeredDslashCost(single, kLattice, 1).bytes, kSites * 1560);
  EXPECT_NEAR(Intensity(StaggeredDslashCost(single, kLattice, 1)), 0.73, 0.005);
  EXPECT_NEAR(Intensity(StaggeredDslashCost(single, kLattice, 8)), 2.08, 0.005);
  EXPECT_DOUBLE_EQ(StaggeredDslashCost(single, kLattice, 8).flops, 8 * kSites * 1146);
}

TEST(StaggeredDslashCost, LinksAreReadOncePerCallAndCompressionOnlyTouchesTheLongLinks) {
  for (Precision p : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    const double real = BytesPerReal(p), norm = p == Precision::kHalf ? 4 : 0;
    for (int r : {18, 14, 13, 12, 10, 9, 8}) {
      const StaggeredDslashVariant v{p, r};
      const KernelCost one = StaggeredDslashCost(v, kLattice, 1), five = StaggeredDslashCost(v, kLattice, 5);
      const double links = kSites * 8 * (18 + r) * real;
      const double vectors = kSites * 17 * (6 * real + norm);
      EXPECT_DOUBLE_EQ(one.bytes, links + vectors) << ToString(p) << " " << r;
      EXPECT_DOUBLE_EQ(five.bytes - one.bytes, 4 * vectors) << ToString(p) << " " << r;  // no link bytes
      EXPECT_DOUBLE_EQ(five.minimum_bytes, links + 5 * kSites * 2 * (6 * real + norm)) << ToString(p) << " " << r;
      EXPECT_LT(five.minimum_bytes, five.bytes);
    }
  }
  // 13 reals per long link save 8 x 5 reals per site against 18.
  const double saved = StaggeredDslashCost({Precision::kDouble, 18}, kLattice).bytes -
                       StaggeredDslashCost({Precision::kDouble, 13}, kLattice).bytes;
  EXPECT_DOUBLE_EQ(saved, kSites * 8 * 5 * 8);
}

TEST(StaggeredDslashCost, NaiveStaggeredHasNoLongLinksAndEightNeighbours) {
  const KernelCost c = StaggeredDslashCost({Precision::kDouble, 0}, kLattice, 2);
  EXPECT_DOUBLE_EQ(c.flops, 2 * kSites * 570);
  EXPECT_DOUBLE_EQ(c.bytes, kSites * (8 * 18 * 8 + 2 * 9 * 6 * 8));
}

TEST(StaggeredDslashCost, BadInputIsRefused) {
  EXPECT_THROW(StaggeredDslashCost({Precision::kSingle, 18}, kLattice, 0), std::invalid_argument);
  EXPECT_THROW(StaggeredDslashCost({Precision::kSingle, 11}, kLattice, 1), std::invalid_argument);
}

TEST(StaggeredDslashCost, PrintsTheFlopPerByteTable) {
  std::printf("| precision | long link reals | n = 1 | 2 | 4 | 8 | 16 | minimum-bytes flop/byte at n = 1 | 8 | 16 |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (Precision p : {Precision::kDouble, Precision::kSingle, Precision::kHalf}) {
    for (int r : {18, 13, 9}) {
      std::printf("| %s | %d |", ToString(p), r);
      for (int n : {1, 2, 4, 8, 16}) std::printf(" %.2f |", Intensity(StaggeredDslashCost({p, r}, kLattice, n)));
      for (int n : {1, 8, 16}) {
        const KernelCost c = StaggeredDslashCost({p, r}, kLattice, n);
        std::printf(" %.2f |", c.flops / c.minimum_bytes);
      }
      std::printf("\n");
    }
  }
}

}  // namespace
}  // namespace lqcd::gpu
