// partitioned_dirac_solver.cc: the GPU DiracSolver on a lattice split over several MPI ranks, one GPU each
// (dirac_solver.h, "Domain decomposition"). Global host fields in and out on every rank; inside, every rank
// solves its sub-lattice through the partitioned Dslash with global reductions.
//
// Why every rank holds the global fields: the main job's lattices fit one host many times over (the GPU is
// what runs out), and it keeps the interface of dirac_solver.h unchanged, so the propagator driver, the
// inverse-norm estimate and the correlator run as they are, on every rank, with identical inputs. The
// scatters and the gather are host copies (gpu/comm/subdomain.h) plus one AllGather per solve. The clover term
// of a Wilson-clover action is built on the global links (original or gauge fixed) once per action, on every
// rank, and each rank uploads its piece (CloverCache).
#include <cmath>
#include <cstring>
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

// The global field from every rank's piece, on every rank: one AllGather of the pieces' bytes, then
// GatherSpinor puts each at its offset.
SpinorField<double> AllGatherSpinor(comm::Communicator& communicator, const SpinorField<double>& local,
                                    const Lattice& global) {
  // A SiteSpinor is 12 complex doubles in one array (no other state): its bytes are its value.
  static_assert(sizeof(SiteSpinor<double>) == 24 * sizeof(double), "a site is 24 contiguous doubles");
  const std::size_t bytes = static_cast<std::size_t>(local.sites()) * sizeof(SiteSpinor<double>);
  const int size = communicator.size();
  std::vector<SiteSpinor<double>> all(static_cast<std::size_t>(local.sites()) * size);
  communicator.AllGather(local.data().data(), bytes, all.data());
  std::vector<SpinorField<double>> locals;
  locals.reserve(size);
  for (int r = 0; r < size; ++r) {
    locals.emplace_back(local.lattice(), local.subset());
    std::memcpy(static_cast<void*>(locals.back().data().data()), all.data() + static_cast<std::size_t>(r) * local.sites(),
                bytes);
  }
  return comm::GatherSpinor(locals, communicator.grid(), global);
}

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
    SolveOutcome out;
    if (spec.temporal_gauge) {
      // The same G on every rank: TemporalGaugeFix of the same global links is deterministic host code.
      if (!fixed_) fixed_ = std::make_unique<TemporalGaugeCopy>(u_);
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, true);
      b_device.Upload(comm::ScatterSpinor(fixed_->ToFixed(b), grid, rank), action.basis);
      if (!IsZero(x)) x_device.Upload(comm::ScatterSpinor(fixed_->ToFixed(x), grid, rank), action.basis);
      out.result = solve(links, fixed_clover_, fixed_->links());
      x = fixed_->FromFixed(AllGatherSpinor(communicator_, x_device.Download(action.basis), u_.lattice()));
    } else {
      gpu::GpuPartitionedLinks& links = LinksFor(action.boundary, false);
      b_device.Upload(comm::ScatterSpinor(b, grid, rank), action.basis);
      if (!IsZero(x)) x_device.Upload(comm::ScatterSpinor(x, grid, rank), action.basis);
      out.result = solve(links, clover_, u_);
      x = AllGatherSpinor(communicator_, x_device.Download(action.basis), u_.lattice());
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
      b_device.Upload(comm::ScatterSpinor(b, grid, rank), action.basis);
      x_device.Upload(comm::ScatterSpinor(x, grid, rank), action.basis);
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
};

}  // namespace

std::unique_ptr<DiracSolver> MakePartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify,
                                                        comm::Communicator& communicator,
                                                        gpu::HaloTransport transport) {
  return std::make_unique<PartitionedDiracSolver>(u, verify, communicator, transport);
}

}  // namespace lqcd::experiments::internal
