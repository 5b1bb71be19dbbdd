// partitioned_dslash.cu: PartitionedWilsonDslash (partitioned_dslash.h): face lists, ghost buffers,
// streams, and the order of one call. Host code; the kernels are wilson_dslash_kernel.cuh's partitioned
// variants and halo_packing.cu's.
#include "gpu/partitioned_dslash.h"

#include <cuda_runtime.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/comm/face_map.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/halo_packing.h"
#include "gpu/nccl_communicator.h"
#include "gpu/wilson_dslash.h"

namespace lqcd::gpu {
namespace {

using comm::Side;

// Page-locked host memory, so that copies to and from it are asynchronous DMA.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) {
    if (bytes > 0) LQCD_CUDA_CHECK(cudaMallocHost(&data_, bytes));
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : data_(o.data_) { o.data_ = nullptr; }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    return *this;
  }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

DeviceBuffer UploadInts(const std::vector<int>& v) {
  DeviceBuffer b(v.size() * sizeof(int));
  if (!v.empty()) b.CopyFromHost(v.data(), v.size() * sizeof(int));
  return b;
}

// Checkerboard indices of the sites of `parity` with a hop across a partitioned face.
std::vector<int> ExteriorSitesOf(const Lattice& lattice, const std::array<bool, 4>& partitioned, Parity parity) {
  std::vector<int> sites;
  for (int site = 0; site < lattice.volume(); ++site) {
    if (lattice.SiteParity(site) != parity) continue;
    const Coordinates n = lattice.Coords(site);
    bool exterior = false;
    for (int mu = 0; mu < 4; ++mu) {
      exterior |= partitioned[mu] && (n[mu] == 0 || n[mu] == lattice.extent(mu) - 1);
    }
    if (exterior) sites.push_back(Lattice::CheckerboardIndex(site));
  }
  return sites;
}

// A neighbour's buffer mapped into this process through CUDA IPC; unmapped on destruction.
class IpcMapping {
 public:
  IpcMapping() = default;
  explicit IpcMapping(const cudaIpcMemHandle_t& handle) {
    LQCD_CUDA_CHECK(cudaIpcOpenMemHandle(&data_, handle, cudaIpcMemLazyEnablePeerAccess));
  }
  ~IpcMapping() {
    if (data_ != nullptr) cudaIpcCloseMemHandle(data_);
  }
  IpcMapping(IpcMapping&& o) noexcept : data_(o.data_) { o.data_ = nullptr; }
  IpcMapping& operator=(IpcMapping&& o) noexcept {
    std::swap(data_, o.data_);
    return *this;
  }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

// A neighbour's event opened through CUDA IPC (or this process's own event, not owned).
class PeerEvent {
 public:
  PeerEvent() = default;
  static PeerEvent Open(const cudaIpcEventHandle_t& handle) {
    PeerEvent e;
    LQCD_CUDA_CHECK(cudaIpcOpenEventHandle(&e.event_, handle));
    e.owned_ = true;
    return e;
  }
  static PeerEvent Own(cudaEvent_t event) {
    PeerEvent e;
    e.event_ = event;
    return e;
  }
  ~PeerEvent() {
    if (owned_ && event_ != nullptr) cudaEventDestroy(event_);
  }
  PeerEvent(PeerEvent&& o) noexcept : event_(o.event_), owned_(o.owned_) { o.event_ = nullptr; }
  PeerEvent& operator=(PeerEvent&& o) noexcept {
    std::swap(event_, o.event_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
  bool owned_ = false;
};

}  // namespace

const char* ToString(HaloTransport transport) {
  switch (transport) {
    case HaloTransport::kHostStaged: return "host";
    case HaloTransport::kDevice: return "device";
    case HaloTransport::kNccl: return "nccl";
  }
  return "unknown";
}

HaloTransport ParseHaloTransport(const std::string& text) {
  if (text == "host") return HaloTransport::kHostStaged;
  if (text == "device") return HaloTransport::kDevice;
  if (text == "nccl") return HaloTransport::kNccl;
  throw std::invalid_argument("halo transport '" + text + "': expected host, device or nccl");
}

void RequireTransportForSharing(HaloTransport transport, bool share_gpu) {
  if (transport == HaloTransport::kNccl && share_gpu) {
    throw std::invalid_argument("--transport=nccl needs one GPU per rank (NCCL); drop --share-gpu or use device or host");
  }
}

struct PartitionedWilsonDslash::State {
  const DeviceGaugeField& gauge;
  comm::Communicator& communicator;
  FermionBoundary boundary;
  std::array<bool, 4> partitioned{};
  std::array<std::array<bool, 2>, 4> global_face{};
  std::array<int, 4> face_sites{};
  // [mu][side][parity]: the face's checkerboard indices (FaceMap order), on the device.
  DeviceBuffer face_lists[4][2][2];
  DeviceBuffer exterior[2];
  int exterior_count[2] = {0, 0};
  DeviceBuffer link_ghost[4];
  // Per direction and side: the packed face (device), its host copy, the ghost (host copy, device). The
  // device transport between ranks alternates between two ghost sets (calls % 2; see ExchangeOnDevice).
  DeviceBuffer send[4][2], ghost[2][4][2];
  PinnedBuffer host_send[4][2], host_ghost[4][2];  // host staged
  HaloTransport transport = HaloTransport::kHostStaged;
  bool only_self = true;  // every partitioned direction has one rank: my faces are my ghosts
  int ghost_sets = 1;
  std::uint64_t calls = 0;
  // Device transport: where the face sent toward [mu][side] goes (a neighbour's ghost, or my own), per set;
  // the event recorded after my copies, and the event of the rank that fills my ghost [mu][side].
  void* target[2][4][2] = {};
  IpcMapping mapped[2][4][2];
  cudaEvent_t copies_done = nullptr;
  PeerEvent filled_by[4][2];
  cudaStream_t stream = nullptr;
  cudaEvent_t input_ready = nullptr, exterior_done = nullptr;
  std::unique_ptr<NcclCommunicator> nccl;  // the NCCL transport's
  // TimeOneCall's events (timing enabled) and host clocks, set only during that call.
  struct Timing {
    cudaEvent_t start, interior, packs, ghosts, exterior;
    double host_waiting = 0, host_exchange = 0;
  };
  Timing* timing = nullptr;

  State(const DeviceGaugeField& g, comm::Communicator& c, const FermionBoundary& b) : gauge(g), communicator(c), boundary(b) {}
  ~State() {
    for (auto& per_mu : filled_by) {
      for (PeerEvent& e : per_mu) e = PeerEvent();  // before copies_done, which some of them name
    }
    if (copies_done != nullptr) cudaEventDestroy(copies_done);
    if (input_ready != nullptr) cudaEventDestroy(input_ready);
    if (exterior_done != nullptr) cudaEventDestroy(exterior_done);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  std::size_t SpinorGhost(int mu) const { return SpinorGhostBytes(gauge.layout().precision, mu, face_sites[mu]); }
};

PartitionedWilsonDslash::PartitionedWilsonDslash(const DeviceGaugeField& gauge, comm::Communicator& communicator,
                                                 const FermionBoundary& boundary,
                                                 const std::array<bool, 4>& self_partitioned,
                                                 HaloTransport transport)
    : state_(std::make_unique<State>(gauge, communicator, boundary)) {
  State& s = *state_;
  s.transport = transport;
  const Lattice& local = gauge.lattice();
  const comm::ProcessGrid& grid = communicator.grid();
  Coordinates global{};
  for (int mu = 0; mu < 4; ++mu) global[mu] = local.extent(mu) * grid.dim(mu);
  if (grid.LocalExtents(global) != local.extents()) {  // throws for odd or non-dividing extents
    throw std::invalid_argument("PartitionedWilsonDslash: the grid " + grid.ToString() + " does not tile a lattice " +
                                "with local extents " + local.ToString());
  }
  const Coordinates coords = grid.CoordsOf(communicator.rank());
  for (int mu = 0; mu < 4; ++mu) {
    s.partitioned[mu] = grid.IsPartitioned(mu) || self_partitioned[mu];
    if (s.partitioned[mu] && local.extent(mu) % 2 != 0) {
      throw std::invalid_argument("PartitionedWilsonDslash: direction " + std::to_string(mu) +
                                  " is partitioned but its local extent " + std::to_string(local.extent(mu)) +
                                  " is odd");
    }
    if (s.partitioned[mu] && grid.IsPartitioned(mu)) s.only_self = false;
    s.global_face[mu][0] = coords[mu] == 0;
    s.global_face[mu][1] = coords[mu] == grid.dim(mu) - 1;
  }
  // The comm stream has the device's highest priority: its blocks (packs, the exterior) go first whenever an
  // SM frees up under the interior kernel.
  int least_priority = 0, greatest_priority = 0;
  LQCD_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority));
  LQCD_CUDA_CHECK(cudaStreamCreateWithPriority(&s.stream, cudaStreamNonBlocking, greatest_priority));
  LQCD_CUDA_CHECK(cudaEventCreateWithFlags(&s.input_ready, cudaEventDisableTiming));
  LQCD_CUDA_CHECK(cudaEventCreateWithFlags(&s.exterior_done, cudaEventDisableTiming));
  if (transport == HaloTransport::kNccl) s.nccl = std::make_unique<NcclCommunicator>(communicator);
  if (transport == HaloTransport::kDevice && !s.only_self) {
    s.ghost_sets = 2;
    LQCD_CUDA_CHECK(cudaEventCreateWithFlags(&s.copies_done, cudaEventDisableTiming | cudaEventInterprocess));
  }

  for (int parity = 0; parity < 2; ++parity) {
    const std::vector<int> sites = ExteriorSitesOf(local, s.partitioned, static_cast<Parity>(parity));
    s.exterior[parity] = UploadInts(sites);
    s.exterior_count[parity] = static_cast<int>(sites.size());
  }
  const GaugeView links = gauge.View();
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    const comm::FaceMap faces(local.extents(), mu);
    s.face_sites[mu] = faces.sites_per_parity();
    for (int side = 0; side < 2; ++side) {
      for (int parity = 0; parity < 2; ++parity) {
        s.face_lists[mu][side][parity] = UploadInts(faces.Face(static_cast<Side>(side), static_cast<Parity>(parity)));
      }
      s.send[mu][side] = DeviceBuffer(s.SpinorGhost(mu));
      for (int set = 0; set < s.ghost_sets; ++set) s.ghost[set][mu][side] = DeviceBuffer(s.SpinorGhost(mu));
      if (transport == HaloTransport::kHostStaged) {
        s.host_send[mu][side] = PinnedBuffer(s.SpinorGhost(mu));
        s.host_ghost[mu][side] = PinnedBuffer(s.SpinorGhost(mu));
      }
    }
    if (transport == HaloTransport::kDevice) {
      // My ghost beyond face `side` is filled by the neighbour on that side: it gets my handle, and I get
      // the handle of the ghost I fill, from the neighbour on the other side; likewise the events.
      for (int side = 0; side < 2; ++side) {
        const int opposite = 1 - side;
        const int receiver = grid.Neighbour(communicator.rank(), mu, static_cast<Side>(opposite));
        for (int set = 0; set < s.ghost_sets; ++set) {
          cudaIpcMemHandle_t mine{}, theirs{};
          LQCD_CUDA_CHECK(cudaIpcGetMemHandle(&mine, s.ghost[set][mu][side].data()));
          communicator.Exchange(mu, static_cast<Side>(side), &mine, &theirs, sizeof(mine));
          if (receiver == communicator.rank()) {
            s.target[set][mu][opposite] = s.ghost[set][mu][side].data();  // my own ghost (one rank along mu)
          } else {
            s.mapped[set][mu][opposite] = IpcMapping(theirs);
            s.target[set][mu][opposite] = s.mapped[set][mu][opposite].data();
          }
        }
        if (s.copies_done != nullptr) {
          const int filler = grid.Neighbour(communicator.rank(), mu, static_cast<Side>(side));
          cudaIpcEventHandle_t mine{}, theirs{};
          LQCD_CUDA_CHECK(cudaIpcGetEventHandle(&mine, s.copies_done));
          communicator.Exchange(mu, static_cast<Side>(opposite), &mine, &theirs, sizeof(mine));
          s.filled_by[mu][side] =
              filler == communicator.rank() ? PeerEvent::Own(s.copies_done) : PeerEvent::Open(theirs);
        }
      }
    }
    // Link ghosts: my forward face's U_mu goes forward; what arrives is U_mu(n - mu) for my backward face.
    const std::size_t link_bytes = LinkGhostBytes(links.precision, links.reconstruct, s.face_sites[mu]);
    DeviceBuffer packed(link_bytes);
    PackLinkFaceLaunch pack;
    pack.gauge = links;
    pack.ghost = packed.data();
    pack.face_sites[0] = static_cast<const int*>(s.face_lists[mu][1][0].data());
    pack.face_sites[1] = static_cast<const int*>(s.face_lists[mu][1][1].data());
    pack.sites = s.face_sites[mu];
    pack.mu = mu;
    pack.stream = s.stream;
    LaunchPackLinkFace(pack);
    PinnedBuffer out(link_bytes), in(link_bytes);
    LQCD_CUDA_CHECK(cudaMemcpyAsync(out.data(), packed.data(), link_bytes, cudaMemcpyDeviceToHost, s.stream));
    LQCD_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    communicator.Exchange(mu, Side::kForward, out.data(), in.data(), link_bytes);
    s.link_ghost[mu] = DeviceBuffer(link_bytes);
    s.link_ghost[mu].CopyFromHost(in.data(), link_bytes);
  }
}

PartitionedWilsonDslash::~PartitionedWilsonDslash() = default;

const DeviceGaugeField& PartitionedWilsonDslash::gauge() const { return state_->gauge; }
comm::Communicator& PartitionedWilsonDslash::communicator() const { return state_->communicator; }
const FermionBoundary& PartitionedWilsonDslash::boundary() const { return state_->boundary; }
HaloTransport PartitionedWilsonDslash::transport() const { return state_->transport; }
const std::array<bool, 4>& PartitionedWilsonDslash::partitioned() const { return state_->partitioned; }
int PartitionedWilsonDslash::ExteriorSites(int parity) const { return state_->exterior_count[parity & 1]; }

std::size_t PartitionedWilsonDslash::FaceBytesPerCall() const {
  std::size_t bytes = 0;
  for (int mu = 0; mu < 4; ++mu) {
    if (state_->partitioned[mu]) bytes += 2 * state_->SpinorGhost(mu);
  }
  return bytes;
}

void PartitionedWilsonDslash::Apply(const SpinorView& out, const ConstSpinorView& in, Dagger dagger) const {
  Run(CheckedWilsonDslashLaunch("PartitionedWilsonDslash::Apply", out, state_->gauge, in, dagger, nullptr, 0, 0,
                                state_->boundary),
      in, dagger);
}

void PartitionedWilsonDslash::ApplyXpay(const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                                        const ConstSpinorView& x, double a, double b) const {
  Run(CheckedWilsonDslashLaunch("PartitionedWilsonDslash::ApplyXpay", out, state_->gauge, in, dagger, &x, a, b,
                                state_->boundary),
      in, dagger);
}

void PartitionedWilsonDslash::ApplyClover(const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                                          const CloverEpilogue& epilogue) const {
  Run(CheckedCloverDslashLaunch("PartitionedWilsonDslash::ApplyClover", out, state_->gauge, in, dagger, epilogue,
                                state_->boundary),
      in, dagger);
}

// `launch` has passed the argument checks (before any work: nothing is packed for a bad call).
void PartitionedWilsonDslash::Run(WilsonDslashLaunch launch, const ConstSpinorView& in, Dagger dagger) const {
  State& s = *state_;
  const SpinorView& out = launch.out;
  if (FaceBytesPerCall() == 0) return LaunchWilsonDslash(launch);  // nothing partitioned: the plain kernel
  const Precision precision = s.gauge.layout().precision;

  const int set = static_cast<int>(s.calls++ % s.ghost_sets);
  DslashHaloView halo;
  halo.partitioned = s.partitioned;
  halo.global_face = s.global_face;
  for (int mu = 0; mu < 4; ++mu) {
    halo.face_sites[mu] = s.face_sites[mu];
    halo.ghost_links[mu] = s.link_ghost[mu].data();
    for (int side = 0; side < 2; ++side) {
      ConstSpinorView& g = halo.ghost[mu][side];
      g.precision = precision;
      g.parity = in.parity;
      g.sites = s.face_sites[mu];
      g.stride = s.face_sites[mu];
      g.data = s.ghost[set][mu][side].data();
      if (precision == Precision::kHalf && g.data != nullptr) {
        const std::size_t words_bytes =
            static_cast<std::size_t>(s.face_sites[mu]) * SpinorGhostReals(precision, mu) * BytesPerReal(precision);
        g.norm = reinterpret_cast<const float*>(static_cast<const char*>(g.data) + words_bytes);
      }
    }
  }

  // 1. The interior on the default stream first, so that the device starts on it at once. `in` is complete at
  //    this point of the default stream: input_ready, recorded before the interior, lets the packs start
  //    without waiting for it.
  LQCD_CUDA_CHECK(cudaEventRecord(s.input_ready, 0));
  if (s.timing != nullptr) LQCD_CUDA_CHECK(cudaEventRecord(s.timing->start, 0));
  halo.region = DslashRegion::kInterior;
  launch.halo = &halo;
  LaunchWilsonDslash(launch);
  if (s.timing != nullptr) LQCD_CUDA_CHECK(cudaEventRecord(s.timing->interior, 0));

  // 2. Faces of `in` packed (and copied to the host) on the comm stream, whose blocks take the SMs first as the
  //    interior's blocks retire (highest priority).
  LQCD_CUDA_CHECK(cudaStreamWaitEvent(s.stream, s.input_ready, 0));
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      PackSpinorFaceLaunch pack;
      pack.in = in;
      pack.face = s.send[mu][side].data();
      pack.face_sites = static_cast<const int*>(s.face_lists[mu][side][in.parity].data());
      pack.sites = s.face_sites[mu];
      pack.mu = mu;
      pack.sent_toward = side;
      pack.dagger = dagger == Dagger::kYes;
      pack.stream = s.stream;
      LaunchPackSpinorFace(pack);
      if (s.transport == HaloTransport::kHostStaged) {
        LQCD_CUDA_CHECK(cudaMemcpyAsync(s.host_send[mu][side].data(), s.send[mu][side].data(), s.SpinorGhost(mu),
                                        cudaMemcpyDeviceToHost, s.stream));
      }
    }
  }

  if (s.timing != nullptr) LQCD_CUDA_CHECK(cudaEventRecord(s.timing->packs, s.stream));

  // 3. The exchange: my face `side` goes toward `side`; what arrives is the ghost beyond the opposite face.
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  if (s.transport == HaloTransport::kDevice && s.only_self) {
    CopyOwnFaces();  // stream ordered: no host involvement
  } else if (s.transport == HaloTransport::kNccl) {
    ExchangeThroughNccl();  // stream ordered: no host involvement
  } else {
    // The packs are done, and so is my previous call's exterior kernel (queued before them on this stream).
    const Clock::time_point waiting = Clock::now();
    LQCD_CUDA_CHECK(cudaStreamSynchronize(s.stream));
    const Clock::time_point exchanging = Clock::now();
    if (s.transport == HaloTransport::kDevice) {
      ExchangeOnDevice(set);
    } else {
      ExchangeThroughHost();
    }
    if (s.timing != nullptr) {
      s.timing->host_waiting = std::chrono::duration<double>(exchanging - waiting).count();
      s.timing->host_exchange = seconds_since(exchanging);
    }
  }
  if (s.timing != nullptr) LQCD_CUDA_CHECK(cudaEventRecord(s.timing->ghosts, s.stream));

  // 4. The exterior on the comm stream, once the ghosts are on the device (the comm stream waits for them),
  //    beside the interior; the default stream then waits for it.
  halo.region = DslashRegion::kExterior;
  halo.exterior_sites = static_cast<const int*>(s.exterior[out.parity].data());
  halo.exterior_count = s.exterior_count[out.parity];
  launch.stream = s.stream;
  LaunchWilsonDslash(launch);
  if (s.timing != nullptr) LQCD_CUDA_CHECK(cudaEventRecord(s.timing->exterior, s.stream));
  LQCD_CUDA_CHECK(cudaEventRecord(s.exterior_done, s.stream));
  LQCD_CUDA_CHECK(cudaStreamWaitEvent(0, s.exterior_done, 0));
}

void ApplyWilsonDslashOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                         const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                         const FermionBoundary& boundary) {
  if (partitioned != nullptr) return partitioned->Apply(out, in, dagger);
  ApplyWilsonDslash(out, gauge, in, dagger, boundary);
}

void ApplyWilsonDslashXpayOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                             const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                             const ConstSpinorView& x, double a, double b, const FermionBoundary& boundary) {
  if (partitioned != nullptr) return partitioned->ApplyXpay(out, in, dagger, x, a, b);
  ApplyWilsonDslashXpay(out, gauge, in, dagger, x, a, b, boundary);
}

void ApplyCloverDslashOn(const PartitionedWilsonDslash* partitioned, const DeviceGaugeField& gauge,
                         const SpinorView& out, const ConstSpinorView& in, Dagger dagger,
                         const CloverEpilogue& epilogue, const FermionBoundary& boundary) {
  if (partitioned != nullptr) return partitioned->ApplyClover(out, in, dagger, epilogue);
  ApplyCloverDslash(out, gauge, in, dagger, epilogue, boundary);
}

std::shared_ptr<const DeviceGaugeField> LinksOf(const std::shared_ptr<const PartitionedWilsonDslash>& dslash) {
  return std::shared_ptr<const DeviceGaugeField>(dslash, &dslash->gauge());
}

std::string GridSuffix(const std::shared_ptr<const PartitionedWilsonDslash>& dslash) {
  return dslash ? " @" + dslash->communicator().grid().ToString() : "";
}

PartitionedWilsonDslash::CallTimeline PartitionedWilsonDslash::TimeOneCall(const SpinorView& out,
                                                                          const ConstSpinorView& in,
                                                                          Dagger dagger) const {
  State& s = *state_;
  if (FaceBytesPerCall() == 0) {
    throw std::invalid_argument("PartitionedWilsonDslash::TimeOneCall: no direction is partitioned (the plain kernel runs)");
  }
  State::Timing t;
  for (cudaEvent_t* e : {&t.start, &t.interior, &t.packs, &t.ghosts, &t.exterior}) {
    LQCD_CUDA_CHECK(cudaEventCreate(e));
  }
  LQCD_CUDA_CHECK(cudaDeviceSynchronize());
  s.timing = &t;
  try {
    Apply(out, in, dagger);
  } catch (...) {
    s.timing = nullptr;
    throw;
  }
  s.timing = nullptr;
  LQCD_CUDA_CHECK(cudaDeviceSynchronize());
  const auto us = [&](cudaEvent_t e) {
    float ms = 0;
    LQCD_CUDA_CHECK(cudaEventElapsedTime(&ms, t.start, e));
    return 1e3 * static_cast<double>(ms);
  };
  CallTimeline timeline;
  timeline.interior_done = us(t.interior);
  timeline.packs_done = us(t.packs);
  timeline.ghosts_ready = us(t.ghosts);
  timeline.exterior_done = us(t.exterior);
  timeline.host_waiting = 1e6 * t.host_waiting;
  timeline.host_exchange = 1e6 * t.host_exchange;
  for (cudaEvent_t e : {t.start, t.interior, t.packs, t.ghosts, t.exterior}) cudaEventDestroy(e);
  return timeline;
}

void PartitionedWilsonDslash::Handshake() const {
  State& s = *state_;
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      const char token = 1;
      char received = 0;
      s.communicator.Exchange(mu, static_cast<Side>(side), &token, &received, 1);
    }
  }
}

void PartitionedWilsonDslash::CopyOwnFaces() const {
  State& s = *state_;
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      LQCD_CUDA_CHECK(cudaMemcpyAsync(s.target[0][mu][side], s.send[mu][side].data(), s.SpinorGhost(mu),
                                      cudaMemcpyDeviceToDevice, s.stream));
    }
  }
}

// Why two ghost sets and one handshake suffice. Call n writes the receivers' set n % 2, which they last read
// in their exterior kernel of call n - 2. A sender queues call n's copies only after the handshake of call
// n - 1, in which every receiver took part after synchronising its comm stream in call n - 1; the receiver's
// exterior of call n - 2 ran on that stream before the packs of call n - 1: so that kernel has finished. The
// handshake of call n says "my copies into your ghosts are queued and my event recorded after them"; a
// receiver's stream then waits for each filler's event (the record just made: cudaStreamWaitEvent takes the
// latest record at the time of the call) before its exterior kernel. Neither side's host waits for a copy.
void PartitionedWilsonDslash::ExchangeOnDevice(int set) const {
  State& s = *state_;
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      LQCD_CUDA_CHECK(cudaMemcpyAsync(s.target[set][mu][side], s.send[mu][side].data(), s.SpinorGhost(mu),
                                      cudaMemcpyDeviceToDevice, s.stream));
    }
  }
  LQCD_CUDA_CHECK(cudaEventRecord(s.copies_done, s.stream));
  Handshake();
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      LQCD_CUDA_CHECK(cudaStreamWaitEvent(s.stream, s.filled_by[mu][side].get(), 0));
    }
  }
}

// My face toward `side` goes to the neighbour on that side and becomes its ghost beyond its opposite face; my
// ghost beyond face `side` comes from the neighbour on that side. With two ranks along mu both neighbours are
// one rank, and NCCL pairs the k-th send to a rank with that rank's k-th receive from this one: the sends go
// in side order (backward face, forward face) and the receives in the opposite order (ghost beyond the
// forward face, then beyond the backward face), so that each arrives where it belongs.
void PartitionedWilsonDslash::ExchangeThroughNccl() const {
  State& s = *state_;
  const comm::ProcessGrid& grid = s.communicator.grid();
  const int me = s.communicator.rank();
  std::vector<NcclCommunicator::Message> sends, receives;
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      sends.push_back({grid.Neighbour(me, mu, static_cast<Side>(side)), s.send[mu][side].data(), s.SpinorGhost(mu)});
    }
    for (int side = 1; side >= 0; --side) {
      receives.push_back(
          {grid.Neighbour(me, mu, static_cast<Side>(side)), s.ghost[0][mu][side].data(), s.SpinorGhost(mu)});
    }
  }
  s.nccl->Exchange(sends, receives, s.stream);
}

void PartitionedWilsonDslash::ExchangeThroughHost() const {
  State& s = *state_;
  for (int mu = 0; mu < 4; ++mu) {
    if (!s.partitioned[mu]) continue;
    for (int side = 0; side < 2; ++side) {
      const int beyond = 1 - side;
      s.communicator.Exchange(mu, static_cast<Side>(side), s.host_send[mu][side].data(),
                              s.host_ghost[mu][beyond].data(), s.SpinorGhost(mu));
    }
    for (int side = 0; side < 2; ++side) {
      LQCD_CUDA_CHECK(cudaMemcpyAsync(s.ghost[0][mu][side].data(), s.host_ghost[mu][side].data(), s.SpinorGhost(mu),
                                      cudaMemcpyHostToDevice, s.stream));
    }
  }
}

}  // namespace lqcd::gpu
