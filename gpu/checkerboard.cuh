// checkerboard.cuh: site geometry on the device: coordinates of a checkerboard index and the
// checkerboard indices of its neighbours, with the conventions of reference/lattice.h
// (lexicographic index i = x + Lx (y + Ly (z + Lz t)), parity (x + y + z + t) mod 2, checkerboard index i / 2).
//
// Device-side header. Lx is even (Lattice guarantees it), so i / 2 = x / 2 + (Lx / 2) (y + Ly (z + Lz t)):
// the checkerboard index gives x / 2, y, z, t directly, and the parity fixes the lowest bit of x.
#pragma once

#include <algorithm>

namespace lqcd::gpu {

struct SiteGeometry {
  int coords[4];  // x, y, z, t
  int full_index; // lexicographic
};

__host__ __device__ __forceinline__ SiteGeometry CheckerboardSite(int cb, int parity, const int (&extents)[4]) {
  SiteGeometry site;
  const int half_x = extents[0] >> 1;
  int rest = cb / half_x;
  const int x_half = cb - rest * half_x;
  const int y = rest % extents[1];
  rest /= extents[1];
  const int z = rest % extents[2];
  const int t = rest / extents[2];
  const int x = 2 * x_half + ((y + z + t + parity) & 1);
  site.coords[0] = x;
  site.coords[1] = y;
  site.coords[2] = z;
  site.coords[3] = t;
  site.full_index = x + extents[0] * (y + extents[1] * (z + extents[2] * t));
  return site;
}

// Division by a run-time constant d >= 2 as one multiply-high: with m = ceil(2^32 / d) = (2^32 + e) / d,
// 0 <= e < d, n m / 2^32 = n / d + n e / (d 2^32), and the added term is below 1/d, so the floor is n / d
// whenever n d < 2^32. The generic integer division costs about 25 instructions, three of them on the
// quarter-rate conversion unit; CheckerboardDivisors::Of checks the condition for a whole lattice.
struct FastDivisor {
  unsigned multiplier = 0;
  __host__ __device__ static FastDivisor Of(unsigned d) {
    return {static_cast<unsigned>(((1ull << 32) + d - 1) / d)};
  }
  __device__ __forceinline__ int Divide(int n) const { return static_cast<int>(__umulhi(static_cast<unsigned>(n), multiplier)); }
};

// The three divisors of CheckerboardSite (Lx / 2, Ly, Lz), or usable = false where a lattice is too large
// (checkerboard index times divisor reaching 2^32) or Lx = 2, and the plain division must be used.
struct CheckerboardDivisors {
  FastDivisor half_x, y, z;
  bool usable = false;
  static CheckerboardDivisors Of(const int (&extents)[4]) {
    CheckerboardDivisors d;
    const unsigned long long sites = 1ull * extents[0] * extents[1] * extents[2] * extents[3] / 2;
    const unsigned long long largest = std::max({extents[0] / 2, extents[1], extents[2]});
    d.usable = extents[0] / 2 >= 2 && extents[1] >= 2 && extents[2] >= 2 && sites * largest < (1ull << 32);
    if (d.usable) {
      d.half_x = FastDivisor::Of(extents[0] / 2);
      d.y = FastDivisor::Of(extents[1]);
      d.z = FastDivisor::Of(extents[2]);
    }
    return d;
  }
};

// CheckerboardSite with the divisions done by `divisors` where usable (same result, bit for bit).
__device__ __forceinline__ SiteGeometry CheckerboardSite(int cb, int parity, const int (&extents)[4],
                                                         const CheckerboardDivisors& divisors) {
  if (!divisors.usable) return CheckerboardSite(cb, parity, extents);
  SiteGeometry site;
  const int half_x = extents[0] >> 1;
  int rest = divisors.half_x.Divide(cb);
  const int x_half = cb - rest * half_x;
  const int yz = divisors.y.Divide(rest);
  const int y = rest - yz * extents[1];
  const int t = divisors.z.Divide(yz);
  const int z = yz - t * extents[2];
  const int x = 2 * x_half + ((y + z + t + parity) & 1);
  site.coords[0] = x;
  site.coords[1] = y;
  site.coords[2] = z;
  site.coords[3] = t;
  site.full_index = x + extents[0] * (y + extents[1] * (z + extents[2] * t));
  return site;
}

// Distance in the lexicographic index between neighbours in direction mu.
__host__ __device__ __forceinline__ int LexicographicStride(int mu, const int (&extents)[4]) {
  int stride = 1;
#pragma unroll
  for (int nu = 0; nu < 3; ++nu) {
    if (nu < mu) stride *= extents[nu];
  }
  return stride;
}

// Checkerboard index of n + mu (forward) or n - mu (backward), periodic. Sets `wraps` when the hop
// crosses the boundary, where fermion boundary phases apply.
template <bool kForward>
__device__ __forceinline__ int NeighbourCheckerboardIndex(const SiteGeometry& site, int mu, const int (&extents)[4],
                                                          bool& wraps) {
  const int stride = LexicographicStride(mu, extents);
  int neighbour;
  if constexpr (kForward) {
    wraps = site.coords[mu] == extents[mu] - 1;
    neighbour = wraps ? site.full_index - (extents[mu] - 1) * stride : site.full_index + stride;
  } else {
    wraps = site.coords[mu] == 0;
    neighbour = wraps ? site.full_index + (extents[mu] - 1) * stride : site.full_index - stride;
  }
  return neighbour >> 1;
}

}  // namespace lqcd::gpu
