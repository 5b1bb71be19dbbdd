// field_packing.cu: host array <-> device storage, through the kernels' own accessors (see field_packing.h).
//
// The host array goes to a device staging buffer of doubles; one thread per site then converts it with
// SpinorAccessor::Store / GaugeAccessor::Store (or back with Load). These one-off transfer kernels use a
// fixed block of 256 threads: they are not on any solver's critical path, so they are not tuned.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "gpu/checkerboard.cuh"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/field_packing.h"
#include "gpu/gauge_accessor.cuh"
#include "gpu/spinor_accessor.cuh"

namespace lqcd::gpu {
namespace {

constexpr int kTransferBlock = 256;

int Blocks(int sites) { return (sites + kTransferBlock - 1) / kTransferBlock; }

template <Precision P>
__global__ void PackSpinorKernel(SpinorAccessor<P> out, const double* __restrict__ in, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  const double* site = in + 24 * static_cast<std::size_t>(cb);
  ColorSpinor<double> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi.v[s][c] = {site[2 * (3 * s + c)], site[2 * (3 * s + c) + 1]};
  }
  out.Store(cb, psi);
}

// Where checkerboard site cb of one parity lies in the host field (field_packing.h, PackSpinorsFromSites).
struct HostSites {
  int extents[4];
  int parity;
  bool full_lattice;
  bool change_basis;
  double r;
  __device__ __forceinline__ std::size_t Of(int cb) const {
    return full_lattice ? static_cast<std::size_t>(CheckerboardSite(cb, parity, extents).full_index)
                        : static_cast<std::size_t>(cb);
  }
};

HostSites MakeHostSites(const Extents& e, int parity, bool full_lattice, bool change_basis, double r) {
  return {{e[0], e[1], e[2], e[3]}, parity, full_lattice, change_basis, r};
}

// psi -> (u + l) r, (u - l) r in 2 x 2 spin blocks, each operation rounded on its own as on the host.
__device__ __forceinline__ void ChangeBasis(ColorSpinor<double>& psi, double r) {
  for (int s = 0; s < 2; ++s) {
    for (int c = 0; c < 3; ++c) {
      const auto u = psi.v[s][c], l = psi.v[s + 2][c];
      psi.v[s][c] = {__dmul_rn(__dadd_rn(u.re, l.re), r), __dmul_rn(__dadd_rn(u.im, l.im), r)};
      psi.v[s + 2][c] = {__dmul_rn(__dsub_rn(u.re, l.re), r), __dmul_rn(__dsub_rn(u.im, l.im), r)};
    }
  }
}

template <Precision P>
__global__ void PackSpinorFromSitesKernel(SpinorAccessor<P> out, const double* __restrict__ sites, HostSites map,
                                          int count) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= count) return;
  const double* site = sites + 24 * map.Of(cb);
  ColorSpinor<double> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi.v[s][c] = {site[2 * (s + 4 * c)], site[2 * (s + 4 * c) + 1]};
  }
  if (map.change_basis) ChangeBasis(psi, map.r);
  out.Store(cb, psi);
}

template <Precision P>
__global__ void UnpackSpinorToSitesKernel(SpinorAccessor<P> in, double* __restrict__ sites, HostSites map,
                                          int count) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= count) return;
  const auto loaded = in.Load(cb);
  ColorSpinor<double> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi.v[s][c] = {static_cast<double>(loaded.v[s][c].re), static_cast<double>(loaded.v[s][c].im)};
  }
  if (map.change_basis) ChangeBasis(psi, map.r);
  double* site = sites + 24 * map.Of(cb);
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) {
      site[2 * (s + 4 * c)] = psi.v[s][c].re;
      site[2 * (s + 4 * c) + 1] = psi.v[s][c].im;
    }
  }
}

template <Precision P>
__global__ void UnpackSpinorKernel(SpinorAccessor<P> in, double* __restrict__ out, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  const auto psi = in.Load(cb);
  double* site = out + 24 * static_cast<std::size_t>(cb);
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) {
      site[2 * (3 * s + c)] = psi.v[s][c].re;
      site[2 * (3 * s + c) + 1] = psi.v[s][c].im;
    }
  }
}

template <Precision P>
SpinorAccessor<P> MakeSpinorAccessor(void* data, float* norm, int stride) {
  SpinorAccessor<P> a;
  a.data = static_cast<typename SpinorAccessor<P>::Word*>(data);
  a.norm = norm;
  a.stride = stride;
  return a;
}

template <Precision P>
void PackSpinorsIn(const SpinorView& v, const double* staging) {
  PackSpinorKernel<P><<<Blocks(v.sites), kTransferBlock>>>(MakeSpinorAccessor<P>(v.data, v.norm, v.stride), staging,
                                                           v.sites);
  LQCD_CUDA_CHECK_LAUNCH();
}

template <Precision P>
void UnpackSpinorsIn(const ConstSpinorView& v, double* staging) {
  // The accessor only reads here; it holds non-const pointers because kernels write through it too.
  UnpackSpinorKernel<P><<<Blocks(v.sites), kTransferBlock>>>(
      MakeSpinorAccessor<P>(const_cast<void*>(v.data), const_cast<float*>(v.norm), v.stride), staging, v.sites);
  LQCD_CUDA_CHECK_LAUNCH();
}

template <Precision P, Reconstruct R>
__global__ void PackGaugeKernel(GaugeAccessor<P, R> out, const double* __restrict__ in, int sites) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  for (int parity = 0; parity < 2; ++parity) {
    for (int mu = 0; mu < 4; ++mu) {
      const double* link = in + 18 * ((parity * 4 + mu) * static_cast<std::size_t>(sites) + cb);
      Link<double> u;
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) u.m[i][j] = {link[2 * (3 * i + j)], link[2 * (3 * i + j) + 1]};
      }
      out.Store(mu, parity, cb, u);
    }
  }
}

template <Precision P, Reconstruct R>
__global__ void UnpackGaugeKernel(GaugeAccessor<P, R> in, double* __restrict__ out, int sites, Extents extents,
                                  bool temporal_gauge_fixed) {
  const int cb = blockIdx.x * blockDim.x + threadIdx.x;
  if (cb >= sites) return;
  const int dims[4] = {extents[0], extents[1], extents[2], extents[3]};
  for (int parity = 0; parity < 2; ++parity) {
    const SiteGeometry site = CheckerboardSite(cb, parity, dims);
    for (int mu = 0; mu < 4; ++mu) {
      double* link = out + 18 * ((parity * 4 + mu) * static_cast<std::size_t>(sites) + cb);
      if (temporal_gauge_fixed && mu == 3 && site.coords[3] < dims[3] - 1) {
        for (int k = 0; k < 18; ++k) link[k] = (k == 0 || k == 8 || k == 16) ? 1.0 : 0.0;
        continue;
      }
      const auto u = in.Load(mu, parity, cb);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          link[2 * (3 * i + j)] = u.m[i][j].re;
          link[2 * (3 * i + j) + 1] = u.m[i][j].im;
        }
      }
    }
  }
}

template <Precision P, Reconstruct R>
GaugeAccessor<P, R> MakeGaugeAccessor(const GaugeView& v) {
  GaugeAccessor<P, R> a;
  a.data = static_cast<typename GaugeAccessor<P, R>::Word*>(v.data);
  a.stride = v.stride;
  return a;
}

template <Precision P, Reconstruct R>
void GaugeTransfer(const GaugeView& v, double* staging, bool pack) {
  const int sites = HalfVolume(v.extents);
  if (pack) {
    PackGaugeKernel<P, R>
        <<<Blocks(sites), kTransferBlock>>>(MakeGaugeAccessor<P, R>(v), staging, sites);
  } else {
    UnpackGaugeKernel<P, R><<<Blocks(sites), kTransferBlock>>>(
        MakeGaugeAccessor<P, R>(v), staging, sites, v.extents, v.temporal_gauge_fixed);
  }
  LQCD_CUDA_CHECK_LAUNCH();
}

template <Precision P>
void GaugeTransferForPrecision(const GaugeView& v, double* staging, bool pack) {
  switch (v.reconstruct) {
    case Reconstruct::k18: return GaugeTransfer<P, Reconstruct::k18>(v, staging, pack);
    case Reconstruct::k12: return GaugeTransfer<P, Reconstruct::k12>(v, staging, pack);
    case Reconstruct::k8: return GaugeTransfer<P, Reconstruct::k8>(v, staging, pack);
  }
  throw std::invalid_argument("gauge transfer: unknown reconstruction");
}

void GaugeTransferAny(const GaugeView& v, double* staging, bool pack) {
  switch (v.precision) {
    case Precision::kDouble: return GaugeTransferForPrecision<Precision::kDouble>(v, staging, pack);
    case Precision::kSingle: return GaugeTransferForPrecision<Precision::kSingle>(v, staging, pack);
    case Precision::kHalf: return GaugeTransferForPrecision<Precision::kHalf>(v, staging, pack);
  }
  throw std::invalid_argument("gauge transfer: unknown precision");
}

void RequireData(const void* data, const char* where) {
  if (data == nullptr) throw std::invalid_argument(std::string(where) + ": the device field has no memory");
}

}  // namespace

void PackSpinors(const SpinorView& destination, const double* canonical) {
  RequireData(destination.data, "PackSpinors");
  const std::size_t bytes = sizeof(double) * 24 * static_cast<std::size_t>(destination.sites);
  DeviceBuffer staging(bytes);
  staging.CopyFromHost(canonical, bytes);
  auto* doubles = static_cast<const double*>(staging.data());
  switch (destination.precision) {
    case Precision::kDouble: PackSpinorsIn<Precision::kDouble>(destination, doubles); break;
    case Precision::kSingle: PackSpinorsIn<Precision::kSingle>(destination, doubles); break;
    case Precision::kHalf: PackSpinorsIn<Precision::kHalf>(destination, doubles); break;
  }
  SynchronizeDevice();  // the staging buffer is freed on return
}

void UnpackSpinors(const ConstSpinorView& source, double* canonical) {
  RequireData(source.data, "UnpackSpinors");
  const std::size_t bytes = sizeof(double) * 24 * static_cast<std::size_t>(source.sites);
  DeviceBuffer staging(bytes);
  auto* doubles = static_cast<double*>(staging.data());
  switch (source.precision) {
    case Precision::kDouble: UnpackSpinorsIn<Precision::kDouble>(source, doubles); break;
    case Precision::kSingle: UnpackSpinorsIn<Precision::kSingle>(source, doubles); break;
    case Precision::kHalf: UnpackSpinorsIn<Precision::kHalf>(source, doubles); break;
  }
  staging.CopyToHost(canonical, bytes);  // cudaMemcpy waits for the kernel and reports its faults
}

void PackSpinorsFromSites(const SpinorView& destination, const double* sites, bool full_lattice, bool change_basis,
                          double r) {
  RequireData(destination.data, "PackSpinorsFromSites");
  const SpinorView& v = destination;
  switch (v.precision) {
    case Precision::kDouble:
      PackSpinorFromSitesKernel<Precision::kDouble><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kDouble>(v.data, v.norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
    case Precision::kSingle:
      PackSpinorFromSitesKernel<Precision::kSingle><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kSingle>(v.data, v.norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
    case Precision::kHalf:
      PackSpinorFromSitesKernel<Precision::kHalf><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kHalf>(v.data, v.norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
  }
  LQCD_CUDA_CHECK_LAUNCH();
  SynchronizeDevice();  // the host may change its field once this returns
}

void UnpackSpinorsToSites(const ConstSpinorView& source, double* sites, bool full_lattice, bool change_basis,
                          double r) {
  RequireData(source.data, "UnpackSpinorsToSites");
  const ConstSpinorView& v = source;
  // The accessor only reads here; it holds non-const pointers because kernels write through it too.
  void* data = const_cast<void*>(v.data);
  float* norm = const_cast<float*>(v.norm);
  switch (v.precision) {
    case Precision::kDouble:
      UnpackSpinorToSitesKernel<Precision::kDouble><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kDouble>(data, norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
    case Precision::kSingle:
      UnpackSpinorToSitesKernel<Precision::kSingle><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kSingle>(data, norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
    case Precision::kHalf:
      UnpackSpinorToSitesKernel<Precision::kHalf><<<Blocks(v.sites), kTransferBlock>>>(
          MakeSpinorAccessor<Precision::kHalf>(data, norm, v.stride), sites,
          MakeHostSites(v.extents, v.parity, full_lattice, change_basis, r), v.sites);
      break;
  }
  LQCD_CUDA_CHECK_LAUNCH();
  SynchronizeDevice();  // the host reads its field once this returns
}

void PackGauge(const GaugeView& destination, const double* canonical) {
  RequireData(destination.data, "PackGauge");
  const std::size_t bytes = sizeof(double) * 18 * 8 * static_cast<std::size_t>(HalfVolume(destination.extents));
  DeviceBuffer staging(bytes);
  staging.CopyFromHost(canonical, bytes);
  GaugeTransferAny(destination, static_cast<double*>(staging.data()), /*pack=*/true);
  SynchronizeDevice();
}

void UnpackGauge(const GaugeView& source, double* canonical) {
  RequireData(source.data, "UnpackGauge");
  const std::size_t bytes = sizeof(double) * 18 * 8 * static_cast<std::size_t>(HalfVolume(source.extents));
  DeviceBuffer staging(bytes);
  GaugeTransferAny(source, static_cast<double*>(staging.data()), /*pack=*/false);
  staging.CopyToHost(canonical, bytes);
}

}  // namespace lqcd::gpu
