// cpu_staggered.h: the CPU backend of the solver interface (README.md) on staggered colour-vector fields,
// and the staggered even-odd operator as a CG operator.
//
// Why a separate backend: CpuBackend::Field<double> is already SpinorField<double>, and its vector
// operations load sites as SiteSpinor (12 complex), so its FieldOf mapping cannot be extended to a second
// field type of the same precision without changing cpu_backend.h. CpuStaggeredBackend is the same list
// of static functions (README.md, "Backend") on ColourVectorField<P>, P = double or float (no half).
//
// Fields:   CpuStaggeredBackend::Field<P> = ColourVectorField<P> (3 complex per site, full lattice or one
//           parity). Reals(x) = 6 per site.
// Vector operations: one loop over sites in index order, computed in P with the scalars rounded to P;
//           reductions accumulate in double site by site (deterministic, reference/field_algebra.h for
//           Norm2 and Dot).
// Operator: CpuStaggeredSchur = M_pp = 4m^2 - D_{p,p'} D_{p',p} on one parity (staggered_dslash.h),
//           Hermitian positive definite for m != 0, so Apply = ApplyDagger and CG applies directly.
//           PrepareSource / Reconstruct are the staggered even-odd maps (b'_p = 2m b_p - D_{p,p'} b_{p'},
//           x_{p'} = (b_{p'} - D_{p',p} x_p) / (2m)). FullResidualPerSchurResidual = 1 / (2|m|): the
//           reconstruction makes the p' rows of M x = b hold (up to rounding) and the p rows of b - M x are
//           the Schur residual b'_p - M_pp x_p divided by 2m.
// Flops: two Dslash parity blocks of V/2 output sites each (kNaive/kImprovedStaggeredFlopsPerSite per
//           site) plus 4m^2 x - y, 2 flops per real, 6 reals per site: 2 (V/2) per_site + 12 (V/2).
// Aliasing: operator `out` must differ from `in` (std::invalid_argument); vector operations element-wise.
// State: the operator holds its links and parameters only (no scratch fields); Apply allocates inside the oracle.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "reference/field_algebra.h"
#include "reference/staggered/colour_vector_field.h"
#include "reference/staggered/staggered_dslash.h"
#include "solvers/precision.h"

namespace lqcd::solvers {

struct CpuStaggeredBackend {
  template <typename P>
  using Field = ColourVectorField<P>;
  // Deferred scalars (README.md): host values here.
  using RealScalar = double;
  using ComplexScalar = Complex<double>;
  static double HostValue(double x) { return x; }
  static Complex<double> HostValue(Complex<double> z) { return z; }

  static const char* Name() { return "cpu-reference-staggered"; }

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
    lqcd::RequireCompatible(a, b, where);
  }
  template <typename T>
  static std::string Describe(const ColourVectorField<T>& x) {
    return x.lattice().ToString() + " " + ToString(x.subset()) + " colour-vector";
  }
  template <typename T>
  static double Reals(const ColourVectorField<T>& x) {
    return 2.0 * static_cast<double>(x.size());
  }
  template <typename T>
  static bool AllFinite(const ColourVectorField<T>& x) {
    for (int i = 0; i < x.sites(); ++i) {
      if (!x[i].allFinite()) return false;
    }
    return true;
  }

  template <typename T>
  static void Zero(ColourVectorField<T>& x) {
    for (int i = 0; i < x.sites(); ++i) x[i].setZero();
  }
  template <typename T>
  static void Copy(ColourVectorField<T>& y, const ColourVectorField<T>& x) {
    lqcd::RequireCompatible(x, y, "Copy");
    if (&x == &y) return;
    for (int i = 0; i < x.sites(); ++i) y[i] = x[i];
  }
  template <typename To, typename From>
  static void Convert(ColourVectorField<To>& y, const ColourVectorField<From>& x) {
    lqcd::RequireCompatible(x, y, "Convert");
    for (int i = 0; i < x.sites(); ++i) y[i] = x[i].template cast<Complex<To>>();
  }

  template <typename T>
  static double Norm2(const ColourVectorField<T>& x) {
    return lqcd::Norm2(x);
  }
  template <typename T>
  static Complex<double> Dot(const ColourVectorField<T>& x, const ColourVectorField<T>& y) {
    return lqcd::Dot(x, y);
  }
  template <typename T>
  static double ReDot(const ColourVectorField<T>& x, const ColourVectorField<T>& y) {
    lqcd::RequireCompatible(x, y, "ReDot");
    double sum = 0;
    for (int i = 0; i < x.sites(); ++i) {
      const ColorVector<double> a = x[i].template cast<Complex<double>>(), b = y[i].template cast<Complex<double>>();
      sum += (a.real().array() * b.real().array() + a.imag().array() * b.imag().array()).sum();
    }
    return sum;
  }
  struct DotAndNorm {
    Complex<double> dot;
    double norm2;
  };
  template <typename T>
  static DotAndNorm DotNorm(const ColourVectorField<T>& x, const ColourVectorField<T>& y) {
    return DotAndNorm{Dot(x, y), Norm2(x)};
  }

  template <typename T>
  static void Axpy(double a, const ColourVectorField<T>& x, ColourVectorField<T>& y) {
    lqcd::RequireCompatible(x, y, "Axpy");
    const T at = static_cast<T>(a);
    for (int i = 0; i < x.sites(); ++i) y[i] += at * x[i];
  }
  template <typename T>
  static double AxpyNorm(double a, const ColourVectorField<T>& x, ColourVectorField<T>& y) {
    Axpy(a, x, y);
    return Norm2(y);
  }
  template <typename T>
  static void Xpay(const ColourVectorField<T>& x, double a, ColourVectorField<T>& y) {
    lqcd::RequireCompatible(x, y, "Xpay");
    const T at = static_cast<T>(a);
    for (int i = 0; i < x.sites(); ++i) y[i] = x[i] + at * y[i];
  }
  template <typename T>
  static void Caxpy(Complex<double> a, const ColourVectorField<T>& x, ColourVectorField<T>& y) {
    lqcd::RequireCompatible(x, y, "Caxpy");
    const Complex<T> at(static_cast<T>(a.real()), static_cast<T>(a.imag()));
    for (int i = 0; i < x.sites(); ++i) y[i] += at * x[i];
  }
  template <typename T>
  static double CaxpyNorm(Complex<double> a, const ColourVectorField<T>& x, ColourVectorField<T>& y) {
    Caxpy(a, x, y);
    return Norm2(y);
  }
  // The deferred forms CG uses (README.md): the same values, at once.
  template <typename T>
  static double DeferredNorm2(const ColourVectorField<T>& x) {
    return Norm2(x);
  }
  template <typename T>
  static double DeferredReDot(const ColourVectorField<T>& x, const ColourVectorField<T>& y) {
    return ReDot(x, y);
  }
  template <typename T>
  static double DeferredAxpyNorm(double a, const ColourVectorField<T>& x, ColourVectorField<T>& y) {
    return AxpyNorm(a, x, y);
  }
  // x += alpha p; p = r + beta p (the old p in both).
  template <typename T>
  static void CgSolutionDirection(double alpha, double beta, const ColourVectorField<T>& r, ColourVectorField<T>& x,
                                  ColourVectorField<T>& p) {
    lqcd::RequireCompatible(r, x, "CgSolutionDirection");
    lqcd::RequireCompatible(r, p, "CgSolutionDirection");
    const T at = static_cast<T>(alpha), bt = static_cast<T>(beta);
    for (int i = 0; i < r.sites(); ++i) {
      x[i] += at * p[i];
      p[i] = r[i] + bt * p[i];
    }
  }
  // x += alpha p; r -= alpha q; returns |r|^2.
  template <typename T>
  static double CgUpdate(double alpha, const ColourVectorField<T>& p, const ColourVectorField<T>& q,
                         ColourVectorField<T>& x, ColourVectorField<T>& r) {
    lqcd::RequireCompatible(p, q, "CgUpdate");
    lqcd::RequireCompatible(p, x, "CgUpdate");
    lqcd::RequireCompatible(p, r, "CgUpdate");
    const T at = static_cast<T>(alpha);
    for (int i = 0; i < p.sites(); ++i) {
      x[i] += at * p[i];
      r[i] -= at * q[i];
    }
    return Norm2(r);
  }
};

// M_pp = 4m^2 - D_{p,p'} D_{p',p} on parity p (default even), for CG. P = double or float.
template <typename P>
class CpuStaggeredSchur {
 public:
  using Backend = CpuStaggeredBackend;
  using Precision = P;
  using Field = CpuStaggeredBackend::Field<P>;

  CpuStaggeredSchur(StaggeredLinks<P> links, const StaggeredParams& params, Parity parity = Parity::kEven)
      : links_(std::move(links)), params_(params), parity_(parity) {
    RequireUsableLinks(links_, "CpuStaggeredSchur");
    if (!std::isfinite(params_.mass) || params_.mass == 0) {
      throw std::invalid_argument("CpuStaggeredSchur: the mass must be finite and non-zero, got " +
                                  std::to_string(params_.mass));
    }
  }

  void Apply(Field& out, const Field& in) const {
    if (&out == &in) throw std::invalid_argument("CpuStaggeredSchur: out and in must be different fields");
    RequireParity(in, "Apply");
    RequireParity(out, "Apply");
    ApplyStaggeredSchur(out, links_, in, params_);
  }
  // Hermitian: M_pp^dag = M_pp.
  void ApplyDagger(Field& out, const Field& in) const { Apply(out, in); }

  Field NewField() const { return Field(links_.lattice(), SubsetOf(parity_)); }

  double FlopsPerApply() const {
    const double per_site = links_.long_links ? kImprovedStaggeredFlopsPerSite : kNaiveStaggeredFlopsPerSite;
    const double half = links_.lattice().half_volume();
    return 2 * per_site * half + 12 * half;
  }
  std::string Name() const {
    return std::string("M_") + (parity_ == Parity::kEven ? "ee" : "oo") + "(staggered)<" +
           PrecisionTraits<P>::kName + ">";
  }

  // b'_p = 2m b_p - D_{p,p'} b_{p'} from a full source.
  void PrepareSource(Field& b_p, const Field& b_full) const {
    RequireParity(b_p, "PrepareSource");
    b_p = PrepareStaggeredSchurSource(links_, b_full, params_, parity_);
  }
  void RestrictGuess(Field& x_p, const Field& x_full) const {
    RequireParity(x_p, "RestrictGuess");
    x_p = Extract(x_full, parity_);
  }
  // x_full = (x_p on p, (b_{p'} - D_{p',p} x_p) / (2m) on p').
  void Reconstruct(Field& x_full, const Field& x_p, const Field& b_full) const {
    RequireParity(x_p, "Reconstruct");
    x_full = ReconstructStaggeredSolution(links_, x_p, b_full, params_);
  }
  // |b - M x| = |b'_p - M_pp x_p| / (2|m|) for the reconstructed x (the p' rows of M x = b hold exactly
  // by construction; the p rows times 2m are the Schur residual).
  double FullResidualPerSchurResidual() const { return 1.0 / (2 * std::abs(params_.mass)); }

  const StaggeredLinks<P>& links() const { return links_; }
  const StaggeredParams& params() const { return params_; }
  Parity parity() const { return parity_; }

 private:
  void RequireParity(const Field& f, const char* member) const {
    if (f.lattice() != links_.lattice() || f.subset() != SubsetOf(parity_)) {
      throw std::invalid_argument(std::string("CpuStaggeredSchur::") + member + ": needs a " +
                                  ToString(SubsetOf(parity_)) + "-parity field on " + links_.lattice().ToString());
    }
  }

  StaggeredLinks<P> links_;
  StaggeredParams params_;
  Parity parity_;
};

}  // namespace lqcd::solvers
