// partitioned_dirac_solver.cc: the GPU DiracSolver on a lattice split over several MPI ranks, one GPU each
// (dirac_solver.h, "Domain decomposition" and "Distributed fields"). Every rank solves its sub-lattice through
// the partitioned Dslash with global reductions, on its pieces of b and x: SolveLocal takes the pieces
// themselves; Solve takes the global host fields on every rank, scatters them and gathers the solution.
//
// Why Solve keeps global fields: the inverse-norm estimate and the host recompute of the true residual work on
// the global lattice and run as they are, on every rank, with identical inputs. The scatters and the gather are
// host copies through reused fields and element maps (gpu/comm/subdomain.h, SpinorSubdomainMap) plus one
// AllGather per solve: at 48^3 x 96 every rank moves 2 GB of global field per solve, which is why the main
// job's propagator uses SolveLocal (distributed_propagator.h). The clover term of a Wilson-clover action is
// built on the global links (original or gauge fixed) once per action, on every rank, and each rank uploads
// its piece (CloverCache); temporal gauge fixing fixes the global links on every rank and applies this rank's
// piece of G to the pieces of b and x.
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/dirac_solver_internal.h"
#include "gpu/blas.h"
#include "gpu/comm/subdomain.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/spec_solver.h"

namespace lqcd::experiments::internal {
namespace {

// This rank's piece of a gauge transformation on the global lattice: local site n holds g(offset + n).
GaugeTransformation<double> LocalPiece(const GaugeTransformation<double>& global, const comm::ProcessGrid& grid,
                                       int rank) {
  const Lattice local(grid.LocalExtents(global.lattice().extents()));
  const Coordinates offset = grid.Offset(rank, global.lattice().extents());
  GaugeTransformation<double> piece(local);
  for (int n = 0; n < local.volume(); ++n) {
    Coordinates x = local.Coords(n);
    for (int mu = 0; mu < kDims; ++mu) x[mu] += offset[mu];
    piece[n] = global[global.lattice().Index(x)];
  }
  return piece;
}

class PartitionedDiracSolver : public DistributedDiracSolver {
 public:
  PartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify, comm::Communicator& communicator,
                         gpu::HaloTransport transport, const gpu::DeviceRankSum* device_sums)
      : u_(u),
        verify_(verify == VerifyOn::kHost ? VerifyOn::kHost : VerifyOn::kDevice),
        communicator_(communicator),
        transport_(transport),
        device_sums_(device_sums),
        local_(communicator.grid().LocalExtents(u.lattice().extents())),  // refuses a grid that does not fit
        clover_(communicator),
        fixed_clover_(communicator) {}

  const Lattice& local_lattice() const override { return local_; }
  comm::Communicator& communicator() const override { return communicator_; }

  // The global fields: this rank's pieces of b and x scattered (reused local fields and element maps), the
  // solve on the pieces, and one AllGather of every rank's piece into x.
  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuPartitionedCapabilities(), action.clover());
    RequireSystemFields(u_, b, x);
    if (!transfers_) transfers_ = std::make_unique<Transfers>(u_.lattice(), communicator_.grid());
    const int rank = communicator_.rank();
    const Stopwatch scatter;
    transfers_->map.ScatterInto(b, rank, transfers_->b);
    transfers_->map.ScatterInto(x, rank, transfers_->x);
    const double scatter_seconds = scatter.Seconds();
    SolveOutcome out = SolvePieces(action, spec, transfers_->b, transfers_->x, verify_ == VerifyOn::kDevice);
    const Stopwatch gather;
    AllGather(transfers_->x, x);
    out.transfer_seconds += scatter_seconds + gather.Seconds();
    if (verify_ == VerifyOn::kHost) {
      const Stopwatch check;
      out.true_residual = ReferenceResidual(u_, action, x, b);  // on every rank
      out.check_seconds = check.Seconds();
    }
    return out;
  }

  SolveOutcome SolveLocal(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                          SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuPartitionedCapabilities(), action.clover());
    if (verify_ != VerifyOn::kDevice) {
      throw std::invalid_argument("DistributedDiracSolver::SolveLocal: needs --verify=device");
    }
    for (const SpinorField<double>* f : {&b, static_cast<const SpinorField<double>*>(&x)}) {
      if (f->subset() != Subset::kFull || f->lattice() != local_) {
        throw std::invalid_argument("DistributedDiracSolver::SolveLocal: b and x must be full-lattice fields on "
                                    "this rank's lattice " + local_.ToString());
      }
    }
    // Every rank takes the same decision: one global sum of the pieces' "nonzero" flags.
    if (!(communicator_.SumDeterministic(IsZero(b) ? 0.0 : 1.0) > 0)) {
      throw std::invalid_argument("DiracSolver: the source b is zero");
    }
    return SolvePieces(action, spec, b, x, true);
  }

  BackendKind backend() const override { return BackendKind::kGpu; }

 private:
  // The host side of every global solve reuses these (no whole-lattice host field is made per solve): the
  // element maps, this rank's pieces of b and x, and the AllGather's buffer of every rank's piece.
  struct Transfers {
    Transfers(const Lattice& global, const comm::ProcessGrid& grid)
        : map(global, Subset::kFull, grid),
          b(map.local()),
          x(map.local()),
          pieces(static_cast<std::size_t>(map.local_elements()) * map.ranks()) {}
    comm::SpinorSubdomainMap map;
    SpinorField<double> b, x;
    std::vector<SiteSpinor<double>> pieces;
  };

  // The solve on this rank's pieces: b and x (the guess on entry, the solution on return) in the original
  // frame. With temporal gauge fixing the pieces go up as G b and G x and the solution comes back through
  // G^dag, site by site on this rank's sites. With `device_residual`, the true residual |b - M x| / |b| in double
  // on the devices (double/18 partitioned operator, original links, global norms).
  SolveOutcome SolvePieces(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                           SpinorField<double>& x, bool device_residual) {
    const WilsonParams params = action.wilson();
    // Every norm and dot of the solve and of the device residual is global (blas.h), added on the devices when
    // the program built the device sums.
    const gpu::blas::ScopedReductionCommunicator global_sums(&communicator_, device_sums_);
    gpu::GpuSpinorField<double> b_device(local_, Subset::kFull), x_device(local_, Subset::kFull);
    SolveOutcome out;
    out.verified_on = verify_;
    if (spec.temporal_gauge) {
      Fixed();  // the same G on every rank: TemporalGaugeFix of the same global links is deterministic host code
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, true);
      const Stopwatch upload;
      b_device.Upload(ApplyGaugeTransformation(fixed_->g, b), action.basis);
      if (!IsZero(x)) x_device.Upload(ApplyGaugeTransformation(fixed_->g, x), action.basis);
      out.transfer_seconds = upload.Seconds();
      out.result = Solve(links, fixed_clover_, fixed_->copy.links(), action, spec, b_device, x_device);
      const Stopwatch download;
      x = ApplyGaugeTransformation(fixed_->g_dagger, x_device.Download(action.basis));
      out.transfer_seconds += download.Seconds();
      if (!device_residual) return out;
      // The device fields hold the gauge-fixed b and x: the original ones go up for the residual.
      const Stopwatch reupload;
      b_device.Upload(b, action.basis);
      x_device.Upload(x, action.basis);
      out.transfer_seconds += reupload.Seconds();
    } else {
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, false);
      const Stopwatch upload;
      b_device.Upload(b, action.basis);
      if (!IsZero(x)) x_device.Upload(x, action.basis);  // a new device field is zero already
      out.transfer_seconds = upload.Seconds();
      out.result = Solve(links, clover_, u_, action, spec, b_device, x_device);
      const Stopwatch download;
      x_device.Download(x, action.basis);
      out.transfer_seconds += download.Seconds();
      if (!device_residual) return out;
      // The device fields still hold b and the x just downloaded (the solvers never write b).
    }
    const Stopwatch check;
    const auto dslash = LinksFor(action.boundary, false).Get<double>(18);
    out.true_residual =
        action.clover()
            ? DeviceResidual(gpu::GpuClover<double>(dslash, clover_.For(u_, action).Get<double>()), b_device, x_device)
            : DeviceResidual(gpu::GpuWilson<double>(dslash, params), b_device, x_device);
    out.check_seconds = check.Seconds();
    return out;
  }

  // The solve on `links`, whose global field is `global` (the clover term is built on it).
  static solvers::SolveResult Solve(gpu::GpuPartitionedLinks& links, CloverCache& clover,
                                    const GaugeField<double>& global, const FermionAction& action,
                                    const solvers::SolverSpec& spec, gpu::GpuSpinorField<double>& b,
                                    gpu::GpuSpinorField<double>& x) {
    return action.clover()
               ? gpu::SolveWithSpecOnGpu(spec, links, clover.For(global, action), action.schur_form, x, b)
               : gpu::SolveWithSpecOnGpu(spec, links, action.wilson(), x, b);
  }

  // The global field from every rank's piece, on every rank, into x: one AllGather of the pieces' bytes, then
  // each put at its offset.
  void AllGather(const SpinorField<double>& piece, SpinorField<double>& x) {
    // A SiteSpinor is 12 complex doubles in one array (no other state): its bytes are its value.
    static_assert(sizeof(SiteSpinor<double>) == 24 * sizeof(double), "a site is 24 contiguous doubles");
    const std::size_t bytes = static_cast<std::size_t>(piece.sites()) * sizeof(SiteSpinor<double>);
    communicator_.AllGather(piece.data().data(), bytes, transfers_->pieces.data());
    transfers_->map.GatherInto(transfers_->pieces.data(), x);
  }

  // The temporal-gauge-fixed global links and this rank's pieces of G and G^dag, made on first use.
  struct GaugeFixing {
    explicit GaugeFixing(const GaugeField<double>& u, const comm::ProcessGrid& grid, int rank)
        : copy(u), g(LocalPiece(copy.transformation(), grid, rank)), g_dagger(LocalPiece(copy.inverse(), grid, rank)) {}
    TemporalGaugeCopy copy;
    GaugeTransformation<double> g, g_dagger;
  };
  void Fixed() {
    if (!fixed_) fixed_ = std::make_unique<GaugeFixing>(u_, communicator_.grid(), communicator_.rank());
  }

  // This rank's links (original or temporal-gauge-fixed) for the action's fermion boundary, which the
  // partitioned Dslash carries: rebuilt (every rank together) when the boundary changes.
  gpu::GpuPartitionedLinks& LinksFor(const FermionBoundary& boundary, bool gauge_fixed) {
    std::unique_ptr<gpu::GpuPartitionedLinks>& slot = gauge_fixed ? fixed_links_ : links_;
    if (!slot || slot->boundary().condition != boundary.condition) {
      slot.reset();  // frees the previous boundary's device links first
      const GaugeField<double>& global = gauge_fixed ? fixed_->copy.links() : u_;
      slot = std::make_unique<gpu::GpuPartitionedLinks>(
          comm::ScatterGauge(global, communicator_.grid(), communicator_.rank()), gauge_fixed, communicator_,
          boundary, transport_);
    }
    return *slot;
  }

  const GaugeField<double>& u_;
  VerifyOn verify_;
  comm::Communicator& communicator_;
  gpu::HaloTransport transport_;
  const gpu::DeviceRankSum* device_sums_;  // null: global sums through the host
  Lattice local_;
  std::unique_ptr<GaugeFixing> fixed_;
  std::unique_ptr<gpu::GpuPartitionedLinks> links_, fixed_links_;
  CloverCache clover_, fixed_clover_;  // this rank's pieces, built on u_ and on the gauge-fixed links
  std::unique_ptr<Transfers> transfers_;  // made on the first global solve
};

}  // namespace

std::unique_ptr<DistributedDiracSolver> MakePartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify,
                                                        comm::Communicator& communicator,
                                                        gpu::HaloTransport transport,
                                                        const gpu::DeviceRankSum* device_sums) {
  return std::make_unique<PartitionedDiracSolver>(u, verify, communicator, transport, device_sums);
}

}  // namespace lqcd::experiments::internal
