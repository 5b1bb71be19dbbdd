// halo_packing.cu: the face packing kernels of halo_packing.h. One thread per face site; a fixed block of
// 128 threads (faces are small next to the Dslash; their time is measured with it).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.h"
#include "gpu/halo.cuh"
#include "gpu/halo_packing.h"
#include "gpu/wilson_dslash_kernel.cuh"  // ProjectSpatial

namespace lqcd::gpu {
namespace {

constexpr int kPackBlock = 128;

template <Precision P>
using Accessor = SpinorAccessor<P>;

template <Precision P>
int SpinorGhostRealsOf(int mu) {
  return mu < 3 && !kSpatialGhostProjected<P> ? 24 : 12;
}

// One face site into the ghost format of the hop that reads it (halo.cuh's table).
template <Precision P, int mu, int kSentToward, bool kDagger>
__global__ void PackSpinorFaceKernel(const PackFaceArg<P> arg) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= arg.sites) return;
  const int cb = arg.face_sites[i];
  constexpr int kWords = Accessor<P>::kWords;
  if constexpr (mu == 3) {
    constexpr int kFirstSpin = kGhostFirstSpin<kDagger, kSentToward>;
    CopySpinorWords<kFirstSpin * 6 / Accessor<P>::kRealsPerWord, kWords / 2>(arg.in, cb, arg.face, i);
  } else if constexpr (kSpatialGhostProjected<P>) {
    constexpr int kSign = kGhostProjectionSign<kDagger, kSentToward>;
    StoreHalfSpinor(arg.face, i, ProjectSpatial<mu, kSign>(arg.in.Load(cb)));
  } else {
    CopySpinorWords<0, kWords>(arg.in, cb, arg.face, i);
  }
}

template <Precision P, int mu, int kSentToward, bool kDagger>
void LaunchPackVariant(const PackSpinorFaceLaunch& l) {
  PackFaceArg<P> arg;
  arg.in = SpinorAccessorOf<P>(l.in);
  arg.face.data = static_cast<typename Accessor<P>::Word*>(l.face);
  arg.face.stride = l.sites;
  const int words = SpinorGhostRealsOf<P>(mu) / Accessor<P>::kRealsPerWord;
  if constexpr (SpinorStorage<P>::kHasNorm) {
    arg.face.norm = reinterpret_cast<float*>(arg.face.data + static_cast<std::size_t>(words) * l.sites);
  }
  arg.face_sites = l.face_sites;
  arg.sites = l.sites;
  const int blocks = (l.sites + kPackBlock - 1) / kPackBlock;
  PackSpinorFaceKernel<P, mu, kSentToward, kDagger>
      <<<blocks, kPackBlock, 0, static_cast<cudaStream_t>(l.stream)>>>(arg);
  CheckCuda(cudaGetLastError(), "launch of PackSpinorFaceKernel", __FILE__, __LINE__);
}

template <Precision P>
void LaunchPackFor(const PackSpinorFaceLaunch& l) {
  auto with_mu = [&](auto mu) {
    constexpr int kMu = decltype(mu)::value;
    if (l.sent_toward == kBackwardSide) {
      l.dagger ? LaunchPackVariant<P, kMu, kBackwardSide, true>(l) : LaunchPackVariant<P, kMu, kBackwardSide, false>(l);
    } else {
      l.dagger ? LaunchPackVariant<P, kMu, kForwardSide, true>(l) : LaunchPackVariant<P, kMu, kForwardSide, false>(l);
    }
  };
  switch (l.mu) {
    case 0: return with_mu(std::integral_constant<int, 0>{});
    case 1: return with_mu(std::integral_constant<int, 1>{});
    case 2: return with_mu(std::integral_constant<int, 2>{});
    case 3: return with_mu(std::integral_constant<int, 3>{});
  }
  throw std::invalid_argument("LaunchPackSpinorFace: direction " + std::to_string(l.mu));
}

// The links U_mu of forward-face site face_sites[p][i] -> link ghost (0, p, i).
template <Precision P, Reconstruct R>
__global__ void PackLinkFaceKernel(GaugeAccessor<P, R> gauge, GaugeAccessor<P, R, 1> ghost, const int* even_sites,
                                   const int* odd_sites, int sites, int mu) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  if (thread >= 2 * sites) return;
  const int parity = thread >= sites ? 1 : 0;
  const int i = thread - parity * sites;
  const int cb = (parity == 0 ? even_sites : odd_sites)[i];
  ghost.CopyStored(gauge, mu, parity, cb, 0, parity, i);
}

template <Precision P, Reconstruct R>
void LaunchLinkPack(const PackLinkFaceLaunch& l) {
  GaugeAccessor<P, R> gauge;
  gauge.data = static_cast<typename GaugeAccessor<P, R>::Word*>(l.gauge.data);
  gauge.stride = l.gauge.stride;
  GaugeAccessor<P, R, 1> ghost;
  ghost.data = static_cast<typename GaugeAccessor<P, R, 1>::Word*>(l.ghost);
  ghost.stride = l.sites;
  const int blocks = (2 * l.sites + kPackBlock - 1) / kPackBlock;
  PackLinkFaceKernel<P, R><<<blocks, kPackBlock, 0, static_cast<cudaStream_t>(l.stream)>>>(
      gauge, ghost, l.face_sites[0], l.face_sites[1], l.sites, l.mu);
  CheckCuda(cudaGetLastError(), "launch of PackLinkFaceKernel", __FILE__, __LINE__);
}

template <Precision P>
void LaunchLinkPackFor(const PackLinkFaceLaunch& l) {
  switch (l.gauge.reconstruct) {
    case Reconstruct::k18: return LaunchLinkPack<P, Reconstruct::k18>(l);
    case Reconstruct::k12: return LaunchLinkPack<P, Reconstruct::k12>(l);
    case Reconstruct::k8: return LaunchLinkPack<P, Reconstruct::k8>(l);
  }
}

}  // namespace

int SpinorGhostReals(Precision precision, int mu) {
  switch (precision) {
    case Precision::kDouble: return SpinorGhostRealsOf<Precision::kDouble>(mu);
    case Precision::kSingle: return SpinorGhostRealsOf<Precision::kSingle>(mu);
    case Precision::kHalf: return SpinorGhostRealsOf<Precision::kHalf>(mu);
  }
  return 0;
}

std::size_t SpinorGhostBytes(Precision precision, int mu, int sites) {
  const std::size_t norm = precision == Precision::kHalf ? sizeof(float) : 0;
  return static_cast<std::size_t>(sites) * (SpinorGhostReals(precision, mu) * BytesPerReal(precision) + norm);
}

std::size_t LinkGhostBytes(Precision precision, Reconstruct reconstruct, int sites) {
  return 2 * static_cast<std::size_t>(sites) * RealsPerLink(reconstruct) * BytesPerReal(precision);
}

void LaunchPackSpinorFace(const PackSpinorFaceLaunch& l) {
  if (l.sites == 0) return;
  switch (l.in.precision) {
    case Precision::kDouble: return LaunchPackFor<Precision::kDouble>(l);
    case Precision::kSingle: return LaunchPackFor<Precision::kSingle>(l);
    case Precision::kHalf: return LaunchPackFor<Precision::kHalf>(l);
  }
}

void LaunchPackLinkFace(const PackLinkFaceLaunch& l) {
  if (l.sites == 0) return;
  switch (l.gauge.precision) {
    case Precision::kDouble: return LaunchLinkPackFor<Precision::kDouble>(l);
    case Precision::kSingle: return LaunchLinkPackFor<Precision::kSingle>(l);
    case Precision::kHalf: return LaunchLinkPackFor<Precision::kHalf>(l);
  }
}

}  // namespace lqcd::gpu
