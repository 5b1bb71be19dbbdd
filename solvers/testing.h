// testing.h: fixtures shared by the solver tests (testonly).
//
// RandomSu3Gauge(lattice, seed): every link an independent Haar-random SU(3) matrix
// (reference/su3_random.h RandomGaugeField), the "hot" field of the paper's accuracy test.
// SpinMatrixOperator: a site-diagonal spin matrix, for constructed breakdowns (below).
// WilsonResidual(u, params, x, b): |b - M x| / |b| with reference/wilson.h's ApplyWilson in double, independent of
// the solver backend.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "reference/gauge_field.h"
#include "reference/random.h"
#include "reference/spinor_algebra.h"
#include "reference/spinor_field.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"

namespace lqcd::solvers::testing {

inline GaugeField<double> RandomSu3Gauge(const Lattice& lattice, std::uint64_t seed) {
  return RandomGaugeField<double>(lattice, seed);
}

inline double WilsonResidual(const GaugeField<double>& u, const WilsonParams& params, const SpinorField<double>& x,
                             const SpinorField<double>& b) {
  SpinorField<double> mx(b.lattice());
  ApplyWilson(mx, u, x, params, Dagger::kNo);
  return std::sqrt(Norm2(Difference(b, mx)) / Norm2(b));
}

// Rigorous bounds on the inverse of the Wilson matrix for kappa < 1/8, any gauge field, used to turn a
// residual into an error bound (|x - x*| <= |M^{-1}| |b - M x|):
//   each direction of the hopping term is (W + W^dag) - gamma_mu (W - W^dag) = 2 (A - i gamma_mu B) with
//   A = (W + W^dag)/2, B = (W - W^dag)/2i commuting and A^2 + B^2 = 1 (W unitary), so it is 2 x a unitary
//   and |D| <= 8. Then M = (1 - kappa D) / (2 kappa) gives |M^{-1}| <= 2 kappa / (1 - 8 kappa), and
//   M_pp = 1 - kappa^2 D_pp' D_p'p gives |M_pp^{-1}| <= 1 / (1 - 64 kappa^2).
inline double WilsonInverseNormBound(double kappa) { return 2 * kappa / (1 - 8 * kappa); }
inline double SchurInverseNormBound(double kappa) { return 1 / (1 - 64 * kappa * kappa); }

// A test operator that acts on every site by the same 4x4 spin matrix G (out = G in, site by site):
// with small integer G the Krylov coefficients are exact, so breakdowns can be constructed exactly.
// FlopsPerApply counts a complex 4x4 by 4x3 product per site (8 flops per complex multiply-add).
template <typename P = double>
class SpinMatrixOperator {
 public:
  using Backend = CpuBackend;
  using Precision = P;
  using Field = CpuBackend::Field<P>;

  SpinMatrixOperator(const Lattice& lattice, Subset subset, const SpinMatrix& g)
      : lattice_(lattice), subset_(subset), g_(g) {}
  void Apply(Field& out, const Field& in) const { Run(out, in, g_); }
  void ApplyDagger(Field& out, const Field& in) const { Run(out, in, g_.adjoint()); }
  Field NewField() const { return Field(lattice_, subset_); }
  double FlopsPerApply() const { return 8.0 * 4 * 12 * NewField().sites(); }
  std::string Name() const { return std::string("G<") + PrecisionTraits<P>::kName + ">"; }

 private:
  void Run(Field& out, const Field& in, const SpinMatrix& g) const {
    CpuBackend::RequireCompatible(out, in, "SpinMatrixOperator");
    using S = cpu_detail::Site<Field>;
    using R = cpu_detail::RealOf<Field>;
    const Eigen::Matrix<Complex<R>, 4, 4> gr = g.cast<Complex<R>>();
    for (int i = 0; i < in.sites(); ++i) S::Store(out, i, gr * S::Load(in, i));
  }

  Lattice lattice_;
  Subset subset_;
  SpinMatrix g_;
};

// A Wilson test problem: random SU(3) links, M and M_ee in double, a Gaussian source.
struct WilsonProblem {
  Lattice lattice;
  double kappa;
  GaugeField<double> u;
  WilsonParams params;
  CpuWilson<double> m;
  CpuWilsonSchur<double> schur;
  SpinorField<double> b;
  WilsonProblem(const Lattice& l, double k, std::uint64_t seed)
      : lattice(l),
        kappa(k),
        u(RandomSu3Gauge(l, seed)),
        params(WilsonParams::FromKappa(k)),
        m(u, params),
        schur(u, params, Parity::kEven),
        b(l) {
    FillGaussian(b, seed + 100);
  }
  // A given gauge field.
  WilsonProblem(const GaugeField<double>& field, double k, std::uint64_t source_seed)
      : lattice(field.lattice()),
        kappa(k),
        u(field),
        params(WilsonParams::FromKappa(k)),
        m(u, params),
        schur(u, params, Parity::kEven),
        b(lattice) {
    FillGaussian(b, source_seed);
  }
};

// A field with the same spinor at every site.
inline SpinorField<double> UniformField(const Lattice& lattice, Subset subset, const SiteSpinor<double>& s) {
  SpinorField<double> f(lattice, subset);
  for (int i = 0; i < f.sites(); ++i) f[i] = s;
  return f;
}

// An exact BiCGstab omega breakdown, built from small integers so no rounding is involved:
// A = G per site with G = [[1, -1], [1, 0]] on each spin pair (0,1) and (2,3), b = (1, 0) per pair.
// Then v = A b = (1, 1), alpha = |b|^2 / (b, v) = 1, s = b - v = (0, -1), t = A s = (1, 0), and
// (t, s) = 0, so omega = (t, s) / (t, t) = 0 at the first step.
inline SpinMatrix OmegaBreakdownSpinMatrix() {
  SpinMatrix g = SpinMatrix::Zero();
  g(0, 0) = 1;
  g(0, 1) = -1;
  g(1, 0) = 1;
  g(2, 2) = 1;
  g(2, 3) = -1;
  g(3, 2) = 1;
  return g;
}

inline SpinorField<double> OmegaBreakdownSource(const Lattice& lattice) {
  SiteSpinor<double> site = SiteSpinor<double>::Zero();
  site.row(0).setOnes();
  site.row(2).setOnes();
  return UniformField(lattice, Subset::kFull, site);
}

}  // namespace lqcd::solvers::testing
