// gauge_field.h: the SU(3) gauge field, four links per site.
//
// Link(site, mu) is U_mu(n) for n = lattice.Coords(site): the parallel transporter on the link from n to
// n + mu, which multiplies psi(n + mu) in the forward hop of the Dirac operator (the paper's Eq. (1),
// U_x^mu). This is also what configuration files store at site n, direction mu.
// Storage: links[4 * site + mu], site lexicographic. A new field has unit links (the free field).
// T is the real type (double or float); ConvertGaugeField changes it.
#pragma once

#include <vector>

#include "reference/lattice.h"
#include "reference/types.h"

namespace lqcd {

template <typename T>
class GaugeField {
 public:
  explicit GaugeField(const Lattice& lattice)
      : lattice_(lattice), links_(kDims * static_cast<std::size_t>(lattice.volume()), ColorMatrix<T>::Identity()) {}

  const Lattice& lattice() const { return lattice_; }
  ColorMatrix<T>& Link(int site, int mu) { return links_[kDims * static_cast<std::size_t>(site) + mu]; }
  const ColorMatrix<T>& Link(int site, int mu) const { return links_[kDims * static_cast<std::size_t>(site) + mu]; }
  std::vector<ColorMatrix<T>>& links() { return links_; }
  const std::vector<ColorMatrix<T>>& links() const { return links_; }

 private:
  Lattice lattice_;
  std::vector<ColorMatrix<T>> links_;
};

template <typename To, typename From>
GaugeField<To> ConvertGaugeField(const GaugeField<From>& in) {
  GaugeField<To> out(in.lattice());
  for (std::size_t i = 0; i < in.links().size(); ++i) out.links()[i] = in.links()[i].template cast<Complex<To>>();
  return out;
}

}  // namespace lqcd
