// cpu_clover.h: the Wilson-clover operators of the CPU oracle (reference/clover.h) as solver operators
// (README.md, "Operator"), beside cpu_backend.h's Wilson ones, so that every solver in solvers/ runs on
// clover fermions too.
//
//   CpuClover<P>        M = T - D/2 on the full lattice, T(n) = (4 + m) + A(n)         (ApplyWilsonClover)
//   CpuCloverSchur<P>   one of clover.h's two even-odd forms on parity p               (ApplyCloverSchur)
//       kComplement:   S_pp    = T_pp - (1/4) D_pp' T_p'p'^{-1} D_p'p,  b'_p = b_p + (1/2) D_pp' T_p'p'^{-1} b_p'
//       kUnitDiagonal: Mhat_pp = T_pp^{-1} S_pp,                         b'_p = T_pp^{-1} (the same)
//     Reconstruct (both): x_p' = T_p'p'^{-1} (b_p' + (1/2) D_p'p x_p).
//     The reconstructed x satisfies the p' rows of M x = b exactly; on the p rows the full residual is
//     r_p = b'_p - S_pp x_p (complement) or T_pp (b'_p - Mhat_pp x_p) (unit diagonal). Hence
//     FullResidualPerSchurResidual() = 1 exactly for kComplement, and for kUnitDiagonal the upper bound
//     ||T_pp||_2 = max_n |lambda(T(n))| (so |b - M x| <= c |r'_p|: the even-odd driver then meets its
//     tolerance, possibly by more than needed; its final full residual is recomputed anyway).
// Precisions: double, float, Half. The clover blocks T(n) and their inverses are computed in double from
// the operator's own links (clover.h) and stored in float for float and half; the half operator applies
// the float operator to the dequantised input with 16-bit fixed-point links (as CpuWilson<Half> does) and
// quantises its output. The clover term itself is not quantised (the emulation covers the spinors and links).
// Flops (clover.h): M costs 1872 per site, a Schur form 3696 per site of parity p; source preparation and
// reconstruction are counted by the even-odd driver as one Schur application.
// Errors: std::invalid_argument for fields of another lattice or subset (and out = in); CloverField's
// std::domain_error for a singular or ill-conditioned T(n).
// Not thread-safe: operators keep mutable scratch fields.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "solvers/cpu_backend.h"
#include "solvers/precision.h"

namespace lqcd::solvers {

namespace clover_detail {

template <typename P>
using Real = cpu_detail::GaugeReal<P>;

using cpu_detail::FromReal;
using cpu_detail::ToReal;

}  // namespace clover_detail

// M = T - D/2 on the full lattice, in precision P.
template <typename P>
class CpuClover {
 public:
  using Backend = CpuBackend;
  using Precision = P;
  using Field = CpuBackend::Field<P>;
  using Real = clover_detail::Real<P>;

  CpuClover(const GaugeField<double>& u, const CloverParams& params)
      : u_(cpu_detail::GaugeIn<P>(u)),
        clover_(u_, params),
        scratch_in_(u.lattice()),
        scratch_out_(u.lattice()) {}

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(u_.lattice(), Subset::kFull); }
  double FlopsPerApply() const { return kWilsonCloverFlopsPerSite * u_.lattice().volume(); }
  std::string Name() const { return std::string("M_clover<") + PrecisionTraits<P>::kName + ">"; }
  const CloverParams& params() const { return clover_.params(); }
  const CloverField<Real>& clover() const { return clover_; }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const {
    if (in.subset() != Subset::kFull || out.subset() != Subset::kFull || in.lattice() != u_.lattice() ||
        out.lattice() != u_.lattice()) {
      throw std::invalid_argument(Name() + ": needs full-lattice fields on " + u_.lattice().ToString());
    }
    cpu_detail::ApplyThrough<P>::Run(out, in, scratch_in_, scratch_out_,
                                     [&](SpinorField<Real>& o, const SpinorField<Real>& i) {
                                       ApplyWilsonClover(o, u_, clover_, i, dagger);
                                     });
  }

  GaugeField<Real> u_;
  CloverField<Real> clover_;
  mutable SpinorField<Real> scratch_in_, scratch_out_;
};

// A Schur form of the clover matrix on parity p (file comment), with the even-odd reduction of M x = b.
template <typename P>
class CpuCloverSchur {
 public:
  using Backend = CpuBackend;
  using Precision = P;
  using Field = CpuBackend::Field<P>;
  using Real = clover_detail::Real<P>;

  CpuCloverSchur(const GaugeField<double>& u, const CloverParams& params, CloverSchurForm form,
                 Parity parity = Parity::kEven)
      : u_(cpu_detail::GaugeIn<P>(u)),
        clover_(u_, params),
        form_(form),
        parity_(parity),
        scratch_in_(u.lattice(), SubsetOf(parity)),
        scratch_out_(u.lattice(), SubsetOf(parity)) {}

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(u_.lattice(), SubsetOf(parity_)); }
  double FlopsPerApply() const { return kCloverSchurFlopsPerSite * u_.lattice().half_volume(); }
  std::string Name() const {
    const std::string which = form_ == CloverSchurForm::kComplement ? "S" : "Mhat";
    return which + (parity_ == Parity::kEven ? "_ee" : "_oo") + "_clover<" + PrecisionTraits<P>::kName + ">";
  }
  Parity parity() const { return parity_; }
  CloverSchurForm form() const { return form_; }
  const CloverParams& params() const { return clover_.params(); }
  const CloverField<Real>& clover() const { return clover_; }

  void PrepareSource(Field& b_p, const Field& b_full) const {
    RequireFull(b_full, "PrepareSource");
    RequireParity(b_p, "PrepareSource");
    clover_detail::FromReal<P>(
        b_p, PrepareCloverSchurSource(u_, clover_, clover_detail::ToReal<P>(b_full), parity_, form_));
  }
  void RestrictGuess(Field& x_p, const Field& x_full) const {
    RequireFull(x_full, "RestrictGuess");
    RequireParity(x_p, "RestrictGuess");
    clover_detail::FromReal<P>(x_p, Extract(clover_detail::ToReal<P>(x_full), parity_));
  }
  void Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const {
    RequireFull(b_full, "Reconstruct");
    RequireFull(x_full, "Reconstruct");
    RequireParity(x_p, "Reconstruct");
    clover_detail::FromReal<P>(x_full, ReconstructCloverSolution(u_, clover_, clover_detail::ToReal<P>(x_p),
                                                                 clover_detail::ToReal<P>(b_full)));
  }
  // 1 for the complement form (equality); ||T_pp||_2, an upper bound, for the unit-diagonal form.
  double FullResidualPerSchurResidual() const {
    if (form_ == CloverSchurForm::kComplement) return 1.0;
    return std::max(std::fabs(clover_.min_eigenvalue()), std::fabs(clover_.max_eigenvalue()));
  }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const {
    RequireParity(in, "Apply");
    RequireParity(out, "Apply");
    cpu_detail::ApplyThrough<P>::Run(out, in, scratch_in_, scratch_out_,
                                     [&](SpinorField<Real>& o, const SpinorField<Real>& i) {
                                       ApplyCloverSchur(o, u_, clover_, i, form_, dagger);
                                     });
  }
  void RequireFull(const Field& f, const char* where) const {
    cpu_detail::RequireFullField(f, u_.lattice(), Name() + "::" + where);
  }
  void RequireParity(const Field& f, const char* where) const {
    cpu_detail::RequireParityField(f, u_.lattice(), parity_, Name() + "::" + where);
  }

  GaugeField<Real> u_;
  CloverField<Real> clover_;
  CloverSchurForm form_;
  Parity parity_;
  mutable SpinorField<Real> scratch_in_, scratch_out_;
};

}  // namespace lqcd::solvers
