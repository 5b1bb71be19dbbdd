// gpu_backend.h: the solvers' backend interface (solvers/README.md) on the GPU, and the Wilson operators
// the solvers run on there. The algorithms of solvers/ (CG, BiCGstab, the drivers, reliable updates,
// defect correction) run on it unchanged.
//
// Host-only header (no CUDA types).
//
//   GpuBackend::Field<P> = GpuSpinorField<P>, P = double, float or solvers::Half: a DeviceSpinorField of
//       precision double, single or half (16-bit fixed point with a float norm per site). A new field is
//       zero. The fused vector operations are gpu/blas.h (double accumulation, deterministic reductions).
//   GpuWilson<P>       M = (4 + m) - D / 2 on the full lattice (and M^dag): per parity one Dslash launch
//                      with the xpay fused, out_p = (4 + m) in_p - (1/2) D_{p,p'} in_{p'}.
//   GpuWilsonSchur<P>  M_pp = 1 - kappa^2 D_{p,p'} D_{p',p} (and M_pp^dag) through DeviceSchurOperator, with
//                      the even-odd reduction done ON THE DEVICE:
//       PrepareSource  b'_p = 2 kappa b_p + 2 kappa^2 D_{p,p'} b_{p'}        one Dslash launch with xpay
//       RestrictGuess  x_p = parity-p block of x_full                        raw copy of the block
//       Reconstruct    x_full = (x_p on p, 2 kappa b_{p'} + kappa D_{p',p} x_p on p')   copy + one xpay Dslash
//       FullResidualPerSchurResidual() = 1 / (2 kappa)
// Operators in precision P keep their links in P (half: 16-bit fixed point, no norm) with the
// reconstruction (18, 12 or 8 reals) and temporal gauge fixing of their GpuOperatorLayout: the low
// precision operator of a mixed solve chooses them freely, since it represents the same matrix.
// Temporal gauge fixing needs links that ARE in temporal gauge (DeviceGaugeField checks and refuses
// others): fix the gauge on the host first (reference/gauge_transform.h TemporalGaugeFix) and give that
// field to both operators of the solve; the solution is then that of the gauge-fixed system.
//
// Domain decomposition (several ranks, one GPU each; docs in partitioned_dslash.h and gpu/comm/): GpuWilson
// and GpuWilsonSchur constructed on a std::shared_ptr<const PartitionedWilsonDslash> run every Dslash (the
// operator, PrepareSource, Reconstruct) through it. What changes:
//   - every field is this rank's LOCAL piece: the lattice of the dslash's local gauge field (gauge() is that
//     field), x_local site n is global site offset + n (gpu/comm/subdomain.h scatters and gathers host fields);
//   - each application exchanges faces with the neighbours: every rank must make the same calls together;
//   - the solvers' norms and dots are GLOBAL only once blas::SetReductionCommunicator (blas.h) is set to the
//     dslash's communicator (the operators do not set it: the reductions are the backend's, process-wide).
// The operator's result on this rank's sites is bit for bit the single-GPU operator's on the global lattice.
// The boundary is the dslash's; WilsonParams::boundary must equal it (checked). FlopsPerApply and Cost count
// the local sites. The single-GPU constructors behave exactly as before.
//
// Basis: the device holds spinors in the UKQCD basis and the operators act there (S M S with the basis
// change S of device_spinor_field.h, which is its own inverse). Host fields enter and leave through
// GpuSpinorField::Upload / Download with their own basis (the oracle's default DeGrand-Rossi); the
// operators ignore WilsonParams::basis. The boundary condition is WilsonParams::boundary.
//
// Aliasing: as the interface says: an operator's out must differ from in (throws); Reconstruct's x_full
// must differ from b_full. Operators keep scratch (the Schur temporary): not thread-safe. Everything is
// queued on the default stream; reductions (and downloads) wait for it.
#pragma once

#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "gpu/blas.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/precision.h"
#include "gpu/schur_operator.h"
#include "gpu/wilson_dslash.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/block_operators.h"
#include "solvers/precision.h"

namespace lqcd::gpu {

// The device precision of a solvers precision tag.
template <typename P>
struct DevicePrecisionOf;
template <>
struct DevicePrecisionOf<double> {
  static constexpr Precision kValue = Precision::kDouble;
};
template <>
struct DevicePrecisionOf<float> {
  static constexpr Precision kValue = Precision::kSingle;
};
template <>
struct DevicePrecisionOf<solvers::Half> {
  static constexpr Precision kValue = Precision::kHalf;
};

template <typename P>
class GpuSpinorField {
 public:
  using PrecisionTag = P;
  // A zero field on `subset` of `lattice` (pad: DeviceSpinorField's).
  GpuSpinorField(const Lattice& lattice, Subset subset, int pad = 0)
      : field_(lattice, subset, DevicePrecisionOf<P>::kValue, pad) {
    blas::Zero(field_);
  }

  const Lattice& lattice() const { return field_.lattice(); }
  Subset subset() const { return field_.subset(); }
  int sites() const { return field_.parities() * field_.lattice().half_volume(); }
  DeviceSpinorField& device() { return field_; }
  const DeviceSpinorField& device() const { return field_; }

  // Host <-> device; `basis` is the host field's (the device holds UKQCD).
  void Upload(const SpinorField<double>& host, GammaBasis basis = GammaBasis::kDeGrandRossi) {
    field_.Upload(host, basis);
  }
  SpinorField<double> Download(GammaBasis basis = GammaBasis::kDeGrandRossi) const { return field_.Download(basis); }
  void Download(SpinorField<double>& host, GammaBasis basis = GammaBasis::kDeGrandRossi) const {
    field_.Download(host, basis);
  }

 private:
  DeviceSpinorField field_;
};

struct GpuBackend {
  template <typename P>
  using Field = GpuSpinorField<P>;
  // Deferred scalars (solvers/README.md): values on the device that the next kernels read without the host.
  using RealScalar = DeviceReal;
  using ComplexScalar = DeviceComplex;
  static double HostValue(const DeviceReal& x) { return x.Host(); }
  static std::complex<double> HostValue(const DeviceComplex& z) { return z.Host(); }

  static const char* Name() { return "gpu"; }

  // ---- shape, creation, checks ----
  template <typename P, typename F>
  static Field<P> NewLike(const F& shape) {
    return Field<P>(shape.lattice(), shape.subset(), shape.device().pad());
  }
  template <typename A, typename B>
  static bool Compatible(const A& a, const B& b) {
    return a.lattice() == b.lattice() && a.subset() == b.subset();
  }
  template <typename A, typename B>
  static void RequireCompatible(const A& a, const B& b, const char* where) {
    if (!Compatible(a, b)) {
      throw std::invalid_argument(std::string(where) + ": fields differ (" + Describe(a) + " vs " + Describe(b) + ")");
    }
  }
  template <typename F>
  static std::string Describe(const F& x) {
    return blas::Describe(x.device());
  }
  template <typename F>
  static double Reals(const F& x) {
    return 24.0 * x.sites();
  }
  template <typename F>
  static bool AllFinite(const F& x) {
    return blas::AllFinite(x.device());
  }

  // ---- copies ----
  template <typename F>
  static void Zero(F& x) {
    blas::Zero(x.device());
  }
  template <typename P>
  static void Copy(Field<P>& y, const Field<P>& x) {
    blas::Copy(y.device(), x.device());
  }
  template <typename G, typename F>
  static void Convert(G& y, const F& x) {
    blas::Convert(y.device(), x.device());
  }

  // ---- reductions ----
  template <typename P>
  static double Norm2(const Field<P>& x) {
    return blas::Norm2(x.device());
  }
  template <typename P>
  static std::complex<double> Dot(const Field<P>& x, const Field<P>& y) {
    return blas::Dot(x.device(), y.device());
  }
  template <typename P>
  static double ReDot(const Field<P>& x, const Field<P>& y) {
    return blas::ReDot(x.device(), y.device());
  }
  using DotAndNorm = blas::DotAndNorm;
  template <typename P>
  static DotAndNorm DotNorm(const Field<P>& x, const Field<P>& y) {
    return blas::DotNorm(x.device(), y.device());
  }
  template <typename P>
  static DeviceReal DeferredNorm2(const Field<P>& x) {
    return blas::Norm2Deferred(x.device());
  }
  template <typename P>
  static DeviceReal DeferredReDot(const Field<P>& x, const Field<P>& y) {
    return blas::ReDotDeferred(x.device(), y.device());
  }
  template <typename P>
  static blas::DeferredDotAndNorm DeferredDotNorm(const Field<P>& x, const Field<P>& y) {
    return blas::DotNormDeferred(x.device(), y.device());
  }

  // ---- updates ----
  template <typename P>
  static void Axpy(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    blas::Axpy(a, x.device(), y.device());
  }
  template <typename P>
  static double AxpyNorm(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    return blas::AxpyNorm(a, x.device(), y.device());
  }
  template <typename P>
  static DeviceReal DeferredAxpyNorm(const DeviceReal& a, const Field<P>& x, Field<P>& y) {
    return blas::AxpyNormDeferred(a, x.device(), y.device());
  }
  template <typename P>
  static void Xpay(const Field<P>& x, const DeviceReal& a, Field<P>& y) {
    blas::Xpay(x.device(), a, y.device());
  }
  template <typename P>
  static void Caxpy(const DeviceComplex& a, const Field<P>& x, Field<P>& y) {
    blas::Caxpy(a, x.device(), y.device());
  }
  template <typename P>
  static double CaxpyNorm(const DeviceComplex& a, const Field<P>& x, Field<P>& y) {
    return blas::CaxpyNorm(a, x.device(), y.device());
  }
  template <typename P>
  static DeviceReal DeferredCaxpyNorm(const DeviceComplex& a, const Field<P>& x, Field<P>& y) {
    return blas::CaxpyNormDeferred(a, x.device(), y.device());
  }
  template <typename P>
  static double CgUpdate(const DeviceReal& alpha, const Field<P>& p, const Field<P>& q, Field<P>& x, Field<P>& r) {
    return blas::CgUpdate(alpha, p.device(), q.device(), x.device(), r.device());
  }
  template <typename P>
  static void CgSolutionDirection(const DeviceReal& alpha, const DeviceReal& beta, const Field<P>& r, Field<P>& x,
                                  Field<P>& p) {
    blas::CgSolutionDirection(alpha, beta, r.device(), x.device(), p.device());
  }
  template <typename P>
  static void BicgstabDirection(const Field<P>& r, const DeviceComplex& beta, const DeviceComplex& omega,
                                const Field<P>& v, Field<P>& p) {
    blas::BicgstabDirection(r.device(), beta, omega, v.device(), p.device());
  }
  using NormAndDot = blas::NormAndDot;
  template <typename P>
  static NormAndDot BicgstabUpdate(const DeviceComplex& alpha, const Field<P>& p, const DeviceComplex& omega,
                                   const Field<P>& t, Field<P>& x, Field<P>& r, const Field<P>& r0) {
    return blas::BicgstabUpdate(alpha, p.device(), omega, t.device(), x.device(), r.device(), r0.device());
  }
  template <typename P>
  static blas::DeferredNormAndDot BicgstabResidual(const DeviceComplex& omega, Field<P>& t, const Field<P>& s,
                                                   const Field<P>& r0) {
    return blas::BicgstabResidual(omega, t.device(), s.device(), r0.device());
  }
  template <typename P>
  static void BicgstabSolution(const DeviceComplex& alpha, const Field<P>& p, const DeviceComplex& omega,
                               const Field<P>& s, Field<P>& x) {
    blas::BicgstabSolution(alpha, p.device(), omega, s.device(), x.device());
  }
};

// The operators' shape checks: std::invalid_argument "<where>: needs a full-lattice field on L (got ...)" or
// "... a <parity>-parity field ...".
template <typename P>
void RequireFullField(const GpuSpinorField<P>& f, const Lattice& lattice, const std::string& where) {
  if (f.subset() != Subset::kFull || f.lattice() != lattice) {
    throw std::invalid_argument(where + ": needs a full-lattice field on " + lattice.ToString() + " (got " +
                                blas::Describe(f.device()) + ")");
  }
}
template <typename P>
void RequireParityField(const GpuSpinorField<P>& f, const Lattice& lattice, Parity parity, const std::string& where) {
  if (f.subset() != SubsetOf(parity) || f.lattice() != lattice) {
    throw std::invalid_argument(where + ": needs a " + ToString(SubsetOf(parity)) + "-parity field on " +
                                lattice.ToString() + " (got " + blas::Describe(f.device()) + ")");
  }
}

// The fields of a Schur operator's ApplyDotNormBlock (solvers/README.md) as views, after the checks both Schur
// operators make: out and in a block (solvers::block_detail::CheckBlock), one w per input, no w null or an output,
// every field on `parity` of `lattice` (RequireParityField); std::invalid_argument naming `where` otherwise.
struct DotNormBlockViews {
  std::vector<SpinorView> out;
  std::vector<ConstSpinorView> in, w;
};
template <typename P>
DotNormBlockViews CheckedDotNormBlockViews(const std::vector<GpuSpinorField<P>*>& out,
                                           const std::vector<const GpuSpinorField<P>*>& in,
                                           const std::vector<const GpuSpinorField<P>*>& w, const Lattice& lattice,
                                           Parity parity, const std::string& where) {
  solvers::block_detail::CheckBlock(out, in, where);
  if (w.size() != in.size()) {
    throw std::invalid_argument(where + ": " + std::to_string(w.size()) + " w fields for " + std::to_string(in.size()) +
                                " inputs");
  }
  DotNormBlockViews views;
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (w[k] == nullptr) throw std::invalid_argument(where + ": a null w");
    RequireParityField(*in[k], lattice, parity, where);
    RequireParityField(*out[k], lattice, parity, where);
    RequireParityField(*w[k], lattice, parity, where);
    for (const GpuSpinorField<P>* o : out) {
      if (w[k] == o) throw std::invalid_argument(where + ": a w is an output");
    }
    views.out.push_back(out[k]->device().View());
    views.in.push_back(in[k]->device().View());
    views.w.push_back(w[k]->device().View());
  }
  return views;
}

// Each right-hand side's (out, w) and |out|^2 from the partials of a fused block application (right-hand side k's
// `groups` x 3 doubles from partials + 3 k groups), each reduction queued before the next call can overwrite the
// partials (one stream).
inline std::vector<blas::DeferredDotAndNorm> SumDotNormPartialsPerRhs(const double* partials, int groups,
                                                                      std::size_t n) {
  std::vector<blas::DeferredDotAndNorm> sums;
  for (std::size_t k = 0; k < n; ++k) {
    sums.push_back(blas::SumDotNormPartials(partials + 3 * static_cast<std::size_t>(groups) * k, groups));
  }
  return sums;
}

// How an operator stores its links and pads its fields.
struct GpuOperatorLayout {
  Reconstruct reconstruct = Reconstruct::k18;
  bool temporal_gauge_fixed = false;
  int pad = 0;  // of the gauge field and of the fields NewField() makes
};

// The links of an operator in precision P: uploaded once, shareable between operators (e.g. GpuWilson and
// GpuWilsonSchur of one precision).
template <typename P>
std::shared_ptr<const DeviceGaugeField> UploadGauge(const GaugeField<double>& u, const GpuOperatorLayout& layout) {
  return std::make_shared<const DeviceGaugeField>(
      u, GaugeLayout{DevicePrecisionOf<P>::kValue, layout.reconstruct, layout.temporal_gauge_fixed, layout.pad});
}

// The partitioned Dslash of this rank in precision P on its LOCAL links `local_u` (gpu/comm/subdomain.h's
// ScatterGauge): uploads the links with `layout` and exchanges their ghosts (a collective: every rank calls
// it together). The returned pointer owns the links too, so it is all GpuWilson / GpuWilsonSchur need.
// `communicator` must outlive it. The faces travel by `transport` (partitioned_dslash.h).
template <typename P>
std::shared_ptr<const PartitionedWilsonDslash> UploadPartitioned(
    const GaugeField<double>& local_u, const GpuOperatorLayout& layout, comm::Communicator& communicator,
    const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime(),
    HaloTransport transport = HaloTransport::kHostStaged) {
  struct Owned {
    DeviceGaugeField gauge;
    PartitionedWilsonDslash dslash;
    Owned(const GaugeField<double>& u, const GaugeLayout& l, comm::Communicator& c, const FermionBoundary& b,
          HaloTransport t)
        : gauge(u, l), dslash(gauge, c, b, {false, false, false, false}, t) {}
  };
  const auto owned = std::make_shared<const Owned>(
      local_u, GaugeLayout{DevicePrecisionOf<P>::kValue, layout.reconstruct, layout.temporal_gauge_fixed, layout.pad},
      communicator, boundary, transport);
  return std::shared_ptr<const PartitionedWilsonDslash>(owned, &owned->dslash);
}

// "half/12/gf": precision, reconstruction, gauge fixing.
std::string LayoutName(const DeviceGaugeField& gauge);

// M = (4 + m) - D / 2 on the full lattice, in precision P.
template <typename P>
class GpuWilson {
 public:
  using Backend = GpuBackend;
  using Precision = P;
  using Field = GpuSpinorField<P>;

  GpuWilson(const GaugeField<double>& u, const WilsonParams& params, const GpuOperatorLayout& layout = {});
  // Shares links already on the device (their precision must be P's).
  GpuWilson(std::shared_ptr<const DeviceGaugeField> gauge, const WilsonParams& params);
  // On this rank's sites through the partitioned Dslash (see the file comment; its links in P's precision).
  GpuWilson(std::shared_ptr<const PartitionedWilsonDslash> dslash, const WilsonParams& params);

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(gauge_->lattice(), Subset::kFull, gauge_->layout().pad); }
  double FlopsPerApply() const { return (kDslashFlopsPerSite + kXpayFlopsPerSite) * gauge_->lattice().volume(); }
  std::string Name() const;
  const WilsonParams& params() const { return params_; }
  const DeviceGaugeField& gauge() const { return *gauge_; }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const;
  std::shared_ptr<const DeviceGaugeField> gauge_;
  std::shared_ptr<const PartitionedWilsonDslash> partitioned_;  // null: single GPU
  WilsonParams params_;
};

// M_pp = 1 - kappa^2 D_{p,p'} D_{p',p} on parity p, in precision P, with the even-odd reduction.
template <typename P>
class GpuWilsonSchur {
 public:
  using Backend = GpuBackend;
  using Precision = P;
  using Field = GpuSpinorField<P>;

  GpuWilsonSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity = Parity::kEven,
                 const GpuOperatorLayout& layout = {});
  GpuWilsonSchur(std::shared_ptr<const DeviceGaugeField> gauge, const WilsonParams& params,
                 Parity parity = Parity::kEven);
  // On this rank's sites through the partitioned Dslash (see the file comment; its links in P's precision).
  GpuWilsonSchur(std::shared_ptr<const PartitionedWilsonDslash> dslash, const WilsonParams& params,
                 Parity parity = Parity::kEven);

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  // out = M_pp in, and (out, w), |out|^2 of the stored out as deferred scalars (solvers/README.md, the
  // optional ApplyDotNorm): on one GPU the dot products are fused into the second Dslash (per-warp partial
  // sums, then one fixed-order reduction), saving the two field reads of a separate DotNorm; on a partitioned
  // Dslash (or after set_fused_dot_products(false)) Apply then blas::DotNormDeferred, which sums in another
  // order (different roundings, same bound). w must differ from out.
  blas::DeferredDotAndNorm ApplyDotNorm(Field& out, const Field& in, const Field& w) const;
  // r = r + c M_pp^dag in, returning |r|^2 of the stored r as a deferred scalar (solvers/README.md, the optional
  // ApplyDaggerAxpyNorm: with ApplyDotNorm it gives NormalOperator its fused CG step): on one GPU the update is
  // fused into M^dag's second Dslash (M^dag in is never stored: two field passes instead of a store and a
  // separate AxpyNorm's three); partitioned (or after set_fused_dot_products(false)) ApplyDagger into a scratch
  // field, then blas::AxpyNormDeferred. r must differ from in.
  DeviceReal ApplyDaggerAxpyNorm(Field& r, const DeviceReal& c, const Field& in) const;
  void set_fused_dot_products(bool fused) { fused_dot_products_ = fused; }
  // The block operator of solvers/block_operators.h (block CG / BiCGstab): out[k] = M_pp in[k] (or M_pp^dag)
  // for all k in two multi-RHS Dslash calls (DeviceSchurOperator::ApplyBlock: the links read once per site for
  // every right-hand side), each out[k] within Apply's error bound. BytesPerApply(n): the model bytes of one such
  // application to n fields (wilson_dslash.h's multi-RHS model).
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    RunBlock(out, in, Dagger::kNo);
  }
  void ApplyDaggerBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    RunBlock(out, in, Dagger::kYes);
  }
  // The block form of ApplyDotNorm (solvers/README.md, the optional ApplyDotNormBlock): out[k] = M_pp in[k] and
  // (out[k], w[k]), |out[k]|^2 of the stored out[k] for every k, the sums fused into the second multi-RHS Dslash
  // (DeviceSchurOperator::ApplyDotNormBlock) and each right-hand side's partials added by one fixed-order reduction;
  // partitioned (or after set_fused_dot_products(false)) ApplyBlock then blas::DotNormDeferred of each. w[k] must
  // be no out[j].
  std::vector<blas::DeferredDotAndNorm> ApplyDotNormBlock(const std::vector<Field*>& out,
                                                          const std::vector<const Field*>& in,
                                                          const std::vector<const Field*>& w) const;
  double BytesPerApply(int n) const { return op_.BlockCost(DevicePrecisionOf<P>::kValue, n).bytes; }
  Field NewField() const { return Field(gauge_->lattice(), SubsetOf(parity_), gauge_->layout().pad); }
  double FlopsPerApply() const {
    return (2 * kDslashFlopsPerSite + kXpayFlopsPerSite) * gauge_->lattice().half_volume();
  }
  std::string Name() const;
  Parity parity() const { return parity_; }
  const WilsonParams& params() const { return params_; }
  const DeviceGaugeField& gauge() const { return *gauge_; }
  // Flops and the Dslash byte model of one Apply (wilson_dslash.h).
  KernelCost Cost() const { return op_.Cost(DevicePrecisionOf<P>::kValue); }

  void PrepareSource(Field& b_p, const Field& b_full) const;
  void RestrictGuess(Field& x_p, const Field& x_full) const;
  void Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const;
  double FullResidualPerSchurResidual() const { return 1.0 / (2.0 * params_.kappa()); }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const;
  void RunBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in, Dagger dagger) const;
  void RequireFull(const Field& f, const char* where) const;
  void RequireParity(const Field& f, const char* where) const;
  std::shared_ptr<const DeviceGaugeField> gauge_;
  std::shared_ptr<const PartitionedWilsonDslash> partitioned_;  // null: single GPU
  WilsonParams params_;
  Parity parity_;
  DeviceSchurOperator op_;
  bool fused_dot_products_ = true;
  mutable std::unique_ptr<Field> dagger_scratch_;  // ApplyDaggerAxpyNorm's M^dag in when not fused
};

}  // namespace lqcd::gpu
