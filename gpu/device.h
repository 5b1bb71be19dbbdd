// device.h: which GPU are we on, is there one at all, and the error type every gpu/ call throws.
//
// Host-only header (no CUDA types), so plain C++ tests and binaries include it. Implemented in device.cu.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace lqcd::gpu {

// Thrown for any failed CUDA call: the message names the call, file:line and CUDA's reason
// (no device, out of memory with the free/total memory, launch failure, ...).
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& message, int cuda_status) : std::runtime_error(message), status_(cuda_status) {}
  int cuda_status() const { return status_; }

 private:
  int status_;
};

// Empty when a usable CUDA device exists; otherwise why not (no driver, no device, ...).
// GPU tests call GTEST_SKIP() with this reason.
std::string NoDeviceReason();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  int memory_clock_khz = 0;       // peak memory clock
  int memory_bus_width_bits = 0;
  int driver_version = 0, runtime_version = 0;  // e.g. 13000 for 13.0
  // Theoretical DRAM bandwidth, 2 * clock * bus width (double data rate), in GB/s (1e9 bytes/s).
  double theoretical_bandwidth_gbs() const { return 2.0 * memory_clock_khz * 1e3 * memory_bus_width_bits / 8 / 1e9; }
};

// Number of CUDA devices this process sees (0 when NoDeviceReason() is not empty).
int DeviceCount();
// Makes `ordinal` the current device of the calling host thread (every later allocation and launch goes
// there). Multi-rank programs call it first, one device per rank. Throws std::invalid_argument for an
// ordinal outside [0, DeviceCount()), CudaError if CUDA fails.
void SelectDevice(int ordinal);

// Properties of the current device. Throws CudaError when there is none.
DeviceInfo CurrentDeviceInfo();

// One line for the top of every binary's output: name, capability, SMs, memory, driver/runtime.
std::string Describe(const DeviceInfo& info);

}  // namespace lqcd::gpu
