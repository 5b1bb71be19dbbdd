// checkerboard.cuh: site geometry on the device: coordinates of a checkerboard index and the
// checkerboard indices of its neighbours, with the conventions of reference/lattice.h
// (lexicographic index i = x + Lx (y + Ly (z + Lz t)), parity (x + y + z + t) mod 2, checkerboard index i / 2).
//
// Device-side header. Lx is even (Lattice guarantees it), so i / 2 = x / 2 + (Lx / 2) (y + Ly (z + Lz t)):
// the checkerboard index gives x / 2, y, z, t directly, and the parity fixes the lowest bit of x.
#pragma once

namespace lqcd::gpu {

struct SiteGeometry {
  int coords[4];  // x, y, z, t
  int full_index; // lexicographic
};

__device__ __forceinline__ SiteGeometry CheckerboardSite(int cb, int parity, const int (&extents)[4]) {
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

// Distance in the lexicographic index between neighbours in direction mu.
__device__ __forceinline__ int LexicographicStride(int mu, const int (&extents)[4]) {
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
