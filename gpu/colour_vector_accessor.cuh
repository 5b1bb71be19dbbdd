// colour_vector_accessor.cuh: where the reals of a single-parity colour-vector field live on the device
// (staggered_dslash_launch.h: colour c of checkerboard site cb at word c * stride + cb, one complex number per
// word) and how they become a ColourVector in registers and back. Host functions too: the host checks of the
// staggered kernels run their per-site code on host memory.
//
// Device-side header (included by .cu files only).
#pragma once

#include <cuda_runtime.h>

#include "gpu/precision.h"
#include "gpu/register_types.cuh"

namespace lqcd::gpu {

template <Precision P>
struct ColourStorage;
template <>
struct ColourStorage<Precision::kDouble> {
  using Word = double2;
  using Real = double;
};
template <>
struct ColourStorage<Precision::kSingle> {
  using Word = float2;
  using Real = float;
};

template <typename Real>
struct ColourVector {
  DeviceComplex<Real> c[3];
};

// The storage of staggered_dslash_launch.h: colour c of site cb at data[c * stride + cb].
template <Precision P>
struct ColourVectorAccessor {
  using Word = typename ColourStorage<P>::Word;
  using Real = typename ColourStorage<P>::Real;
  Word* data = nullptr;
  int stride = 0;

  __host__ __device__ __forceinline__ ColourVector<Real> Load(int cb) const {
    ColourVector<Real> v;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const Word w = LoadReadOnly(data + c * stride + cb);
      v.c[c] = {w.x, w.y};
    }
    return v;
  }
  __host__ __device__ __forceinline__ void Store(int cb, const ColourVector<Real>& v) const {
#pragma unroll
    for (int c = 0; c < 3; ++c) data[c * stride + cb] = Word{v.c[c].re, v.c[c].im};
  }
  // One complex component (the vector operations run over components, not sites; a plain load, since they
  // also read fields they write).
  __host__ __device__ __forceinline__ DeviceComplex<Real> LoadComponent(int c, int cb) const {
    const Word w = data[c * stride + cb];
    return {w.x, w.y};
  }
  __host__ __device__ __forceinline__ void StoreComponent(int c, int cb, DeviceComplex<Real> z) const {
    data[c * stride + cb] = Word{z.re, z.im};
  }
};

}  // namespace lqcd::gpu
