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

// Existing host memory page-locked for as long as this object lives (cudaHostRegister, mapped): the device then
// reads and writes it directly over the bus, so a field transfer from or to it needs no host-side pass (the
// spinor transfers check for it: MappedHostPointer). For host fields reused across many transfers (a solve's
// source and solution on the host); registering costs about as much as one pass over the memory. bytes == 0
// registers nothing. The memory must outlive the registration and not move (no reallocation) while it lasts.
// An optimisation only: where registering fails (no device, memory already registered, a system limit) nothing
// is registered, registered() is false, and transfers stage as they would anyway.
class HostRegistration {
 public:
  HostRegistration(void* data, std::size_t bytes);
  bool registered() const { return data_ != nullptr; }
  ~HostRegistration();
  HostRegistration(HostRegistration&& other) noexcept;
  HostRegistration& operator=(HostRegistration&& other) noexcept;
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  void* data_ = nullptr;
};

// The device's address of `bytes` bytes of page-locked, device-mapped host memory at `host` (registered or
// allocated by CUDA), or nullptr when any of it is ordinary pageable memory or no device is usable.
void* MappedHostPointer(const void* host, std::size_t bytes);

// Page-locked host memory for the host side of field transfers, one buffer per process, reused: a transfer
// writes (or reads) its staging order there, and the copy to or from the device then runs at the bus's rate
// instead of through the driver's pageable bounce buffers, without allocating and zero-filling a host vector
// per transfer (at 48^3 x 96 one parity of a double spinor field is 1 GB). A lease holds the buffer for its
// lifetime (other leases wait: one transfer at a time per process); the buffer grows to the largest request and
// is kept until the process ends. Its contents on entry are whatever the last transfer left.
class PinnedStagingLease {
 public:
  explicit PinnedStagingLease(std::size_t bytes);
  ~PinnedStagingLease();
  PinnedStagingLease(const PinnedStagingLease&) = delete;
  PinnedStagingLease& operator=(const PinnedStagingLease&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// Device-to-device copy of `bytes` bytes (tests and the tuner back up and restore outputs with it).
void CopyDeviceToDevice(void* destination, const void* source, std::size_t bytes);

// Device memory held by DeviceBuffers (every device field's storage) now, and the most held at once
// since the program started: the fields' footprint of a run (the runtime's own memory is not included).
std::size_t DeviceBufferBytes();
std::size_t DeviceBufferPeakBytes();
// Starts a new peak window: the peak becomes what is held now (returned), so DeviceBufferPeakBytes() afterwards
// is the most held at once since this call (the footprint of one phase of a program, e.g. one solver's run).
std::size_t ResetDeviceBufferPeak();

// Waits for all queued device work; throws CudaError for a fault that happened in it.
void SynchronizeDevice();

}  // namespace lqcd::gpu
