// benchmark_support_test: the benchmarks' host-side helpers produce exactly the oracle's random fields (so a
// parallel generator changes nothing but the time), parse integer lists strictly or reject them naming the flag, and
// ParallelFor visits every index once and passes errors on. No GPU needed.
#include "gpu/benchmark_support.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/su3_random.h"

namespace lqcd::gpu {
namespace {

TEST(BenchmarkSupportTest, ParallelRandomFieldsAreTheOraclesFields) {
  const Lattice lattice(4, 6, 4, 2);
  const GaugeField<double> serial = RandomGaugeField<double>(lattice, 77);
  const GaugeField<double> parallel = ParallelRandomGaugeField(lattice, 77, 3);
  int mismatches = 0;
  for (int site = 0; site < lattice.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) mismatches += serial.Link(site, mu) == parallel.Link(site, mu) ? 0 : 1;
  }
  EXPECT_EQ(mismatches, 0);

  for (Subset subset : {Subset::kFull, Subset::kOdd}) {
    SpinorField<double> a(lattice, subset), b(lattice, subset);
    FillGaussian(a, 78);
    ParallelFillGaussian(b, 78, 5);
    int different = 0;
    for (int i = 0; i < a.sites(); ++i) different += a[i] == b[i] ? 0 : 1;
    EXPECT_EQ(different, 0) << ToString(subset);
  }
}

TEST(BenchmarkSupportTest, PiecesAreTheBlocksOfTheGlobalFields) {
  const Lattice global(4, 6, 4, 8), local(2, 6, 2, 4);
  const Coordinates offset{2, 0, 2, 4};
  const GaugeField<double> whole = ParallelRandomGaugeField(global, 79, 2);
  const GaugeField<double> piece = ParallelRandomGaugeFieldPiece(global, local, offset, 79, 3);
  SpinorField<double> whole_source(global), piece_source(local, Subset::kOdd);
  ParallelFillGaussian(whole_source, 80, 2);
  ParallelFillGaussianPiece(piece_source, global, offset, 80, 3);
  int mismatches = 0;
  for (int site = 0; site < local.volume(); ++site) {
    Coordinates n = local.Coords(site);
    for (int mu = 0; mu < kDims; ++mu) n[mu] += offset[mu];
    for (int mu = 0; mu < kDims; ++mu) mismatches += piece.Link(site, mu) == whole.Link(global.Index(n), mu) ? 0 : 1;
  }
  for (int i = 0; i < piece_source.sites(); ++i) {
    Coordinates n = local.Coords(piece_source.SiteIndex(i));
    for (int mu = 0; mu < kDims; ++mu) n[mu] += offset[mu];
    mismatches += piece_source[i] == whole_source[global.Index(n)] ? 0 : 1;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(BenchmarkSupportTest, UnitTemporalLinksKeepsOnlyTheLastSlice) {
  const Lattice lattice(4, 4, 4, 6);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 79);
  const GaugeField<double> f = UnitTemporalLinks(u);
  for (int site = 0; site < lattice.volume(); ++site) {
    const bool last = lattice.Coords(site)[3] == 5;
    for (int mu = 0; mu < kDims; ++mu) {
      if (mu == 3 && !last) {
        EXPECT_TRUE(f.Link(site, mu) == ColorMatrix<double>::Identity()) << site;
      } else {
        EXPECT_TRUE(f.Link(site, mu) == u.Link(site, mu)) << site << " " << mu;
      }
    }
  }
}

TEST(BenchmarkSupportTest, ParsesIntListsStrictlyAndRejectsBadOnes) {
  EXPECT_EQ(ParseIntList("t", "8,16,24", 2, 512), (std::vector<int>{8, 16, 24}));
  EXPECT_EQ(ParseIntList("t", "8:40:16", 2, 512), (std::vector<int>{8, 24, 40}));
  EXPECT_EQ(ParseIntList("t", "8:40:40", 2, 512), (std::vector<int>{8}));
  EXPECT_EQ(ParseIntList("t", "12", 2, 512), (std::vector<int>{12}));
  for (const char* bad : {"8,,16", "8,x", "", "8abc", "8,16abc", " 8", "nan", "8.5", "8:4:1", "8:16:0", "8:16",
                          "8:16:4:2", "8:16:4x", "1:16:4", "8:1000:8", "1000", "-8"}) {
    try {
      ParseIntList("t", bad, 2, 512);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--t"), std::string::npos) << e.what();
    }
  }
}

TEST(BenchmarkSupportTest, ParallelForVisitsEveryIndexOnceAndRethrows) {
  std::vector<std::atomic<int>> visits(1000);
  ParallelFor(1000, 7, [&](int i) { ++visits[i]; });
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(visits[i].load(), 1) << i;
  try {
    ParallelFor(100, 4, [](int i) {
      if (i == 37) throw std::runtime_error("index 37 failed");
    });
    FAIL() << "the exception was swallowed";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "index 37 failed");
  }
}

}  // namespace
}  // namespace lqcd::gpu
