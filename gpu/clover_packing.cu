// clover_packing.cu: host array <-> device clover storage (see clover_packing.h), through the kernels' own
// accessor: the host array goes to a device staging buffer of doubles, and one thread per site converts it with
// CloverAccessor::Store (or back with LoadBlock). One-off transfers, off every solver's critical path: a fixed
// block of 256 threads, no tuning.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "gpu/clover_accessor.cuh"
#include "gpu/clover_packing.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

namespace lqcd::gpu {
namespace {

constexpr int kTransferBlock = 256;

int Blocks(int sites) { return (sites + kTransferBlock - 1) / kTransferBlock; }

template <Precision P>
__global__ void PackCloverKernel(CloverAccessor<P> out, const double* __restrict__ in, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  for (int chirality = 0; chirality < 2; ++chirality) {
    out.Store(cb, chirality, in + kCloverRealsPerSite * cb + kCloverRealsPerBlock * chirality);
  }
}

template <Precision P>
__global__ void UnpackCloverKernel(CloverAccessor<P> in, double* __restrict__ out, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  for (int chirality = 0; chirality < 2; ++chirality) {
    in.LoadBlock(cb, chirality, out + kCloverRealsPerSite * cb + kCloverRealsPerBlock * chirality);
  }
}

template <Precision P>
void Transfer(const CloverView& v, double* staging, bool pack) {
  if (pack) {
    PackCloverKernel<P><<<Blocks(v.sites), kTransferBlock>>>(CloverAccessorOf<P>(v), staging, v.sites);
  } else {
    UnpackCloverKernel<P><<<Blocks(v.sites), kTransferBlock>>>(CloverAccessorOf<P>(v), staging, v.sites);
  }
  LQCD_CUDA_CHECK_LAUNCH();
}

void TransferAny(const CloverView& v, double* staging, bool pack) {
  if (v.data == nullptr || (v.precision == Precision::kHalf && v.norm == nullptr)) {
    throw std::invalid_argument(std::string(pack ? "PackClover" : "UnpackClover") +
                                ": the device clover field has no memory");
  }
  switch (v.precision) {
    case Precision::kDouble: return Transfer<Precision::kDouble>(v, staging, pack);
    case Precision::kSingle: return Transfer<Precision::kSingle>(v, staging, pack);
    case Precision::kHalf: return Transfer<Precision::kHalf>(v, staging, pack);
  }
  throw std::invalid_argument("clover transfer: unknown precision");
}

std::size_t CanonicalBytes(const CloverView& v) {
  return sizeof(double) * kCloverRealsPerSite * static_cast<std::size_t>(v.sites);
}

}  // namespace

void PackClover(const CloverView& destination, const double* canonical) {
  DeviceBuffer staging(CanonicalBytes(destination));
  staging.CopyFromHost(canonical, staging.bytes());
  TransferAny(destination, static_cast<double*>(staging.data()), /*pack=*/true);
  SynchronizeDevice();  // the staging buffer is freed on return
}

void UnpackClover(const CloverView& source, double* canonical) {
  DeviceBuffer staging(CanonicalBytes(source));
  TransferAny(source, static_cast<double*>(staging.data()), /*pack=*/false);
  staging.CopyToHost(canonical, staging.bytes());  // cudaMemcpy waits for the kernel and reports its faults
}

}  // namespace lqcd::gpu
