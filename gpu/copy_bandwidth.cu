// copy_bandwidth.cu: a vectorised copy kernel and its timing (see copy_bandwidth.h).
#include "gpu/copy_bandwidth.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "gpu/cuda_check.h"

namespace lqcd::gpu {
namespace {

// One float4 per thread per step; the tail (n not a multiple of 4) is copied by thread 0.
__global__ void CopyKernel(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n4,
                           const float* __restrict__ in_tail, float* __restrict__ out_tail, int tail) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    out[i] = in[i];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int i = 0; i < tail; ++i) out_tail[i] = in_tail[i];
  }
}

void LaunchCopy(const float* in, float* out, std::size_t n) {
  const std::size_t n4 = n / 4;
  const int tail = static_cast<int>(n - 4 * n4);
  int device = 0, sms = 0;
  LQCD_CUDA_CHECK(cudaGetDevice(&device));
  LQCD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int block = 256;
  const std::size_t wanted = (n4 + block - 1) / block;
  const int grid = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, 32u * sms)));
  CopyKernel<<<grid, block>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4,
                              in + 4 * n4, out + 4 * n4, tail);
  LQCD_CUDA_CHECK_LAUNCH();
}

// RAII device buffer, so an exception thrown mid-way frees what was allocated.
struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t bytes) { LQCD_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 16))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return static_cast<float*>(ptr); }
  void* ptr = nullptr;
};

}  // namespace

std::vector<float> CopyThroughDevice(const std::vector<float>& in) {
  const std::size_t bytes = in.size() * sizeof(float);
  DeviceBuffer d_in(bytes), d_out(bytes);
  LQCD_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), bytes, cudaMemcpyHostToDevice));
  LQCD_CUDA_CHECK(cudaMemset(d_out.get(), 0, bytes));
  LaunchCopy(d_in.get(), d_out.get(), in.size());
  std::vector<float> out(in.size());
  LQCD_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), bytes, cudaMemcpyDeviceToHost));
  return out;
}

CopyBandwidth MeasureCopyBandwidth(std::size_t buffer_bytes, int repetitions) {
  buffer_bytes -= buffer_bytes % 16;
  const std::size_t n = buffer_bytes / sizeof(float);
  DeviceBuffer a(buffer_bytes), b(buffer_bytes);
  LQCD_CUDA_CHECK(cudaMemset(a.get(), 0, buffer_bytes));
  cudaEvent_t start, stop;
  LQCD_CUDA_CHECK(cudaEventCreate(&start));
  LQCD_CUDA_CHECK(cudaEventCreate(&stop));
  auto best_seconds = [&](auto&& copy_once) {
    copy_once();  // warm-up
    float best_ms = 1e30f;
    for (int r = 0; r < repetitions; ++r) {
      LQCD_CUDA_CHECK(cudaEventRecord(start));
      copy_once();
      LQCD_CUDA_CHECK(cudaEventRecord(stop));
      LQCD_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      LQCD_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      best_ms = std::min(best_ms, ms);
    }
    return best_ms * 1e-3;
  };
  CopyBandwidth result;
  result.bytes_per_copy = 2 * buffer_bytes;
  result.kernel_gbs = result.bytes_per_copy / best_seconds([&] { LaunchCopy(a.get(), b.get(), n); }) / 1e9;
  result.memcpy_gbs = result.bytes_per_copy /
                      best_seconds([&] {
                        LQCD_CUDA_CHECK(cudaMemcpy(b.get(), a.get(), buffer_bytes, cudaMemcpyDeviceToDevice));
                      }) /
                      1e9;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return result;
}

}  // namespace lqcd::gpu
