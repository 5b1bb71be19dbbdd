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
  switch (l.gauge.precision) {
    case Precision::kDouble: return LaunchMultiRhsDslashDouble(l);
    case Precision::kSingle: return LaunchMultiRhsDslashSingle(l);
    case Precision::kHalf: return LaunchMultiRhsDslashHalf(l);
  }
}

// Checks the whole block (each right-hand side as the single-RHS call checks it, then the block's own rules)
// and launches it in pieces of at most kMaxRhsPerLaunch. x: null for the plain Dslash.
void CheckAndLaunch(const char* where, const std::vector<SpinorView>& out, const DeviceGaugeField& gauge,
                    const std::vector<ConstSpinorView>& in, Dagger dagger, const std::vector<ConstSpinorView>* x,
                    double a, double b, const FermionBoundary& boundary, MultiRhsMapping mapping) {
  const std::size_t n = in.size();
  if (n == 0) Reject(where, "no right-hand sides");
  if (out.size() != n) Reject(where, std::to_string(out.size()) + " outputs for " + std::to_string(n) + " inputs");
  if (x != nullptr && x->size() != n) {
    Reject(where, std::to_string(x->size()) + " x fields for " + std::to_string(n) + " inputs");
  }
  const int m = mapping.rhs_per_thread;
  if (m != 0 && m != 1 && m != 2 && m != 4) {
    Reject(where, std::to_string(m) + " right-hand sides per thread (0, 1, 2 or 4)");
  }
  std::vector<WilsonDslashLaunch> single(n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::string name = std::string(where) + ", right-hand side " + std::to_string(j);
    single[j] = CheckedWilsonDslashLaunch(name.c_str(), out[j], gauge, in[j], dagger, x != nullptr ? &(*x)[j] : nullptr,
                                          a, b, boundary);
    if (out[j].parity != out[0].parity) Reject(where, "the outputs are not all on one parity");
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::string pair = std::to_string(j) + " and " + std::to_string(k);
      if (k != j && out[j].data == out[k].data) Reject(where, "outputs " + pair + " are the same memory");
      if (out[j].data == in[k].data) Reject(where, "output " + std::to_string(j) + " is input " + std::to_string(k));
      if (x != nullptr && k != j && out[j].data == (*x)[k].data) {
        Reject(where, "output " + std::to_string(j) + " is the x of right-hand side " + std::to_string(k));
      }
    }
  }
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
    }
    Dispatch(l);
  }
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

}  // namespace lqcd::gpu
