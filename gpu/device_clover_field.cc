// device_clover_field.cc: validation, allocation, views and the host side of clover transfers (checkerboard
// ordering, the stored order of a block's reals); the device side is clover_packing.cu.
#include "gpu/device_clover_field.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "gpu/clover_packing.h"

namespace lqcd::gpu {
namespace {

constexpr int kBlockReals = kCloverRealsPerSite / 2;

// Bytes of one word and words per site (clover_accessor.cuh): double2 x 36, float4 x 18, short4 x 18.
std::size_t WordBytes(Precision p) { return p == Precision::kHalf ? 8 : 16; }
std::size_t WordsPerSite(Precision p) { return p == Precision::kDouble ? 36 : 18; }

// Index of the lower-triangle entry (i, j), i > j, in the stored order (clover_accessor.cuh's CloverLowerIndex).
int LowerIndex(int i, int j) { return 6 + 2 * (i * (i - 1) / 2 + j); }

std::string Where(const Lattice& lattice, int site, int chirality, bool inverse) {
  const Coordinates n = lattice.Coords(site);
  std::ostringstream s;
  s << (inverse ? "T^{-1}" : "T") << " at site (" << n[0] << "," << n[1] << "," << n[2] << "," << n[3]
    << "), chirality " << chirality;
  return s.str();
}

[[noreturn]] void Reject(const std::string& what) { throw std::invalid_argument("DeviceCloverField: " + what); }

// The checks of the header comment, for one block.
void Validate(const ChiralBlock<double>& b, const CloverLayout& layout, const std::string& where) {
  double largest = 0;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j <= i; ++j) {
      const double re = b(i, j).real(), im = i == j ? 0.0 : b(i, j).imag();
      if (!std::isfinite(re) || !std::isfinite(im)) {
        std::ostringstream s;
        s << where << ": entry (" << i << "," << j << ") is " << b(i, j) << "; clover entries must be finite";
        Reject(s.str());
      }
      largest = std::max({largest, std::abs(re), std::abs(im)});
    }
  }
  double asymmetry = 0;
  for (int i = 0; i < 6; ++i) {
    asymmetry = std::max(asymmetry, std::abs(b(i, i).imag()));
    for (int j = 0; j < i; ++j) asymmetry = std::max(asymmetry, std::abs(b(i, j) - std::conj(b(j, i))));
  }
  if (!(asymmetry <= DeviceCloverField::kHermitianTolerance * largest)) {
    std::ostringstream s;
    s << where << ": the block is not Hermitian (max |B_ij - conj(B_ji)|, |Im B_ii| = " << asymmetry
      << " > 2^-40 x its largest entry " << largest << "); only the lower triangle is stored";
    Reject(s.str());
  }
  const double stored_largest = largest / 2;  // the device holds C = B / 2
  if (layout.precision == Precision::kSingle && !(stored_largest <= FLT_MAX)) {
    std::ostringstream s;
    s << where << ": an entry of size " << largest << " overflows single precision";
    Reject(s.str());
  }
  if (layout.precision == Precision::kHalf && stored_largest != 0 &&
      !(stored_largest >= DeviceCloverField::kHalfMinimumNorm && stored_largest <= DeviceCloverField::kHalfMaximumNorm)) {
    std::ostringstream s;
    s << where << ": half precision needs each block's largest |entry| / 2 in [2^-100, 2^100] (or 0), got "
      << stored_largest;
    Reject(s.str());
  }
}

}  // namespace

DeviceCloverField::DeviceCloverField(const CloverField<double>& host, const CloverLayout& layout)
    : lattice_(host.lattice()), layout_(layout) {
  Upload([&](int site, int chirality, bool inverse) {
    return inverse ? host.InverseBlock(site, chirality) : host.Block(site, chirality);
  });
}

DeviceCloverField::DeviceCloverField(const CloverField<float>& host, const CloverLayout& layout)
    : lattice_(host.lattice()), layout_(layout) {
  Upload([&](int site, int chirality, bool inverse) -> ChiralBlock<double> {
    const ChiralBlock<float>& b = inverse ? host.InverseBlock(site, chirality) : host.Block(site, chirality);
    return b.cast<Complex<double>>();
  });
}

DeviceCloverField::DeviceCloverField(const Lattice& lattice, const std::vector<CloverSiteBlocks>& t,
                                     const std::vector<CloverSiteBlocks>& t_inverse, const CloverLayout& layout)
    : lattice_(lattice), layout_(layout) {
  const std::size_t volume = static_cast<std::size_t>(lattice.volume());
  if (t.size() != volume || t_inverse.size() != volume) {
    Reject("expected " + std::to_string(volume) + " sites of blocks for " + lattice.ToString() + ", got " +
           std::to_string(t.size()) + " (T) and " + std::to_string(t_inverse.size()) + " (T^{-1})");
  }
  Upload([&](int site, int chirality, bool inverse) {
    return inverse ? t_inverse[site][chirality] : t[site][chirality];
  });
}

void DeviceCloverField::Upload(const std::function<ChiralBlock<double>(int site, int chirality, bool inverse)>& block) {
  if (layout_.pad < 0) Reject("pad must be >= 0, got " + std::to_string(layout_.pad));
  RequireIntIndexable("DeviceCloverField", static_cast<long long>(WordsPerSite(layout_.precision)), stride());
  for (int site = 0; site < lattice_.volume(); ++site) {
    for (bool inverse : {false, true}) {
      for (int chirality = 0; chirality < 2; ++chirality) {
        Validate(block(site, chirality, inverse), layout_, Where(lattice_, site, chirality, inverse));
      }
    }
  }
  const std::size_t sub_field_words = WordsPerSite(layout_.precision) * static_cast<std::size_t>(stride());
  data_ = DeviceBuffer(4 * sub_field_words * WordBytes(layout_.precision));
  if (layout_.precision == Precision::kHalf) norm_ = DeviceBuffer(4 * 2 * static_cast<std::size_t>(stride()) * sizeof(float));
  const int half = lattice_.half_volume();
  std::vector<double> canonical(kCloverRealsPerSite * static_cast<std::size_t>(half));
  for (bool inverse : {false, true}) {
    for (int p = 0; p < 2; ++p) {
      const Parity parity = static_cast<Parity>(p);
      for (int cb = 0; cb < half; ++cb) {
        const int site = lattice_.FullIndex(parity, cb);
        for (int chirality = 0; chirality < 2; ++chirality) {
          const ChiralBlock<double> b = block(site, chirality, inverse);
          double* out = canonical.data() + kCloverRealsPerSite * static_cast<std::size_t>(cb) + kBlockReals * chirality;
          for (int i = 0; i < 6; ++i) {
            out[i] = b(i, i).real();
            for (int j = 0; j < i; ++j) {
              out[LowerIndex(i, j)] = b(i, j).real();
              out[LowerIndex(i, j) + 1] = b(i, j).imag();
            }
          }
        }
      }
      PackClover(View(parity, inverse), canonical.data());
    }
  }
}

CloverView DeviceCloverField::View(Parity parity, bool inverse) const {
  const int sub_field = 2 * (inverse ? 1 : 0) + static_cast<int>(parity);
  CloverView v;
  v.precision = layout_.precision;
  v.parity = static_cast<int>(parity);
  v.inverse = inverse;
  v.extents = {lattice_.extent(0), lattice_.extent(1), lattice_.extent(2), lattice_.extent(3)};
  v.sites = lattice_.half_volume();
  v.stride = stride();
  // Kernels only read; the view's pointers are mutable because packing writes through them.
  auto* bytes = static_cast<char*>(const_cast<void*>(data_.data()));
  v.data = bytes + sub_field * WordsPerSite(layout_.precision) * static_cast<std::size_t>(stride()) *
                       WordBytes(layout_.precision);
  v.norm = layout_.precision == Precision::kHalf
               ? static_cast<float*>(const_cast<void*>(norm_.data())) + sub_field * 2 * static_cast<std::size_t>(stride())
               : nullptr;
  return v;
}

std::vector<CloverSiteBlocks> DeviceCloverField::Download(bool inverse) const {
  const int half = lattice_.half_volume();
  std::vector<double> canonical(kCloverRealsPerSite * static_cast<std::size_t>(half));
  std::vector<CloverSiteBlocks> blocks(lattice_.volume());
  for (int p = 0; p < 2; ++p) {
    const Parity parity = static_cast<Parity>(p);
    UnpackClover(View(parity, inverse), canonical.data());
    for (int cb = 0; cb < half; ++cb) {
      CloverSiteBlocks& site = blocks[lattice_.FullIndex(parity, cb)];
      for (int chirality = 0; chirality < 2; ++chirality) {
        const double* in = canonical.data() + kCloverRealsPerSite * static_cast<std::size_t>(cb) + kBlockReals * chirality;
        ChiralBlock<double>& b = site[chirality];
        for (int i = 0; i < 6; ++i) {
          b(i, i) = in[i];
          for (int j = 0; j < i; ++j) {
            b(i, j) = {in[LowerIndex(i, j)], in[LowerIndex(i, j) + 1]};
            b(j, i) = std::conj(b(i, j));
          }
        }
      }
    }
  }
  return blocks;
}

}  // namespace lqcd::gpu
