// rank_device.h's host-thread rule and the binding warning (no GPU or MPI session needed: plain struct logic).
#include "gpu/rank_device.h"

#include <gtest/gtest.h>

namespace lqcd::gpu {
namespace {

RankPlacement Placement(int usable, int hardware, int local_size) {
  RankPlacement p;
  p.usable_cores = usable;
  p.hardware_threads = hardware;
  p.local_size = local_size;
  return p;
}

TEST(HostThreads, UnboundRanksShareTheNode) {
  EXPECT_EQ(Placement(32, 32, 2).HostThreads(), 16);
  EXPECT_EQ(Placement(32, 32, 1).HostThreads(), 32);
  EXPECT_EQ(Placement(2, 2, 4).HostThreads(), 1);  // more ranks than cores: still one thread each
}

TEST(HostThreads, BoundRanksUseTheirCores) {
  EXPECT_EQ(Placement(1, 32, 2).HostThreads(), 1);   // Open MPI's default with 1-2 ranks: one core each
  EXPECT_EQ(Placement(16, 32, 2).HostThreads(), 16);  // bound to a socket of 16 cores
}

TEST(Describe, WarnsOfABindingToOneCore) {
  EXPECT_NE(Placement(1, 32, 2).Describe().find("WARNING: the launcher bound this rank to one core"),
            std::string::npos);
  EXPECT_EQ(Placement(16, 32, 2).Describe().find("WARNING"), std::string::npos);
  EXPECT_NE(Placement(16, 32, 2).Describe().find("host: 16 of 32 CPU cores usable"), std::string::npos);
  EXPECT_EQ(Placement(1, 1, 1).Describe().find("WARNING"), std::string::npos);  // a one-core machine
}

}  // namespace
}  // namespace lqcd::gpu
