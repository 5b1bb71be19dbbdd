// cpu_backend.h: the CPU implementation of the solver backend interface (README.md) on the oracle's
// fields and Wilson operators.
//
// Fields:   CpuBackend::Field<double> = SpinorField<double>, Field<float> = SpinorField<float>,
//           Field<Half> = HalfSpinorField (the emulated 16-bit format, half_spinor_field.h).
// Vector operations: one loop over sites; each site is loaded into its compute type (double for double,
//           float for float and half), combined in that type with the scalars rounded to it, and stored
//           (quantised for half). Reductions convert every loaded site value to double and accumulate
//           site by site in index order, so they are deterministic and independent of the field precision
//           beyond the stored values themselves.
// Operators: CpuWilson<P> (M, M^dag on the full lattice) and CpuWilsonSchur<P> (M_pp, M_pp^dag on one
//           parity, with source preparation and solution reconstruction) over reference/wilson.h. The
//           half operators apply the float operator to the dequantised input, with a gauge field whose
//           real components are 16-bit fixed point (round(u * 32767) / 32767: SU(3) entries lie in [-1, 1],
//           so no norm is needed, the paper's 12-real half links), and quantise the output.
// Aliasing: as in the interface: `out` of an operator must differ from `in`; vector operations are
//           element-wise and allow the aliasing the README states.
// Not thread-safe: operators keep mutable scratch fields.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/half_spinor_field.h"
#include "solvers/precision.h"

namespace lqcd::solvers {

namespace cpu_detail {

template <typename P>
struct FieldOf {
  using type = SpinorField<P>;
};
template <>
struct FieldOf<Half> {
  using type = HalfSpinorField;
};

// Site access in the compute type of a field.
template <typename F>
struct Site;
template <typename T>
struct Site<SpinorField<T>> {
  using Real = T;
  using Precision = T;
  static const SiteSpinor<T>& Load(const SpinorField<T>& f, int i) { return f[i]; }
  static void Store(SpinorField<T>& f, int i, const SiteSpinor<T>& s) { f[i] = s; }
};
template <>
struct Site<HalfSpinorField> {
  using Real = float;
  using Precision = Half;
  static SiteSpinor<float> Load(const HalfSpinorField& f, int i) { return f.Load(i); }
  static void Store(HalfSpinorField& f, int i, const SiteSpinor<float>& s) { f.Store(i, s); }
};

template <typename F>
using RealOf = typename Site<F>::Real;

template <typename F>
SiteSpinor<double> LoadDouble(const F& f, int i) {
  return Site<F>::Load(f, i).template cast<Complex<double>>();
}

template <typename F>
Complex<RealOf<F>> Scalar(Complex<double> a) {
  return Complex<RealOf<F>>(static_cast<RealOf<F>>(a.real()), static_cast<RealOf<F>>(a.imag()));
}

template <typename A, typename B>
void RequireSameShape(const A& a, const B& b, const char* where) {
  if (a.lattice() != b.lattice() || a.subset() != b.subset()) {
    throw std::invalid_argument(std::string(where) + ": fields differ (" + a.lattice().ToString() + " " +
                                ToString(a.subset()) + " vs " + b.lattice().ToString() + " " + ToString(b.subset()) +
                                ")");
  }
}

template <typename P>
using GaugeReal = std::conditional_t<std::is_same_v<P, Half>, float, P>;

// The gauge field a precision-P operator uses: double/float cast, half = float with 16-bit fixed-point
// components round(u * 32767) / 32767.
template <typename P>
GaugeField<GaugeReal<P>> GaugeIn(const GaugeField<double>& u) {
  if constexpr (!std::is_same_v<P, Half>) {
    return ConvertGaugeField<P>(u);
  } else {
    GaugeField<float> out(u.lattice());
    for (std::size_t i = 0; i < u.links().size(); ++i) {
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          const Complex<double> z = u.links()[i](a, b);
          out.links()[i](a, b) = Complex<float>(static_cast<float>(std::nearbyint(z.real() * 32767.0) / 32767.0),
                                                static_cast<float>(std::nearbyint(z.imag() * 32767.0) / 32767.0));
        }
      }
    }
    return out;
  }
}

}  // namespace cpu_detail

struct CpuBackend {
  template <typename P>
  using Field = typename cpu_detail::FieldOf<P>::type;
  // Deferred scalars (README.md): on the CPU every scalar is on the host already.
  using RealScalar = double;
  using ComplexScalar = Complex<double>;
  static double HostValue(double x) { return x; }
  static Complex<double> HostValue(Complex<double> z) { return z; }

  static const char* Name() { return "cpu-reference"; }

  // ---- shape, creation, checks ----
  template <typename P, typename F>
  static Field<P> NewLike(const F& shape) {
    return Field<P>(shape.lattice(), shape.subset());
  }
  template <typename A, typename B>
  static bool Compatible(const A& a, const B& b) {
    return a.lattice() == b.lattice() && a.subset() == b.subset();
  }
  template <typename A, typename B>
  static void RequireCompatible(const A& a, const B& b, const char* where) {
    cpu_detail::RequireSameShape(a, b, where);
  }
  template <typename F>
  static double Reals(const F& x) {
    return 2.0 * static_cast<double>(x.size());
  }
  template <typename F>
  static bool AllFinite(const F& x) {
    for (int i = 0; i < x.sites(); ++i) {
      if (!cpu_detail::LoadDouble(x, i).allFinite()) return false;
    }
    return true;
  }
  // Site-by-site description for messages: lattice and subset.
  template <typename F>
  static std::string Describe(const F& x) {
    return x.lattice().ToString() + " " + ToString(x.subset());
  }

  // ---- copies ----
  template <typename F>
  static void Zero(F& x) {
    const SiteSpinor<cpu_detail::RealOf<F>> zero = SiteSpinor<cpu_detail::RealOf<F>>::Zero();
    for (int i = 0; i < x.sites(); ++i) cpu_detail::Site<F>::Store(x, i, zero);
  }
  template <typename F>
  static void Copy(F& y, const F& x) {
    cpu_detail::RequireSameShape(x, y, "Copy");
    if (&x == &y) return;
    for (int i = 0; i < x.sites(); ++i) cpu_detail::Site<F>::Store(y, i, cpu_detail::Site<F>::Load(x, i));
  }
  // y = x across precisions (rounded to y's precision; quantised when y is half).
  template <typename G, typename F>
  static void Convert(G& y, const F& x) {
    cpu_detail::RequireSameShape(x, y, "Convert");
    using R = cpu_detail::RealOf<G>;
    for (int i = 0; i < x.sites(); ++i) {
      cpu_detail::Site<G>::Store(y, i, cpu_detail::Site<F>::Load(x, i).template cast<Complex<R>>());
    }
  }

  // ---- reductions (double accumulation, deterministic) ----
  template <typename F>
  static double Norm2(const F& x) {
    double sum = 0;
    for (int i = 0; i < x.sites(); ++i) sum += cpu_detail::LoadDouble(x, i).squaredNorm();
    return sum;
  }
  // (x, y) = sum conj(x_i) y_i
  template <typename F>
  static Complex<double> Dot(const F& x, const F& y) {
    cpu_detail::RequireSameShape(x, y, "Dot");
    Complex<double> sum = 0;
    for (int i = 0; i < x.sites(); ++i) {
      sum += (cpu_detail::LoadDouble(x, i).array().conjugate() * cpu_detail::LoadDouble(y, i).array()).sum();
    }
    return sum;
  }
  // Re (x, y)
  template <typename F>
  static double ReDot(const F& x, const F& y) {
    cpu_detail::RequireSameShape(x, y, "ReDot");
    double sum = 0;
    for (int i = 0; i < x.sites(); ++i) {
      const SiteSpinor<double> a = cpu_detail::LoadDouble(x, i), b = cpu_detail::LoadDouble(y, i);
      sum += (a.real().array() * b.real().array() + a.imag().array() * b.imag().array()).sum();
    }
    return sum;
  }
  struct DotAndNorm {
    Complex<double> dot;  // (x, y)
    double norm2;         // |x|^2
  };
  template <typename F>
  static DotAndNorm DotNorm(const F& x, const F& y) {
    cpu_detail::RequireSameShape(x, y, "DotNorm");
    DotAndNorm out{0, 0};
    for (int i = 0; i < x.sites(); ++i) {
      const SiteSpinor<double> a = cpu_detail::LoadDouble(x, i), b = cpu_detail::LoadDouble(y, i);
      out.dot += (a.array().conjugate() * b.array()).sum();
      out.norm2 += a.squaredNorm();
    }
    return out;
  }

  // The deferred forms (README.md): the same values, at once.
  template <typename F>
  static double DeferredNorm2(const F& x) {
    return Norm2(x);
  }
  template <typename F>
  static double DeferredReDot(const F& x, const F& y) {
    return ReDot(x, y);
  }
  template <typename F>
  static DotAndNorm DeferredDotNorm(const F& x, const F& y) {
    return DotNorm(x, y);
  }

  // ---- updates (element-wise; y may alias x) ----
  // y += a x
  template <typename F>
  static void Axpy(double a, const F& x, F& y) {
    AxpyImpl(a, x, y, "Axpy");
  }
  // y += a x; returns |y|^2 of the stored y
  template <typename F>
  static double AxpyNorm(double a, const F& x, F& y) {
    AxpyImpl(a, x, y, "AxpyNorm");
    return Norm2(y);
  }
  template <typename F>
  static double DeferredAxpyNorm(double a, const F& x, F& y) {
    return AxpyNorm(a, x, y);
  }
  // y = x + a y
  template <typename F>
  static void Xpay(const F& x, double a, F& y) {
    cpu_detail::RequireSameShape(x, y, "Xpay");
    using S = cpu_detail::Site<F>;
    const auto at = static_cast<cpu_detail::RealOf<F>>(a);
    for (int i = 0; i < x.sites(); ++i) S::Store(y, i, S::Load(x, i) + at * S::Load(y, i));
  }
  // y += a x, complex a
  template <typename F>
  static void Caxpy(Complex<double> a, const F& x, F& y) {
    cpu_detail::RequireSameShape(x, y, "Caxpy");
    using S = cpu_detail::Site<F>;
    const auto at = cpu_detail::Scalar<F>(a);
    for (int i = 0; i < x.sites(); ++i) S::Store(y, i, S::Load(y, i) + at * S::Load(x, i));
  }
  // y += a x, complex a; returns |y|^2
  template <typename F>
  static double CaxpyNorm(Complex<double> a, const F& x, F& y) {
    Caxpy(a, x, y);
    return Norm2(y);
  }
  template <typename F>
  static double DeferredCaxpyNorm(Complex<double> a, const F& x, F& y) {
    return CaxpyNorm(a, x, y);
  }
  // CG: x += alpha p; r -= alpha q; returns |r|^2.
  template <typename F>
  static double CgUpdate(double alpha, const F& p, const F& q, F& x, F& r) {
    cpu_detail::RequireSameShape(p, q, "CgUpdate");
    cpu_detail::RequireSameShape(p, x, "CgUpdate");
    cpu_detail::RequireSameShape(p, r, "CgUpdate");
    using S = cpu_detail::Site<F>;
    const auto at = static_cast<cpu_detail::RealOf<F>>(alpha);
    for (int i = 0; i < p.sites(); ++i) {
      S::Store(x, i, S::Load(x, i) + at * S::Load(p, i));
      S::Store(r, i, S::Load(r, i) - at * S::Load(q, i));
    }
    return Norm2(r);
  }
  // CG: x += alpha p; p = r + beta p (the old p in both). Element-wise as Axpy then Xpay.
  template <typename F>
  static void CgSolutionDirection(double alpha, double beta, const F& r, F& x, F& p) {
    cpu_detail::RequireSameShape(r, x, "CgSolutionDirection");
    cpu_detail::RequireSameShape(r, p, "CgSolutionDirection");
    using S = cpu_detail::Site<F>;
    const auto at = static_cast<cpu_detail::RealOf<F>>(alpha), bt = static_cast<cpu_detail::RealOf<F>>(beta);
    for (int i = 0; i < r.sites(); ++i) {
      const SiteSpinor<cpu_detail::RealOf<F>> pv = S::Load(p, i);
      S::Store(x, i, S::Load(x, i) + at * pv);
      S::Store(p, i, S::Load(r, i) + bt * pv);
    }
  }
  // BiCGstab search direction: p = r + beta (p - omega v).
  template <typename F>
  static void BicgstabDirection(const F& r, Complex<double> beta, Complex<double> omega, const F& v, F& p) {
    cpu_detail::RequireSameShape(r, v, "BicgstabDirection");
    cpu_detail::RequireSameShape(r, p, "BicgstabDirection");
    using S = cpu_detail::Site<F>;
    const auto bt = cpu_detail::Scalar<F>(beta), wt = cpu_detail::Scalar<F>(omega);
    for (int i = 0; i < r.sites(); ++i) S::Store(p, i, S::Load(r, i) + bt * (S::Load(p, i) - wt * S::Load(v, i)));
  }
  struct NormAndDot {
    double norm2;          // |r|^2 of the new r
    Complex<double> dot;   // (r0, r) with the new r
  };
  // BiCGstab solution and residual update, r holding s on entry:
  //   x += alpha p + omega s;  r = s - omega t;  returns |r|^2 and (r0, r).
  template <typename F>
  static NormAndDot BicgstabUpdate(Complex<double> alpha, const F& p, Complex<double> omega, const F& t, F& x, F& r,
                                   const F& r0) {
    cpu_detail::RequireSameShape(p, t, "BicgstabUpdate");
    cpu_detail::RequireSameShape(p, x, "BicgstabUpdate");
    cpu_detail::RequireSameShape(p, r, "BicgstabUpdate");
    cpu_detail::RequireSameShape(p, r0, "BicgstabUpdate");
    using S = cpu_detail::Site<F>;
    const auto at = cpu_detail::Scalar<F>(alpha), wt = cpu_detail::Scalar<F>(omega);
    for (int i = 0; i < p.sites(); ++i) {
      const SiteSpinor<cpu_detail::RealOf<F>> s = S::Load(r, i);
      S::Store(x, i, S::Load(x, i) + at * S::Load(p, i) + wt * s);
      S::Store(r, i, s - wt * S::Load(t, i));
    }
    const DotAndNorm d = DotNorm(r, r0);  // (r, r0) and |r|^2; (r0, r) = conj((r, r0))
    return NormAndDot{d.norm2, std::conj(d.dot)};
  }
  // BicgstabUpdate in two steps with the same arithmetic (README.md): t = s - omega t, returning |t|^2 and
  // (r0, t); then x += alpha p + omega s.
  template <typename F>
  static NormAndDot BicgstabResidual(Complex<double> omega, F& t, const F& s, const F& r0) {
    cpu_detail::RequireSameShape(t, s, "BicgstabResidual");
    cpu_detail::RequireSameShape(t, r0, "BicgstabResidual");
    using S = cpu_detail::Site<F>;
    const auto wt = cpu_detail::Scalar<F>(omega);
    for (int i = 0; i < t.sites(); ++i) S::Store(t, i, S::Load(s, i) - wt * S::Load(t, i));
    const DotAndNorm d = DotNorm(t, r0);
    return NormAndDot{d.norm2, std::conj(d.dot)};
  }
  template <typename F>
  static void BicgstabSolution(Complex<double> alpha, const F& p, Complex<double> omega, const F& s, F& x) {
    cpu_detail::RequireSameShape(p, s, "BicgstabSolution");
    cpu_detail::RequireSameShape(p, x, "BicgstabSolution");
    using S = cpu_detail::Site<F>;
    const auto at = cpu_detail::Scalar<F>(alpha), wt = cpu_detail::Scalar<F>(omega);
    for (int i = 0; i < p.sites(); ++i) S::Store(x, i, S::Load(x, i) + at * S::Load(p, i) + wt * S::Load(s, i));
  }

 private:
  template <typename F>
  static void AxpyImpl(double a, const F& x, F& y, const char* where) {
    cpu_detail::RequireSameShape(x, y, where);
    using S = cpu_detail::Site<F>;
    const auto at = static_cast<cpu_detail::RealOf<F>>(a);
    for (int i = 0; i < x.sites(); ++i) S::Store(y, i, S::Load(y, i) + at * S::Load(x, i));
  }
};

// ---------------------------------------------------------------------------------------------------
// Operators. Each has: Backend, Precision, Field; Apply(out, in), ApplyDagger(out, in); NewField();
// FlopsPerApply(); Name().

namespace cpu_detail {

// Runs a float/double operator on fields of precision P: direct for double/float, through float
// scratch fields for half (dequantise input, apply, quantise output).
template <typename P>
struct ApplyThrough {
  template <typename Fn>
  static void Run(SpinorField<P>& out, const SpinorField<P>& in, SpinorField<P>&, SpinorField<P>&, Fn&& fn) {
    if (&out == &in) throw std::invalid_argument("operator: out and in must be different fields");
    fn(out, in);
  }
};
template <>
struct ApplyThrough<Half> {
  template <typename Fn>
  static void Run(HalfSpinorField& out, const HalfSpinorField& in, SpinorField<float>& in_f, SpinorField<float>& out_f,
                  Fn&& fn) {
    if (&out == &in) throw std::invalid_argument("operator: out and in must be different fields");
    for (int i = 0; i < in.sites(); ++i) in_f[i] = in.Load(i);
    fn(out_f, in_f);
    for (int i = 0; i < out.sites(); ++i) out.Store(i, out_f[i]);
  }
};

// A field of precision P as a field of its arithmetic type (dequantised for half), and back (quantised).
template <typename P>
SpinorField<GaugeReal<P>> ToReal(const CpuBackend::Field<P>& f) {
  if constexpr (std::is_same_v<P, Half>) {
    SpinorField<float> out(f.lattice(), f.subset());
    for (int i = 0; i < f.sites(); ++i) out[i] = f.Load(i);
    return out;
  } else {
    return f;
  }
}

template <typename P>
void FromReal(CpuBackend::Field<P>& out, const SpinorField<GaugeReal<P>>& f) {
  if constexpr (std::is_same_v<P, Half>) {
    for (int i = 0; i < f.sites(); ++i) out.Store(i, f[i]);
  } else {
    out = f;
  }
}

// The shape checks of the even-odd (Schur) operators: `who` names the operator and the member.
template <typename F>
void RequireFullField(const F& f, const Lattice& lattice, const std::string& who) {
  if (f.subset() != Subset::kFull || f.lattice() != lattice) {
    throw std::invalid_argument(who + ": needs a full-lattice field on " + lattice.ToString());
  }
}

template <typename F>
void RequireParityField(const F& f, const Lattice& lattice, Parity parity, const std::string& who) {
  if (f.subset() != SubsetOf(parity) || f.lattice() != lattice) {
    throw std::invalid_argument(who + ": needs a " + ToString(SubsetOf(parity)) + "-parity field on " +
                                lattice.ToString());
  }
}

}  // namespace cpu_detail

// The Wilson matrix M = (4 + m) - D / 2 on the full lattice, in precision P.
template <typename P>
class CpuWilson {
 public:
  using Backend = CpuBackend;
  using Precision = P;
  using Field = CpuBackend::Field<P>;
  using Real = cpu_detail::GaugeReal<P>;

  CpuWilson(const GaugeField<double>& u, const WilsonParams& params)
      : u_(cpu_detail::GaugeIn<P>(u)),
        params_(params),
        scratch_in_(u.lattice()),
        scratch_out_(u.lattice()) {
    params_.kappa();  // validates the mass
  }

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(u_.lattice(), Subset::kFull); }
  double FlopsPerApply() const { return (kHoppingFlopsPerSite + 48) * u_.lattice().volume(); }
  std::string Name() const { return std::string("M<") + PrecisionTraits<P>::kName + ">"; }
  const WilsonParams& params() const { return params_; }
  const Lattice& lattice() const { return u_.lattice(); }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const {
    if (in.subset() != Subset::kFull || out.subset() != Subset::kFull || in.lattice() != u_.lattice() ||
        out.lattice() != u_.lattice()) {
      throw std::invalid_argument(Name() + ": needs full-lattice fields on " + u_.lattice().ToString());
    }
    cpu_detail::ApplyThrough<P>::Run(out, in, scratch_in_, scratch_out_,
                                     [&](SpinorField<Real>& o, const SpinorField<Real>& i) {
                                       ApplyWilson(o, u_, i, params_, dagger);
                                     });
  }

  GaugeField<Real> u_;
  WilsonParams params_;
  mutable SpinorField<Real> scratch_in_, scratch_out_;
};

// The Schur complement M_pp = 1 - kappa^2 D_{p,p'} D_{p',p} on parity p (even: the paper's Eq. 2), in
// precision P, with the even-odd reduction of a full-lattice system M x = b (reference/wilson.h):
//   PrepareSource: b'_p = 2 kappa (b_p + kappa D_{p,p'} b_{p'})
//   Reconstruct:   x_p' = 2 kappa b_p' + kappa D_{p',p} x_p, x_p as solved
//   |b - M x| = FullResidualPerSchurResidual() * |b'_p - M_pp x_p| = |r'_p| / (2 kappa) exactly, because
//   the reconstructed x satisfies the p' rows of M x = b exactly and the p rows carry r'_p / (2 kappa).
template <typename P>
class CpuWilsonSchur {
 public:
  using Backend = CpuBackend;
  using Precision = P;
  using Field = CpuBackend::Field<P>;
  using Real = cpu_detail::GaugeReal<P>;

  CpuWilsonSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity = Parity::kEven)
      : u_(cpu_detail::GaugeIn<P>(u)),
        params_(params),
        parity_(parity),
        scratch_in_(u.lattice(), SubsetOf(parity)),
        scratch_out_(u.lattice(), SubsetOf(parity)) {
    params_.kappa();
  }

  void Apply(Field& out, const Field& in) const { Run(out, in, Dagger::kNo); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, Dagger::kYes); }
  Field NewField() const { return Field(u_.lattice(), SubsetOf(parity_)); }
  double FlopsPerApply() const { return (2 * kHoppingFlopsPerSite + 48) * u_.lattice().half_volume(); }
  std::string Name() const {
    return std::string(parity_ == Parity::kEven ? "M_ee<" : "M_oo<") + PrecisionTraits<P>::kName + ">";
  }
  Parity parity() const { return parity_; }
  const WilsonParams& params() const { return params_; }

  // b_p = b'_p from the full source b_full (see the class comment).
  void PrepareSource(Field& b_p, const Field& b_full) const {
    RequireFull(b_full, "PrepareSource");
    RequireParity(b_p, "PrepareSource");
    Through(b_p, b_full, [&](const SpinorField<Real>& b) { return PrepareSchurSource(u_, b, params_, parity_); });
  }
  // x_p = the parity-p sites of x_full (an initial guess for the Schur system).
  void RestrictGuess(Field& x_p, const Field& x_full) const {
    RequireFull(x_full, "RestrictGuess");
    RequireParity(x_p, "RestrictGuess");
    Through(x_p, x_full, [&](const SpinorField<Real>& x) { return Extract(x, parity_); });
  }
  // x_full from the Schur solution x_p and the full source b_full.
  void Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const {
    RequireFull(b_full, "Reconstruct");
    RequireFull(x_full, "Reconstruct");
    RequireParity(x_p, "Reconstruct");
    const SpinorField<Real> xp = ToReal(x_p), b = ToReal(b_full);
    FromReal(x_full, ReconstructSolution(u_, xp, b, params_));
  }
  double FullResidualPerSchurResidual() const { return 1.0 / (2.0 * params_.kappa()); }

 private:
  void Run(Field& out, const Field& in, Dagger dagger) const {
    RequireParity(in, "Apply");
    RequireParity(out, "Apply");
    cpu_detail::ApplyThrough<P>::Run(out, in, scratch_in_, scratch_out_,
                                     [&](SpinorField<Real>& o, const SpinorField<Real>& i) {
                                       ApplySchur(o, u_, i, params_, dagger);
                                     });
  }
  void RequireFull(const Field& f, const char* where) const {
    cpu_detail::RequireFullField(f, u_.lattice(), Name() + "::" + where);
  }
  void RequireParity(const Field& f, const char* where) const {
    cpu_detail::RequireParityField(f, u_.lattice(), parity_, Name() + "::" + where);
  }
  static SpinorField<Real> ToReal(const Field& f) { return cpu_detail::ToReal<P>(f); }
  static void FromReal(Field& out, const SpinorField<Real>& f) { cpu_detail::FromReal<P>(out, f); }
  template <typename Fn>
  static void Through(Field& out, const Field& in, Fn&& fn) {
    FromReal(out, fn(ToReal(in)));
  }

  GaugeField<Real> u_;
  WilsonParams params_;
  Parity parity_;
  mutable SpinorField<Real> scratch_in_, scratch_out_;
};

}  // namespace lqcd::solvers
