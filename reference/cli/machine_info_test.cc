// machine_info.h: UsableCores() follows the affinity mask (what mpirun's binding changes), not the hardware.
#include "reference/cli/machine_info.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace lqcd {
namespace {

TEST(UsableCores, IsTheAffinityMaskAndAtMostTheHardware) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  EXPECT_EQ(UsableCores(), CPU_COUNT(&mask));
  EXPECT_GE(UsableCores(), 1);
  EXPECT_LE(UsableCores(), static_cast<int>(std::thread::hardware_concurrency()));
}

TEST(UsableCores, ABindingToOneCoreIsSeen) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const int bound = UsableCores();
  const std::string line = DescribeMachine();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);  // restore before asserting
  EXPECT_EQ(bound, 1);
  EXPECT_NE(line.find("(1 usable)"), std::string::npos) << line;
  EXPECT_EQ(UsableCores(), CPU_COUNT(&saved));
}

}  // namespace
}  // namespace lqcd
