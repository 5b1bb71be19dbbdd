// shifted_operator.h: the operator A + sigma for an operator A and a real shift sigma.
//
//   Apply(out, in)        out = A in + sigma in           A.Apply, then Backend::Axpy(sigma, in, out)
//   ApplyDagger(out, in)  out = A^dag in + sigma in       (only when A has ApplyDagger; sigma is real)
// sigma = 0 skips the Axpy, so ShiftedOperator(A, 0) applies exactly A (same bits).
// Uses: the seed system and the per-shift refinement of the multi-shift solvers (multishift_cg.h,
// multishift_bicgstab.h), the true residual |b - (A + sigma) x| of every shift, and shifted families in
// the multi-mass driver (multi_mass.h). For the Wilson matrix, M(m) + sigma = M(m + sigma) exactly in
// exact arithmetic, because the mass enters M = (4 + m) - D / 2 only on the diagonal.
// Holds a reference to A: A must outlive it. `out` must differ from `in` (as for every operator).
// FlopsPerApply: A's flops plus the real axpy (2 flops per real component) when sigma != 0.
#pragma once

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/vector_flops.h"

namespace lqcd::solvers {

template <typename Op>
class ShiftedOperator {
 public:
  using Backend = typename Op::Backend;
  using Precision = typename Op::Precision;
  using Field = typename Op::Field;

  ShiftedOperator(const Op& a, double sigma) : a_(a), sigma_(sigma), reals_(Backend::Reals(a.NewField())) {
    if (!std::isfinite(sigma)) throw std::invalid_argument("ShiftedOperator: the shift must be finite");
  }

  void Apply(Field& out, const Field& in) const {
    a_.Apply(out, in);
    if (sigma_ != 0) Backend::Axpy(sigma_, in, out);
  }
  template <typename O = Op>
  auto ApplyDagger(Field& out, const Field& in) const -> decltype(std::declval<const O&>().ApplyDagger(out, in)) {
    a_.ApplyDagger(out, in);
    if (sigma_ != 0) Backend::Axpy(sigma_, in, out);
  }
  Field NewField() const { return a_.NewField(); }
  double FlopsPerApply() const { return a_.FlopsPerApply() + (sigma_ != 0 ? vector_flops::kAxpy * reals_ : 0.0); }
  std::string Name() const {
    if (sigma_ == 0) return a_.Name();
    char buf[48];
    std::snprintf(buf, sizeof buf, " %s %.6g", sigma_ < 0 ? "-" : "+", std::fabs(sigma_));
    return "(" + a_.Name() + buf + ")";
  }
  double shift() const { return sigma_; }
  const Op& base() const { return a_; }

 private:
  const Op& a_;
  double sigma_;
  double reals_;
};

}  // namespace lqcd::solvers
