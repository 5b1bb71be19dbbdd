// philox_stream.cuh: reference/random.h's RandomStream (Philox4x32-10, key = seed, counter = (draw, stream id))
// as __host__ __device__ code, for kernels that must draw exactly the oracle's numbers: the GPU heatbath
// (heatbath_math.cuh) and the staggered Z2 noise (staggered_blas.cu). Integer arithmetic only, and Uniform's
// conversion is exact, so the device and the host give the same bits under any compiler flags; the host build
// of this source is compared with RandomStream by heatbath_math_test and staggered_blas_host_test.
//
// Device-side header (included by .cu files only).
#pragma once

#include <cstdint>

namespace lqcd::gpu {

class PhiloxStream {
 public:
  __host__ __device__ PhiloxStream(std::uint64_t seed, std::uint64_t stream_id)
      : key0_(static_cast<std::uint32_t>(seed)),
        key1_(static_cast<std::uint32_t>(seed >> 32)),
        stream_lo_(static_cast<std::uint32_t>(stream_id)),
        stream_hi_(static_cast<std::uint32_t>(stream_id >> 32)) {}

  __host__ __device__ std::uint32_t NextWord() {
    if (used_ == 4) {
      Philox(static_cast<std::uint32_t>(draw_), static_cast<std::uint32_t>(draw_ >> 32));
      ++draw_;
      used_ = 0;
    }
    return block_[used_++];
  }
  __host__ __device__ double Uniform() {
    const std::uint64_t a = NextWord() >> 5;
    const std::uint64_t b = NextWord() >> 6;
    return static_cast<double>((a << 26) | b) * 0x1.0p-53;
  }
  __host__ __device__ double UniformOpenAtZero() { return 1.0 - Uniform(); }

 private:
  __host__ __device__ void Philox(std::uint32_t c0, std::uint32_t c1) {
    std::uint32_t c[4] = {c0, c1, stream_lo_, stream_hi_};
    std::uint32_t k0 = key0_, k1 = key1_;
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t product0 = std::uint64_t{0xD2511F53u} * c[0];
      const std::uint64_t product1 = std::uint64_t{0xCD9E8D57u} * c[2];
      const std::uint32_t hi0 = static_cast<std::uint32_t>(product0 >> 32), lo0 = static_cast<std::uint32_t>(product0);
      const std::uint32_t hi1 = static_cast<std::uint32_t>(product1 >> 32), lo1 = static_cast<std::uint32_t>(product1);
      const std::uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
      c[0] = n0;
      c[1] = lo1;
      c[2] = n2;
      c[3] = lo0;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) block_[i] = c[i];
  }
  std::uint32_t key0_, key1_, stream_lo_, stream_hi_;
  std::uint64_t draw_ = 0;
  std::uint32_t block_[4] = {0, 0, 0, 0};
  int used_ = 4;
};

}  // namespace lqcd::gpu
