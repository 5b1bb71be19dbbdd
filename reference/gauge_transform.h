// gauge_transform.h: gauge transformations and temporal gauge fixing (the paper's section 4.3).
//
// Computes:
//   - GaugeTransformation<T>: one colour matrix g(n) per site (a new one is the identity everywhere).
//   - RandomGaugeTransformation<T>(lattice, seed): g(n) Haar-random in SU(3), from RandomStream(seed, site)
//     (generated in double, rounded to T). Stream ids coincide with those of FillGaussian and with the link
//     streams 4 * site + mu of RandomGaugeField for small sites, so use a seed of its own.
//   - ApplyGaugeTransformation(g, U):   U_mu(n) -> g(n) U_mu(n) g(n + mu)^dag          (periodic in n + mu)
//     ApplyGaugeTransformation(g, psi): psi(n) -> g(n) psi(n), i.e. psi * g^T in the 4x3 spin x colour layout
//     (types.h); single-parity fields use the g of their own sites.
//     With these, D(g U) (g psi) = g (D(U) psi) for the Wilson hopping term (forward hop U_mu(n) psi(n + mu),
//     backward hop U_mu(n - mu)^dag psi(n - mu)), with any fermion boundary condition, because the
//     boundary signs multiply hops and commute with g. A gauge-covariance test reads:
//         ApplyHopping(out_g, ApplyGaugeTransformation(g, u), ApplyGaugeTransformation(g, psi), ...);
//         ApplyHopping(out, u, psi, ...);  compare out_g with ApplyGaugeTransformation(g, out).
//   - PolyakovLine(U, s) = U_t(s, 0) U_t(s, 1) ... U_t(s, Lt - 1) at spatial index s = x + Lx (y + Ly z)
//     (also the lexicographic index of the site (x, y, z, 0)); its trace is gauge invariant.
//   - TemporalGaugeFix(U) -> {field, transformation}: g(s, 0) = 1, g(s, t + 1) = g(s, t) U_t(s, t). Then the
//     t-links g(s, t) U_t(s, t) g(s, t + 1)^dag are the identity for t < Lt - 1; the returned field stores them
//     as the EXACT identity (they differ from it by rounding only, bounded in docs/error_bounds.md), and the
//     links of the last time slice become U_t(s, Lt - 1) -> g(s, Lt - 1) U_t(s, Lt - 1) = PolyakovLine(U, s)
//     (g(s, 0) = 1). All other links are ApplyGaugeTransformation(g, U). This is the paper's "all temporal
//     links unit except a surface term" (section 4.3), so a kernel need not load t-links off the last slice.
// Conventions: docs/conventions.md, "Gauge transformations and temporal gauge". Products in T arithmetic.
// Errors: fields on different lattices, or a g(n) (resp. input t-link for TemporalGaugeFix) farther than
// kMaxGaugeMatrixDeviation from unitarity, or non-finite, throw std::invalid_argument.
// Aliasing: none; every function returns new fields.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "reference/types.h"

namespace lqcd {

// Largest |g g^dag - 1| accepted for a gauge transformation matrix or a t-link to be fixed: the same 1e-3 as
// kMaxLinkDeviation (su3_compression.h), far above the rounding of any precision we use, far below "not unitary".
inline constexpr double kMaxGaugeMatrixDeviation = 1e-3;

template <typename T>
class GaugeTransformation {
 public:
  explicit GaugeTransformation(const Lattice& lattice)
      : lattice_(lattice), matrices_(static_cast<std::size_t>(lattice.volume()), ColorMatrix<T>::Identity()) {}

  const Lattice& lattice() const { return lattice_; }
  ColorMatrix<T>& operator[](int site) { return matrices_[site]; }
  const ColorMatrix<T>& operator[](int site) const { return matrices_[site]; }
  std::vector<ColorMatrix<T>>& matrices() { return matrices_; }
  const std::vector<ColorMatrix<T>>& matrices() const { return matrices_; }

 private:
  Lattice lattice_;
  std::vector<ColorMatrix<T>> matrices_;
};

template <typename T>
GaugeTransformation<T> RandomGaugeTransformation(const Lattice& lattice, std::uint64_t seed);

template <typename T>
GaugeField<T> ApplyGaugeTransformation(const GaugeTransformation<T>& g, const GaugeField<T>& u);

template <typename T>
SpinorField<T> ApplyGaugeTransformation(const GaugeTransformation<T>& g, const SpinorField<T>& psi);

template <typename T>
ColorMatrix<T> PolyakovLine(const GaugeField<T>& u, int spatial_index);

template <typename T>
struct TemporalGauge {
  GaugeField<T> field;                     // the fixed field
  GaugeTransformation<T> transformation;   // g with field = g U g^dag (t-links below the last slice set to 1)
};

template <typename T>
TemporalGauge<T> TemporalGaugeFix(const GaugeField<T>& u);

}  // namespace lqcd
