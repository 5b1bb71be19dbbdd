// cpu_block_wilson.h: the Wilson matrix M and its Schur complement M_pp applied to a BLOCK of n spinor
// fields sharing one gauge field, on the CPU (block operator interface: block_operators.h).
//
// Computes, for every vector k of the block, exactly what reference/wilson.h computes for one vector:
//   CpuBlockWilson<T>:       M in_k = (1 / 2 kappa) (in_k - kappa D in_k)  (and M^dag with D^dag)
//   CpuBlockWilsonSchur<T>:  M_pp in_k = in_k - kappa^2 D_{p,p'} D_{p',p} in_k  (and M_pp^dag)
// with D the hopping term of the paper's Eq. (1) in the conventions of docs/conventions.md (same gamma
// basis, projectors 1 -/+ gamma_mu on forward/backward hops, boundary signs, 4x3 spinor layout with the
// colour matrix acting from the right as U^T). The hop terms are the oracle's own (reference/wilson_stencil.h,
// which reference/wilson.cc sums too), so each vector's result equals ApplyWilson / ApplySchur to the
// last bit (a test checks it); only the LOOP ORDER differs: for each output site and each
// direction the link U_mu(n) (and U_mu(n - mu)) is fetched once and applied to all n vectors while it is
// hot, instead of once per vector per application.
// Precisions: T = double or float (the gauge field is rounded to T); no half variant.
//
// Traffic model (BytesPerApply(n)), naive (no cache reuse between sites), per output site:
//   M:     8 links x 18 reals, read once for the block, + per vector 8 neighbour spinors + the site's own
//          spinor (diagonal term) + the result: 10 x 24 reals
//          -> V sizeof(T) (144 + 240 n) bytes; n = 1 is the 384 reals per site of Alexandru et al.
//          (arXiv:1103.5103, section 2: 1536 / 3072 bytes per site in single / double).
//   M_pp:  two hopping passes over V/2 sites, each 144 link reals; per vector the first reads 8 spinors and
//          writes 1, the second reads 8 spinors and the site's own input and writes 1
//          -> (V/2) sizeof(T) (288 + 456 n) bytes.
// Flops per vector (FlopsPerApply): (1320 + 48) V for M, (2 x 1320 + 48) V/2 for M_pp (the paper's counting,
// as CpuWilson / CpuWilsonSchur). Arithmetic intensity n FlopsPerApply / BytesPerApply(n) therefore
// grows from 1368 / (384 sizeof(T)) at n = 1 to 1368 / (240 sizeof(T)) as n -> infinity for M
// (docs/solvers.md, "Multiple right-hand sides", tabulates it).
// Aliasing: no output may alias an input (ApplyBlock throws). Not thread-safe (scratch block for M_pp).
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "reference/wilson_stencil.h"
#include "solvers/block_operators.h"
#include "solvers/cpu_backend.h"
#include "solvers/precision.h"

namespace lqcd::solvers {

namespace block_detail {

// Reals moved per site by the models of the file comment.
inline constexpr double kLinkRealsPerSite = 8 * 18;
inline constexpr double kWilsonRealsPerVectorPerSite = 10 * 24;

// For every output index i of `out_shape` (site = out_shape.SiteIndex(i)) and every vector k:
// sum_k = (D in_k)(site), where in_k is read at lexicographic neighbour n through in_k[index_of(n)];
// then finish(k, i, sum_k). The terms are the oracle's (reference/wilson_stencil.h); only the loop order
// differs: each link is fetched once per (site, direction) for the whole block.
template <typename T, typename IndexOf, typename Finish>
void HoppingBlock(const GaugeField<T>& u, const HopProjectors<T>& proj, const FermionBoundary& boundary,
                  const SpinorField<T>& out_shape, const std::vector<const SpinorField<T>*>& in, IndexOf&& index_of,
                  Finish&& finish) {
  const std::size_t n = in.size();
  std::vector<SiteSpinor<T>> sum(n);
  for (int i = 0; i < out_shape.sites(); ++i) {
    for (auto& s : sum) s.setZero();
    ForEachHop(u, out_shape.SiteIndex(i), boundary, [&](const Hop<T>& hop) {
      const int neighbour = index_of(hop.site);
      for (std::size_t k = 0; k < n; ++k) AddHopTerm(sum[k], proj, hop, (*in[k])[neighbour]);
    });
    for (std::size_t k = 0; k < n; ++k) finish(k, i, sum[k]);
  }
}

template <typename T>
void RequireBlockShape(const std::vector<SpinorField<T>*>& out, const std::vector<const SpinorField<T>*>& in,
                       const Lattice& lattice, Subset subset, const std::string& where) {
  CheckBlock(out, in, where);
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (in[k]->lattice() != lattice || in[k]->subset() != subset || out[k]->lattice() != lattice ||
        out[k]->subset() != subset) {
      throw std::invalid_argument(where + ": vector " + std::to_string(k) + " is not a " + ToString(subset) +
                                  " field on " + lattice.ToString());
    }
  }
}

}  // namespace block_detail

template <typename T>
class CpuBlockWilson {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "CpuBlockWilson: T = double or float");

 public:
  using Backend = CpuBackend;
  using Precision = T;
  using Field = SpinorField<T>;

  CpuBlockWilson(const GaugeField<double>& u, const WilsonParams& params)
      : u_(ConvertGaugeField<T>(u)), params_(params), kappa_(params.kappa()) {}

  void Apply(Field& out, const Field& in) const { ApplyBlock({&out}, {&in}); }
  void ApplyDagger(Field& out, const Field& in) const { ApplyDaggerBlock({&out}, {&in}); }
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    Run(out, in, Dagger::kNo);
  }
  void ApplyDaggerBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    Run(out, in, Dagger::kYes);
  }
  Field NewField() const { return Field(u_.lattice(), Subset::kFull); }
  double FlopsPerApply() const { return (kHoppingFlopsPerSite + 48) * u_.lattice().volume(); }
  double BytesPerApply(int n) const {
    return static_cast<double>(u_.lattice().volume()) * sizeof(T) *
           (block_detail::kLinkRealsPerSite + block_detail::kWilsonRealsPerVectorPerSite * n);
  }
  std::string Name() const { return std::string("block-M<") + PrecisionTraits<T>::kName + ">"; }
  const WilsonParams& params() const { return params_; }

 private:
  void Run(const std::vector<Field*>& out, const std::vector<const Field*>& in, Dagger dagger) const {
    block_detail::RequireBlockShape(out, in, u_.lattice(), Subset::kFull, Name());
    const HopProjectors<T> proj(params_.basis, dagger);
    // As reference/wilson.cc: d = in + (-kappa) D in, then d *= 1 / (2 kappa), scalars rounded to T.
    const Complex<T> minus_kappa(static_cast<T>(-kappa_), 0), scale(static_cast<T>(1.0 / (2.0 * kappa_)), 0);
    block_detail::HoppingBlock(
        u_, proj, params_.boundary, *in[0], in, [](int site) { return site; },
        [&](std::size_t k, int i, const SiteSpinor<T>& hop) {
          SiteSpinor<T> d = (*in[k])[i] + minus_kappa * hop;
          d *= scale;
          (*out[k])[i] = d;
        });
  }

  GaugeField<T> u_;
  WilsonParams params_;
  double kappa_;
};

template <typename T>
class CpuBlockWilsonSchur {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "CpuBlockWilsonSchur: T = double or float");

 public:
  using Backend = CpuBackend;
  using Precision = T;
  using Field = SpinorField<T>;

  CpuBlockWilsonSchur(const GaugeField<double>& u, const WilsonParams& params, Parity parity = Parity::kEven)
      : u_(ConvertGaugeField<T>(u)), params_(params), kappa_(params.kappa()), parity_(parity) {}

  void Apply(Field& out, const Field& in) const { ApplyBlock({&out}, {&in}); }
  void ApplyDagger(Field& out, const Field& in) const { ApplyDaggerBlock({&out}, {&in}); }
  void ApplyBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    Run(out, in, Dagger::kNo);
  }
  void ApplyDaggerBlock(const std::vector<Field*>& out, const std::vector<const Field*>& in) const {
    Run(out, in, Dagger::kYes);
  }
  Field NewField() const { return Field(u_.lattice(), SubsetOf(parity_)); }
  double FlopsPerApply() const { return (2 * kHoppingFlopsPerSite + 48) * u_.lattice().half_volume(); }
  double BytesPerApply(int n) const {
    return static_cast<double>(u_.lattice().half_volume()) * sizeof(T) * (2 * block_detail::kLinkRealsPerSite + 456.0 * n);
  }
  std::string Name() const {
    return std::string(parity_ == Parity::kEven ? "block-M_ee<" : "block-M_oo<") + PrecisionTraits<T>::kName + ">";
  }
  Parity parity() const { return parity_; }

 private:
  void Run(const std::vector<Field*>& out, const std::vector<const Field*>& in, Dagger dagger) const {
    block_detail::RequireBlockShape(out, in, u_.lattice(), SubsetOf(parity_), Name());
    const HopProjectors<T> proj(params_.basis, dagger);
    const Subset other = SubsetOf(Opposite(parity_));
    while (scratch_.size() < in.size()) scratch_.emplace_back(u_.lattice(), other);
    std::vector<const Field*> mid(in.size());
    for (std::size_t k = 0; k < in.size(); ++k) mid[k] = &scratch_[k];
    auto checkerboard = [](int site) { return Lattice::CheckerboardIndex(site); };
    // other_k = D_{p',p} in_k
    block_detail::HoppingBlock(u_, proj, params_.boundary, scratch_[0], in, checkerboard,
                               [&](std::size_t k, int i, const SiteSpinor<T>& hop) { scratch_[k][i] = hop; });
    // out_k = in_k + (-kappa^2) D_{p,p'} other_k, as reference/wilson.cc's Xpay
    const Complex<T> minus_kappa2(static_cast<T>(-kappa_ * kappa_), 0);
    block_detail::HoppingBlock(u_, proj, params_.boundary, *in[0], mid, checkerboard,
                               [&](std::size_t k, int i, const SiteSpinor<T>& hop) {
                                 (*out[k])[i] = (*in[k])[i] + minus_kappa2 * hop;
                               });
  }

  GaugeField<T> u_;
  WilsonParams params_;
  double kappa_;
  Parity parity_;
  mutable std::vector<Field> scratch_;
};

}  // namespace lqcd::solvers
