// random.h: reproducible random numbers from a counter-based generator, Philox4x32-10
// (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11).
//
// Philox maps (counter, key) -> 4 pseudo-random 32-bit words with 10 rounds of multiply/xor-key mixing.
// A stream is identified by (seed, stream id): key = seed, counter = (draw, stream id). The same
// (seed, stream id) gives the same numbers on any machine, in any order of evaluation and under any
// threading. Fields use the site index (and direction) as the stream id, so a field depends only on
// the seed and never on how the loop over sites is scheduled.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace lqcd {

// One Philox4x32-10 block: the bijection of the counter under the key.
inline std::array<std::uint32_t, 4> Philox4x32(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // golden ratio, sqrt(3) - 1
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t product0 = std::uint64_t{kMultiplier0} * counter[0];
    const std::uint64_t product1 = std::uint64_t{kMultiplier1} * counter[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(product0 >> 32), lo0 = static_cast<std::uint32_t>(product0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(product1 >> 32), lo1 = static_cast<std::uint32_t>(product1);
    counter = {hi1 ^ counter[1] ^ key[0], lo1, hi0 ^ counter[3] ^ key[1], lo0};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return counter;
}

// A stream of uniform and Gaussian numbers for one (seed, stream id).
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t stream_id)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        stream_lo_(static_cast<std::uint32_t>(stream_id)),
        stream_hi_(static_cast<std::uint32_t>(stream_id >> 32)) {}

  std::uint32_t NextWord() {
    if (used_ == 4) {
      block_ = Philox4x32({static_cast<std::uint32_t>(draw_), static_cast<std::uint32_t>(draw_ >> 32), stream_lo_,
                           stream_hi_},
                          key_);
      ++draw_;
      used_ = 0;
    }
    return block_[used_++];
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() {
    const std::uint64_t a = NextWord() >> 5, b = NextWord() >> 6;  // 27 + 26 bits
    return static_cast<double>((a << 26) | b) * 0x1.0p-53;
  }

  // Standard normal (Box-Muller; 1 - u lies in (0, 1], so the logarithm is finite).
  double Gaussian() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform()));
    const double angle = 2.0 * M_PI * Uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  std::array<std::uint32_t, 2> key_;
  std::uint32_t stream_lo_, stream_hi_;
  std::uint64_t draw_ = 0;
  std::array<std::uint32_t, 4> block_{};
  int used_ = 4;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace lqcd
