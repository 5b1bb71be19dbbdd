// schur_operator.h: the even-odd preconditioned Wilson operator of the paper's Eq. (2) on the GPU,
//     M_pp = 1 - kappa^2 D_{p,p'} D_{p',p}      (p = even is the paper's \hat M_ee),
// its dagger M_pp^dag = 1 - kappa^2 D^dag_{p,p'} D^dag_{p',p}, and the normal operator M_pp^dag M_pp.
// Same operator as reference/wilson.h's ApplySchur, in the device's UKQCD basis.
//
// Host-only header (no CUDA types). Each application is two Dslash launches, the xpay fused into the
// second: t = D_{p',p} in (plain), out = in + (-kappa^2) D_{p,p'} t (xpay). The operator owns the
// temporary t (on parity p', allocated on first use in the precision and padding of `in`).
// out may be the same field as in. Asynchronous like every launch; errors as in wilson_dslash.h.
//
// Domain decomposition: constructed on a PartitionedWilsonDslash (partitioned_dslash.h), every Dslash of
// the operator goes through it: in, out and the temporary are this rank's LOCAL fields (the lattice of the
// dslash's local gauge field), and each application exchanges faces with the neighbouring ranks, twice
// (once per Dslash). Every rank must apply the operator together (the exchanges are collective). The result
// on this rank's sites is bit for bit the unpartitioned operator's on the global lattice. The boundary is
// the dslash's (the global one).
//
// Cost per application (V/2 sites of parity p): 2 x 1320 + 48 flops per site, and the bytes of one
// plain and one xpay Dslash (WilsonDslashCost); partitioned: on the local lattice, face traffic not counted
// (PartitionedWilsonDslash::FaceBytesPerCall per Dslash).
#pragma once

#include <memory>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/multi_rhs_dslash.h"
#include "gpu/partitioned_dslash.h"
#include "gpu/wilson_dslash.h"
#include "gpu/wilson_dslash_launch.h"
#include "reference/fermion_boundary.h"
#include "reference/lattice.h"

namespace lqcd::gpu {

class DeviceSchurOperator {
 public:
  // `gauge` must outlive the operator. kappa > 0 and finite.
  DeviceSchurOperator(const DeviceGaugeField& gauge, double kappa, Parity parity,
                      const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

  // Through the partitioned Dslash (see the file comment); `dslash` (and its gauge field and communicator)
  // must outlive the operator. kappa > 0 and finite.
  DeviceSchurOperator(const PartitionedWilsonDslash& dslash, double kappa, Parity parity);

  // out_p = M_pp in_p (or M_pp^dag in_p). in and out on parity p.
  void Apply(const SpinorView& out, const ConstSpinorView& in, Dagger dagger) const;
  // out_p = M_pp^dag M_pp in_p.
  void ApplyNormal(const SpinorView& out, const ConstSpinorView& in) const;
  // out[j] = M_pp in[j] (or M_pp^dag in[j]) for every j: on one GPU two multi-RHS Dslash calls
  // (multi_rhs_dslash.h: the links read once per site for all right-hand sides), each out[j] within Apply's
  // error bound; partitioned, Apply per right-hand side. Checks as ApplyWilsonDslashBlock, and every field on
  // parity p; out[j] may be in[j] (as for Apply) but no other in[k].
  void ApplyBlock(const std::vector<SpinorView>& out, const std::vector<ConstSpinorView>& in, Dagger dagger) const;
  // out_p = M_pp in_p with, fused into the second Dslash (wilson_dslash.h, ApplyWilsonDslashXpayDotNorm), the
  // partial sums of (out, w) and |out|^2 of the stored out per group of 32 sites, in memory the operator owns:
  // returns it (3 doubles per group, DotNormGroups() groups), valid until the next call. in, out and w on
  // parity p, w not out. One GPU only: std::logic_error when partitioned().
  const double* ApplyDotNorm(const SpinorView& out, const ConstSpinorView& in, const ConstSpinorView& w) const;
  // ApplyBlock (M_pp, not M_pp^dag) with ApplyDotNorm's partial sums for every right-hand side, fused into the
  // second multi-RHS Dslash (multi_rhs_dslash.h, ApplyWilsonDslashXpayDotNormBlock): right-hand side j's
  // DotNormGroups() groups of 3 doubles from the returned pointer + 3 j DotNormGroups(), in memory the operator
  // owns, valid until the next call. w[j] on parity p, no out[k]. One GPU only: std::logic_error when partitioned().
  const double* ApplyDotNormBlock(const std::vector<SpinorView>& out, const std::vector<ConstSpinorView>& in,
                                  const std::vector<ConstSpinorView>& w) const;
  // r_p = r_p + c M_pp^dag in_p with c = *coefficient (a double on the device, read when the kernel runs), fused
  // into M^dag's second Dslash (wilson_dslash.h, ApplyWilsonDslashDaggerXpayAxpyNorm: M^dag in is not stored),
  // and the partial sums of |r|^2 of the stored r as ApplyDotNorm returns them (the dot slots 0), in the same
  // memory (valid until the next call). r and in on parity p, different fields. One GPU only.
  const double* ApplyDaggerAxpyNorm(const SpinorView& r, const ConstSpinorView& in, const double* coefficient) const;
  int DotNormGroups() const { return (gauge_.lattice().half_volume() + kDotNormGroup - 1) / kDotNormGroup; }

  KernelCost Cost(Precision precision) const;  // of one Apply
  // Of one ApplyBlock on rhs >= 1 right-hand sides (on one GPU: the links read once per Dslash launch, which
  // takes at most kMaxRhsPerLaunch of them).
  KernelCost BlockCost(Precision precision, int rhs) const;

  double kappa() const { return kappa_; }
  Parity parity() const { return parity_; }
  const DeviceGaugeField& gauge() const { return gauge_; }
  // The partitioned Dslash every application goes through, or null (single GPU).
  const PartitionedWilsonDslash* partitioned() const { return partitioned_; }

 private:
  // std::invalid_argument naming `where` unless out and in are on the operator's parity.
  void RequireOperatorParity(const char* where, const SpinorView& out, const ConstSpinorView& in) const;
  // The memory of the fused partial sums, rhs x DotNormGroups() x 3 doubles.
  double* Partials(std::size_t rhs = 1) const;
  // The other-parity fields t[j] of a block application, one per right-hand side like in[j], reused across calls.
  std::vector<SpinorView> BlockTemporaries(const std::vector<ConstSpinorView>& in) const;
  // A device field on `subset` matching `like`'s precision and padding, reused across calls.
  DeviceSpinorField& Temporary(std::unique_ptr<DeviceSpinorField>& slot, Subset subset,
                               const ConstSpinorView& like) const;
  const DeviceGaugeField& gauge_;
  const PartitionedWilsonDslash* partitioned_ = nullptr;
  double kappa_;
  Parity parity_;
  FermionBoundary boundary_;
  mutable std::unique_ptr<DeviceSpinorField> other_parity_;  // t = D_{p',p} in
  mutable std::unique_ptr<DeviceSpinorField> same_parity_;   // M in, for the normal operator
  mutable std::unique_ptr<DeviceBuffer> partials_;           // ApplyDotNorm's (ApplyDaggerAxpyNorm's) partial sums
  mutable std::vector<std::unique_ptr<DeviceSpinorField>> block_other_parity_;  // ApplyBlock's t[j]
};

}  // namespace lqcd::gpu
