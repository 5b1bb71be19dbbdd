// colour_vector_field.h: staggered quark fields (one colour 3-vector per site) on the full lattice or on
// one parity, and the vector operations on them.
//
// A ColourVectorField holds one ColorVector (3 complex colours, types.h) per site of its subset, with the
// layout and API of SpinorField (spinor_field.h):
//   - Subset::kFull: all V sites, indexed by the lexicographic site index;
//   - Subset::kEven / kOdd: the V/2 sites of one parity, indexed by the checkerboard index site / 2
//     (lattice.h). Extract / Insert move between the two.
// New fields are zero. T is the real type (double or float).
// Free functions (overloads of the SpinorField ones, same semantics):
//   RequireCompatible, Extract, Insert, ConvertColourVectorField, FillGaussian, FillUniform,
//   Norm2, Dot, Axpy, Xpay, Scale, Difference, RelativeDeviation, MaxAbsDifference (reference/field_algebra.h,
//   written once for every site field).
// Random fields: every real component an independent standard normal (FillGaussian) or uniform in [0, 1)
// (FillUniform) from RandomStream(seed, lexicographic site index), so the values at a site do not depend
// on the subset or the loop order.
// Errors: binary operations on fields of different lattices or subsets throw std::invalid_argument.
// Aliasing: Extract and Insert take distinct fields; y may be x in Axpy/Xpay/Scale (element-wise).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/field_algebra.h"
#include "reference/lattice.h"
#include "reference/random.h"
#include "reference/spinor_field.h"  // Subset, SubsetOf, ToString(Subset)
#include "reference/types.h"

namespace lqcd {

template <typename T>
class ColourVectorField {
 public:
  explicit ColourVectorField(const Lattice& lattice, Subset subset = Subset::kFull)
      : lattice_(lattice),
        subset_(subset),
        sites_(subset == Subset::kFull ? lattice.volume() : lattice.half_volume(), ColorVector<T>::Zero()) {}

  const Lattice& lattice() const { return lattice_; }
  Subset subset() const { return subset_; }
  Parity parity() const {  // only for single-parity fields
    if (subset_ == Subset::kFull) {
      throw std::logic_error("ColourVectorField::parity(): the field is on the full lattice");
    }
    return subset_ == Subset::kEven ? Parity::kEven : Parity::kOdd;
  }
  int sites() const { return static_cast<int>(sites_.size()); }
  // Complex components: 3 per site.
  std::int64_t size() const { return 3 * static_cast<std::int64_t>(sites_.size()); }

  ColorVector<T>& operator[](int i) { return sites_[i]; }
  const ColorVector<T>& operator[](int i) const { return sites_[i]; }
  std::vector<ColorVector<T>>& data() { return sites_; }
  const std::vector<ColorVector<T>>& data() const { return sites_; }

  // Lexicographic site index of local index i.
  int SiteIndex(int i) const { return subset_ == Subset::kFull ? i : lattice_.FullIndex(parity(), i); }

  bool Compatible(const ColourVectorField& other) const {
    return lattice_ == other.lattice_ && subset_ == other.subset_;
  }

 private:
  Lattice lattice_;
  Subset subset_;
  std::vector<ColorVector<T>> sites_;
};

// Throws std::invalid_argument unless a and b live on the same lattice and subset.
template <typename A, typename B>
void RequireCompatible(const ColourVectorField<A>& a, const ColourVectorField<B>& b, const char* where) {
  if (a.lattice() != b.lattice() || a.subset() != b.subset()) {
    throw std::invalid_argument(std::string(where) + ": fields differ (" + a.lattice().ToString() + " " +
                                ToString(a.subset()) + " vs " + b.lattice().ToString() + " " + ToString(b.subset()) +
                                ")");
  }
}

template <typename T>
ColourVectorField<T> Extract(const ColourVectorField<T>& full, Parity parity) {
  if (full.subset() != Subset::kFull) throw std::invalid_argument("Extract: input must be a full-lattice field");
  ColourVectorField<T> out(full.lattice(), SubsetOf(parity));
  for (int i = 0; i < out.sites(); ++i) out[i] = full[out.SiteIndex(i)];
  return out;
}

template <typename T>
void Insert(ColourVectorField<T>& full, const ColourVectorField<T>& part) {
  if (full.subset() != Subset::kFull || part.subset() == Subset::kFull || full.lattice() != part.lattice()) {
    throw std::invalid_argument("Insert: needs a full field and a single-parity field on the same lattice");
  }
  for (int i = 0; i < part.sites(); ++i) full[part.SiteIndex(i)] = part[i];
}

template <typename To, typename From>
ColourVectorField<To> ConvertColourVectorField(const ColourVectorField<From>& in) {
  ColourVectorField<To> out(in.lattice(), in.subset());
  for (int i = 0; i < in.sites(); ++i) out[i] = in[i].template cast<Complex<To>>();
  return out;
}

template <typename T>
void FillGaussian(ColourVectorField<T>& field, std::uint64_t seed) {
  for (int i = 0; i < field.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
    for (int c = 0; c < 3; ++c) {
      const double re = rng.Gaussian(), im = rng.Gaussian();
      field[i](c) = Complex<T>(static_cast<T>(re), static_cast<T>(im));
    }
  }
}

template <typename T>
void FillUniform(ColourVectorField<T>& field, std::uint64_t seed) {
  for (int i = 0; i < field.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
    for (int c = 0; c < 3; ++c) {
      const double re = rng.Uniform(), im = rng.Uniform();
      field[i](c) = Complex<T>(static_cast<T>(re), static_cast<T>(im));
    }
  }
}

// Norm2, Dot, Axpy, Xpay, Scale, Difference, RelativeDeviation, MaxAbsDifference: reference/field_algebra.h.
template <typename T>
struct IsSiteField<ColourVectorField<T>> : std::true_type {};

}  // namespace lqcd
