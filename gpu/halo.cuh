// halo.cuh: the ghost zones of a partitioned Wilson Dslash on the device: their formats, where a site's
// ghost sits, and the packing of faces into them.
//
// Device-side header (included by the Dslash launchers and halo_packing.cu).
//
// A rank holds a sub-lattice (gpu/comm/process_grid.h). A hop that leaves it across a partitioned face
// (mu, side) reads, instead of a neighbour site, the ghost of that face: the input-parity sites one step
// beyond it, which the neighbouring rank packed from its own opposite face (gpu/comm/face_map.h: element k
// of a face and of its ghost share their transverse coordinates). Position of a site in its face and in
// the ghost: k = (lexicographic index of the three transverse coordinates) / 2 (FacePosition), which is
// FaceMap's canonical order since every local extent is even.
//
// What a ghost site holds: what the hop needs from the neighbour, computed by the sender with the
// receiver's own functions, so that the hop's result is bit for bit the unpartitioned kernel's:
//   direction    double, single                       half
//   spatial      h = (1 -+ s gamma_mu) psi, the        the whole site: 24 levels + norm, 52 bytes
//                projected half spinor, 12 reals       (h in levels needs 17 bits: |q1 + q2| <= 65534,
//                (exact: additions only)               so an exact 12-number h costs as much)
//   temporal     the two spins the projector keeps, 12 reals (+ the site's norm in half: 28 bytes)
// in the spinor format of spinor_accessor.cuh with stride = face sites per parity (12-real ghosts use words
// [0, kWords / 2), i.e. they read as spins 0 and 1). The sign s follows the hop that reads the ghost: a face
// sent backward serves the receiver's forward hops, one sent forward its backward hops.
// Link ghosts: the hops across the backward face multiply by U_mu(n - mu)^dag, a link of the backward
// neighbour's forward face; those links (both parities) are copied word for word once, at construction, in
// GaugeAccessor's layout with one direction (gauge_accessor.cuh).
#pragma once

#include "gpu/checkerboard.cuh"
#include "gpu/gauge_accessor.cuh"
#include "gpu/spinor_accessor.cuh"
#include "gpu/wilson_dslash_launch.h"

namespace lqcd::gpu {

inline constexpr int kBackwardSide = 0;
inline constexpr int kForwardSide = 1;

// Spatial ghosts hold the projected half spinor (12 reals) except in half precision (the whole site).
template <Precision P>
inline constexpr bool kSpatialGhostProjected = P != Precision::kHalf;

// The ghost zones as the Dslash kernel reads them (DslashHaloView in device form).
template <Precision P, Reconstruct R>
struct DslashHaloArg {
  SpinorAccessor<P> ghost[4][2];          // [mu][side]
  GaugeAccessor<P, R, 1> ghost_links[4];  // U_mu beyond the backward face, both parities
  bool partitioned[4];
  bool global_face[4][2];                 // [mu][side]: antiperiodic signs and the gauge-fixed t-links apply
  const int* exterior_sites;              // the launch's sites (checkerboard indices)
};

// The interior launch: which directions are partitioned (its sites are those on none of their faces).
struct DslashInteriorArg {
  bool partitioned[4];
};

template <Precision P, Reconstruct R>
DslashHaloArg<P, R> DslashHaloArgOf(const DslashHaloView& v) {
  DslashHaloArg<P, R> a;
  for (int mu = 0; mu < 4; ++mu) {
    a.partitioned[mu] = v.partitioned[mu];
    for (int side = 0; side < 2; ++side) {
      a.global_face[mu][side] = v.global_face[mu][side];
      a.ghost[mu][side] = SpinorAccessorOf<P>(v.ghost[mu][side]);
    }
    a.ghost_links[mu].data = static_cast<typename GaugeAccessor<P, R, 1>::Word*>(const_cast<void*>(v.ghost_links[mu]));
    a.ghost_links[mu].stride = v.face_sites[mu];
  }
  a.exterior_sites = v.exterior_sites;
  return a;
}

// Position of a face site (or of its ghost) in the face: transverse lexicographic index / 2.
__device__ __forceinline__ int FacePosition(const int (&coords)[4], int mu, const int (&extents)[4]) {
  int index = 0, stride = 1;
#pragma unroll
  for (int nu = 0; nu < 4; ++nu) {
    if (nu != mu) {
      index += coords[nu] * stride;
      stride *= extents[nu];
    }
  }
  return index >> 1;
}

// True where the site has a hop across a partitioned face (it belongs to the exterior).
template <class Halo>
__device__ __forceinline__ bool OnPartitionedFace(const Halo& halo, const int (&coords)[4], const int (&extents)[4]) {
  bool on_face = false;
#pragma unroll
  for (int mu = 0; mu < 4; ++mu) {
    on_face |= halo.partitioned[mu] && (coords[mu] == 0 || coords[mu] == extents[mu] - 1);
  }
  return on_face;
}

// ---- Packing: one face of the input parity into the ghost format of the receiving side ----

// Everything one face packing launch needs: the field, the face's checkerboard indices (FaceMap order) and
// the send buffer in ghost format.
template <Precision P>
struct PackFaceArg {
  SpinorAccessor<P> in;
  SpinorAccessor<P> face;  // stride = sites
  const int* face_sites;
  int sites;
};

// The projection sign of the hop that reads a face sent toward kSentToward (wilson_dslash_kernel.cuh's
// kForwardSign = D^dag ? +1 : -1 and kBackwardSign = -kForwardSign): a face sent backward is read by the
// receiver's forward hops, a face sent forward by its backward hops.
template <bool kDagger, int kSentToward>
inline constexpr int kGhostProjectionSign = (kSentToward == kBackwardSide) == kDagger ? +1 : -1;
// The spins a temporal projector keeps, for the same hop (wilson_dslash_kernel.cuh, TemporalHops).
template <bool kDagger, int kSentToward>
inline constexpr int kGhostFirstSpin = (kSentToward == kBackwardSide) == kDagger ? 0 : 2;

// Copies words [first_word, first_word + count) of site cb of `from` to words [0, count) of site i of `to`,
// and the norm in half: no arithmetic, so the receiver reads exactly the stored numbers.
template <int first_word, int count, Precision P>
__device__ __forceinline__ void CopySpinorWords(const SpinorAccessor<P>& from, int cb, const SpinorAccessor<P>& to,
                                                int i) {
#pragma unroll
  for (int w = 0; w < count; ++w) to.data[w * to.stride + i] = from.data[(first_word + w) * from.stride + cb];
  if constexpr (SpinorStorage<P>::kHasNorm) to.norm[i] = from.norm[cb];
}

// Stores h as words [0, kWords / 2) of site i (double and single: the values, exactly).
template <Precision P, typename Real>
__device__ __forceinline__ void StoreHalfSpinor(const SpinorAccessor<P>& to, int i, const HalfSpinor<Real>& h) {
  static_assert(!SpinorStorage<P>::kHasNorm, "half ghosts copy stored levels instead");
  using Acc = SpinorAccessor<P>;
  Real r[12];
#pragma unroll
  for (int s = 0; s < 2; ++s) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      r[2 * (3 * s + c)] = h.v[s][c].re;
      r[2 * (3 * s + c) + 1] = h.v[s][c].im;
    }
  }
#pragma unroll
  for (int w = 0; w < Acc::kWords / 2; ++w) to.data[w * to.stride + i] = WordMaker<typename Acc::Word>::Make(r + w * Acc::kRealsPerWord);
}

}  // namespace lqcd::gpu
