// spinor_field.h: quark fields on the full lattice or on one parity.
//
// A SpinorField holds one SiteSpinor (4 spins x 3 colours, see types.h) per site of its subset:
//   - Subset::kFull: all V sites, indexed by the lexicographic site index;
//   - Subset::kEven / kOdd: the V/2 sites of one parity, indexed by the checkerboard index site / 2
//     (lattice.h). Extract / Insert move between the two.
// New fields are zero. T is the real type (double or float).
// Aliasing: Extract and Insert take distinct input and output fields.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/lattice.h"
#include "reference/random.h"
#include "reference/types.h"

namespace lqcd {

enum class Subset { kFull, kEven, kOdd };

inline Subset SubsetOf(Parity p) { return p == Parity::kEven ? Subset::kEven : Subset::kOdd; }
inline const char* ToString(Subset s) { return s == Subset::kFull ? "full" : s == Subset::kEven ? "even" : "odd"; }

template <typename T>
class SpinorField {
 public:
  explicit SpinorField(const Lattice& lattice, Subset subset = Subset::kFull)
      : lattice_(lattice),
        subset_(subset),
        sites_(subset == Subset::kFull ? lattice.volume() : lattice.half_volume()) {}

  const Lattice& lattice() const { return lattice_; }
  Subset subset() const { return subset_; }
  Parity parity() const {  // only for single-parity fields
    if (subset_ == Subset::kFull) throw std::logic_error("SpinorField::parity(): the field is on the full lattice");
    return subset_ == Subset::kEven ? Parity::kEven : Parity::kOdd;
  }
  int sites() const { return static_cast<int>(sites_.size()); }
  // Complex components: 12 per site.
  std::int64_t size() const { return 12 * static_cast<std::int64_t>(sites_.size()); }

  SiteSpinor<T>& operator[](int i) { return sites_[i]; }
  const SiteSpinor<T>& operator[](int i) const { return sites_[i]; }
  std::vector<SiteSpinor<T>>& data() { return sites_; }
  const std::vector<SiteSpinor<T>>& data() const { return sites_; }

  // Lexicographic site index of local index i.
  int SiteIndex(int i) const { return subset_ == Subset::kFull ? i : lattice_.FullIndex(parity(), i); }

  // Same lattice and subset: the precondition of every binary operation.
  bool Compatible(const SpinorField& other) const { return lattice_ == other.lattice_ && subset_ == other.subset_; }

 private:
  Lattice lattice_;
  Subset subset_;
  std::vector<SiteSpinor<T>> sites_;
};

// Throws std::invalid_argument unless a and b live on the same lattice and subset.
template <typename A, typename B>
void RequireCompatible(const SpinorField<A>& a, const SpinorField<B>& b, const char* where) {
  if (a.lattice() != b.lattice() || a.subset() != b.subset()) {
    throw std::invalid_argument(std::string(where) + ": fields differ (" + a.lattice().ToString() + " " +
                                ToString(a.subset()) + " vs " + b.lattice().ToString() + " " + ToString(b.subset()) +
                                ")");
  }
}

// The sites of one parity of a full field.
template <typename T>
SpinorField<T> Extract(const SpinorField<T>& full, Parity parity) {
  if (full.subset() != Subset::kFull) throw std::invalid_argument("Extract: input must be a full-lattice field");
  SpinorField<T> out(full.lattice(), SubsetOf(parity));
  for (int i = 0; i < out.sites(); ++i) out[i] = full[out.SiteIndex(i)];
  return out;
}

// Writes a single-parity field into the sites of its parity of a full field.
template <typename T>
void Insert(SpinorField<T>& full, const SpinorField<T>& part) {
  if (full.subset() != Subset::kFull || part.subset() == Subset::kFull || full.lattice() != part.lattice()) {
    throw std::invalid_argument("Insert: needs a full field and a single-parity field on the same lattice");
  }
  for (int i = 0; i < part.sites(); ++i) full[part.SiteIndex(i)] = part[i];
}

template <typename To, typename From>
SpinorField<To> ConvertSpinorField(const SpinorField<From>& in) {
  SpinorField<To> out(in.lattice(), in.subset());
  for (int i = 0; i < in.sites(); ++i) out[i] = in[i].template cast<Complex<To>>();
  return out;
}

// Every real component an independent standard normal; stream id = lexicographic site index, so the
// values at a site do not depend on the subset or the loop order.
template <typename T>
void FillGaussian(SpinorField<T>& field, std::uint64_t seed) {
  for (int i = 0; i < field.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const double re = rng.Gaussian(), im = rng.Gaussian();
        field[i](s, c) = Complex<T>(static_cast<T>(re), static_cast<T>(im));
      }
    }
  }
}

// Every real component uniform in [0, 1) (the paper's accuracy test source), same stream ids.
template <typename T>
void FillUniform(SpinorField<T>& field, std::uint64_t seed) {
  for (int i = 0; i < field.sites(); ++i) {
    RandomStream rng(seed, static_cast<std::uint64_t>(field.SiteIndex(i)));
    for (int s = 0; s < 4; ++s) {
      for (int c = 0; c < 3; ++c) {
        const double re = rng.Uniform(), im = rng.Uniform();
        field[i](s, c) = Complex<T>(static_cast<T>(re), static_cast<T>(im));
      }
    }
  }
}

// A point source: 1 at (site, spin, colour), zero elsewhere (full-lattice field).
template <typename T>
SpinorField<T> PointSource(const Lattice& lattice, int site, int spin, int colour) {
  SpinorField<T> out(lattice);
  out[site](spin, colour) = Complex<T>(1);
  return out;
}

}  // namespace lqcd
