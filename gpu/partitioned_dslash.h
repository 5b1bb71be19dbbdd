// partitioned_dslash.h: the Wilson Dslash on one rank's sub-lattice of a lattice split over a process grid
// (gpu/comm/): the faces are packed, exchanged through a Communicator and read from ghost zones, and the
// interior is computed while they travel.
//
// Host-only header (no CUDA types). Computes exactly what ApplyWilsonDslash / ApplyWilsonDslashXpay /
// ApplyCloverDslash (wilson_dslash.h) compute on the global lattice, restricted to this rank's sites: bit for bit, since
// each output site is computed by one thread with the unpartitioned kernel's arithmetic in the same order,
// and the ghosts carry the numbers the kernel would have loaded (halo.cuh). The fermion boundary is the
// global one: antiperiodic signs (and, with temporal gauge fixing, the t-links of the last slice) apply only
// on faces that are on the global boundary.
//
// Three transports carry the faces (HaloTransport):
//   kHostStaged  packed face -> pinned host memory -> Communicator::Exchange (MPI, or a copy for a rank's
//                own faces) -> pinned host memory -> the neighbour's ghost: works between any two ranks.
//   kDevice      packed face -> the neighbour's ghost directly, one device-to-device copy: into this
//                rank's own ghost where the neighbour is itself, else through a CUDA IPC mapping of the
//                neighbour's ghost (same node; handles swapped once, at construction, over the
//                communicator). Ghosts alternate between two sets, and one tiny host handshake per call
//                ("my copies into your ghosts are queued") lets each receiver's stream wait for its
//                neighbours' IPC events before the exterior; no host waits for a copy (the argument is in
//                partitioned_dslash.cu). Where every neighbour is the rank itself the copies are simply stream
//                ordered (no host synchronisation at all).
//   kNccl        packed face -> the neighbour's ghost through NCCL send / receive (nccl_communicator.h; NCCL
//                is loaded at run time, one NCCL communicator per object, built at construction), queued on
//                the comm stream behind the packs: no host wait and no host message per call, so the host
//                only queues work. One ghost set suffices: a receive into my ghost is queued on my comm stream
//                after my previous exterior kernel, which read it. Needs one GPU per rank.
// One call on parity p (in on p' = 1 - p):
//   default stream: the interior sites (no hop across a partitioned face; the kernel has no ghost code),
//                   queued first so that the device starts on it at once
//   comm stream:    wait for in (not for the interior); pack the 2 faces of every partitioned direction
//                   (halo_packing.h) (host staged: and copy them to pinned host memory)
//   host + comm:    the exchange by the transport (NCCL: comm stream only)
//   comm stream:    the exterior sites, once the ghosts are complete, beside the interior (the comm stream has
//                   the highest priority, so its blocks start as soon as SMs free up); the default stream
//                   then waits for it
// The call returns when the exchange is done and the exterior kernel is queued (the host takes part in
// the exchange); like every Dslash it is otherwise asynchronous on the default stream.
//
// Self partitioning: a direction can be marked partitioned although the grid has one rank along it; that
// rank then exchanges the faces with itself through the same pack / exchange / ghost path, so every line of
// the multi-GPU code runs, and is tested, on one GPU and one process.
//
// The links' ghosts (U_mu of the backward neighbour's forward face) are exchanged once, at construction.
// Errors (std::invalid_argument, before any work): the communicator's grid does not tile a lattice with
// this rank's local extents; a partitioned direction with an odd local extent; and every argument error of
// ApplyWilsonDslash. The gauge field and the communicator must outlive the object; not thread safe.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "gpu/comm/communicator.h"
#include "gpu/device_gauge_field.h"
#include "gpu/field_views.h"
#include "gpu/wilson_dslash.h"
#include "reference/fermion_boundary.h"
#include "reference/wilson.h"

namespace lqcd::gpu {

enum class HaloTransport { kHostStaged, kDevice, kNccl };
const char* ToString(HaloTransport transport);  // "host", "device", "nccl"
HaloTransport ParseHaloTransport(const std::string& text);  // throws std::invalid_argument
// The programs' check before any work: the NCCL transport needs one GPU per rank, so it cannot run with ranks
// sharing GPUs (std::invalid_argument naming both flags).
void RequireTransportForSharing(HaloTransport transport, bool share_gpu);

class PartitionedWilsonDslash {
 public:
  PartitionedWilsonDslash(const DeviceGaugeField& gauge, comm::Communicator& communicator,
                          const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
                          const std::array<bool, 4>& self_partitioned = {false, false, false, false},
                          HaloTransport transport = HaloTransport::kHostStaged);
  ~PartitionedWilsonDslash();
  PartitionedWilsonDslash(const PartitionedWilsonDslash&) = delete;
  PartitionedWilsonDslash& operator=(const PartitionedWilsonDslash&) = delete;

  // out_p = D_{p,p'} in_{p'} (or D^dag) on this rank's sites.
  void Apply(const SpinorView& out, const ConstSpinorView& in, Dagger dagger) const;
  // out_p = a x_p + b D_{p,p'} in_{p'}; out may be x.
  void ApplyXpay(const SpinorView& out, const ConstSpinorView& in, Dagger dagger, const ConstSpinorView& x, double a,
                 double b) const;
  // With a clover epilogue, as ApplyCloverDslash (wilson_dslash.h): C D in, a C x + b D in or a x + b C D in,
  // C = the epilogue's clover view (this rank's sites).
  void ApplyClover(const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                   const CloverEpilogue& epilogue) const;

  const DeviceGaugeField& gauge() const;
  comm::Communicator& communicator() const;
  const FermionBoundary& boundary() const;
  HaloTransport transport() const;
  // Directions whose faces are exchanged (grid dims > 1, or self partitioned).
  const std::array<bool, 4>& partitioned() const;
  // Bytes this rank sends per call (all faces; the same amount is received), and output sites per parity
  // that wait for ghosts.
  std::size_t FaceBytesPerCall() const;
  int ExteriorSites(int parity) const;

  // Where one call's time goes (a diagnostic: the benchmarks print it). Microseconds from the moment the
  // interior is queued behind the finished input (the device idle before it: the call starts from a
  // synchronised device), read from CUDA events on the two streams and host clocks around the host's part.
  struct CallTimeline {
    double interior_done = 0;   // default stream: the interior kernel finished
    double packs_done = 0;      // comm stream: every face packed (host staged: and copied to the host)
    double ghosts_ready = 0;    // comm stream: every ghost on this device (the exchange's copies or messages)
    double exterior_done = 0;   // comm stream: the exterior kernel finished
    double host_waiting = 0;    // host: waiting for the packs (cudaStreamSynchronize; 0 where none is needed)
    double host_exchange = 0;   // host: the exchange's host part (handshake, MPI, queueing the copies)
  };
  // One Apply(out, in, dagger) timed as above; synchronises the device before and after.
  CallTimeline TimeOneCall(const SpinorView& out, const ConstSpinorView& in, Dagger dagger) const;

 private:
  void Run(WilsonDslashLaunch launch, const ConstSpinorView& in, Dagger dagger) const;
  void ExchangeThroughHost() const;
  void ExchangeOnDevice(int ghost_set) const;
  void CopyOwnFaces() const;  // the device transport when every neighbour is this rank
  void ExchangeThroughNccl() const;
  void Handshake() const;  // one token to and from every neighbour
  struct State;
  std::unique_ptr<State> state_;
};

// For the operators that run on one GPU or on one rank of several (schur_operator.h, gpu_backend.h,
// gpu_clover.h): one Dslash through `partitioned` when it is not null (this rank's sites, faces exchanged,
// its own links and boundary), else the one-GPU kernel on `gauge` with `boundary` (wilson_dslash.h).
void ApplyWilsonDslashOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                         const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                         const FermionBoundary& boundary);
void ApplyWilsonDslashXpayOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                             const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                             const ConstSpinorView& x, double a, double b, const FermionBoundary& boundary);
void ApplyCloverDslashOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                         const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                         const CloverEpilogue& epilogue, const FermionBoundary& boundary);

// The local links of a partitioned Dslash as a shared pointer that keeps the Dslash alive (aliasing).
std::shared_ptr<const DeviceGaugeField> LinksOf(const std::shared_ptr<const PartitionedWilsonDslash>& dslash);
// " @PXxPYxPZxPT" (the process grid) for an operator's name; "" for null (one GPU).
std::string GridSuffix(const std::shared_ptr<const PartitionedWilsonDslash>& dslash);

}  // namespace lqcd::gpu
