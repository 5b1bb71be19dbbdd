// halo_packing.h: packing a rank's faces into the ghost format its neighbours read (halo.cuh), for the
// partitioned Wilson Dslash (partitioned_dslash.h).
//
// Host-only header (no CUDA types; a stream is passed as void*, the cudaStream_t it is).
//   LaunchPackSpinorFace  one face (direction mu, the side it is sent toward) of a single-parity spinor
//                         field: element i of the send buffer is the ghost format of site face_sites[i]:
//                         the projected half spinor for the receiver's hop (double, single, spatial), the
//                         two spins its temporal projector keeps, or the whole site (half, spatial).
//   LaunchPackLinkFace    the links U_mu of the forward face, both parities, word for word, in the link ghost
//                         layout (GaugeAccessor with one direction, stride = face sites per parity).
//   SpinorGhostReals / SpinorGhostBytes / LinkGhostBytes   sizes of the formats.
// Sites are listed in FaceMap order (gpu/comm/face_map.h); the launches are asynchronous on `stream`.
#pragma once

#include <cstddef>

#include "gpu/field_views.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

// Reals per ghost site of direction mu (12, or 24 for a spatial ghost in half precision).
int SpinorGhostReals(Precision precision, int mu);
// Bytes of a spinor ghost of `sites` sites (words, plus one float norm per site in half).
std::size_t SpinorGhostBytes(Precision precision, int mu, int sites);
// Bytes of a link ghost: 2 parities x sites links.
std::size_t LinkGhostBytes(Precision precision, Reconstruct reconstruct, int sites);

struct PackSpinorFaceLaunch {
  ConstSpinorView in;          // the field whose face is sent (the Dslash's input parity)
  void* face = nullptr;        // SpinorGhostBytes(in.precision, mu, sites)
  const int* face_sites = nullptr;  // device array of checkerboard indices
  int sites = 0;
  int mu = 0;
  int sent_toward = 0;         // 0 backward, 1 forward
  bool dagger = false;         // the projection of D^dag's hops
  void* stream = nullptr;
};
void LaunchPackSpinorFace(const PackSpinorFaceLaunch& launch);

struct PackLinkFaceLaunch {
  GaugeView gauge;
  void* ghost = nullptr;                // LinkGhostBytes(precision, reconstruct, sites)
  const int* face_sites[2] = {nullptr, nullptr};  // forward face, per parity (device arrays)
  int sites = 0;                        // per parity
  int mu = 0;
  void* stream = nullptr;
};
void LaunchPackLinkFace(const PackLinkFaceLaunch& launch);

}  // namespace lqcd::gpu
