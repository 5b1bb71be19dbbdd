// clover_apply.cc: argument checks, cost model and the call into the launcher (clover_apply.cu).
#include "gpu/clover_apply.h"

#include <stdexcept>
#include <string>

#include "gpu/clover_apply_launch.h"
#include "reference/clover.h"

namespace lqcd::gpu {
namespace {

constexpr char kWhere[] = "ApplyCloverTerm";

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument(std::string(kWhere) + ": " + what); }

std::string ExtentsString(const Extents& e) {
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]) + "x" + std::to_string(e[3]);
}

const char* ParityName(int parity) { return parity == 0 ? "even" : "odd"; }

void CheckSpinor(const char* name, const ConstSpinorView& v, const DeviceCloverField& clover) {
  if (v.data == nullptr) Reject(std::string(name) + " has no device memory");
  if (v.precision != clover.precision()) {
    Reject(std::string(name) + " is in " + ToString(v.precision) + " precision but the clover field in " +
           ToString(clover.precision()) + " (spinors and clover of one call share a precision)");
  }
  const Lattice& lat = clover.lattice();
  const Extents clover_extents{lat.extent(0), lat.extent(1), lat.extent(2), lat.extent(3)};
  if (v.extents != clover_extents) {
    Reject(std::string(name) + " lives on " + ExtentsString(v.extents) + " but the clover field on " +
           ExtentsString(clover_extents));
  }
  if (v.parity != 0 && v.parity != 1) Reject(std::string(name) + " has parity " + std::to_string(v.parity));
  if (v.sites != HalfVolume(v.extents) || v.stride < v.sites) Reject(std::string(name) + " has a bad layout");
  if (v.precision == Precision::kHalf && v.norm == nullptr) Reject(std::string(name) + " has no norms");
}

}  // namespace

CloverApplyKernelCost CloverApplyCost(Precision precision, const Extents& extents) {
  const double sites = HalfVolume(extents);
  const double real_bytes = BytesPerReal(precision);
  const double norm_bytes = precision == Precision::kHalf ? 4 : 0;
  const double clover_bytes = kCloverRealsPerSite * real_bytes + 2 * norm_bytes;  // two blocks, a norm each
  const double spinor_bytes = 24 * real_bytes + norm_bytes;
  CloverApplyKernelCost cost;
  cost.flops = sites * kCloverFlopsPerSite;
  cost.basis_change_flops = sites * kCloverBasisChangeFlopsPerSite;
  cost.bytes = sites * (clover_bytes + 2 * spinor_bytes);
  cost.minimum_bytes = cost.bytes;
  return cost;
}

void ApplyCloverTerm(const SpinorView& out, const DeviceCloverField& clover, const ConstSpinorView& in, bool inverse) {
  CheckSpinor("out", out, clover);
  CheckSpinor("in", in, clover);
  if (out.parity != in.parity) {
    Reject(std::string("out is ") + ParityName(out.parity) + " but in is " + ParityName(in.parity) +
           "; the clover term is site-diagonal and keeps the parity");
  }
  CloverApplyLaunch l;
  l.out = out;
  l.in = in;
  l.clover = clover.View(in.parity == 0 ? Parity::kEven : Parity::kOdd, inverse);
  LaunchCloverApply(l);
}

void ApplyCloverTerm(DeviceSpinorField& out, const DeviceCloverField& clover, const DeviceSpinorField& in,
                     bool inverse) {
  if (out.subset() != in.subset()) {
    Reject(std::string("out holds the ") + ToString(out.subset()) + " sites but in the " + ToString(in.subset()) +
           " ones; the clover term keeps the parity");
  }
  if (out.lattice() != in.lattice()) {
    Reject("out lives on " + out.lattice().ToString() + " but in on " + in.lattice().ToString());
  }
  for (Parity parity : {Parity::kEven, Parity::kOdd}) {
    if (in.subset() != Subset::kFull && SubsetOf(parity) != in.subset()) continue;
    ApplyCloverTerm(out.View(parity), clover, in.View(parity), inverse);
  }
}

}  // namespace lqcd::gpu
