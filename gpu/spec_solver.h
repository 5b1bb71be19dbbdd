// spec_solver.h: a SolverSpec (solvers/solver_spec.h) solved on the GPU. The same SolveWithSpec as the CPU
// oracle runs (solvers/spec_solve.h); here it gets GpuWilson / GpuWilsonSchur (or GpuClover / GpuCloverSchur,
// gpu_clover.h) on device links.
//
// Host-only header (no CUDA types).
//
//   GpuCapabilities()   what the GPU backend runs: Wilson and Wilson-clover operators with 18, 12 or 8 reals
//                       per link in double, single and half, on temporal-gauge-fixed links too.
//   GpuGaugeLinks       the links of ONE configuration on the device, in every (precision, link storage)
//                       a solve asks for, each uploaded once on first use and shared by every later solve
//                       (masses, sources, specs). Constructed either on the original configuration or on its
//                       temporal-gauge-fixed copy (reference/gauge_transform.h TemporalGaugeFix), whose
//                       operators use the gauge-fixed kernels (DeviceGaugeField checks the links).
//   GpuCloverTerms      the clover term of ONE configuration and action: the oracle's CloverField<double>
//                       built once from the links it is given (the gauge-fixed ones for gauge-fixed solves),
//                       or given built (this rank's piece, below), uploaded in each precision a solve asks for
//                       on first use.
//   SolveWithSpecOnGpu  x = M^{-1} b for the Wilson matrix M of `params` on `links` (full-lattice device
//                       fields; x is the initial guess on entry). spec.temporal_gauge must match how `links`
//                       was made; the caller transforms source and solution (gauge fixing changes the
//                       system to G M G^dag, so x_fixed = G x). The clover overload solves the clover
//                       matrix of `clover` in the even-odd `form`; clover and links must come from one field.
//   SolveBlockWithSpecOnGpu  the n Wilson systems M x_k = b_k as one lockstep block (solvers/spec_solve.h
//                       SolveBlockWithSpec: the block form of every spec's solver on GpuWilsonSchur's
//                       multi-RHS application, the links read once per site for all unconverged systems);
//                       one GPU; one record per system. The clover overload does the same on
//                       GpuCloverSchur's multi-RHS application (links and clover term read once per site).
//
// Domain decomposition (several ranks, one GPU each; gpu_backend.h, partitioned_dslash.h, gpu/comm/):
//   GpuPartitionedLinks  THIS RANK's local links of a configuration split over the communicator's process
//                       grid (gpu/comm/subdomain.h ScatterGauge), with the grid's communicator, the fermion
//                       boundary and the halo transport: Get<P>(link_reals) returns the partitioned Dslash
//                       (gpu_backend.h UploadPartitioned) in that layout, built on first use and shared by
//                       every later solve. The first Get of a layout exchanges the links' ghosts: a
//                       collective, so every rank must ask for the same layouts in the same order (ranks
//                       running the same specs do).
//   SolveWithSpecOnGpu(spec, GpuPartitionedLinks&, params, x, b)   the same SolveWithSpec with GpuWilson /
//                       GpuWilsonSchur on the partitioned Dslash. x and b are this rank's LOCAL pieces
//                       (links.lattice(); local site n = global site offset + n). Every rank must call it
//                       together. The caller must set the reduction communicator (blas::SetReductionCommunicator
//                       or ScopedReductionCommunicator, blas.h) to links.communicator() first: the solvers'
//                       norms and dots are then GLOBAL and every rank takes the same path; without it each rank
//                       would solve with its local norms (refused: std::invalid_argument). params.boundary must
//                       be links.boundary().
//   SolveWithSpecOnGpu(spec, GpuPartitionedLinks&, GpuCloverTerms&, form, x, b)   the same with GpuClover /
//                       GpuCloverSchur on the partitioned Dslash (gpu_clover.h), under the same rules. `clover`
//                       holds THIS RANK's piece of the clover term on links.lattice(): the CloverField built on
//                       the GLOBAL links of the same configuration (gauge fixed with them) and scattered
//                       (gpu/comm/subdomain.h ScatterClover); its boundary must be links.boundary().
//   GpuPartitionedCapabilities()  what the partitioned solves run: everything GpuCapabilities() lists.
// Errors: std::invalid_argument for an unsupported spec (RequireSupported) or mismatched links; CudaError
// from the device (out of memory names the free and total memory).
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "gpu/comm/communicator.h"
#include "gpu/device_gauge_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/gpu_clover.h"
#include "gpu/partitioned_dslash.h"
#include "reference/fermion_boundary.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/wilson.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::gpu {

solvers::BackendCapabilities GpuCapabilities();
// The GPU on a partitioned lattice: the same solvers, link storage, gauge fixing and Wilson-clover operator.
solvers::BackendCapabilities GpuPartitionedCapabilities();

class GpuGaugeLinks {
 public:
  // `u` must outlive this object (layouts are uploaded from it on first use). temporal_gauge_fixed: u is in
  // temporal gauge and the operators use the gauge-fixed kernels.
  GpuGaugeLinks(const GaugeField<double>& u, bool temporal_gauge_fixed);

  // The links in precision P with `link_reals` (18, 12, 8) reals per link, uploaded on first use.
  template <typename P>
  std::shared_ptr<const DeviceGaugeField> Get(int link_reals);

  const Lattice& lattice() const { return u_.lattice(); }
  bool temporal_gauge_fixed() const { return temporal_gauge_fixed_; }
  std::size_t device_bytes() const;  // of every layout uploaded so far

 private:
  const GaugeField<double>& u_;
  bool temporal_gauge_fixed_;
  std::map<std::pair<Precision, int>, std::shared_ptr<const DeviceGaugeField>> layouts_;
};

class GpuPartitionedLinks {
 public:
  // local_u: this rank's piece of the configuration (ScatterGauge of the global field for
  // communicator.grid() and communicator.rank()); kept here. temporal_gauge_fixed: the GLOBAL field is in
  // temporal gauge (fix it before scattering) and the operators use the gauge-fixed kernels. The communicator
  // must outlive this object. Nothing is uploaded or exchanged before the first Get.
  GpuPartitionedLinks(GaugeField<double> local_u, bool temporal_gauge_fixed, comm::Communicator& communicator,
                      const FermionBoundary& boundary, HaloTransport transport);

  // The partitioned Dslash with its links in precision P with `link_reals` (18, 12, 8) reals per link, built
  // on first use (a collective: see the file comment).
  template <typename P>
  std::shared_ptr<const PartitionedWilsonDslash> Get(int link_reals);

  const Lattice& lattice() const { return u_.lattice(); }  // the LOCAL lattice
  const GaugeField<double>& local_links() const { return u_; }
  bool temporal_gauge_fixed() const { return temporal_gauge_fixed_; }
  comm::Communicator& communicator() const { return communicator_; }
  const FermionBoundary& boundary() const { return boundary_; }
  HaloTransport transport() const { return transport_; }
  std::size_t device_bytes() const;  // of this rank's links in every layout uploaded so far

 private:
  GaugeField<double> u_;
  bool temporal_gauge_fixed_;
  comm::Communicator& communicator_;
  FermionBoundary boundary_;
  HaloTransport transport_;
  std::map<std::pair<Precision, int>, std::shared_ptr<const PartitionedWilsonDslash>> layouts_;
};

class GpuCloverTerms {
 public:
  // Builds T and T^{-1} on the host (CloverField's std::domain_error for a singular or ill-conditioned T(n)).
  GpuCloverTerms(const GaugeField<double>& u, const CloverParams& params);
  // A clover term built already: on a partitioned lattice, this rank's piece (ScatterClover of the global one).
  explicit GpuCloverTerms(CloverField<double> host);

  // The clover term in precision P, uploaded on first use.
  template <typename P>
  const GpuCloverTerm& Get();

  const CloverField<double>& host() const { return host_; }
  const Lattice& lattice() const { return host_.lattice(); }
  std::size_t device_bytes() const;  // of every precision uploaded so far

 private:
  CloverField<double> host_;
  std::map<Precision, GpuCloverTerm> terms_;
};

solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                        const WilsonParams& params, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b);
std::vector<solvers::SolveResult> SolveBlockWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                                          const WilsonParams& params,
                                                          std::vector<GpuSpinorField<double>>& x,
                                                          const std::vector<GpuSpinorField<double>>& b);
solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuPartitionedLinks& links,
                                        const WilsonParams& params, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b);
std::vector<solvers::SolveResult> SolveBlockWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                                          GpuCloverTerms& clover, CloverSchurForm form,
                                                          std::vector<GpuSpinorField<double>>& x,
                                                          const std::vector<GpuSpinorField<double>>& b);
solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links, GpuCloverTerms& clover,
                                        CloverSchurForm form, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b);
solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuPartitionedLinks& links,
                                        GpuCloverTerms& clover, CloverSchurForm form, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b);

}  // namespace lqcd::gpu
