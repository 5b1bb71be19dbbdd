// gpu_backend.cc: the GPU Wilson operators of gpu_backend.h (argument checks, and the Dslash launches that
// make M, the even-odd source and the reconstruction).
#include "gpu/gpu_backend.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/block_operators.h"

namespace lqcd::gpu {
namespace {

std::shared_ptr<const DeviceGaugeField> RequirePrecision(std::shared_ptr<const DeviceGaugeField> gauge,
                                                         Precision precision, const char* who) {
  if (!gauge) throw std::invalid_argument(std::string(who) + ": no gauge field");
  if (gauge->layout().precision != precision) {
    throw std::invalid_argument(std::string(who) + ": the links are in " + ToString(gauge->layout().precision) +
                                " precision but the operator works in " + ToString(precision));
  }
  return gauge;
}

std::shared_ptr<const PartitionedWilsonDslash> RequirePartitioned(std::shared_ptr<const PartitionedWilsonDslash> dslash,
                                                                  const WilsonParams& params, Precision precision,
                                                                  const char* who) {
  if (!dslash) throw std::invalid_argument(std::string(who) + ": no partitioned Dslash");
  RequirePrecision(LinksOf(dslash), precision, who);
  if (dslash->boundary().condition != params.boundary.condition) {
    throw std::invalid_argument(std::string(who) + ": the partitioned Dslash has the fermion boundary " +
                                dslash->boundary().ToString() + " but the parameters ask for " +
                                params.boundary.ToString());
  }
  return dslash;
}

template <typename P>
const char* TagName() {
  return solvers::PrecisionTraits<P>::kName;
}

}  // namespace

std::string LayoutName(const DeviceGaugeField& gauge) {
  const GaugeLayout& l = gauge.layout();
  return std::string(ToString(l.precision)) + "/" + ToString(l.reconstruct) + (l.temporal_gauge_fixed ? "/gf" : "");
}

// ---- GpuWilson ----

template <typename P>
GpuWilson<P>::GpuWilson(const GaugeField<double>& u, const WilsonParams& params, const GpuOperatorLayout& layout)
    : GpuWilson(UploadGauge<P>(u, layout), params) {}

template <typename P>
GpuWilson<P>::GpuWilson(std::shared_ptr<const DeviceGaugeField> gauge, const WilsonParams& params)
    : gauge_(RequirePrecision(std::move(gauge), DevicePrecisionOf<P>::kValue, "GpuWilson")), params_(params) {
  params_.kappa();  // validates the mass
}

template <typename P>
GpuWilson<P>::GpuWilson(std::shared_ptr<const PartitionedWilsonDslash> dslash, const WilsonParams& params)
    : partitioned_(RequirePartitioned(std::move(dslash), params, DevicePrecisionOf<P>::kValue, "GpuWilson")),
      params_(params) {
  gauge_ = LinksOf(partitioned_);
  params_.kappa();  // validates the mass
}

template <typename P>
std::string GpuWilson<P>::Name() const {
  return "M<" + LayoutName(*gauge_) + GridSuffix(partitioned_) + ">";
}

template <typename P>
void GpuWilson<P>::Run(Field& out, const Field& in, Dagger dagger) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  if (out.subset() != Subset::kFull || in.subset() != Subset::kFull || out.lattice() != gauge_->lattice() ||
      in.lattice() != gauge_->lattice()) {
    throw std::invalid_argument(Name() + ": needs full-lattice fields on " + gauge_->lattice().ToString() + " (got " +
                                blas::Describe(out.device()) + " and " + blas::Describe(in.device()) + ")");
  }
  // out_p = (4 + m) in_p - (1/2) D_{p,p'} in_{p'}, one fused launch per parity.
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, out.device().View(p), in.device().View(Opposite(p)), dagger,
                            in.device().View(p), 4.0 + params_.mass, -0.5, params_.boundary);
  }
}

// ---- GpuWilsonSchur ----

template <typename P>
GpuWilsonSchur<P>::GpuWilsonSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity,
                                  const GpuOperatorLayout& layout)
    : GpuWilsonSchur(UploadGauge<P>(u, layout), params, parity) {}

template <typename P>
GpuWilsonSchur<P>::GpuWilsonSchur(std::shared_ptr<const DeviceGaugeField> gauge, const WilsonParams& params,
                                  Parity parity)
    : gauge_(RequirePrecision(std::move(gauge), DevicePrecisionOf<P>::kValue, "GpuWilsonSchur")),
      params_(params),
      parity_(parity),
      op_(*gauge_, params.kappa(), parity, params.boundary) {}

template <typename P>
GpuWilsonSchur<P>::GpuWilsonSchur(std::shared_ptr<const PartitionedWilsonDslash> dslash, const WilsonParams& params,
                                  Parity parity)
    : gauge_(LinksOf(RequirePartitioned(dslash, params, DevicePrecisionOf<P>::kValue, "GpuWilsonSchur"))),
      partitioned_(std::move(dslash)),
      params_(params),
      parity_(parity),
      op_(*partitioned_, params.kappa(), parity) {}

template <typename P>
std::string GpuWilsonSchur<P>::Name() const {
  return std::string(parity_ == Parity::kEven ? "M_ee<" : "M_oo<") + LayoutName(*gauge_) + GridSuffix(partitioned_) +
         ">";
}

template <typename P>
void GpuWilsonSchur<P>::RequireFull(const Field& f, const char* where) const {
  RequireFullField(f, gauge_->lattice(), Name() + "::" + where);
}

template <typename P>
void GpuWilsonSchur<P>::RequireParity(const Field& f, const char* where) const {
  RequireParityField(f, gauge_->lattice(), parity_, Name() + "::" + where);
}

template <typename P>
void GpuWilsonSchur<P>::Run(Field& out, const Field& in, Dagger dagger) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  RequireParity(in, "Apply");
  RequireParity(out, "Apply");
  op_.Apply(out.device().View(), in.device().View(), dagger);
}

template <typename P>
void GpuWilsonSchur<P>::RunBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in,
                                 Dagger dagger) const {
  solvers::block_detail::CheckBlock(out, in, Name() + "::ApplyBlock");
  std::vector<SpinorView> out_views;
  std::vector<ConstSpinorView> in_views;
  for (std::size_t k = 0; k < in.size(); ++k) {
    RequireParity(*in[k], "ApplyBlock");
    RequireParity(*out[k], "ApplyBlock");
    out_views.push_back(out[k]->device().View());
    in_views.push_back(in[k]->device().View());
  }
  op_.ApplyBlock(out_views, in_views, dagger);
}

template <typename P>
std::vector<blas::DeferredDotAndNorm> GpuWilsonSchur<P>::ApplyDotNormBlock(const std::vector<Field*>& out,
                                                                           const std::vector<const Field*>& in,
                                                                           const std::vector<const Field*>& w) const {
  const DotNormBlockViews v =
      CheckedDotNormBlockViews(out, in, w, gauge_->lattice(), parity_, Name() + "::ApplyDotNormBlock");
  if (partitioned_ != nullptr || !fused_dot_products_) {
    op_.ApplyBlock(v.out, v.in, Dagger::kNo);
    std::vector<blas::DeferredDotAndNorm> sums;
    for (std::size_t k = 0; k < in.size(); ++k) sums.push_back(blas::DotNormDeferred(out[k]->device(), w[k]->device()));
    return sums;
  }
  return SumDotNormPartialsPerRhs(op_.ApplyDotNormBlock(v.out, v.in, v.w), op_.DotNormGroups(), in.size());
}

template <typename P>
blas::DeferredDotAndNorm GpuWilsonSchur<P>::ApplyDotNorm(Field& out, const Field& in, const Field& w) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  if (&out == &w) throw std::invalid_argument(Name() + "::ApplyDotNorm: w must differ from out");
  RequireParity(in, "ApplyDotNorm");
  RequireParity(out, "ApplyDotNorm");
  RequireParity(w, "ApplyDotNorm");
  if (partitioned_ != nullptr || !fused_dot_products_) {
    op_.Apply(out.device().View(), in.device().View(), Dagger::kNo);
    return blas::DotNormDeferred(out.device(), w.device());
  }
  const double* partials = op_.ApplyDotNorm(out.device().View(), in.device().View(), w.device().View());
  return blas::SumDotNormPartials(partials, op_.DotNormGroups());
}

template <typename P>
DeviceReal GpuWilsonSchur<P>::ApplyDaggerAxpyNorm(Field& r, const DeviceReal& c, const Field& in) const {
  if (&r == &in) throw std::invalid_argument(Name() + "::ApplyDaggerAxpyNorm: r and in must be different fields");
  RequireParity(in, "ApplyDaggerAxpyNorm");
  RequireParity(r, "ApplyDaggerAxpyNorm");
  if (partitioned_ != nullptr || !fused_dot_products_) {
    if (!dagger_scratch_) dagger_scratch_ = std::make_unique<Field>(NewField());
    op_.Apply(dagger_scratch_->device().View(), in.device().View(), Dagger::kYes);
    return blas::AxpyNormDeferred(c, dagger_scratch_->device(), r.device());
  }
  // The slot holding c must outlive the queueing of the kernel that reads it (stream order does the rest).
  const std::shared_ptr<ScalarSlot> coefficient = blas::EvaluateIntoSlot(c);
  const double* partials = op_.ApplyDaggerAxpyNorm(r.device().View(), in.device().View(), coefficient->device());
  return blas::SumDotNormPartials(partials, op_.DotNormGroups()).norm2;
}

template <typename P>
void GpuWilsonSchur<P>::PrepareSource(Field& b_p, const Field& b_full) const {
  RequireFull(b_full, "PrepareSource");
  RequireParity(b_p, "PrepareSource");
  const double kappa = params_.kappa();
  // b'_p = 2 kappa b_p + 2 kappa^2 D_{p,p'} b_{p'}
  ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, b_p.device().View(), b_full.device().View(Opposite(parity_)),
                          Dagger::kNo, b_full.device().View(parity_), 2 * kappa, 2 * kappa * kappa, params_.boundary);
}

template <typename P>
void GpuWilsonSchur<P>::RestrictGuess(Field& x_p, const Field& x_full) const {
  RequireFull(x_full, "RestrictGuess");
  RequireParity(x_p, "RestrictGuess");
  blas::CopyParity(x_p.device().View(), x_full.device().View(parity_));
}

template <typename P>
void GpuWilsonSchur<P>::Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const {
  RequireFull(b_full, "Reconstruct");
  RequireFull(x_full, "Reconstruct");
  RequireParity(x_p, "Reconstruct");
  if (&x_full == &b_full) throw std::invalid_argument(Name() + "::Reconstruct: x_full and b_full must differ");
  const double kappa = params_.kappa();
  blas::CopyParity(x_full.device().View(parity_), x_p.device().View());
  // x_{p'} = 2 kappa b_{p'} + kappa D_{p',p} x_p
  const Parity other = Opposite(parity_);
  ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, x_full.device().View(other), x_p.device().View(), Dagger::kNo,
                          b_full.device().View(other), 2 * kappa, kappa, params_.boundary);
}

template class GpuWilson<double>;
template class GpuWilson<float>;
template class GpuWilson<solvers::Half>;
template class GpuWilsonSchur<double>;
template class GpuWilsonSchur<float>;
template class GpuWilsonSchur<solvers::Half>;

}  // namespace lqcd::gpu
