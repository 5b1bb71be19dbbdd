// DeviceRankSum on one process: a missing NCCL is a clear refusal; on one rank (a one-rank NCCL communicator,
// one GPU) the sum of a single partial is that partial bit for bit, in both copies; bad counts are refused
// before any work; the reductions of blas.h with the sums on the device give the bits of the local reductions,
// which is what the host way gives on one rank. The multi-rank sums against the host's are in
// multi_gpu_check (check c., bit for bit, under mpirun).
#include "gpu/device_rank_sum.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>

#include "gpu/blas.h"
#include "gpu/device.h"
#include "gpu/device_scalar.h"
#include "gpu/device_spinor_field.h"
#include "gpu/nccl_communicator.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {
namespace {

// The loader reads LQCD_NCCL_LIBRARY once per process: the death test's child (re-executed, "threadsafe")
// is a fresh process that sees only the variable set here.
TEST(DeviceRankSumTest, ANamedLibraryThatDoesNotLoadIsAClearRefusal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("LQCD_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
        std::cerr << NcclCommunicator::Unavailable();
        comm::SingleProcessCommunicator one;
        try {
          DeviceRankSum sums(one);
        } catch (const std::runtime_error& e) {
          std::cerr << "\nrefused: " << e.what();
          std::exit(0);
        }
        std::exit(1);
      },
      testing::ExitedWithCode(0), "NCCL could not be loaded.*nonexistent.*LQCD_NCCL_LIBRARY(.|\n)*refused");
}

TEST(DeviceRankSumTest, TheGlobalSumsFlag) {
  EXPECT_TRUE(GlobalSumsOnDevices("", false));
  EXPECT_FALSE(GlobalSumsOnDevices("", true));
  EXPECT_TRUE(GlobalSumsOnDevices("device", false));
  EXPECT_FALSE(GlobalSumsOnDevices("host", true));
  EXPECT_THROW(GlobalSumsOnDevices("device", true), std::invalid_argument);
  EXPECT_THROW(GlobalSumsOnDevices("nccl", false), std::invalid_argument);
}

class DeviceRankSumOnOneGpu : public testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NoDeviceReason(); !why.empty()) GTEST_SKIP() << why;
    if (const std::string why = NcclCommunicator::Unavailable(); !why.empty()) GTEST_SKIP() << why;
    sums_ = std::make_unique<DeviceRankSum>(one_);
  }
  comm::SingleProcessCommunicator one_;
  std::unique_ptr<DeviceRankSum> sums_;
};

TEST_F(DeviceRankSumOnOneGpu, OneRanksSumIsItsPartialBitForBitInBothCopies) {
  const double values[4] = {-0.0, 0x1.23456789abcdep-1000, -3.5e300, std::numeric_limits<double>::quiet_NaN()};
  const std::shared_ptr<ScalarSlot> slot = ScalarSlot::Acquire();
  slot->Set(values, 4);
  std::memset(slot->host(), 0xff, 4 * sizeof(double));  // the host copy must be rewritten by the sum
  sums_->Sum(slot->device(), slot->host_on_device(), 4);
  slot->MarkWritten();
  slot->Wait();
  EXPECT_EQ(std::memcmp(slot->host(), values, sizeof(values)), 0);
  // The device copy: each value copied by a device program into a fresh slot (blas::EvaluateIntoSlot).
  double device[4];
  for (int k = 0; k < 4; ++k) {
    const std::shared_ptr<ScalarSlot> copy = blas::EvaluateIntoSlot(DeviceReal::InSlot(slot, k));
    copy->Wait();
    device[k] = copy->host()[0];
  }
  EXPECT_EQ(std::memcmp(device, values, sizeof(values)), 0);
}

TEST_F(DeviceRankSumOnOneGpu, CountsOutsideOneToFourAndNullValuesAreRefused) {
  const std::shared_ptr<ScalarSlot> slot = ScalarSlot::Acquire();
  EXPECT_THROW(sums_->Sum(slot->device(), slot->host_on_device(), 0), std::invalid_argument);
  EXPECT_THROW(sums_->Sum(slot->device(), slot->host_on_device(), kScalarSlotDoubles + 1),
               std::invalid_argument);
  EXPECT_THROW(sums_->Sum(nullptr, slot->host_on_device(), 1), std::invalid_argument);
}

TEST_F(DeviceRankSumOnOneGpu, ReductionsWithTheSumsOnTheDeviceAreTheLocalReductionsBitForBit) {
  const Lattice lattice(8, 8, 8, 8);
  DeviceSpinorField x(lattice, Subset::kFull, Precision::kSingle), y(lattice, Subset::kFull, Precision::kSingle);
  SpinorField<double> host(lattice);
  FillGaussian(host, 7);
  x.Upload(host);
  FillGaussian(host, 8);
  y.Upload(host);
  const double norm = blas::Norm2(x);
  const blas::DotAndNorm dot_norm = blas::DotNorm(x, y);
  const blas::ScopedReductionCommunicator on_device(&one_, sums_.get());
  EXPECT_EQ(blas::ReductionOnDevices(), sums_.get());
  const double norm_device = blas::Norm2(x);
  const blas::DotAndNorm dot_norm_device = blas::DotNorm(x, y);
  EXPECT_EQ(std::memcmp(&norm, &norm_device, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&dot_norm.dot, &dot_norm_device.dot, sizeof(dot_norm.dot)), 0);
  EXPECT_EQ(std::memcmp(&dot_norm.norm2, &dot_norm_device.norm2, sizeof(double)), 0);
}

TEST_F(DeviceRankSumOnOneGpu, SumsBuiltOnAnotherCommunicatorAreRefused) {
  comm::SingleProcessCommunicator other;
  EXPECT_THROW(blas::SetReductionCommunicator(&other, sums_.get()), std::invalid_argument);
  EXPECT_THROW(blas::SetReductionCommunicator(nullptr, sums_.get()), std::invalid_argument);
  EXPECT_EQ(blas::ReductionCommunicator(), nullptr);
  EXPECT_EQ(blas::ReductionOnDevices(), nullptr);
}

}  // namespace
}  // namespace lqcd::gpu
