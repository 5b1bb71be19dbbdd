// scaled_half_link_accessor.cuh: links in half precision with one scale per field (staggered_dslash_launch.h,
// ScaledHalfLinkView): fat links and HISQ long links are neither unitary nor bounded by 1, so the Wilson half
// format (gauge_accessor.cuh: full scale 1) does not fit them. A real is level * level_value in float.
// Host functions too: the host check of the staggered kernel reads links through this. Only the staggered kernel
// reads these, each link once per launch: the loads bypass L1 (register_types.cuh LoadReadOnce).
//
// Device-side header (included by .cu files only).
#pragma once

#include <cuda_runtime.h>

#include "gpu/register_types.cuh"

namespace lqcd::gpu {

struct ScaledHalfLinkAccessor {
  using Word = short2;
  using Real = float;
  static constexpr int kWords = 9;  // 18 reals, two per word, row-major (re, im)
  Word* data = nullptr;
  int stride = 0;
  float level_value = 0;  // the value of one level: the field's largest |real| / 32767

  __host__ __device__ __forceinline__ int WordIndex(int mu, int parity, int cb, int w) const {
    return ((parity * 4 + mu) * kWords + w) * stride + cb;
  }

  __host__ __device__ __forceinline__ Link<float> Load(int mu, int parity, int cb) const {
    Link<float> u;
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
      for (int j = 0; j < 3; ++j) {
        const Word w = LoadReadOnce(data + WordIndex(mu, parity, cb, 3 * i + j));
        u.m[i][j] = {static_cast<float>(w.x) * level_value, static_cast<float>(w.y) * level_value};
      }
    }
    return u;
  }
};

}  // namespace lqcd::gpu
