// device.cu: device discovery and description (see device.h).
#include "gpu/device.h"

#include <cuda_runtime.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"

namespace lqcd::gpu {

std::string NoDeviceReason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: cudaGetDeviceCount failed with ") + cudaGetErrorName(status) +
           " (" + cudaGetErrorString(status) + ")";
  }
  if (count == 0) return "no CUDA device: the driver reports 0 devices";
  return "";
}

int DeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error: NoDeviceReason() says why
    return 0;
  }
  return count;
}

void SelectDevice(int ordinal) {
  const int count = DeviceCount();
  if (ordinal < 0 || ordinal >= count) {
    throw std::invalid_argument("SelectDevice: device " + std::to_string(ordinal) + " does not exist (" +
                                std::to_string(count) + " CUDA devices)");
  }
  LQCD_CUDA_CHECK(cudaSetDevice(ordinal));
}

DeviceInfo CurrentDeviceInfo() {
  DeviceInfo info;
  LQCD_CUDA_CHECK(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop;
  LQCD_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.ordinal));
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.global_memory_bytes = prop.totalGlobalMem;
  info.memory_bus_width_bits = prop.memoryBusWidth;
  LQCD_CUDA_CHECK(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.ordinal));
  LQCD_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  LQCD_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string Describe(const DeviceInfo& info) {
  std::ostringstream out;
  out << "device " << info.ordinal << ": " << info.name << ", sm_" << info.compute_major << info.compute_minor << ", "
      << info.multiprocessors << " SMs, " << (info.global_memory_bytes >> 20) << " MiB, theoretical DRAM "
      << static_cast<int>(info.theoretical_bandwidth_gbs()) << " GB/s, driver " << info.driver_version / 1000 << "."
      << (info.driver_version % 1000) / 10 << ", runtime " << info.runtime_version / 1000 << "."
      << (info.runtime_version % 1000) / 10;
  return out.str();
}

}  // namespace lqcd::gpu
