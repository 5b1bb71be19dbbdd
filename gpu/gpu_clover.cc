// gpu_clover.cc: the GPU Wilson-clover operators of gpu_clover.h: argument checks and the launches that make
// M, the Schur forms, the even-odd source and the reconstruction.
#include "gpu/gpu_clover.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "gpu/clover_apply.h"
#include "gpu/multi_rhs_dslash.h"
#include "solvers/block_operators.h"

namespace lqcd::gpu {
namespace {

std::shared_ptr<const DeviceGaugeField> RequireLinks(std::shared_ptr<const DeviceGaugeField> gauge,
                                                     const GpuCloverTerm& clover, Precision precision,
                                                     const std::string& who) {
  if (!gauge) throw std::invalid_argument(who + ": no gauge field");
  if (!clover.field) throw std::invalid_argument(who + ": no clover term");
  if (gauge->layout().precision != precision || clover.field->precision() != precision) {
    throw std::invalid_argument(who + ": the links are in " + ToString(gauge->layout().precision) +
                                " precision and the clover term in " + ToString(clover.field->precision()) +
                                ", but the operator works in " + ToString(precision));
  }
  if (clover.field->lattice() != gauge->lattice()) {
    throw std::invalid_argument(who + ": the clover term lives on " + clover.field->lattice().ToString() +
                                " but the links on " + gauge->lattice().ToString());
  }
  clover.params.kappa();  // validates the mass
  return gauge;
}

// RequireLinks for the partitioned Dslash's local links, and the clover term's boundary must be the Dslash's.
std::shared_ptr<const PartitionedWilsonDslash> RequirePartitioned(std::shared_ptr<const PartitionedWilsonDslash> dslash,
                                                                  const GpuCloverTerm& clover, Precision precision,
                                                                  const std::string& who) {
  if (!dslash) throw std::invalid_argument(who + ": no partitioned Dslash");
  RequireLinks(LinksOf(dslash), clover, precision, who + " (this rank's clover term and local links)");
  if (dslash->boundary().condition != clover.params.boundary.condition) {
    throw std::invalid_argument(who + ": the partitioned Dslash has the fermion boundary " +
                                dslash->boundary().ToString() + " but the clover term's parameters ask for " +
                                clover.params.boundary.ToString());
  }
  return dslash;
}

// A single-field clover epilogue for a block: the same kind, clover view and coefficients, x[j] per right-hand side.
CloverBlockEpilogue BlockEpilogue(const CloverEpilogue& e, std::vector<ConstSpinorView> x) {
  CloverBlockEpilogue b;
  b.kind = e.kind;
  b.clover = e.clover;
  b.x = std::move(x);
  b.a = e.a;
  b.b = e.b;
  return b;
}

}  // namespace

template <typename P>
GpuCloverTerm UploadClover(const CloverField<double>& host, int pad) {
  GpuCloverTerm term;
  term.field = std::make_shared<const DeviceCloverField>(host, CloverLayout{DevicePrecisionOf<P>::kValue, pad});
  term.params = host.params();
  term.norm_bound = std::max(std::fabs(host.min_eigenvalue()), std::fabs(host.max_eigenvalue()));
  return term;
}

// ---- GpuClover ----

template <typename P>
GpuClover<P>::GpuClover(std::shared_ptr<const DeviceGaugeField> gauge, GpuCloverTerm clover)
    : gauge_(RequireLinks(std::move(gauge), clover, DevicePrecisionOf<P>::kValue, "GpuClover")),
      clover_(std::move(clover)) {}

template <typename P>
GpuClover<P>::GpuClover(std::shared_ptr<const PartitionedWilsonDslash> dslash, GpuCloverTerm clover)
    : gauge_(LinksOf(RequirePartitioned(dslash, clover, DevicePrecisionOf<P>::kValue, "GpuClover"))),
      partitioned_(std::move(dslash)),
      clover_(std::move(clover)) {}

template <typename P>
std::string GpuClover<P>::Name() const {
  return "M_clover<" + LayoutName(*gauge_) + GridSuffix(partitioned_) + ">";
}

template <typename P>
void GpuClover<P>::Run(Field& out, const Field& in, Dagger dagger) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  RequireFullField(out, gauge_->lattice(), Name() + " (out)");
  RequireFullField(in, gauge_->lattice(), Name() + " (in)");
  // out_p = T_pp in_p - (1/2) D_{p,p'} in_{p'} (M^dag: D^dag; T is Hermitian), one fused launch per parity.
  for (Parity p : {Parity::kEven, Parity::kOdd}) {
    CloverEpilogue e;
    e.kind = DslashEpilogue::kCloverXpay;
    e.clover = clover_.field->View(p, /*inverse=*/false);
    e.x = in.device().View(p);
    e.a = 1.0;
    e.b = -0.5;
    ApplyCloverDslashOn(partitioned_.get(), *gauge_, out.device().View(p), in.device().View(Opposite(p)), dagger, e,
                 clover_.params.boundary);
  }
}

// ---- GpuCloverSchur ----

template <typename P>
GpuCloverSchur<P>::GpuCloverSchur(std::shared_ptr<const DeviceGaugeField> gauge, GpuCloverTerm clover,
                                  CloverSchurForm form, Parity parity)
    : gauge_(RequireLinks(std::move(gauge), clover, DevicePrecisionOf<P>::kValue, "GpuCloverSchur")),
      clover_(std::move(clover)),
      form_(form),
      parity_(parity) {}

template <typename P>
GpuCloverSchur<P>::GpuCloverSchur(std::shared_ptr<const PartitionedWilsonDslash> dslash, GpuCloverTerm clover,
                                  CloverSchurForm form, Parity parity)
    : gauge_(LinksOf(RequirePartitioned(dslash, clover, DevicePrecisionOf<P>::kValue, "GpuCloverSchur"))),
      partitioned_(std::move(dslash)),
      clover_(std::move(clover)),
      form_(form),
      parity_(parity) {}

template <typename P>
std::string GpuCloverSchur<P>::Name() const {
  const std::string which = form_ == CloverSchurForm::kComplement ? "S" : "Mhat";
  return which + (parity_ == Parity::kEven ? "_ee" : "_oo") + "_clover<" + LayoutName(*gauge_) + GridSuffix(partitioned_) +
         ">";
}

template <typename P>
KernelCost GpuCloverSchur<P>::BlockCost(int n, Dagger dagger) const {
  if (n < 1) throw std::invalid_argument(Name() + "::BlockCost: " + std::to_string(n) + " right-hand sides");
  const Lattice& lat = gauge_->lattice();
  const Extents extents{lat.extent(0), lat.extent(1), lat.extent(2), lat.extent(3)};
  // Partitioned, every right-hand side is its own application; on one GPU one multi-RHS call per Dslash
  // (WilsonDslashCost counts the links and the clover term once per launch of it).
  const int per_call = partitioned_ != nullptr ? 1 : n;
  const double calls = static_cast<double>(n) / per_call;
  KernelCost total;
  auto add = [&](const KernelCost& c, double times) {
    total.flops += times * c.flops;
    total.bytes += times * c.bytes;
    total.minimum_bytes += times * c.minimum_bytes;
  };
  auto dslash = [&](const DslashVariant& v) { add(WilsonDslashCost(v, extents, per_call), calls); };
  DslashVariant v;
  v.precision = DevicePrecisionOf<P>::kValue;
  v.reconstruct = gauge_->layout().reconstruct;
  v.temporal_gauge_fixed = gauge_->layout().temporal_gauge_fixed;
  v.dagger = dagger;
  if (form_ == CloverSchurForm::kUnitDiagonal && dagger == Dagger::kYes) {
    // s_j = T^{-1} in_j per right-hand side, t = T^{-1} D^dag s, out = in - (1/4) D^dag t.
    const CloverApplyKernelCost term = CloverApplyCost(v.precision, extents);
    add({term.flops, term.bytes, term.minimum_bytes}, n);
    v.clover_epilogue = DslashEpilogue::kClover;
    dslash(v);
    v.clover_epilogue = DslashEpilogue::kNone;
    v.xpay = true;
    dslash(v);
    return total;
  }
  v.clover_epilogue = DslashEpilogue::kClover;
  dslash(v);
  v.clover_epilogue = form_ == CloverSchurForm::kComplement ? DslashEpilogue::kCloverXpay : DslashEpilogue::kXpayClover;
  dslash(v);
  return total;
}

template <typename P>
void GpuCloverSchur<P>::RequireFull(const Field& f, const char* where) const {
  RequireFullField(f, gauge_->lattice(), Name() + "::" + where);
}

template <typename P>
void GpuCloverSchur<P>::RequireParity(const Field& f, const char* where) const {
  RequireParityField(f, gauge_->lattice(), parity_, Name() + "::" + where);
}

template <typename P>
DeviceSpinorField& GpuCloverSchur<P>::Scratch(std::unique_ptr<DeviceSpinorField>& slot, Subset subset) const {
  if (!slot) {
    slot = std::make_unique<DeviceSpinorField>(gauge_->lattice(), subset, DevicePrecisionOf<P>::kValue,
                                               gauge_->layout().pad);
  }
  return *slot;
}

template <typename P>
CloverEpilogue GpuCloverSchur<P>::FirstEpilogue() const {
  CloverEpilogue e;
  e.kind = DslashEpilogue::kClover;
  e.clover = clover_.field->View(Opposite(parity_), /*inverse=*/true);
  return e;
}

template <typename P>
CloverEpilogue GpuCloverSchur<P>::SecondEpilogue() const {
  CloverEpilogue e;
  e.a = 1.0;
  e.b = -0.25;
  if (form_ == CloverSchurForm::kComplement) {  // T_pp in - (1/4) D t
    e.kind = DslashEpilogue::kCloverXpay;
    e.clover = clover_.field->View(parity_, /*inverse=*/false);
  } else {  // in - (1/4) T_pp^{-1} D t
    e.kind = DslashEpilogue::kXpayClover;
    e.clover = clover_.field->View(parity_, /*inverse=*/true);
  }
  return e;
}

template <typename P>
double* GpuCloverSchur<P>::Partials(std::size_t rhs) const {
  const std::size_t bytes = sizeof(double) * 3 * static_cast<std::size_t>(DotNormGroups()) * rhs;
  if (!partials_ || partials_->bytes() < bytes) partials_ = std::make_unique<DeviceBuffer>(bytes);
  return static_cast<double*>(partials_->data());
}

template <typename P>
void GpuCloverSchur<P>::Run(Field& out, const Field& in, Dagger dagger) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  RequireParity(in, "Apply");
  RequireParity(out, "Apply");
  const Parity other = Opposite(parity_);
  const FermionBoundary& boundary = clover_.params.boundary;
  DeviceSpinorField& t = Scratch(other_parity_, SubsetOf(other));
  const CloverEpilogue inverse_other = FirstEpilogue();  // T_p'p'^{-1} D in (D^dag for the dagger)

  if (form_ == CloverSchurForm::kUnitDiagonal && dagger == Dagger::kYes) {
    // Mhat^dag in = in - (1/4) D^dag T_p'p'^{-1} D^dag T_pp^{-1} in
    DeviceSpinorField& s = Scratch(same_parity_, SubsetOf(parity_));
    ApplyCloverTerm(s.View(), *clover_.field, in.device().View(), /*inverse=*/true);
    ApplyCloverDslashOn(partitioned_.get(), *gauge_, t.View(), s.View(), dagger, inverse_other, boundary);
    ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, out.device().View(), t.View(), dagger, in.device().View(), 1.0, -0.25,
               boundary);
    return;
  }
  ApplyCloverDslashOn(partitioned_.get(), *gauge_, t.View(), in.device().View(), dagger, inverse_other, boundary);
  CloverEpilogue second = SecondEpilogue();
  second.x = in.device().View();
  ApplyCloverDslashOn(partitioned_.get(), *gauge_, out.device().View(), t.View(), dagger, second, boundary);
}

template <typename P>
blas::DeferredDotAndNorm GpuCloverSchur<P>::ApplyDotNorm(Field& out, const Field& in, const Field& w) const {
  if (&out == &in) throw std::invalid_argument(Name() + ": out and in must be different fields");
  if (&out == &w) throw std::invalid_argument(Name() + "::ApplyDotNorm: w must differ from out");
  RequireParity(in, "ApplyDotNorm");
  RequireParity(out, "ApplyDotNorm");
  RequireParity(w, "ApplyDotNorm");
  if (partitioned_ != nullptr || !fused_dot_products_) {
    Run(out, in, Dagger::kNo);
    return blas::DotNormDeferred(out.device(), w.device());
  }
  // Run's two launches, the sums in the second.
  const FermionBoundary& boundary = clover_.params.boundary;
  DeviceSpinorField& t = Scratch(other_parity_, SubsetOf(Opposite(parity_)));
  ApplyCloverDslash(t.View(), *gauge_, in.device().View(), Dagger::kNo, FirstEpilogue(), boundary);
  CloverEpilogue second = SecondEpilogue();
  second.x = in.device().View();
  double* partials = Partials(1);
  ApplyCloverDslashDotNorm(out.device().View(), *gauge_, t.View(), second, w.device().View(), partials, boundary);
  return blas::SumDotNormPartials(partials, DotNormGroups());
}

template <typename P>
DeviceReal GpuCloverSchur<P>::ApplyDaggerAxpyNorm(Field& r, const DeviceReal& c, const Field& in) const {
  if (&r == &in) throw std::invalid_argument(Name() + "::ApplyDaggerAxpyNorm: r and in must be different fields");
  RequireParity(in, "ApplyDaggerAxpyNorm");
  RequireParity(r, "ApplyDaggerAxpyNorm");
  if (partitioned_ != nullptr || !fused_dot_products_) {
    if (!dagger_scratch_) dagger_scratch_ = std::make_unique<Field>(NewField());
    Run(*dagger_scratch_, in, Dagger::kYes);
    return blas::AxpyNormDeferred(c, dagger_scratch_->device(), r.device());
  }
  // Run's dagger launches, the update in the last. The slot holding c must outlive the queueing of the kernel that
  // reads it (stream order does the rest).
  const std::shared_ptr<ScalarSlot> coefficient = blas::EvaluateIntoSlot(c);
  const FermionBoundary& boundary = clover_.params.boundary;
  DeviceSpinorField& t = Scratch(other_parity_, SubsetOf(Opposite(parity_)));
  double* partials = Partials(1);
  if (form_ == CloverSchurForm::kUnitDiagonal) {
    // Mhat^dag in = in - (1/4) D^dag T_p'p'^{-1} D^dag T_pp^{-1} in
    DeviceSpinorField& s = Scratch(same_parity_, SubsetOf(parity_));
    ApplyCloverTerm(s.View(), *clover_.field, in.device().View(), /*inverse=*/true);
    ApplyCloverDslash(t.View(), *gauge_, s.View(), Dagger::kYes, FirstEpilogue(), boundary);
    ApplyWilsonDslashDaggerXpayAxpyNorm(r.device().View(), *gauge_, t.View(), in.device().View(), 1.0, -0.25,
                                        coefficient->device(), partials, boundary);
  } else {
    ApplyCloverDslash(t.View(), *gauge_, in.device().View(), Dagger::kYes, FirstEpilogue(), boundary);
    CloverEpilogue second = SecondEpilogue();
    second.x = in.device().View();
    ApplyCloverDslashDaggerAxpyNorm(r.device().View(), *gauge_, t.View(), second, coefficient->device(), partials,
                                    boundary);
  }
  return blas::SumDotNormPartials(partials, DotNormGroups()).norm2;
}

template <typename P>
std::vector<SpinorView> GpuCloverSchur<P>::BlockScratch(std::vector<std::unique_ptr<DeviceSpinorField>>& slots,
                                                        std::size_t n, Subset subset) const {
  if (slots.size() < n) slots.resize(n);
  std::vector<SpinorView> views(n);
  for (std::size_t k = 0; k < n; ++k) views[k] = Scratch(slots[k], subset).View();
  return views;
}

template <typename P>
void GpuCloverSchur<P>::RunBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in,
                                 Dagger dagger) const {
  const char* where = dagger == Dagger::kNo ? "ApplyBlock" : "ApplyDaggerBlock";
  solvers::block_detail::CheckBlock(out, in, Name() + "::" + where);
  for (std::size_t k = 0; k < in.size(); ++k) {
    RequireParity(*in[k], where);
    RequireParity(*out[k], where);
  }
  if (partitioned_ != nullptr) {  // no partitioned multi-RHS kernel: one application per right-hand side
    for (std::size_t k = 0; k < in.size(); ++k) Run(*out[k], *in[k], dagger);
    return;
  }
  const std::size_t n = in.size();
  const Parity other = Opposite(parity_);
  const FermionBoundary& boundary = clover_.params.boundary;
  std::vector<SpinorView> out_views(n);
  std::vector<ConstSpinorView> in_views(n);
  for (std::size_t k = 0; k < n; ++k) {
    out_views[k] = out[k]->device().View();
    in_views[k] = in[k]->device().View();
  }
  const std::vector<SpinorView> t = BlockScratch(block_other_parity_, n, SubsetOf(other));
  const std::vector<ConstSpinorView> t_in(t.begin(), t.end());
  const CloverBlockEpilogue inverse_other = BlockEpilogue(FirstEpilogue(), {});  // t_j = T_p'p'^{-1} D in_j

  if (form_ == CloverSchurForm::kUnitDiagonal && dagger == Dagger::kYes) {
    // Mhat^dag in_j = in_j - (1/4) D^dag T_p'p'^{-1} D^dag T_pp^{-1} in_j
    const std::vector<SpinorView> s = BlockScratch(block_same_parity_, n, SubsetOf(parity_));
    for (std::size_t k = 0; k < n; ++k) ApplyCloverTerm(s[k], *clover_.field, in_views[k], /*inverse=*/true);
    ApplyCloverDslashBlock(t, *gauge_, std::vector<ConstSpinorView>(s.begin(), s.end()), dagger, inverse_other,
                           boundary);
    ApplyWilsonDslashXpayBlock(out_views, *gauge_, t_in, dagger, in_views, 1.0, -0.25, boundary);
    return;
  }
  ApplyCloverDslashBlock(t, *gauge_, in_views, dagger, inverse_other, boundary);
  ApplyCloverDslashBlock(out_views, *gauge_, t_in, dagger, BlockEpilogue(SecondEpilogue(), in_views), boundary);
}

template <typename P>
std::vector<blas::DeferredDotAndNorm> GpuCloverSchur<P>::ApplyDotNormBlock(const std::vector<Field*>& out,
                                                                           const std::vector<const Field*>& in,
                                                                           const std::vector<const Field*>& w) const {
  const DotNormBlockViews v =
      CheckedDotNormBlockViews(out, in, w, gauge_->lattice(), parity_, Name() + "::ApplyDotNormBlock");
  const std::size_t n = in.size();
  if (partitioned_ != nullptr || !fused_dot_products_) {
    RunBlock(out, in, Dagger::kNo);
    std::vector<blas::DeferredDotAndNorm> sums;
    for (std::size_t k = 0; k < n; ++k) sums.push_back(blas::DotNormDeferred(out[k]->device(), w[k]->device()));
    return sums;
  }
  // RunBlock's two multi-RHS launches, the sums in the second.
  const FermionBoundary& boundary = clover_.params.boundary;
  const std::vector<SpinorView> t = BlockScratch(block_other_parity_, n, SubsetOf(Opposite(parity_)));
  const std::vector<ConstSpinorView> t_in(t.begin(), t.end());
  ApplyCloverDslashBlock(t, *gauge_, v.in, Dagger::kNo, BlockEpilogue(FirstEpilogue(), {}), boundary);
  double* partials = Partials(n);
  ApplyCloverDslashDotNormBlock(v.out, *gauge_, t_in, BlockEpilogue(SecondEpilogue(), v.in), v.w, partials, boundary);
  return SumDotNormPartialsPerRhs(partials, DotNormGroups(), n);
}

template <typename P>
void GpuCloverSchur<P>::PrepareSource(Field& b_p, const Field& b_full) const {
  RequireFull(b_full, "PrepareSource");
  RequireParity(b_p, "PrepareSource");
  const Parity other = Opposite(parity_);
  DeviceSpinorField& s = Scratch(other_parity_, SubsetOf(other));
  // s = T_p'p'^{-1} b_p', then b'_p = b_p + (1/2) D_pp' s (unit diagonal: T_pp^{-1} of it, in place).
  ApplyCloverTerm(s.View(), *clover_.field, b_full.device().View(other), /*inverse=*/true);
  ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, b_p.device().View(), s.View(), Dagger::kNo, b_full.device().View(parity_),
             1.0, 0.5, clover_.params.boundary);
  if (form_ == CloverSchurForm::kUnitDiagonal) {
    ApplyCloverTerm(b_p.device().View(), *clover_.field, b_p.device().View(), /*inverse=*/true);
  }
}

template <typename P>
void GpuCloverSchur<P>::RestrictGuess(Field& x_p, const Field& x_full) const {
  RequireFull(x_full, "RestrictGuess");
  RequireParity(x_p, "RestrictGuess");
  blas::CopyParity(x_p.device().View(), x_full.device().View(parity_));
}

template <typename P>
void GpuCloverSchur<P>::Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const {
  RequireFull(b_full, "Reconstruct");
  RequireFull(x_full, "Reconstruct");
  RequireParity(x_p, "Reconstruct");
  if (&x_full == &b_full) throw std::invalid_argument(Name() + "::Reconstruct: x_full and b_full must differ");
  blas::CopyParity(x_full.device().View(parity_), x_p.device().View());
  // x_p' = T_p'p'^{-1} (b_p' + (1/2) D_p'p x_p): the xpay into x_full's p' block, then T^{-1} in place.
  const Parity other = Opposite(parity_);
  ApplyWilsonDslashXpayOn(partitioned_.get(), *gauge_, x_full.device().View(other), x_p.device().View(), Dagger::kNo,
             b_full.device().View(other), 1.0, 0.5, clover_.params.boundary);
  ApplyCloverTerm(x_full.device().View(other), *clover_.field, x_full.device().View(other), /*inverse=*/true);
}

template GpuCloverTerm UploadClover<double>(const CloverField<double>&, int);
template GpuCloverTerm UploadClover<float>(const CloverField<double>&, int);
template GpuCloverTerm UploadClover<solvers::Half>(const CloverField<double>&, int);
template class GpuClover<double>;
template class GpuClover<float>;
template class GpuClover<solvers::Half>;
template class GpuCloverSchur<double>;
template class GpuCloverSchur<float>;
template class GpuCloverSchur<solvers::Half>;

}  // namespace lqcd::gpu
