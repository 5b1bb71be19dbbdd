// device_buffer.h: an owned block of device memory, and the few copies the host side needs.
//
// Host-only header (no CUDA types): the memory is a void*. Every call is checked; failures throw
// CudaError (gpu/device.h) naming the call and CUDA's reason (out of memory reports free/total).
// A DeviceBuffer is movable, not copyable; its memory is freed when it goes out of scope.
#pragma once

#include <cstddef>

namespace lqcd::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  // uninitialised; bytes == 0 allocates nothing
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

  void CopyFromHost(const void* host, std::size_t bytes);  // bytes <= this->bytes()
  void CopyToHost(void* host, std::size_t bytes) const;
  void Fill(unsigned char byte);  // every byte (tests poison outputs with 0xff: NaN in float and double)

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Device-to-device copy of `bytes` bytes (tests and the tuner back up and restore outputs with it).
void CopyDeviceToDevice(void* destination, const void* source, std::size_t bytes);

// Device memory held by DeviceBuffers (every device field's storage) now, and the most held at once
// since the program started: the fields' footprint of a run (the runtime's own memory is not included).
std::size_t DeviceBufferBytes();
std::size_t DeviceBufferPeakBytes();

// Waits for all queued device work; throws CudaError for a fault that happened in it.
void SynchronizeDevice();

}  // namespace lqcd::gpu
