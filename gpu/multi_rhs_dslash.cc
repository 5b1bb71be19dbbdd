// multi_rhs_dslash.cc: argument checks of the multi-RHS Dslash and dispatch to the per-precision launchers.
#include "gpu/multi_rhs_dslash.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lqcd::gpu {
namespace {

[[noreturn]] void Reject(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

void Dispatch(const MultiRhsDslashLaunch& l) {
  const bool clover = UsesClover(l.epilogue);
  switch (l.gauge.precision) {
    case Precision::kDouble: return clover ? LaunchMultiRhsCloverDslashDouble(l) : LaunchMultiRhsDslashDouble(l);
    case Precision::kSingle: return clover ? LaunchMultiRhsCloverDslashSingle(l) : LaunchMultiRhsDslashSingle(l);
    case Precision::kHalf: return clover ? LaunchMultiRhsCloverDslashHalf(l) : LaunchMultiRhsDslashHalf(l);
  }
}

// n >= 1 right-hand sides, as many outputs as inputs, x_count x fields (when the epilogue reads x, else none), a
// mapping that exists.
void CheckShape(const char* where, std::size_t outputs, std::size_t inputs, std::size_t x_count, bool with_x,
                MultiRhsMapping mapping) {
  if (inputs == 0) Reject(where, "no right-hand sides");
  if (outputs != inputs) {
    Reject(where, std::to_string(outputs) + " outputs for " + std::to_string(inputs) + " inputs");
  }
  if (with_x && x_count != inputs) {
    Reject(where, std::to_string(x_count) + " x fields for " + std::to_string(inputs) + " inputs");
  }
  if (!with_x && x_count != 0) {
    Reject(where, std::to_string(x_count) + " x fields given, but the epilogue reads no x");
  }
  const int m = mapping.rhs_per_thread;
  if (m != 0 && m != 1 && m != 2 && m != 4) {
    Reject(where, std::to_string(m) + " right-hand sides per thread (0, 1, 2 or 4)");
  }
}

// The block's own rules on top of the per-right-hand-side checks (`single`: one checked launch each, all of one
// epilogue), then the launches, in pieces of at most kMaxRhsPerLaunch.
void CheckBlockAndLaunch(const char* where, const std::vector<WilsonDslashLaunch>& single, MultiRhsMapping mapping) {
  const std::size_t n = single.size();
  const bool with_x = UsesX(single[0].epilogue);
  for (std::size_t j = 0; j < n; ++j) {
    if (single[j].out.parity != single[0].out.parity) Reject(where, "the outputs are not all on one parity");
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::string pair = std::to_string(j) + " and " + std::to_string(k);
      const void* out = single[j].out.data;
      if (k != j && out == single[k].out.data) Reject(where, "outputs " + pair + " are the same memory");
      if (out == single[k].in.data) Reject(where, "output " + std::to_string(j) + " is input " + std::to_string(k));
      if (with_x && k != j && out == single[k].x.data) {
        Reject(where, "output " + std::to_string(j) + " is the x of right-hand side " + std::to_string(k));
      }
    }
  }
  const int m = mapping.rhs_per_thread;
  for (std::size_t first = 0; first < n; first += kMaxRhsPerLaunch) {
    const std::size_t count = std::min<std::size_t>(kMaxRhsPerLaunch, n - first);
    if (count == 1 && m == 0) {  // one right-hand side: the single-RHS kernel is the faster one (no link reuse)
      LaunchWilsonDslash(single[first]);
      continue;
    }
    MultiRhsDslashLaunch l;
    l.rhs = static_cast<int>(count);
    const WilsonDslashLaunch& s = single[first];
    l.gauge = s.gauge;
    l.clover = s.clover;
    l.dagger = s.dagger;
    l.epilogue = s.epilogue;
    l.a = s.a;
    l.b = s.b;
    l.antiperiodic = s.antiperiodic;
    l.rhs_per_thread = m;
    for (std::size_t j = 0; j < count; ++j) {
      l.out[j] = single[first + j].out;
      l.in[j] = single[first + j].in;
      l.x[j] = single[first + j].x;
      l.w[j] = single[first + j].w;
    }
    if (SumsDotNorm(s.epilogue)) {  // right-hand side j's partials start at its own offset
      l.partials = s.partials;
      l.partial_groups = (s.out.sites + kDotNormGroup - 1) / kDotNormGroup;
    }
    Dispatch(l);
  }
}

std::string RhsName(const char* where, std::size_t j) {
  return std::string(where) + ", right-hand side " + std::to_string(j);
}

// The Wilson forms: x null for the plain Dslash.
void CheckAndLaunch(const char* where, const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                    const std::vector<ConstSpinorView>& in, Dagger dagger, const std::vector<ConstSpinorView>* x,
                    double a, double b, const FermionBoundary& boundary, MultiRhsMapping mapping) {
  CheckShape(where, out.size(), in.size(), x != nullptr ? x->size() : 0, x != nullptr, mapping);
  std::vector<WilsonDslashLaunch> single(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    single[j] = CheckedWilsonDslashLaunch(RhsName(where, j).c_str(), out[j], gauge, in[j], dagger,
                                          x != nullptr ? &(*x)[j] : nullptr, a, b, boundary);
  }
  CheckBlockAndLaunch(where, single, mapping);
}

// Turns checked launches of kXpay, kCloverXpay or kXpayClover (D) into their dot-norm form: w[j] and right-hand
// side j's partials at partials + 3 j G, G = ceil(sites / kDotNormGroup).
void AttachDotNorm(const char* where, std::vector<WilsonDslashLaunch>& single, const std::vector<ConstSpinorView>& w,
                   double* partials) {
  if (w.size() != single.size()) {
    Reject(where, std::to_string(w.size()) + " w fields for " + std::to_string(single.size()) + " inputs");
  }
  if (partials == nullptr) Reject(where, "no memory for the partial sums");
  const int groups = (single[0].out.sites + kDotNormGroup - 1) / kDotNormGroup;
  for (std::size_t j = 0; j < single.size(); ++j) {
    const std::string name = RhsName(where, j);
    for (const WilsonDslashLaunch& o : single) {
      if (w[j].data == o.out.data) Reject(name.c_str(), "w is the memory of an output");
    }
    single[j] = WithDotNorm(name.c_str(), single[j], w[j], partials + 3 * static_cast<std::size_t>(groups) * j);
  }
}

// The checked single launches of a clover block call (the shape, then each right-hand side as ApplyCloverDslash).
std::vector<WilsonDslashLaunch> CheckedCloverLaunches(const char* where, const std::vector<SpinorView>& out,
                                                      const DeviceGaugeField& gauge,
                                                      const std::vector<ConstSpinorView>& in, Dagger dagger,
                                                      const CloverBlockEpilogue& epilogue,
                                                      const FermionBoundary& boundary, MultiRhsMapping mapping) {
  if (!UsesClover(epilogue.kind)) {
    Reject(where, std::string("epilogue ") + ToString(epilogue.kind) + " has no clover term");
  }
  CheckShape(where, out.size(), in.size(), epilogue.x.size(), UsesX(epilogue.kind), mapping);
  std::vector<WilsonDslashLaunch> single(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    CloverEpilogue e;
    e.kind = epilogue.kind;
    e.clover = epilogue.clover;
    if (UsesX(epilogue.kind)) e.x = epilogue.x[j];
    e.a = epilogue.a;
    e.b = epilogue.b;
    single[j] = CheckedCloverDslashLaunch(RhsName(where, j).c_str(), out[j], gauge, in[j], dagger, e, boundary);
  }
  return single;
}

}  // namespace

void ApplyWilsonDslashBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                            const std::vector<ConstSpinorView>& in, Dagger dagger, const FermionBoundary& boundary,
                            MultiRhsMapping mapping) {
  CheckAndLaunch("ApplyWilsonDslashBlock", out, gauge, in, dagger, nullptr, 0, 0, boundary, mapping);
}

void ApplyWilsonDslashXpayBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                const std::vector<ConstSpinorView>& in, Dagger dagger,
                                const std::vector<ConstSpinorView>& x, double a, double b,
                                const FermionBoundary& boundary, MultiRhsMapping mapping) {
  CheckAndLaunch("ApplyWilsonDslashXpayBlock", out, gauge, in, dagger, &x, a, b, boundary, mapping);
}

void ApplyWilsonDslashXpayDotNormBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                       const std::vector<ConstSpinorView>& in, const std::vector<ConstSpinorView>& x,
                                       double a, double b, const std::vector<ConstSpinorView>& w, double* partials,
                                       const FermionBoundary& boundary, MultiRhsMapping mapping) {
  const char* where = "ApplyWilsonDslashXpayDotNormBlock";
  CheckShape(where, out.size(), in.size(), x.size(), true, mapping);
  std::vector<WilsonDslashLaunch> single(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    single[j] = CheckedWilsonDslashLaunch(RhsName(where, j).c_str(), out[j], gauge, in[j], Dagger::kNo, &x[j], a, b,
                                          boundary);
  }
  AttachDotNorm(where, single, w, partials);
  CheckBlockAndLaunch(where, single, mapping);
}

void ApplyCloverDslashBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                            const std::vector<ConstSpinorView>& in, Dagger dagger, const CloverBlockEpilogue& epilogue,
                            const FermionBoundary& boundary, MultiRhsMapping mapping) {
  const char* where = "ApplyCloverDslashBlock";
  CheckBlockAndLaunch(where, CheckedCloverLaunches(where, out, gauge, in, dagger, epilogue, boundary, mapping),
                      mapping);
}

void ApplyCloverDslashDotNormBlock(const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                                   const std::vector<ConstSpinorView>& in, const CloverBlockEpilogue& epilogue,
                                   const std::vector<ConstSpinorView>& w, double* partials,
                                   const FermionBoundary& boundary, MultiRhsMapping mapping) {
  const char* where = "ApplyCloverDslashDotNormBlock";
  if (epilogue.kind != DslashEpilogue::kCloverXpay && epilogue.kind != DslashEpilogue::kXpayClover) {
    Reject(where, std::string("epilogue ") + ToString(epilogue.kind) +
                      " has no fused dot products (clover-xpay, xpay-clover)");
  }
  std::vector<WilsonDslashLaunch> single =
      CheckedCloverLaunches(where, out, gauge, in, Dagger::kNo, epilogue, boundary, mapping);
  AttachDotNorm(where, single, w, partials);
  CheckBlockAndLaunch(where, single, mapping);
}

}  // namespace lqcd::gpu
