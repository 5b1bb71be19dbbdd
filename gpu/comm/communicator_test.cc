// SingleProcessCommunicator: a self-exchange is a copy in every direction, the deterministic sum of one
// rank is its value bit for bit, a one-rank AllGather is a copy, argument refusals; SumInRankOrder adds strictly left to right.
#include "gpu/comm/communicator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "reference/error_testing.h"

namespace lqcd::comm {
namespace {

TEST(SingleProcessCommunicatorTest, IsRankZeroOfOne) {
  SingleProcessCommunicator comm;
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  EXPECT_EQ(comm.grid(), ProcessGrid({1, 1, 1, 1}));
  comm.Barrier();
}

TEST(SingleProcessCommunicatorTest, SelfExchangeCopiesInEveryDirection) {
  SingleProcessCommunicator comm;
  for (int mu = 0; mu < kDims; ++mu) {
    for (const Side side : {Side::kBackward, Side::kForward}) {
      std::vector<double> send(37), receive(37, -1.0);
      std::iota(send.begin(), send.end(), 100.0 * mu + 10.0 * static_cast<int>(side));
      comm.Exchange(mu, side, send.data(), receive.data(), send.size() * sizeof(double));
      EXPECT_EQ(receive, send) << "mu " << mu << " " << ToString(side);
    }
  }
  comm.Exchange(0, Side::kForward, nullptr, nullptr, 0);  // an empty face is allowed
}

TEST(SingleProcessCommunicatorTest, DeterministicSumOfOneRankIsTheValue) {
  SingleProcessCommunicator comm;
  for (const double v : {1.5, -0.0, 1e16, std::nextafter(1.0, 2.0), -3e-310}) {
    const double sum = comm.SumDeterministic(v);
    EXPECT_EQ(std::memcmp(&sum, &v, sizeof v), 0) << v;
  }
  const std::vector<double> values{1.0, -0.0, 1e300, 7.25};
  const std::vector<double> sums = comm.SumDeterministic(values);
  ASSERT_EQ(sums.size(), values.size());
  EXPECT_EQ(std::memcmp(sums.data(), values.data(), values.size() * sizeof(double)), 0);
  EXPECT_TRUE(comm.SumDeterministic(std::vector<double>{}).empty());
}

TEST(SingleProcessCommunicatorTest, AllGatherOfOneRankIsACopy) {
  SingleProcessCommunicator comm;
  std::vector<double> local(29), all(29, -1.0);
  std::iota(local.begin(), local.end(), 0.5);
  local[3] = -0.0;
  comm.AllGather(local.data(), local.size() * sizeof(double), all.data());
  EXPECT_EQ(std::memcmp(all.data(), local.data(), local.size() * sizeof(double)), 0);
  comm.AllGather(nullptr, 0, nullptr);  // nothing to gather is allowed
}

TEST(SingleProcessCommunicatorTest, RefusesBadArguments) {
  SingleProcessCommunicator comm;
  double a[4] = {}, b[4] = {};
  EXPECT_CONTAINS(ErrorOf([&] { comm.Exchange(4, Side::kForward, a, b, sizeof a); }), "direction 4 is not in 0..3");
  EXPECT_CONTAINS(ErrorOf([&] { comm.Exchange(0, Side::kForward, nullptr, b, sizeof b); }), "null send buffer");
  EXPECT_CONTAINS(ErrorOf([&] { comm.Exchange(0, Side::kForward, a, nullptr, sizeof a); }), "null receive buffer");
  EXPECT_CONTAINS(ErrorOf([&] { comm.Exchange(0, Side::kForward, a, a + 2, sizeof a); }), "overlap");
  EXPECT_CONTAINS(ErrorOf([&] { comm.AllGather(nullptr, sizeof a, b); }), "null local buffer");
  EXPECT_CONTAINS(ErrorOf([&] { comm.AllGather(a, sizeof a, nullptr); }), "null all buffer");
  EXPECT_CONTAINS(ErrorOf([&] { comm.AllGather(a, 2 * sizeof(double), a + 1); }), "overlaps the gathered one");
  // The checks of a 3-rank gather: `all` holds 3 pieces, so it overlaps `local` anywhere in that span.
  double many[12] = {};
  EXPECT_CONTAINS(ErrorOf([&] { CheckAllGatherArguments(many + 8, 4 * sizeof(double), many, 3); }),
                  "overlaps the gathered one");
  CheckAllGatherArguments(many, 4 * sizeof(double), b, 1);
  EXPECT_CONTAINS(ErrorOf([&] { CheckAllGatherArguments(a, SIZE_MAX / 2, b, 3); }), "overflow");
  EXPECT_CONTAINS(ErrorOf([&] { CheckAllGatherArguments(a, 8, b, 0); }), "AllGather: 0 ranks");
  EXPECT_CONTAINS(ErrorOf([] { SingleProcessCommunicator{ProcessGrid({1, 1, 1, 2})}; }),
                  "has 2 ranks, but the job runs 1");
}

TEST(SumInRankOrderTest, AddsStrictlyInRankOrder) {
  // 1e16 + 1 rounds back to 1e16 (the spacing of doubles there is 2), so the order shows in the result.
  EXPECT_EQ(SumInRankOrder({{1e16}, {1.0}, {-1e16}}), std::vector<double>{0.0});
  EXPECT_EQ(SumInRankOrder({{1e16}, {-1e16}, {1.0}}), std::vector<double>{1.0});
  EXPECT_EQ(SumInRankOrder({{1.0, 2.0}, {3.0, 4.0}}), (std::vector<double>{4.0, 6.0}));
  EXPECT_CONTAINS(ErrorOf([] { SumInRankOrder({{1.0}, {1.0, 2.0}}); }), "rank 1 has 2 values, rank 0 has 1");
  EXPECT_CONTAINS(ErrorOf([] { SumInRankOrder({}); }), "no partials");
}

}  // namespace
}  // namespace lqcd::comm
