// operators.h: operators built from other operators, for any backend.
//
// An operator (README.md, "Operator") has: Backend, Precision, Field; Apply(out, in); NewField();
// FlopsPerApply(); Name(); Dirac operators also ApplyDagger(out, in).
//   NormalOperator<Op>        A = M^dag M   (CGNR's Hermitian positive definite operator)
//   DaggerNormalOperator<Op>  A = M M^dag   (CGNE's)
// Both apply M and M^dag through one scratch field of their own, so `out` must differ from `in` and the
// objects are not thread-safe. They hold a reference to M: M must outlive them.
#pragma once

#include <string>
#include <utility>

namespace lqcd::solvers {

// The scalars of one CG step on A: the curvature (p, A p), alpha = rr / (p, A p) and |r|^2 after r -= alpha A p,
// as the backend's deferred scalars (README.md).
template <typename RealScalar>
struct CurvatureUpdate {
  RealScalar pAp, alpha, rr_new;
};

template <typename Dirac>
class NormalOperator {
 public:
  using Backend = typename Dirac::Backend;
  using Precision = typename Dirac::Precision;
  using Field = typename Dirac::Field;

  explicit NormalOperator(const Dirac& m) : m_(m), scratch_(m.NewField()) {}
  void Apply(Field& out, const Field& in) const {
    m_.Apply(scratch_, in);
    m_.ApplyDagger(out, scratch_);
  }
  // out = M^dag M in, returning CG's curvature (in, M^dag M in) = |M in|^2 as a deferred scalar, taken from
  // M's fused ApplyDotNorm (README.md); exists only when M has one (cg.h's detail::ApplyCurvature falls back
  // to Apply and DeferredReDot otherwise).
  template <typename D = Dirac, typename = decltype(std::declval<const D&>().ApplyDotNorm(
                                    std::declval<Field&>(), std::declval<const Field&>(), std::declval<const Field&>()))>
  typename Backend::RealScalar ApplyCurvature(Field& out, const Field& in) const {
    const auto d = m_.ApplyDotNorm(scratch_, in, in);
    m_.ApplyDagger(out, scratch_);
    return d.norm2;
  }
  // CG's step with A p never stored (README.md, the optional ApplyCurvatureUpdate): M p with |M p|^2 = (p, A p)
  // fused (ApplyDotNorm), alpha = rr / (p, A p) on the device, then r -= alpha M^dag (M p) with |r|^2 fused into
  // M^dag's application (M's ApplyDaggerAxpyNorm). Exists only when M has both.
  template <typename D = Dirac,
            typename = decltype(std::declval<const D&>().ApplyDotNorm(
                std::declval<Field&>(), std::declval<const Field&>(), std::declval<const Field&>())),
            typename = decltype(std::declval<const D&>().ApplyDaggerAxpyNorm(
                std::declval<Field&>(), std::declval<const typename Backend::RealScalar&>(),
                std::declval<const Field&>()))>
  CurvatureUpdate<typename Backend::RealScalar> ApplyCurvatureUpdate(const Field& p, Field& r, double rr) const {
    using Real = typename Backend::RealScalar;
    const auto d = m_.ApplyDotNorm(scratch_, p, p);
    const Real alpha = Real(rr) / d.norm2;
    return {d.norm2, alpha, m_.ApplyDaggerAxpyNorm(r, -alpha, scratch_)};
  }
  Field NewField() const { return m_.NewField(); }
  double FlopsPerApply() const { return 2 * m_.FlopsPerApply(); }
  std::string Name() const { return m_.Name() + "^dag " + m_.Name(); }
  const Dirac& dirac() const { return m_; }

 private:
  const Dirac& m_;
  mutable Field scratch_;
};

template <typename Dirac>
class DaggerNormalOperator {
 public:
  using Backend = typename Dirac::Backend;
  using Precision = typename Dirac::Precision;
  using Field = typename Dirac::Field;

  explicit DaggerNormalOperator(const Dirac& m) : m_(m), scratch_(m.NewField()) {}
  void Apply(Field& out, const Field& in) const {
    m_.ApplyDagger(scratch_, in);
    m_.Apply(out, scratch_);
  }
  Field NewField() const { return m_.NewField(); }
  double FlopsPerApply() const { return 2 * m_.FlopsPerApply(); }
  std::string Name() const { return m_.Name() + " " + m_.Name() + "^dag"; }
  const Dirac& dirac() const { return m_; }

 private:
  const Dirac& m_;
  mutable Field scratch_;
};

}  // namespace lqcd::solvers
