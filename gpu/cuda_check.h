// cuda_check.h: turn every CUDA runtime error into a C++ exception that names the call, the place and
// the reason. Included by .cu files only; host code sees lqcd::gpu::CudaError through gpu/device.h.
//
// Why a macro: it is the one place we need the text of the call and its file/line. Kernels and
// stencils never use macros.
#pragma once

#include <cuda_runtime.h>

#include <sstream>

#include "gpu/device.h"

namespace lqcd::gpu {

inline void CheckCuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::ostringstream message;
  message << file << ":" << line << ": " << call << " failed: " << cudaGetErrorName(status) << " ("
          << cudaGetErrorString(status) << ")";
  if (status == cudaErrorMemoryAllocation) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaGetLastError();  // clear the sticky error before asking
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      message << "; device memory free " << (free_bytes >> 20) << " MiB of " << (total_bytes >> 20) << " MiB";
    }
  }
  throw CudaError(message.str(), static_cast<int>(status));
}

}  // namespace lqcd::gpu

#define LQCD_CUDA_CHECK(call) ::lqcd::gpu::CheckCuda((call), #call, __FILE__, __LINE__)

// After a kernel launch: catches bad launch configurations at once, and faults at the next sync.
#define LQCD_CUDA_CHECK_LAUNCH() ::lqcd::gpu::CheckCuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
