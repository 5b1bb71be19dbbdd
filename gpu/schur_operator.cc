// schur_operator.cc: M_pp from two Dslash launches (see schur_operator.h).
#include "gpu/schur_operator.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace lqcd::gpu {

DeviceSchurOperator::DeviceSchurOperator(const DeviceGaugeField& gauge, double kappa, Parity parity,
                                         const FermionBoundary& boundary)
    : gauge_(gauge), kappa_(kappa), parity_(parity), boundary_(boundary) {
  if (!std::isfinite(kappa) || !(kappa > 0)) {
    throw std::invalid_argument("DeviceSchurOperator: kappa must be positive and finite, got " + std::to_string(kappa));
  }
}

DeviceSchurOperator::DeviceSchurOperator(const PartitionedWilsonDslash& dslash, double kappa, Parity parity)
    : DeviceSchurOperator(dslash.gauge(), kappa, parity, dslash.boundary()) {
  partitioned_ = &dslash;
}

DeviceSpinorField& DeviceSchurOperator::Temporary(std::unique_ptr<DeviceSpinorField>& slot, Subset subset,
                                                  const ConstSpinorView& like) const {
  const int pad = like.stride - like.sites;
  if (!slot || slot->precision() != like.precision || slot->pad() != pad) {
    slot = std::make_unique<DeviceSpinorField>(gauge_.lattice(), subset, like.precision, pad);
  }
  return *slot;
}

void DeviceSchurOperator::RequireOperatorParity(const char* where, const SpinorView& out,
                                                const ConstSpinorView& in) const {
  const int p = static_cast<int>(parity_);
  if (in.parity != p || out.parity != p) {
    throw std::invalid_argument(std::string("DeviceSchurOperator::") + where + ": operator on the " +
                                ToString(parity_) + " sites, but in/out are on parities " + std::to_string(in.parity) +
                                "/" + std::to_string(out.parity));
  }
}

void DeviceSchurOperator::Apply(const SpinorView& out, const ConstSpinorView& in, Dagger dagger) const {
  RequireOperatorParity("Apply", out, in);
  DeviceSpinorField& t = Temporary(other_parity_, SubsetOf(Opposite(parity_)), in);
  ApplyWilsonDslashOn(partitioned_, gauge_, t.View(), in, dagger, boundary_);
  ApplyWilsonDslashXpayOn(partitioned_, gauge_, out, t.View(), dagger, in, 1.0, -kappa_ * kappa_, boundary_);
}

const double* DeviceSchurOperator::ApplyDotNorm(const SpinorView& out, const ConstSpinorView& in,
                                                const ConstSpinorView& w) const {
  if (partitioned_ != nullptr) {
    throw std::logic_error("DeviceSchurOperator::ApplyDotNorm: no fused reduction on a partitioned Dslash");
  }
  RequireOperatorParity("ApplyDotNorm", out, in);
  const std::size_t bytes = sizeof(double) * 3 * static_cast<std::size_t>(DotNormGroups());
  if (!partials_ || partials_->bytes() < bytes) partials_ = std::make_unique<DeviceBuffer>(bytes);
  double* partials = static_cast<double*>(partials_->data());
  DeviceSpinorField& t = Temporary(other_parity_, SubsetOf(Opposite(parity_)), in);
  ApplyWilsonDslash(t.View(), gauge_, in, Dagger::kNo, boundary_);
  ApplyWilsonDslashXpayDotNorm(out, gauge_, t.View(), in, 1.0, -kappa_ * kappa_, w, partials, boundary_);
  return partials;
}

void DeviceSchurOperator::ApplyNormal(const SpinorView& out, const ConstSpinorView& in) const {
  DeviceSpinorField& m_in = Temporary(same_parity_, SubsetOf(parity_), in);
  Apply(m_in.View(), in, Dagger::kNo);
  Apply(out, m_in.View(), Dagger::kYes);
}

KernelCost DeviceSchurOperator::Cost(Precision precision) const {
  const Lattice& lat = gauge_.lattice();
  const Extents extents{lat.extent(0), lat.extent(1), lat.extent(2), lat.extent(3)};
  DslashVariant v;
  v.precision = precision;
  v.reconstruct = gauge_.layout().reconstruct;
  v.temporal_gauge_fixed = gauge_.layout().temporal_gauge_fixed;
  const KernelCost plain = WilsonDslashCost(v, extents);
  v.xpay = true;
  const KernelCost xpay = WilsonDslashCost(v, extents);
  return {plain.flops + xpay.flops, plain.bytes + xpay.bytes, plain.minimum_bytes + xpay.minimum_bytes};
}

}  // namespace lqcd::gpu
