// spec_solver.cc: see spec_solver.h.
#include "gpu/spec_solver.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/spec_solve.h"

namespace lqcd::gpu {

solvers::BackendCapabilities GpuCapabilities() { return {"gpu", {18, 12, 8}, true, true}; }
solvers::BackendCapabilities GpuPartitionedCapabilities() {
  return {"partitioned gpu (--grid)", {18, 12, 8}, true, true};
}

GpuGaugeLinks::GpuGaugeLinks(const GaugeField<double>& u, bool temporal_gauge_fixed)
    : u_(u), temporal_gauge_fixed_(temporal_gauge_fixed) {}

template <typename P>
std::shared_ptr<const DeviceGaugeField> GpuGaugeLinks::Get(int link_reals) {
  if (link_reals != 18 && link_reals != 12 && link_reals != 8) {
    throw std::invalid_argument("GpuGaugeLinks: " + std::to_string(link_reals) + " reals per link (18, 12 or 8)");
  }
  const Precision precision = DevicePrecisionOf<P>::kValue;
  auto& slot = layouts_[{precision, link_reals}];
  if (!slot) {
    slot = UploadGauge<P>(u_, {static_cast<Reconstruct>(link_reals), temporal_gauge_fixed_, 0});
  }
  return slot;
}

std::size_t GpuGaugeLinks::device_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [key, field] : layouts_) bytes += field->bytes();
  return bytes;
}

GpuPartitionedLinks::GpuPartitionedLinks(GaugeField<double> local_u, bool temporal_gauge_fixed,
                                         comm::Communicator& communicator, const FermionBoundary& boundary,
                                         HaloTransport transport)
    : u_(std::move(local_u)),
      temporal_gauge_fixed_(temporal_gauge_fixed),
      communicator_(communicator),
      boundary_(boundary),
      transport_(transport) {
  // The partitioned Dslash would refuse an odd local extent at the first Get; refuse it here, before any work.
  Coordinates global{};
  for (int mu = 0; mu < kDims; ++mu) global[mu] = u_.lattice().extent(mu) * communicator_.grid().dim(mu);
  communicator_.grid().LocalExtents(global);
}

template <typename P>
std::shared_ptr<const PartitionedWilsonDslash> GpuPartitionedLinks::Get(int link_reals) {
  if (link_reals != 18 && link_reals != 12 && link_reals != 8) {
    throw std::invalid_argument("GpuPartitionedLinks: " + std::to_string(link_reals) +
                                " reals per link (18, 12 or 8)");
  }
  auto& slot = layouts_[{DevicePrecisionOf<P>::kValue, link_reals}];
  if (!slot) {
    slot = UploadPartitioned<P>(u_, {static_cast<Reconstruct>(link_reals), temporal_gauge_fixed_, 0}, communicator_,
                                boundary_, transport_);
  }
  return slot;
}

std::size_t GpuPartitionedLinks::device_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [key, dslash] : layouts_) bytes += dslash->gauge().bytes();
  return bytes;
}

template std::shared_ptr<const PartitionedWilsonDslash> GpuPartitionedLinks::Get<double>(int);
template std::shared_ptr<const PartitionedWilsonDslash> GpuPartitionedLinks::Get<float>(int);
template std::shared_ptr<const PartitionedWilsonDslash> GpuPartitionedLinks::Get<solvers::Half>(int);

GpuCloverTerms::GpuCloverTerms(const GaugeField<double>& u, const CloverParams& params) : host_(u, params) {}
GpuCloverTerms::GpuCloverTerms(CloverField<double> host) : host_(std::move(host)) {}

template <typename P>
const GpuCloverTerm& GpuCloverTerms::Get() {
  const Precision precision = DevicePrecisionOf<P>::kValue;
  auto it = terms_.find(precision);
  if (it == terms_.end()) it = terms_.emplace(precision, UploadClover<P>(host_)).first;
  return it->second;
}

std::size_t GpuCloverTerms::device_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [precision, term] : terms_) bytes += term.field->bytes();
  return bytes;
}

template const GpuCloverTerm& GpuCloverTerms::Get<double>();
template const GpuCloverTerm& GpuCloverTerms::Get<float>();
template const GpuCloverTerm& GpuCloverTerms::Get<solvers::Half>();

template std::shared_ptr<const DeviceGaugeField> GpuGaugeLinks::Get<double>(int);
template std::shared_ptr<const DeviceGaugeField> GpuGaugeLinks::Get<float>(int);
template std::shared_ptr<const DeviceGaugeField> GpuGaugeLinks::Get<solvers::Half>(int);

namespace {

// Links of the kind the spec asks for: gauge fixed or not.
template <typename Links>
void RequireGaugeFixing(const solvers::SolverSpec& spec, const Links& links) {
  if (links.temporal_gauge_fixed() != spec.temporal_gauge) {
    throw std::invalid_argument("SolveWithSpecOnGpu: solver '" + spec.Name() + "' needs links " +
                                (spec.temporal_gauge ? "in temporal gauge" : "not gauge fixed") +
                                ", got the other kind");
  }
}

// What a partitioned solve needs beyond the spec: global reductions, and this rank's pieces of x and b.
void RequirePartitionedSolve(const GpuPartitionedLinks& links, const GpuSpinorField<double>& x,
                             const GpuSpinorField<double>& b) {
  if (blas::ReductionCommunicator() != &links.communicator() && links.communicator().size() > 1) {
    throw std::invalid_argument(
        "SolveWithSpecOnGpu: the reduction communicator (blas::SetReductionCommunicator) is not the partitioned "
        "links' communicator: the solver's norms and dots would not be global");
  }
  RequireFullField(x, links.lattice(), "SolveWithSpecOnGpu: x (this rank's local piece)");
  RequireFullField(b, links.lattice(), "SolveWithSpecOnGpu: b (this rank's local piece)");
}

// The Wilson operators of a spec on either kind of links (GpuGaugeLinks: device links; GpuPartitionedLinks:
// this rank's partitioned Dslash): solve(M, M_ee, low) with the outer M and M_ee in double and the inner M_ee of
// the spec's low precision made on first use (solvers::MakeLowSchurOperators).
template <typename Links, typename Solve>
auto WithWilsonOperators(const solvers::SolverSpec& spec, Links& links, const WilsonParams& params, Solve&& solve) {
  const auto outer = links.template Get<double>(spec.outer().link_reals);
  const GpuWilson<double> m(outer, params);
  const GpuWilsonSchur<double> schur(outer, params);
  auto low = solvers::MakeLowSchurOperators<GpuWilsonSchur>([&](auto tag) {
    using P = typename decltype(tag)::type;
    return std::make_unique<GpuWilsonSchur<P>>(links.template Get<P>(spec.inner.link_reals), params);
  });
  return solve(m, schur, low);
}

// The Wilson solve on either kind of links, once the caller has checked what is particular to its kind.
template <typename Links>
solvers::SolveResult SolveWilson(const solvers::SolverSpec& spec, Links& links, const WilsonParams& params,
                                 GpuSpinorField<double>& x, const GpuSpinorField<double>& b) {
  return WithWilsonOperators(spec, links, params, [&](const auto& m, const auto& schur, auto& low) {
    return solvers::SolveWithSpec(spec, m, schur, low, x, b);
  });
}

// The clover operators of a spec on either kind of links, as WithWilsonOperators: solve(M, S, low) with the outer
// clover M and Schur form S in double and the inner S of the spec's low precision made on first use.
template <typename Links, typename Solve>
auto WithCloverOperators(const solvers::SolverSpec& spec, Links& links, GpuCloverTerms& clover, CloverSchurForm form,
                         Solve&& solve) {
  if (clover.lattice() != links.lattice()) {
    throw std::invalid_argument("SolveWithSpecOnGpu: the clover term lives on " + clover.lattice().ToString() +
                                " but the links on " + links.lattice().ToString());
  }
  const auto outer = links.template Get<double>(spec.outer().link_reals);
  const GpuClover<double> m(outer, clover.Get<double>());
  const GpuCloverSchur<double> schur(outer, clover.Get<double>(), form);
  auto low = solvers::MakeLowSchurOperators<GpuCloverSchur>([&](auto tag) {
    using P = typename decltype(tag)::type;
    return std::make_unique<GpuCloverSchur<P>>(links.template Get<P>(spec.inner.link_reals), clover.Get<P>(), form);
  });
  return solve(m, schur, low);
}

// The clover matrix of `clover` (on links.lattice()) in the even-odd `form`.
template <typename Links>
solvers::SolveResult SolveClover(const solvers::SolverSpec& spec, Links& links, GpuCloverTerms& clover,
                                 CloverSchurForm form, GpuSpinorField<double>& x, const GpuSpinorField<double>& b) {
  return WithCloverOperators(spec, links, clover, form, [&](const auto& m, const auto& schur, auto& low) {
    return solvers::SolveWithSpec(spec, m, schur, low, x, b);
  });
}

}  // namespace

solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                        const WilsonParams& params, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b) {
  solvers::RequireSupported(spec, GpuCapabilities(), /*clover=*/false);
  RequireGaugeFixing(spec, links);
  return SolveWilson(spec, links, params, x, b);
}

std::vector<solvers::SolveResult> SolveBlockWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                                          const WilsonParams& params,
                                                          std::vector<GpuSpinorField<double>>& x,
                                                          const std::vector<GpuSpinorField<double>>& b) {
  solvers::RequireSupported(spec, GpuCapabilities(), /*clover=*/false);
  RequireGaugeFixing(spec, links);
  return WithWilsonOperators(spec, links, params, [&](const auto& m, const auto& schur, auto& low) {
    return solvers::SolveBlockWithSpec(spec, m, schur, low, x, b);
  });
}

solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuPartitionedLinks& links,
                                        const WilsonParams& params, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b) {
  solvers::RequireSupported(spec, GpuPartitionedCapabilities(), /*clover=*/false);
  RequireGaugeFixing(spec, links);
  RequirePartitionedSolve(links, x, b);
  return SolveWilson(spec, links, params, x, b);
}

std::vector<solvers::SolveResult> SolveBlockWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links,
                                                          GpuCloverTerms& clover, CloverSchurForm form,
                                                          std::vector<GpuSpinorField<double>>& x,
                                                          const std::vector<GpuSpinorField<double>>& b) {
  solvers::RequireSupported(spec, GpuCapabilities(), /*clover=*/true);
  RequireGaugeFixing(spec, links);
  return WithCloverOperators(spec, links, clover, form, [&](const auto& m, const auto& schur, auto& low) {
    return solvers::SolveBlockWithSpec(spec, m, schur, low, x, b);
  });
}

solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuGaugeLinks& links, GpuCloverTerms& clover,
                                        CloverSchurForm form, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b) {
  solvers::RequireSupported(spec, GpuCapabilities(), /*clover=*/true);
  RequireGaugeFixing(spec, links);
  return SolveClover(spec, links, clover, form, x, b);
}

solvers::SolveResult SolveWithSpecOnGpu(const solvers::SolverSpec& spec, GpuPartitionedLinks& links,
                                        GpuCloverTerms& clover, CloverSchurForm form, GpuSpinorField<double>& x,
                                        const GpuSpinorField<double>& b) {
  solvers::RequireSupported(spec, GpuPartitionedCapabilities(), /*clover=*/true);
  RequireGaugeFixing(spec, links);
  RequirePartitionedSolve(links, x, b);
  if (clover.host().params().boundary.condition != links.boundary().condition) {
    throw std::invalid_argument("SolveWithSpecOnGpu: the clover term has the fermion boundary " +
                                clover.host().params().boundary.ToString() + " but the partitioned links " +
                                links.boundary().ToString());
  }
  return SolveClover(spec, links, clover, form, x, b);
}

}  // namespace lqcd::gpu
