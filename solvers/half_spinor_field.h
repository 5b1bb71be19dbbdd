// half_spinor_field.h: CPU emulation of the paper's 16-bit spinor format (section 4.6).
//
// Storage per site: 24 signed 16-bit integers q_k (the 12 complex components, real and imaginary parts,
// index 2 * (3 * spin + colour) + {0: re, 1: im}) and one float norm n = max_k |x_k| (the largest
// absolute real component of the site, computed in float).
// Quantisation (Store), for the float values x_k of one site:
//     n   = max_k |x_k|
//     q_k = round_to_nearest_even( (x_k / n) * 32767 )      in float arithmetic, |q_k| <= 32767
//     n = 0 stores q_k = 0; a NaN or Inf anywhere in the site stores n = NaN (so NaN survives a store).
// Dequantisation (Load):  x_k = (float(q_k) / 32767) * n   in float arithmetic.
// So a stored value differs from the float it came from by at most n / (2 * 32767) (plus float rounding),
// i.e. relative to the site's largest component the format resolves ~2^-16.
// The emulation is applied on EVERY store: every vector operation and operator application that writes
// a HalfSpinorField quantises its (float) result, as the GPU kernels do.
// Aliasing: Load and Store act on one site and may be mixed freely.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "reference/types.h"

namespace lqcd::solvers {

inline constexpr float kHalfScale = 32767.0f;

class HalfSpinorField {
 public:
  explicit HalfSpinorField(const Lattice& lattice, Subset subset = Subset::kFull)
      : lattice_(lattice),
        subset_(subset),
        values_(24 * static_cast<std::size_t>(subset == Subset::kFull ? lattice.volume() : lattice.half_volume()), 0),
        norms_(subset == Subset::kFull ? lattice.volume() : lattice.half_volume(), 0.0f) {}

  const Lattice& lattice() const { return lattice_; }
  Subset subset() const { return subset_; }
  int sites() const { return static_cast<int>(norms_.size()); }
  std::int64_t size() const { return 12 * static_cast<std::int64_t>(norms_.size()); }
  // Bytes of storage: 24 x 2 bytes + one 4-byte norm per site (the paper's half spinor).
  std::int64_t bytes() const { return static_cast<std::int64_t>(norms_.size()) * (24 * 2 + 4); }
  float norm(int site) const { return norms_[site]; }
  std::int16_t quantised(int site, int k) const { return values_[24 * static_cast<std::size_t>(site) + k]; }

  SiteSpinor<float> Load(int i) const {
    SiteSpinor<float> s;
    const float n = norms_[i];
    const std::int16_t* q = &values_[24 * static_cast<std::size_t>(i)];
    for (int spin = 0; spin < 4; ++spin) {
      for (int c = 0; c < 3; ++c) {
        const int k = 2 * (3 * spin + c);
        s(spin, c) = Complex<float>(static_cast<float>(q[k]) / kHalfScale * n,
                                    static_cast<float>(q[k + 1]) / kHalfScale * n);
      }
    }
    return s;
  }

  void Store(int i, const SiteSpinor<float>& s) {
    float n = 0;
    bool finite = true;
    for (int spin = 0; spin < 4; ++spin) {
      for (int c = 0; c < 3; ++c) {
        const float re = s(spin, c).real(), im = s(spin, c).imag();
        finite = finite && std::isfinite(re) && std::isfinite(im);
        n = std::max(n, std::max(std::fabs(re), std::fabs(im)));
      }
    }
    std::int16_t* q = &values_[24 * static_cast<std::size_t>(i)];
    if (!finite || n == 0) {
      norms_[i] = finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
      for (int k = 0; k < 24; ++k) q[k] = 0;
      return;
    }
    norms_[i] = n;
    for (int spin = 0; spin < 4; ++spin) {
      for (int c = 0; c < 3; ++c) {
        const int k = 2 * (3 * spin + c);
        // std::nearbyint rounds to nearest, ties to even, in the default rounding mode (as the GPU's
        // __float2int_rn); |x / n| <= 1 so the result fits in 16 bits.
        q[k] = static_cast<std::int16_t>(std::nearbyint(s(spin, c).real() / n * kHalfScale));
        q[k + 1] = static_cast<std::int16_t>(std::nearbyint(s(spin, c).imag() / n * kHalfScale));
      }
    }
  }

  // Lexicographic site index of local index i (as SpinorField::SiteIndex).
  int SiteIndex(int i) const {
    if (subset_ == Subset::kFull) return i;
    return lattice_.FullIndex(subset_ == Subset::kEven ? Parity::kEven : Parity::kOdd, i);
  }

 private:
  Lattice lattice_;
  Subset subset_;
  std::vector<std::int16_t> values_;
  std::vector<float> norms_;
};

}  // namespace lqcd::solvers
