// device_buffer.cu: cudaMalloc/cudaFree/cudaMemcpy behind the plain C++ interface of device_buffer.h.
#include "gpu/device_buffer.h"

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpu/cuda_check.h"

namespace lqcd::gpu {

namespace {
std::atomic<std::size_t> held_bytes{0}, peak_bytes{0};

void Held(std::size_t bytes) {
  const std::size_t now = held_bytes.fetch_add(bytes) + bytes;
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}
void Released(std::size_t bytes) { held_bytes.fetch_sub(bytes); }
}  // namespace

std::size_t DeviceBufferBytes() { return held_bytes.load(); }
std::size_t DeviceBufferPeakBytes() { return peak_bytes.load(); }
std::size_t ResetDeviceBufferPeak() {
  const std::size_t now = held_bytes.load();
  peak_bytes.store(now);
  return now;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) {
    LQCD_CUDA_CHECK(cudaMalloc(&data_, bytes));
    Held(bytes);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) {
    cudaFree(data_);  // no throw from a destructor; a fault shows at the next check
    Released(bytes_);
  }
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) {
      cudaFree(data_);
      Released(bytes_);
    }
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

namespace {
void RequireFits(std::size_t bytes, std::size_t capacity, const char* what) {
  if (bytes > capacity) {
    throw std::out_of_range(std::string("DeviceBuffer::") + what + ": " + std::to_string(bytes) +
                            " bytes do not fit in a buffer of " + std::to_string(capacity));
  }
}
}  // namespace

void DeviceBuffer::CopyFromHost(const void* host, std::size_t bytes) {
  RequireFits(bytes, bytes_, "CopyFromHost");
  if (bytes > 0) LQCD_CUDA_CHECK(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice));
}

void DeviceBuffer::CopyToHost(void* host, std::size_t bytes) const {
  RequireFits(bytes, bytes_, "CopyToHost");
  if (bytes > 0) LQCD_CUDA_CHECK(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost));
}

namespace {
struct PinnedStaging {
  std::mutex mutex;  // held by the current lease
  void* data = nullptr;
  std::size_t bytes = 0;
};
PinnedStaging& Staging() {
  static PinnedStaging* staging = new PinnedStaging;  // never destroyed: leases may end during static teardown
  return *staging;
}
}  // namespace

PinnedStagingLease::PinnedStagingLease(std::size_t bytes) {
  PinnedStaging& s = Staging();
  s.mutex.lock();
  try {
    if (bytes > s.bytes) {
      if (s.data != nullptr) LQCD_CUDA_CHECK(cudaFreeHost(s.data));
      s.data = nullptr;
      s.bytes = 0;
      LQCD_CUDA_CHECK(cudaMallocHost(&s.data, bytes));
      s.bytes = bytes;
    }
  } catch (...) {
    s.mutex.unlock();
    throw;
  }
  data_ = s.data;
}

PinnedStagingLease::~PinnedStagingLease() { Staging().mutex.unlock(); }

HostRegistration::HostRegistration(void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  if (cudaHostRegister(data, bytes, cudaHostRegisterMapped) != cudaSuccess) {
    cudaGetLastError();  // not registered: the transfers stage as usual
    return;
  }
  data_ = data;
}

HostRegistration::~HostRegistration() {
  if (data_ != nullptr) cudaHostUnregister(data_);  // a destructor does not throw; nothing to recover here
}

HostRegistration::HostRegistration(HostRegistration&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}

HostRegistration& HostRegistration::operator=(HostRegistration&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaHostUnregister(data_);
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

void* MappedHostPointer(const void* host, std::size_t bytes) {
  if (host == nullptr || bytes == 0) return nullptr;
  // Both ends of the range must lie in page-locked memory (a registration may cover only part of a field).
  void* device = nullptr;
  for (const char* p : {static_cast<const char*>(host), static_cast<const char*>(host) + bytes - 1}) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
      cudaGetLastError();  // clear the error: ordinary memory on older runtimes, or no device
      return nullptr;
    }
    if (attributes.type != cudaMemoryTypeHost || attributes.devicePointer == nullptr) return nullptr;
    if (p == host) device = attributes.devicePointer;
  }
  return device;
}

void DeviceBuffer::Fill(unsigned char byte) {
  if (bytes_ > 0) LQCD_CUDA_CHECK(cudaMemset(data_, byte, bytes_));
}

void CopyDeviceToDevice(void* destination, const void* source, std::size_t bytes) {
  if (bytes > 0) LQCD_CUDA_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToDevice));
}

void SynchronizeDevice() { LQCD_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace lqcd::gpu
