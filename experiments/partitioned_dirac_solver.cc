// partitioned_dirac_solver.cc: the GPU DiracSolver on a lattice split over several MPI ranks, one GPU each
// (dirac_solver.h, "Domain decomposition"). Global host fields in and out on every rank; inside, every rank
// solves its sub-lattice through the partitioned Dslash with global reductions.
//
// Why every rank holds the global fields: the main job's lattices fit one host many times over (the GPU is
// what runs out), and it keeps the interface of dirac_solver.h unchanged, so the propagator driver, the
// inverse-norm estimate and the correlator run as they are, on every rank, with identical inputs. The
// scatters and the gather are host copies through reused fields and element maps (gpu/comm/subdomain.h,
// SpinorSubdomainMap) plus one AllGather per solve. The clover term
// of a Wilson-clover action is built on the global links (original or gauge fixed) once per action, on every
// rank, and each rank uploads its piece (CloverCache).
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

class PartitionedDiracSolver : public DiracSolver {
 public:
  PartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify, comm::Communicator& communicator,
                         gpu::HaloTransport transport)
      : u_(u),
        verify_(verify == VerifyOn::kHost ? VerifyOn::kHost : VerifyOn::kDevice),
        communicator_(communicator),
        transport_(transport),
        local_(communicator.grid().LocalExtents(u.lattice().extents())),  // refuses a grid that does not fit
        clover_(communicator),
        fixed_clover_(communicator) {}

  // The host side of every solve reuses these (no whole-lattice host field is made per solve): the element maps,
  // this rank's local field, and the AllGather's buffer of every rank's piece.
  struct Transfers {
    Transfers(const Lattice& global, const comm::ProcessGrid& grid)
        : map(global, Subset::kFull, grid),
          local(map.local()),
          pieces(static_cast<std::size_t>(map.local_elements()) * map.ranks()) {}
    comm::SpinorSubdomainMap map;
    SpinorField<double> local;
    std::vector<SiteSpinor<double>> pieces;
  };

  SolveOutcome Solve(const FermionAction& action, const solvers::SolverSpec& spec, const SpinorField<double>& b,
                     SpinorField<double>& x) override {
    action.Validate();
    solvers::RequireSupported(spec, gpu::GpuPartitionedCapabilities(), action.clover());
    RequireSystemFields(u_, b, x);
    const WilsonParams params = action.wilson();
    const comm::ProcessGrid& grid = communicator_.grid();
    const int rank = communicator_.rank();
    // Every norm and dot of the solve and of the device residual is global (blas.h).
    const gpu::blas::ScopedReductionCommunicator global_sums(&communicator_);
    gpu::GpuSpinorField<double> b_device(local_, Subset::kFull), x_device(local_, Subset::kFull);
    // The solve on `links`, whose global field is `global` (the clover term is built on it).
    const auto solve = [&](gpu::GpuPartitionedLinks& links, CloverCache& clover, const GaugeField<double>& global) {
      return action.clover() ? gpu::SolveWithSpecOnGpu(spec, links, clover.For(global, action), action.schur_form,
                                                       x_device, b_device)
                             : gpu::SolveWithSpecOnGpu(spec, links, params, x_device, b_device);
    };
    if (!transfers_) transfers_ = std::make_unique<Transfers>(u_.lattice(), grid);
    // This rank's piece of a global field onto the device.
    const auto upload = [&](gpu::GpuSpinorField<double>& device, const SpinorField<double>& global) {
      transfers_->map.ScatterInto(global, rank, transfers_->local);
      device.Upload(transfers_->local, action.basis);
    };
    SolveOutcome out;
    if (spec.temporal_gauge) {
      // The same G on every rank: TemporalGaugeFix of the same global links is deterministic host code.
      if (!fixed_) fixed_ = std::make_unique<TemporalGaugeCopy>(u_);
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, true);
      upload(b_device, fixed_->ToFixed(b));
      if (!IsZero(x)) upload(x_device, fixed_->ToFixed(x));
      out.result = solve(links, fixed_clover_, fixed_->links());
      AllGather(x_device, action, x);
      x = fixed_->FromFixed(x);
    } else {
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, false);
      upload(b_device, b);
      if (!IsZero(x)) upload(x_device, x);
      out.result = solve(links, clover_, u_);
      AllGather(x_device, action, x);
    }
    out.verified_on = verify_;
    if (verify_ == VerifyOn::kHost) {
      out.true_residual = ReferenceResidual(u_, action, x, b);  // the global lattice, on every rank
      return out;
    }
    // On the devices in double with a double/18 partitioned operator (GpuWilson or GpuClover) on the original
    // links, global norms.
    // Without gauge fixing the device fields still hold this rank's b and x; with it, their pieces go up.
    if (spec.temporal_gauge) {
      upload(b_device, b);
      upload(x_device, x);
    }
    const auto dslash = LinksFor(action.boundary, false).Get<double>(18);
    out.true_residual =
        action.clover()
            ? DeviceResidual(gpu::GpuClover<double>(dslash, clover_.For(u_, action).Get<double>()), b_device, x_device)
            : DeviceResidual(gpu::GpuWilson<double>(dslash, params), b_device, x_device);
    return out;
  }
  BackendKind backend() const override { return BackendKind::kGpu; }

 private:
  // The global field from every rank's piece, on every rank, into x: this rank's piece downloaded, one
  // AllGather of the pieces' bytes, then each put at its offset.
  void AllGather(const gpu::GpuSpinorField<double>& device, const FermionAction& action, SpinorField<double>& x) {
    // A SiteSpinor is 12 complex doubles in one array (no other state): its bytes are its value.
    static_assert(sizeof(SiteSpinor<double>) == 24 * sizeof(double), "a site is 24 contiguous doubles");
    device.Download(transfers_->local, action.basis);
    const std::size_t bytes = static_cast<std::size_t>(transfers_->local.sites()) * sizeof(SiteSpinor<double>);
    communicator_.AllGather(transfers_->local.data().data(), bytes, transfers_->pieces.data());
    transfers_->map.GatherInto(transfers_->pieces.data(), x);
  }

  // This rank's links (original or temporal-gauge-fixed) for the action's fermion boundary, which the
  // partitioned Dslash carries: rebuilt (every rank together) when the boundary changes.
  gpu::GpuPartitionedLinks& LinksFor(const FermionBoundary& boundary, bool gauge_fixed) {
    std::unique_ptr<gpu::GpuPartitionedLinks>& slot = gauge_fixed ? fixed_links_ : links_;
    if (!slot || slot->boundary().condition != boundary.condition) {
      slot.reset();  // frees the previous boundary's device links first
      const GaugeField<double>& global = gauge_fixed ? fixed_->links() : u_;
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
  Lattice local_;
  std::unique_ptr<TemporalGaugeCopy> fixed_;
  std::unique_ptr<gpu::GpuPartitionedLinks> links_, fixed_links_;
  CloverCache clover_, fixed_clover_;  // this rank's pieces, built on u_ and on the gauge-fixed links
  std::unique_ptr<Transfers> transfers_;  // made on the first solve
};

}  // namespace

std::unique_ptr<DiracSolver> MakePartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify,
                                                        comm::Communicator& communicator,
                                                        gpu::HaloTransport transport) {
  return std::make_unique<PartitionedDiracSolver>(u, verify, communicator, transport);
}

}  // namespace lqcd::experiments::internal
