#include "gpu/staggered_dslash.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu/staggered_dslash_cost.h"
#include "gpu/staggered_dslash_launch.h"

namespace lqcd::gpu {
namespace {

void Refuse(const std::string& what) { throw std::invalid_argument("ApplyStaggeredDslash: " + what); }

GaugeLayout EighteenReals(Precision precision) {
  if (precision == Precision::kHalf) {
    throw std::invalid_argument("DeviceStaggeredLinks: half precision is not implemented for staggered links");
  }
  return GaugeLayout{precision, Reconstruct::k18, false, 0};
}

// The fat links, after the checks of the pair (before anything is uploaded).
const GaugeField<double>& CheckedFatLinks(const StaggeredLinks<double>& links) {
  RequireUsableLinks(links, "DeviceStaggeredLinks");
  return links.fat;
}

std::unique_ptr<DeviceGaugeField> UploadLongLinks(const StaggeredLinks<double>& links, Precision precision) {
  if (!links.long_links) return nullptr;
  return std::make_unique<DeviceGaugeField>(*links.long_links, EighteenReals(precision));
}

}  // namespace

DeviceStaggeredLinks::DeviceStaggeredLinks(const StaggeredLinks<double>& links, Precision precision)
    : fat_(CheckedFatLinks(links), EighteenReals(precision)), long_links_(UploadLongLinks(links, precision)) {}

void ApplyStaggeredDslash(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                          const DeviceColourVectorField& in, const FermionBoundary& boundary, Dagger dagger) {
  ApplyStaggeredDslashBlock({&out}, links, {&in}, boundary, dagger);
}

namespace {

// Both forms: x null for the plain Dslash.
void ApplyBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                const std::vector<const DeviceColourVectorField*>& in, const std::vector<const DeviceColourVectorField*>* x,
                double a, double b, const FermionBoundary& boundary, Dagger dagger, int rhs_per_thread) {
  const int n = static_cast<int>(out.size());
  if (n < 1 || n > kMaxStaggeredRhs || in.size() != out.size()) {
    Refuse(std::to_string(out.size()) + " outputs and " + std::to_string(in.size()) +
           " inputs: need as many of each, 1 to " + std::to_string(kMaxStaggeredRhs));
  }
  if (rhs_per_thread != 0 && rhs_per_thread != 1 && rhs_per_thread != 2 && rhs_per_thread != 4) {
    Refuse("rhs_per_thread must be 0 (chosen), 1, 2 or 4, got " + std::to_string(rhs_per_thread));
  }
  StaggeredDslashLaunch l;
  const Parity out_parity = out[0] != nullptr ? out[0]->parity() : Parity::kEven;
  for (int j = 0; j < n; ++j) {
    if (out[j] == nullptr || in[j] == nullptr) Refuse("right-hand side " + std::to_string(j) + " is null");
    for (const DeviceColourVectorField* f : {static_cast<const DeviceColourVectorField*>(out[j]), in[j]}) {
      if (f->lattice() != links.lattice()) {
        Refuse("right-hand side " + std::to_string(j) + ": field on " + f->lattice().ToString() + ", links on " +
               links.lattice().ToString());
      }
      if (f->precision() != links.precision()) {
        Refuse("right-hand side " + std::to_string(j) + ": " + ToString(f->precision()) + " field, " +
               ToString(links.precision()) + " links");
      }
    }
    if (out[j]->parity() != out_parity || in[j]->parity() != Opposite(out_parity)) {
      Refuse("right-hand side " + std::to_string(j) + ": every output must be on one parity and every input on "
             "the other");
    }
    for (int k = 0; k < n; ++k) {
      if (static_cast<const DeviceColourVectorField*>(out[j]) == in[k]) Refuse("an output is also an input");
      if (k != j && out[k] == out[j]) Refuse("an output appears twice");
    }
    l.out[j] = out[j]->View();
    l.in[j] = in[j]->View();
  }
  if (x != nullptr) {
    if (x->size() != out.size()) Refuse(std::to_string(x->size()) + " x fields for " + std::to_string(n) + " outputs");
    if (!std::isfinite(a) || !std::isfinite(b)) Refuse("xpay coefficients must be finite");
    for (int j = 0; j < n; ++j) {
      const DeviceColourVectorField* xj = (*x)[j];
      if (xj == nullptr) Refuse("x " + std::to_string(j) + " is null");
      if (xj->lattice() != links.lattice() || xj->parity() != out_parity || xj->precision() != links.precision()) {
        Refuse("x " + std::to_string(j) + " must be on the outputs' lattice, parity and precision");
      }
      for (int k = 0; k < n; ++k) {
        if (k != j && xj == out[k]) Refuse("x " + std::to_string(j) + " is another right-hand side's output");
      }
      l.x[j] = xj->View();
    }
    l.xpay = true;
    l.a = a;
    l.b = b;
  }
  l.rhs = n;
  l.fat = links.fat().View();
  if (links.improved()) l.long_links = links.long_links()->View();
  for (int mu = 0; mu < 4; ++mu) l.antiperiodic[mu] = boundary.WrapSign(mu) < 0;
  l.dagger = dagger == Dagger::kYes;
  l.rhs_per_thread = rhs_per_thread;
  LaunchStaggeredDslash(l);
}

}  // namespace

void ApplyStaggeredDslashBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                               const std::vector<const DeviceColourVectorField*>& in, const FermionBoundary& boundary,
                               Dagger dagger, int rhs_per_thread) {
  ApplyBlock(out, links, in, nullptr, 0, 1, boundary, dagger, rhs_per_thread);
}

void ApplyStaggeredDslashXpay(DeviceColourVectorField& out, const DeviceStaggeredLinks& links,
                              const DeviceColourVectorField& in, const DeviceColourVectorField& x, double a, double b,
                              const FermionBoundary& boundary, Dagger dagger) {
  ApplyStaggeredDslashXpayBlock({&out}, links, {&in}, {&x}, a, b, boundary, dagger);
}

void ApplyStaggeredDslashXpayBlock(const std::vector<DeviceColourVectorField*>& out, const DeviceStaggeredLinks& links,
                                   const std::vector<const DeviceColourVectorField*>& in,
                                   const std::vector<const DeviceColourVectorField*>& x, double a, double b,
                                   const FermionBoundary& boundary, Dagger dagger, int rhs_per_thread) {
  ApplyBlock(out, links, in, &x, a, b, boundary, dagger, rhs_per_thread);
}

KernelCost StaggeredDslashKernelCost(const DeviceStaggeredLinks& links, int rhs) {
  Extents extents{};
  for (int mu = 0; mu < 4; ++mu) extents[mu] = links.lattice().extent(mu);
  return StaggeredDslashCost(StaggeredDslashVariant{links.precision(), links.improved() ? 18 : 0}, extents, rhs);
}

}  // namespace lqcd::gpu
