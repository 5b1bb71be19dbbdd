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

// The host sites a transfer kernel covers and where each lies on the device (field_packing.h,
// PackSpinorsFromSites): the whole lattice in lexicographic order, each site going to its parity's view at
// checkerboard index i / 2 (reference/lattice.h), or one parity's sites in checkerboard order.
struct HostSites {
  int extents[4];
  bool full_lattice;
  int parity;  // of every site when !full_lattice
  bool change_basis;
  double r;
  // The parity of host site i; its checkerboard index is i / 2 (whole lattice) or i.
  __device__ __forceinline__ int ParityOf(int i) const {
    if (!full_lattice) return parity;
    int rest = i / extents[0];
    const int x = i - rest * extents[0];
    const int y = rest % extents[1];
    rest /= extents[1];
    const int z = rest % extents[2];
    const int t = rest / extents[2];
    return (x + y + z + t) & 1;
  }
  __device__ __forceinline__ int CheckerboardOf(int i) const { return full_lattice ? i >> 1 : i; }
};

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

// The bus carries host memory well only in long runs of consecutive addresses; one thread per site reading its
// own 192 bytes would make every load of a warp touch 32 addresses 192 bytes apart, which the bus serves as
// many short requests (in a first version the transfers took as long as the staged ones). So a block moves a
// run of kSitesPerTile consecutive host sites between host memory and shared memory with consecutive threads on
// consecutive doubles, and each thread converts one site between shared memory and the device layout.
// A site's 24 doubles sit kTileStride doubles apart in the tile; the stride is odd so that the threads of a
// warp reading element k of consecutive sites hit different banks.
constexpr int kSitesPerTile = 128;
constexpr int kTileStride = 25;

template <Precision P>
__global__ void __launch_bounds__(kSitesPerTile)
    PackSpinorFromSitesKernel(SpinorAccessor<P> even, SpinorAccessor<P> odd, const double* __restrict__ sites,
                              HostSites map, int count) {
  __shared__ double tile[kSitesPerTile * kTileStride];
  const int first = blockIdx.x * kSitesPerTile;
  const int in_tile = min(kSitesPerTile, count - first);
  const double* run = sites + 24 * static_cast<std::size_t>(first);
  for (int k = threadIdx.x; k < 24 * in_tile; k += kSitesPerTile) tile[(k / 24) * kTileStride + k % 24] = run[k];
  __syncthreads();
  if (static_cast<int>(threadIdx.x) >= in_tile) return;
  const double* site = tile + threadIdx.x * kTileStride;
  ColorSpinor<double> psi;
  for (int s = 0; s < 4; ++s) {
    for (int c = 0; c < 3; ++c) psi.v[s][c] = {site[2 * (s + 4 * c)], site[2 * (s + 4 * c) + 1]};
  }
  if (map.change_basis) ChangeBasis(psi, map.r);
  const int i = first + threadIdx.x;
  (map.ParityOf(i) == 0 ? even : odd).Store(map.CheckerboardOf(i), psi);
}

template <Precision P>
__global__ void __launch_bounds__(kSitesPerTile)
    UnpackSpinorToSitesKernel(SpinorAccessor<P> even, SpinorAccessor<P> odd, double* __restrict__ sites,
                              HostSites map, int count) {
  __shared__ double tile[kSitesPerTile * kTileStride];
  const int first = blockIdx.x * kSitesPerTile;
  const int in_tile = min(kSitesPerTile, count - first);
  if (static_cast<int>(threadIdx.x) < in_tile) {
    const int i = first + threadIdx.x;
    const auto loaded = (map.ParityOf(i) == 0 ? even : odd).Load(map.CheckerboardOf(i));
    ColorSpinor<double> psi;
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        psi.v[s][c] = {static_cast<double>(loaded.v[s][c].re), static_cast<double>(loaded.v[s][c].im)};
      }
    }
    if (map.change_basis) ChangeBasis(psi, map.r);
    double* site = tile + threadIdx.x * kTileStride;
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        site[2 * (s + 4 * c)] = psi.v[s][c].re;
        site[2 * (s + 4 * c) + 1] = psi.v[s][c].im;
      }
    }
  }
  __syncthreads();
  double* run = sites + 24 * static_cast<std::size_t>(first);
  for (int k = threadIdx.x; k < 24 * in_tile; k += kSitesPerTile) run[k] = tile[(k / 24) * kTileStride + k % 24];
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

namespace {
// The host-site map and the site count of a transfer straight from or to host sites: a whole-lattice field
// (both parities given) or one parity's (the same view twice).
HostSites MapOf(const ConstSpinorView& even, const ConstSpinorView& odd, bool change_basis, double r, int* count) {
  const bool full_lattice = even.data != odd.data;
  if (full_lattice && (even.parity != 0 || odd.parity != 1 || even.precision != odd.precision)) {
    throw std::invalid_argument("field_packing: a whole-lattice transfer needs the even and the odd view of one field");
  }
  *count = full_lattice ? 2 * even.sites : even.sites;
  return {{even.extents[0], even.extents[1], even.extents[2], even.extents[3]}, full_lattice, even.parity,
          change_basis, r};
}

int Tiles(int count) { return (count + kSitesPerTile - 1) / kSitesPerTile; }
}  // namespace

void PackSpinorsFromSites(const SpinorView& even, const SpinorView& odd, const double* sites, bool change_basis,
                          double r) {
  RequireData(even.data, "PackSpinorsFromSites");
  RequireData(odd.data, "PackSpinorsFromSites");
  int count = 0;
  const HostSites map = MapOf(even, odd, change_basis, r, &count);
  switch (even.precision) {
    case Precision::kDouble:
      PackSpinorFromSitesKernel<Precision::kDouble><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kDouble>(even.data, even.norm, even.stride),
          MakeSpinorAccessor<Precision::kDouble>(odd.data, odd.norm, odd.stride), sites, map, count);
      break;
    case Precision::kSingle:
      PackSpinorFromSitesKernel<Precision::kSingle><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kSingle>(even.data, even.norm, even.stride),
          MakeSpinorAccessor<Precision::kSingle>(odd.data, odd.norm, odd.stride), sites, map, count);
      break;
    case Precision::kHalf:
      PackSpinorFromSitesKernel<Precision::kHalf><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kHalf>(even.data, even.norm, even.stride),
          MakeSpinorAccessor<Precision::kHalf>(odd.data, odd.norm, odd.stride), sites, map, count);
      break;
  }
  LQCD_CUDA_CHECK_LAUNCH();
  SynchronizeDevice();  // the host may change its field once this returns
}

void UnpackSpinorsToSites(const ConstSpinorView& even, const ConstSpinorView& odd, double* sites, bool change_basis,
                          double r) {
  RequireData(even.data, "UnpackSpinorsToSites");
  RequireData(odd.data, "UnpackSpinorsToSites");
  int count = 0;
  const HostSites map = MapOf(even, odd, change_basis, r, &count);
  // The accessors only read here; they hold non-const pointers because kernels write through them too.
  void* even_data = const_cast<void*>(even.data);
  void* odd_data = const_cast<void*>(odd.data);
  float* even_norm = const_cast<float*>(even.norm);
  float* odd_norm = const_cast<float*>(odd.norm);
  switch (even.precision) {
    case Precision::kDouble:
      UnpackSpinorToSitesKernel<Precision::kDouble><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kDouble>(even_data, even_norm, even.stride),
          MakeSpinorAccessor<Precision::kDouble>(odd_data, odd_norm, odd.stride), sites, map, count);
      break;
    case Precision::kSingle:
      UnpackSpinorToSitesKernel<Precision::kSingle><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kSingle>(even_data, even_norm, even.stride),
          MakeSpinorAccessor<Precision::kSingle>(odd_data, odd_norm, odd.stride), sites, map, count);
      break;
    case Precision::kHalf:
      UnpackSpinorToSitesKernel<Precision::kHalf><<<Tiles(count), kSitesPerTile>>>(
          MakeSpinorAccessor<Precision::kHalf>(even_data, even_norm, even.stride),
          MakeSpinorAccessor<Precision::kHalf>(odd_data, odd_norm, odd.stride), sites, map, count);
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
