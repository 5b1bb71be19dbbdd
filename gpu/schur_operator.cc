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
  double* partials = Partials();
  DeviceSpinorField& t = Temporary(other_parity_, SubsetOf(Opposite(parity_)), in);
  ApplyWilsonDslash(t.View(), gauge_, in, Dagger::kNo, boundary_);
  ApplyWilsonDslashXpayDotNorm(out, gauge_, t.View(), in, 1.0, -kappa_ * kappa_, w, partials, boundary_);
  return partials;
}

const double* DeviceSchurOperator::ApplyDaggerAxpyNorm(const SpinorView& r, const ConstSpinorView& in,
                                                       const double* coefficient) const {
  if (partitioned_ != nullptr) {
    throw std::logic_error("DeviceSchurOperator::ApplyDaggerAxpyNorm: no fused update on a partitioned Dslash");
  }
  RequireOperatorParity("ApplyDaggerAxpyNorm", r, in);
  if (r.data == in.data) throw std::invalid_argument("DeviceSchurOperator::ApplyDaggerAxpyNorm: r and in are the same field");
  double* partials = Partials();
  DeviceSpinorField& t = Temporary(other_parity_, SubsetOf(Opposite(parity_)), in);
  ApplyWilsonDslash(t.View(), gauge_, in, Dagger::kYes, boundary_);
  ApplyWilsonDslashDaggerXpayAxpyNorm(r, gauge_, t.View(), in, 1.0, -kappa_ * kappa_, coefficient, partials,
                                      boundary_);
  return partials;
}

double* DeviceSchurOperator::Partials(std::size_t rhs) const {
  const std::size_t bytes = sizeof(double) * 3 * static_cast<std::size_t>(DotNormGroups()) * rhs;
  if (!partials_ || partials_->bytes() < bytes) partials_ = std::make_unique<DeviceBuffer>(bytes);
  return static_cast<double*>(partials_->data());
}

void DeviceSchurOperator::ApplyNormal(const SpinorView& out, const ConstSpinorView& in) const {
  DeviceSpinorField& m_in = Temporary(same_parity_, SubsetOf(parity_), in);
  Apply(m_in.View(), in, Dagger::kNo);
  Apply(out, m_in.View(), Dagger::kYes);
}

void DeviceSchurOperator::ApplyBlock(const std::vector<SpinorView>& out, const std::vector<ConstSpinorView>& in,
                                     Dagger dagger) const {
  if (out.size() != in.size()) {
    throw std::invalid_argument("DeviceSchurOperator::ApplyBlock: " + std::to_string(out.size()) + " outputs for " +
                                std::to_string(in.size()) + " inputs");
  }
  for (std::size_t j = 0; j < in.size(); ++j) RequireOperatorParity("ApplyBlock", out[j], in[j]);
  if (partitioned_ != nullptr) {
    for (std::size_t j = 0; j < in.size(); ++j) Apply(out[j], in[j], dagger);
    return;
  }
  const std::vector<SpinorView> t = BlockTemporaries(in);
  ApplyWilsonDslashBlock(t, gauge_, in, dagger, boundary_);
  const std::vector<ConstSpinorView> t_in(t.begin(), t.end());
  ApplyWilsonDslashXpayBlock(out, gauge_, t_in, dagger, in, 1.0, -kappa_ * kappa_, boundary_);
}

const double* DeviceSchurOperator::ApplyDotNormBlock(const std::vector<SpinorView>& out,
                                                     const std::vector<ConstSpinorView>& in,
                                                     const std::vector<ConstSpinorView>& w) const {
  if (partitioned_ != nullptr) {
    throw std::logic_error("DeviceSchurOperator::ApplyDotNormBlock: no fused reduction on a partitioned Dslash");
  }
  if (out.size() != in.size() || w.size() != in.size()) {
    throw std::invalid_argument("DeviceSchurOperator::ApplyDotNormBlock: " + std::to_string(out.size()) +
                                " outputs and " + std::to_string(w.size()) + " w fields for " +
                                std::to_string(in.size()) + " inputs");
  }
  for (std::size_t j = 0; j < in.size(); ++j) RequireOperatorParity("ApplyDotNormBlock", out[j], in[j]);
  double* partials = Partials(in.size());
  const std::vector<SpinorView> t = BlockTemporaries(in);
  ApplyWilsonDslashBlock(t, gauge_, in, Dagger::kNo, boundary_);
  const std::vector<ConstSpinorView> t_in(t.begin(), t.end());
  ApplyWilsonDslashXpayDotNormBlock(out, gauge_, t_in, in, 1.0, -kappa_ * kappa_, w, partials, boundary_);
  return partials;
}

std::vector<SpinorView> DeviceSchurOperator::BlockTemporaries(const std::vector<ConstSpinorView>& in) const {
  if (block_other_parity_.size() < in.size()) block_other_parity_.resize(in.size());
  std::vector<SpinorView> t(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    t[j] = Temporary(block_other_parity_[j], SubsetOf(Opposite(parity_)), in[j]).View();
  }
  return t;
}

KernelCost DeviceSchurOperator::BlockCost(Precision precision, int rhs) const {
  if (rhs < 1) throw std::invalid_argument("DeviceSchurOperator::BlockCost: " + std::to_string(rhs) + " right-hand sides");
  // Partitioned, each right-hand side is its own application; on one GPU one multi-RHS call per Dslash
  // (WilsonDslashCost counts the links once per launch of it).
  const int per_call = partitioned_ != nullptr ? 1 : rhs;
  const Lattice& lat = gauge_.lattice();
  const Extents extents{lat.extent(0), lat.extent(1), lat.extent(2), lat.extent(3)};
  DslashVariant v;
  v.precision = precision;
  v.reconstruct = gauge_.layout().reconstruct;
  v.temporal_gauge_fixed = gauge_.layout().temporal_gauge_fixed;
  const KernelCost plain = WilsonDslashCost(v, extents, per_call);
  v.xpay = true;
  const KernelCost xpay = WilsonDslashCost(v, extents, per_call);
  const double calls = static_cast<double>(rhs) / per_call;
  return {calls * (plain.flops + xpay.flops), calls * (plain.bytes + xpay.bytes),
          calls * (plain.minimum_bytes + xpay.minimum_bytes)};
}

KernelCost DeviceSchurOperator::Cost(Precision precision) const { return BlockCost(precision, 1); }

}  // namespace lqcd::gpu
