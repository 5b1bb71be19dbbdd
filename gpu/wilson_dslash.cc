// wilson_dslash.cc: argument checks, cost model and dispatch to the per-precision launchers.
#include "gpu/wilson_dslash.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/wilson_dslash_launch.h"

namespace lqcd::gpu {
namespace {

[[noreturn]] void Reject(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

std::string ExtentsString(const Extents& e) {
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]) + "x" + std::to_string(e[3]);
}

void CheckSpinor(const char* where, const char* name, const ConstSpinorView& v, const GaugeView& gauge) {
  if (v.data == nullptr) Reject(where, std::string(name) + " has no device memory");
  if (v.precision != gauge.precision) {
    Reject(where, std::string(name) + " is in " + ToString(v.precision) + " precision but the gauge field in " +
                      ToString(gauge.precision) + " (all fields of one call share a precision)");
  }
  if (v.extents != gauge.extents) {
    Reject(where, std::string(name) + " lives on " + ExtentsString(v.extents) + " but the gauge field on " +
                      ExtentsString(gauge.extents));
  }
  if (v.parity != 0 && v.parity != 1) Reject(where, std::string(name) + " has parity " + std::to_string(v.parity));
  if (v.sites != HalfVolume(v.extents) || v.stride < v.sites) Reject(where, std::string(name) + " has a bad layout");
  if (v.precision == Precision::kHalf && v.norm == nullptr) Reject(where, std::string(name) + " has no norms");
}

void CheckClover(const char* where, const CloverView& c, const SpinorView& out) {
  if (c.data == nullptr) Reject(where, "the clover field has no device memory");
  if (c.precision != out.precision) {
    Reject(where, std::string("the clover field is in ") + ToString(c.precision) + " precision but out in " +
                      ToString(out.precision));
  }
  if (c.extents != out.extents) {
    Reject(where, "the clover field lives on " + ExtentsString(c.extents) + " but out on " + ExtentsString(out.extents));
  }
  if (c.parity != out.parity) Reject(where, "the clover field must be on the parity of out");
  if (c.sites != out.sites || c.stride < c.sites) Reject(where, "the clover field has a bad layout");
  if (c.precision == Precision::kHalf && c.norm == nullptr) Reject(where, "the half clover field has no norms");
}

// x, a, b: used by the epilogues with an x (x = nullptr otherwise); clover: by the clover epilogues.
WilsonDslashLaunch CheckedLaunch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge,
                                 const ConstSpinorView& in, Dagger dagger, DslashEpilogue epilogue,
                                 const ConstSpinorView* x, double a, double b, const CloverView* clover,
                                 const FermionBoundary& boundary) {
  WilsonDslashLaunch l;
  l.gauge = gauge.View();
  l.epilogue = epilogue;
  CheckSpinor(where, "out", out, l.gauge);
  CheckSpinor(where, "in", in, l.gauge);
  if (out.parity == in.parity) {
    Reject(where, std::string("out and in are both ") + (out.parity == 0 ? "even" : "odd") +
                      "; D maps one parity to the other");
  }
  if (out.data == in.data) Reject(where, "out and in are the same memory");
  if (x != nullptr) {
    CheckSpinor(where, "x", *x, l.gauge);
    if (x->parity != out.parity) Reject(where, "x must be on the parity of out");
    if (!std::isfinite(a) || !std::isfinite(b)) Reject(where, "a and b must be finite");
    if (x->data == in.data) Reject(where, "x and in are the same memory");
    l.x = *x;
    l.a = a;
    l.b = b;
  }
  if (clover != nullptr) {
    CheckClover(where, *clover, out);
    l.clover = *clover;
  }
  l.out = out;
  l.in = in;
  l.dagger = dagger == Dagger::kYes;
  for (int mu = 0; mu < 4; ++mu) l.antiperiodic[mu] = boundary.WrapSign(mu) < 0;
  return l;
}

void Launch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
            Dagger dagger, DslashEpilogue epilogue, const ConstSpinorView* x, double a, double b,
            const CloverView* clover, const FermionBoundary& boundary) {
  LaunchWilsonDslash(CheckedLaunch(where, out, gauge, in, dagger, epilogue, x, a, b, clover, boundary));
}

// A checked launch of kXpay or kCloverXpay (D^dag) turned into its axpy-norm form: out = out + c q.
void LaunchWithAxpyNorm(const char* where, WilsonDslashLaunch l, const double* coefficient, double* partials) {
  if (coefficient == nullptr) Reject(where, "no coefficient");
  if (partials == nullptr) Reject(where, "no memory for the partial sums");
  l.epilogue = AxpyNormForm(l.epilogue);
  l.axpy_coefficient = coefficient;
  l.partials = partials;
  LaunchWilsonDslash(l);
}

}  // namespace

WilsonDslashLaunch WithDotNorm(const char* where, WilsonDslashLaunch l, const ConstSpinorView& w, double* partials) {
  CheckSpinor(where, "w", w, l.gauge);
  if (w.parity != l.out.parity) Reject(where, "w must be on the parity of out");
  if (w.data == l.out.data) Reject(where, "w and out are the same memory");
  if (partials == nullptr) Reject(where, "no memory for the partial sums");
  l.epilogue = DotNormForm(l.epilogue);
  l.w = w;
  l.partials = partials;
  return l;
}

WilsonDslashLaunch CheckedWilsonDslashLaunch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge,
                                             const ConstSpinorView& in, Dagger dagger, const ConstSpinorView* x,
                                             double a, double b, const FermionBoundary& boundary) {
  return CheckedLaunch(where, out, gauge, in, dagger, x != nullptr ? DslashEpilogue::kXpay : DslashEpilogue::kNone, x,
                       a, b, nullptr, boundary);
}

void LaunchWilsonDslash(const WilsonDslashLaunch& l) {
  if (UsesClover(l.epilogue)) {
    switch (l.gauge.precision) {
      case Precision::kDouble: return LaunchCloverDslashDouble(l);
      case Precision::kSingle: return LaunchCloverDslashSingle(l);
      case Precision::kHalf: return LaunchCloverDslashHalf(l);
    }
  }
  switch (l.gauge.precision) {
    case Precision::kDouble: return LaunchWilsonDslashDouble(l);
    case Precision::kSingle: return LaunchWilsonDslashSingle(l);
    case Precision::kHalf: return LaunchWilsonDslashHalf(l);
  }
}

std::string DslashVariant::Name() const {
  const bool clover = clover_epilogue != DslashEpilogue::kNone;
  return std::string(ToString(precision)) + "/" + ToString(reconstruct) + (temporal_gauge_fixed ? "/gf" : "") +
         (dagger == Dagger::kYes ? "/dagger" : "") + (xpay && !clover ? "/xpay" : "") +
         (clover ? std::string("/") + ToString(clover_epilogue) : "");
}

KernelCost WilsonDslashCost(const DslashVariant& v, const Extents& extents, int rhs) {
  if (rhs < 1) throw std::invalid_argument("WilsonDslashCost: " + std::to_string(rhs) + " right-hand sides");
  const double sites = HalfVolume(extents);
  const double real_bytes = BytesPerReal(v.precision);
  const double norm_bytes = v.precision == Precision::kHalf ? 4 : 0;
  const double link_reals = RealsPerLink(v.reconstruct);
  // t-links loaded per site: 2, or 2 / Lt on average with temporal gauge fixing (1/Lt of the sites sit on
  // t = Lt - 1 and need the forward t-link, 1/Lt on t = 0 and need the backward one).
  const double temporal_links = v.temporal_gauge_fixed ? 2.0 / extents[3] : 2.0;
  const double gauge_bytes = (6 + temporal_links) * link_reals * real_bytes;
  const double in_spinor_bytes = (6 * 24 + 2 * 12) * real_bytes + 8 * norm_bytes;
  const double out_bytes = 24 * real_bytes + norm_bytes;
  const bool clover = UsesClover(v.clover_epilogue);
  const bool with_x = clover ? UsesX(v.clover_epilogue) : v.xpay;
  const double x_bytes = with_x ? 24 * real_bytes + norm_bytes : 0;
  const double clover_bytes = clover ? 72 * real_bytes + 2 * norm_bytes : 0;

  // The spinor terms per right-hand side; the links and the clover term, the same for every right-hand side,
  // once per launch (a call on more than kMaxRhsPerLaunch right-hand sides is split into launches).
  const double n = rhs;
  const double launches = (rhs + kMaxRhsPerLaunch - 1) / kMaxRhsPerLaunch;
  const double shared_bytes = launches * (gauge_bytes + clover_bytes);
  KernelCost cost;
  cost.flops = n * sites *
               (kDslashFlopsPerSite + (with_x ? kXpayFlopsPerSite : 0) + (clover ? kCloverFlopsPerSiteOnDevice : 0));
  cost.bytes = sites * (shared_bytes + n * (in_spinor_bytes + out_bytes + x_bytes));
  cost.minimum_bytes = sites * (shared_bytes + n * ((24 * real_bytes + norm_bytes) + out_bytes + x_bytes));
  return cost;
}

void ApplyWilsonDslash(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in, Dagger dagger,
                       const FermionBoundary& boundary) {
  Launch("ApplyWilsonDslash", out, gauge, in, dagger, DslashEpilogue::kNone, nullptr, 0, 0, nullptr, boundary);
}

void ApplyWilsonDslashXpayDotNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                                  const ConstSpinorView& x, double a, double b, const ConstSpinorView& w,
                                  double* partials, const FermionBoundary& boundary) {
  const char* where = "ApplyWilsonDslashXpayDotNorm";
  LaunchWilsonDslash(WithDotNorm(
      where, CheckedLaunch(where, out, gauge, in, Dagger::kNo, DslashEpilogue::kXpay, &x, a, b, nullptr, boundary), w,
      partials));
}

void ApplyWilsonDslashDaggerXpayAxpyNorm(const SpinorView& out, const DeviceGaugeField& gauge,
                                         const ConstSpinorView& in, const ConstSpinorView& x, double a, double b,
                                         const double* coefficient, double* partials,
                                         const FermionBoundary& boundary) {
  const char* where = "ApplyWilsonDslashDaggerXpayAxpyNorm";
  LaunchWithAxpyNorm(
      where, CheckedLaunch(where, out, gauge, in, Dagger::kYes, DslashEpilogue::kXpay, &x, a, b, nullptr, boundary),
      coefficient, partials);
}

void ApplyCloverDslashDaggerAxpyNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                                     const CloverEpilogue& e, const double* coefficient, double* partials,
                                     const FermionBoundary& boundary) {
  const char* where = "ApplyCloverDslashDaggerAxpyNorm";
  if (e.kind != DslashEpilogue::kCloverXpay) {
    Reject(where, std::string("epilogue ") + ToString(e.kind) + " has no fused update (clover-xpay)");
  }
  LaunchWithAxpyNorm(where, CheckedCloverDslashLaunch(where, out, gauge, in, Dagger::kYes, e, boundary), coefficient,
                     partials);
}

void ApplyWilsonDslashXpay(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                           Dagger dagger, const ConstSpinorView& x, double a, double b,
                           const FermionBoundary& boundary) {
  Launch("ApplyWilsonDslashXpay", out, gauge, in, dagger, DslashEpilogue::kXpay, &x, a, b, nullptr, boundary);
}

WilsonDslashLaunch CheckedCloverDslashLaunch(const char* where, const SpinorView& out, const DeviceGaugeField& gauge,
                                             const ConstSpinorView& in, Dagger dagger, const CloverEpilogue& e,
                                             const FermionBoundary& boundary) {
  if (!UsesClover(e.kind)) Reject(where, std::string("epilogue ") + ToString(e.kind) + " has no clover term");
  if (e.kind == DslashEpilogue::kXpayClover && dagger == Dagger::kYes) {
    Reject(where, "a x + b C D^dag in is not provided (the unit-diagonal form's dagger applies C first)");
  }
  return CheckedLaunch(where, out, gauge, in, dagger, e.kind, UsesX(e.kind) ? &e.x : nullptr, e.a, e.b, &e.clover,
                       boundary);
}

void ApplyCloverDslash(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in, Dagger dagger,
                       const CloverEpilogue& e, const FermionBoundary& boundary) {
  LaunchWilsonDslash(CheckedCloverDslashLaunch("ApplyCloverDslash", out, gauge, in, dagger, e, boundary));
}

void ApplyCloverDslashDotNorm(const SpinorView& out, const DeviceGaugeField& gauge, const ConstSpinorView& in,
                              const CloverEpilogue& e, const ConstSpinorView& w, double* partials,
                              const FermionBoundary& boundary) {
  const char* where = "ApplyCloverDslashDotNorm";
  if (e.kind != DslashEpilogue::kCloverXpay && e.kind != DslashEpilogue::kXpayClover) {
    Reject(where, std::string("epilogue ") + ToString(e.kind) + " has no fused dot products (clover-xpay, xpay-clover)");
  }
  LaunchWilsonDslash(
      WithDotNorm(where, CheckedCloverDslashLaunch(where, out, gauge, in, Dagger::kNo, e, boundary), w, partials));
}

}  // namespace lqcd::gpu
