// gpu_clover.h: the Wilson-clover operators on the GPU, as solver operators (solvers/README.md, "Operator"),
// beside gpu_backend.h's Wilson ones: every solver of solvers/ runs on them unchanged, mixed precision included.
// The same matrices as solvers/cpu_clover.h and reference/clover.h (m-normalisation), in the device's UKQCD basis:
//
//   GpuClover<P>        M = T - D/2 on the full lattice, T(n) = (4 + m) + A(n):
//                       per parity one launch, out_p = T_pp in_p - (1/2) D_{p,p'} in_{p'}   (clover-xpay epilogue)
//   GpuCloverSchur<P>   one of the two even-odd forms on parity p:
//     kComplement    S_pp    = T_pp - (1/4) D_pp' T_p'p'^{-1} D_p'p
//                    t = T^{-1} D in (clover epilogue), out = T in - (1/4) D t (clover-xpay): 2 launches;
//                    S^dag the same with D^dag.
//     kUnitDiagonal  Mhat_pp = 1 - (1/4) T_pp^{-1} D_pp' T_p'p'^{-1} D_p'p
//                    t = T^{-1} D in, out = in - (1/4) T^{-1} D t (xpay-clover): 2 launches;
//                    Mhat^dag = 1 - (1/4) D^dag T^{-1} D^dag T^{-1}: s = T^{-1} in (clover term), then the two
//                    launches with D^dag, the last a plain xpay: 3 launches.
//     Both forms move the same bytes per application (two Dslashes, one x, two 72-real clover terms);
//     kComplement is the default because its dagger needs no third launch and its full residual equals the
//     Schur residual (FullResidualPerSchurResidual() = 1, as on the CPU).
//     ApplyBlock / ApplyDaggerBlock (a block operator of solvers/block_operators.h, so the block solvers run on
//     it): the same launches for n right-hand sides, each Dslash one multi-RHS call (multi_rhs_dslash.h's
//     ApplyCloverDslashBlock / ApplyWilsonDslashXpayBlock: the links and the clover term read once per site for
//     all of them); the unit-diagonal dagger's s_j = T^{-1} in_j stays one clover-term launch per right-hand side
//     (no links to share). Each out_j is within Apply's error bound (bits may differ, multi_rhs_dslash.h).
//     On a partitioned Dslash: Apply / ApplyDagger per right-hand side (no multi-RHS partitioned kernel).
//     The solvers' fused forms (solvers/README.md), as GpuWilsonSchur has them: ApplyDotNorm / ApplyDotNormBlock
//     sum BiCGstab's dot products in the second Dslash's epilogue, ApplyDaggerAxpyNorm does CG's residual update
//     in the last dagger Dslash; on a partitioned Dslash (or after set_fused_dot_products(false)) the separate
//     reductions.
//     PrepareSource  b'_p = b_p + (1/2) D_pp' T_p'p'^{-1} b_p'   (then T_pp^{-1} of it for kUnitDiagonal)
//     Reconstruct    x_p' = T_p'p'^{-1} (b_p' + (1/2) D_p'p x_p)
//     FullResidualPerSchurResidual()  1 (kComplement), max_n ||T(n)||_2 (kUnitDiagonal; an upper bound)
//
// The clover term comes from the oracle: UploadClover<P> stores the host CloverField<double>'s T and T^{-1}
// (reference/clover.h, built in double from the links) in precision P (gpu/device_clover_field.h); the links
// and the clover term of one operator share its precision, and a clover term must be built from the links it
// is used with (gauge fixed links need the gauge-fixed clover term: T(n) -> G(n) T(n) G(n)^dag).
// Domain decomposition (gpu_backend.h's file comment says what changes for the solvers): GpuClover and
// GpuCloverSchur constructed on a std::shared_ptr<const PartitionedWilsonDslash> run every Dslash (the
// operator, PrepareSource, Reconstruct) through its ApplyClover / ApplyXpay, and the clover term alone (no
// hop, so no exchange) through ApplyCloverTerm on the local field. The clover term must then be THIS RANK's
// piece on the dslash's local lattice: build the CloverField on the GLOBAL links (T(n) needs the links around
// n, which reach the neighbouring ranks) and scatter it (gpu/comm/subdomain.h ScatterClover), which keeps the
// global spectral bounds, so FullResidualPerSchurResidual() is the same on every rank. The result on this
// rank's sites is bit for bit the single-GPU operator's on the global lattice. The fermion boundary is the
// dslash's; the clover term's CloverParams::boundary must equal it (checked).
// Flops (reference/clover.h): M 1872 per site, a Schur form 3696 per site of parity p (local sites when
// partitioned).
// Errors: std::invalid_argument for fields of another lattice or subset, out = in, a precision mismatch;
// CudaError from the device. Not thread-safe (operators keep scratch fields); everything is queued on the
// default stream.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/device_clover_field.h"
#include "gpu/device_gauge_field.h"
#include "gpu/gpu_backend.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"

namespace lqcd::gpu {

// The clover term of one configuration on the device in one precision, with what the operators need of the
// host field: its parameters (mass, boundary) and max_n ||T(n)||_2.
struct GpuCloverTerm {
  std::shared_ptr<const DeviceCloverField> field;
  CloverParams params;
  double norm_bound = 0;  // max |eigenvalue of T(n)| over all sites
};

// T and T^{-1} of `host` in precision P (pad: of the clover sub-arrays, as the operators' fields).
template <typename P>
GpuCloverTerm UploadClover(const CloverField<double>& host, int pad = 0);

// M = T - D/2 on the full lattice, in precision P.
template <typename P>
class GpuClover {
 public:
  using Backend = GpuBackend;
  using Precision = P;
  using Field = GpuSpinorField<P>;

  // Links and clover term in P's precision, on one lattice.
  GpuClover(std::shared_ptr<const DeviceGaugeField> gauge, GpuCloverTerm clover);
  // On this rank's sites through the partitioned Dslash (file comment): its links and `clover` (this rank's
  // piece) in P's precision.
  GpuClover(std::shared_ptr<const PartitionedWilsonDslash> dslash, GpuCloverTerm clover);

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(gauge_->lattice(), Subset::kFull, gauge_->layout().pad); }
  double FlopsPerApply() const { return kWilsonCloverFlopsPerSite * gauge_->lattice().volume(); }
  std::string Name() const;
  const CloverParams& params() const { return clover_.params; }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const;
  std::shared_ptr<const DeviceGaugeField> gauge_;
  std::shared_ptr<const PartitionedWilsonDslash> partitioned_;  // null: single GPU
  GpuCloverTerm clover_;
};

// A Schur form of the clover matrix on parity p (file comment), with the even-odd reduction of M x = b.
template <typename P>
class GpuCloverSchur {
 public:
  using Backend = GpuBackend;
  using Precision = P;
  using Field = GpuSpinorField<P>;

  GpuCloverSchur(std::shared_ptr<const DeviceGaugeField> gauge, GpuCloverTerm clover, CloverSchurForm form,
                 Parity parity = Parity::kEven);
  // On this rank's sites through the partitioned Dslash (file comment).
  GpuCloverSchur(std::shared_ptr<const PartitionedWilsonDslash> dslash, GpuCloverTerm clover, CloverSchurForm form,
                 Parity parity = Parity::kEven);

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(gauge_->lattice(), SubsetOf(parity_), gauge_->layout().pad); }
  double FlopsPerApply() const { return kCloverSchurFlopsPerSite * gauge_->lattice().half_volume(); }
  std::string Name() const;
  Parity parity() const { return parity_; }
  CloverSchurForm form() const { return form_; }
  const CloverParams& params() const { return clover_.params; }
  // The block operator (file comment): out[k] = A in[k] (A^dag in[k]) for every k; out and in of equal length,
  // every field on the operator's parity, no out[k] aliasing an input, the out[k] distinct.
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    RunBlock(out, in, Dagger::kNo);
  }
  void ApplyDaggerBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    RunBlock(out, in, Dagger::kYes);
  }
  // out = A in and (out, w), |out|^2 of the stored out as deferred scalars (solvers/README.md, the optional
  // ApplyDotNorm; A the operator's form, not its dagger): on one GPU the sums are fused into the second Dslash
  // (wilson_dslash.h, ApplyCloverDslashDotNorm: per-warp partial sums, then one fixed-order reduction), saving the
  // two field reads of a separate DotNorm; out is Apply's bit for bit. Partitioned (or after
  // set_fused_dot_products(false)): Apply, then blas::DotNormDeferred (another summation order, the same bound).
  // w must differ from out.
  blas::DeferredDotAndNorm ApplyDotNorm(Field& out, const Field& in, const Field& w) const;
  // The block form (solvers/README.md, the optional ApplyDotNormBlock): out[k] = A in[k] with (out[k], w[k]),
  // |out[k]|^2 for every k, the sums fused into the second multi-RHS Dslash (multi_rhs_dslash.h,
  // ApplyCloverDslashDotNormBlock) and each right-hand side's partials added by one fixed-order reduction; each
  // out[k] is ApplyBlock's bit for bit when the two calls take the same mapping. Partitioned (or after
  // set_fused_dot_products(false)) ApplyBlock, then blas::DotNormDeferred of each. No w[k] may be an out[j].
  std::vector<blas::DeferredDotAndNorm> ApplyDotNormBlock(const std::vector<Field*>& out,
                                                          const std::vector<const Field*>& in,
                                                          const std::vector<const Field*>& w) const;
  // r = r + c A^dag in, returning |r|^2 of the stored r as a deferred scalar (solvers/README.md, the optional
  // ApplyDaggerAxpyNorm: with ApplyDotNorm it gives NormalOperator its fused CG step): on one GPU the update is
  // fused into the last dagger Dslash (kComplement: ApplyCloverDslashDaggerAxpyNorm; kUnitDiagonal, whose dagger
  // ends in a plain xpay: ApplyWilsonDslashDaggerXpayAxpyNorm), A^dag in never stored. Partitioned (or after
  // set_fused_dot_products(false)): ApplyDagger into a scratch field, then blas::AxpyNormDeferred. r must differ
  // from in.
  DeviceReal ApplyDaggerAxpyNorm(Field& r, const DeviceReal& c, const Field& in) const;
  // Switches the fused forms (ApplyDotNorm, ApplyDotNormBlock, ApplyDaggerAxpyNorm) off or on again: benchmarks
  // measure both ways in one run.
  void set_fused_dot_products(bool fused) { fused_dot_products_ = fused; }
  // Groups of kDotNormGroup sites whose partial sums the fused forms add up per right-hand side.
  int DotNormGroups() const { return (gauge_->lattice().half_volume() + kDotNormGroup - 1) / kDotNormGroup; }
  // Flops and the byte model of one ApplyBlock (dagger: ApplyDaggerBlock) on n right-hand sides (wilson_dslash.h's
  // model, clover epilogues included): on one GPU each multi-RHS launch (at most kMaxRhsPerLaunch right-hand
  // sides) reads the links and the clover term once and the spinors per right-hand side, the unit-diagonal
  // dagger adds n clover-term launches (clover_apply.h); partitioned, n single applications.
  KernelCost BlockCost(int n, Dagger dagger = Dagger::kNo) const;
  double BytesPerApply(int n) const { return BlockCost(n).bytes; }
  // Flops and the byte model of one Apply.
  KernelCost Cost() const { return BlockCost(1); }

  void PrepareSource(Field& b_p, const Field& b_full) const;
  void RestrictGuess(Field& x_p, const Field& x_full) const;
  void Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const;
  double FullResidualPerSchurResidual() const {
    return form_ == CloverSchurForm::kComplement ? 1.0 : clover_.norm_bound;
  }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const;
  void RunBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in, Dagger dagger) const;
  void RequireFull(const Field& f, const char* where) const;
  void RequireParity(const Field& f, const char* where) const;
  // The epilogues of the two Dslash launches of A (and of A^dag for kComplement; the launch says D or D^dag): the
  // first t = T_p'p'^{-1} D in, the second without its x (= in) T_pp x - D t / 4 (kComplement) or
  // x - T_pp^{-1} D t / 4 (kUnitDiagonal).
  CloverEpilogue FirstEpilogue() const;
  CloverEpilogue SecondEpilogue() const;
  // Device memory for rhs x DotNormGroups() x 3 partial sums, kept across calls.
  double* Partials(std::size_t rhs) const;
  // A field of this operator's precision and padding on `subset`, kept across calls.
  DeviceSpinorField& Scratch(std::unique_ptr<DeviceSpinorField>& slot, Subset subset) const;
  // Views of the first n fields of a block of such fields, grown to n as needed and kept across calls.
  std::vector<SpinorView> BlockScratch(std::vector<std::unique_ptr<DeviceSpinorField>>& slots, std::size_t n,
                                       Subset subset) const;
  std::shared_ptr<const DeviceGaugeField> gauge_;
  std::shared_ptr<const PartitionedWilsonDslash> partitioned_;  // null: single GPU
  GpuCloverTerm clover_;
  CloverSchurForm form_;
  Parity parity_;
  mutable std::unique_ptr<DeviceSpinorField> other_parity_;  // t = T^{-1} D in (parity p')
  mutable std::unique_ptr<DeviceSpinorField> same_parity_;   // s = T^{-1} in (the unit-diagonal dagger)
  mutable std::vector<std::unique_ptr<DeviceSpinorField>> block_other_parity_;  // ApplyBlock's t_j
  mutable std::vector<std::unique_ptr<DeviceSpinorField>> block_same_parity_;   // its s_j (unit-diagonal dagger)
  mutable std::unique_ptr<DeviceBuffer> partials_;  // the fused forms' partial sums
  mutable std::unique_ptr<Field> dagger_scratch_;    // ApplyDaggerAxpyNorm's A^dag in when not fused
  bool fused_dot_products_ = true;
};

}  // namespace lqcd::gpu
