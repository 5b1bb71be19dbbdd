// copy_bandwidth_test: the roofline kernel copies exactly, for sizes with and without a float4 tail.
#include "gpu/copy_bandwidth.h"

#include <gtest/gtest.h>

#include <numeric>

#include "gpu/device.h"

namespace lqcd::gpu {
namespace {

class CopyBandwidthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(CopyBandwidthTest, CopiesEveryElementExactly) {
  for (std::size_t n : {1u, 3u, 4u, 1023u, 1u << 20, (1u << 20) + 7}) {
    std::vector<float> in(n);
    std::iota(in.begin(), in.end(), 0.5f);
    EXPECT_EQ(CopyThroughDevice(in), in) << "n = " << n;
  }
}

TEST_F(CopyBandwidthTest, MeasuresAPlausibleBandwidth) {
  const DeviceInfo info = CurrentDeviceInfo();
  std::printf("%s\n", Describe(info).c_str());
  const CopyBandwidth bw = MeasureCopyBandwidth(std::size_t{64} << 20, 5);
  std::printf("copy kernel %.0f GB/s, cudaMemcpy %.0f GB/s (read + write)\n", bw.kernel_gbs, bw.memcpy_gbs);
  // A copy cannot beat the DRAM's theoretical rate by more than what the L2 cache can hold back;
  // and it must move data at all. Both would fail if the timing or byte count were wrong.
  EXPECT_GT(bw.kernel_gbs, 0.0);
  EXPECT_LT(bw.kernel_gbs, 4 * info.theoretical_bandwidth_gbs());
}

TEST(DeviceTest, ReasonIsEmptyExactlyWhenADeviceIsUsable) {
  const std::string why = NoDeviceReason();
  if (why.empty()) {
    EXPECT_FALSE(CurrentDeviceInfo().name.empty());
  } else {
    EXPECT_THROW(CurrentDeviceInfo(), CudaError) << why;
  }
}

}  // namespace
}  // namespace lqcd::gpu
