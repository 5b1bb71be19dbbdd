// device_clover_field.h: the clover term of the Wilson-clover operator in device memory: T(n) = (4 + m) + A(n)
// and T(n)^{-1} on both parities, in double, single or half precision, from the oracle's CloverField.
//
// Host-only header (no CUDA types). Storage (clover_accessor.cuh): per (T or T^{-1}, parity) a structure of
// arrays with stride V/2 + pad, 72 reals per site: the two Hermitian 6x6 chiral blocks B_+, B_- of
// reference/clover.h (DeGrand-Rossi; 6 real diagonal + 15 complex lower-triangle entries each), stored halved
// (C = B / 2, exact), half precision as 16-bit levels with one float norm per block.
//
// Basis: the blocks are stored as the oracle holds them, in the chiral (DeGrand-Rossi) basis, whatever the
// CloverParams::basis of the host field; there is no basis change on upload or download. The rotation to and from
// the UKQCD basis of the device spinors happens inside the kernel (CloverAccessor::Apply), where it costs 48
// additions per site and no multiplication (docs/conventions.md, "Wilson-clover on the GPU: the clover term").
//
// What upload reads: of each block, the real part of the diagonal and the strict lower triangle, as the oracle's
// own block product does (reference/clover.h). What it checks (std::invalid_argument naming the site, T or
// T^{-1}, and the chirality), before any device memory is touched:
//   - every entry it reads is finite (NaN or Inf would poison every result at that site silently);
//   - each block is Hermitian to 2^-40 of its largest entry, |B_ij - conj(B_ji)| and |Im B_ii|: only the lower
//     triangle is stored, so a block that is not Hermitian would be silently replaced by another matrix. The
//     oracle's blocks are Hermitian to a few ulps (its inverses come from an eigen-decomposition);
//   - single: every |B_r| / 2 representable as a finite float;
//   - half: each block's largest |B_r| / 2 is 0 or in [2^-100, 2^100]: the kernel scales by n / 32767, which
//     must be a normal float (n >= 2^-111) for the relative error bound to hold; 2^100 keeps the level sums
//     (at most 11 x 32767 |psi| x the scale) far from float overflow for any physical field.
// CUDA failures (out of memory, no device) throw CudaError.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <vector>

#include "gpu/clover_view.h"
#include "gpu/device_buffer.h"
#include "gpu/precision.h"
#include "reference/clover.h"
#include "reference/lattice.h"

namespace lqcd::gpu {

// A site's two chiral blocks (chirality 0: DeGrand-Rossi spins 0, 1; index 3 (s mod 2) + c), as CloverField holds.
using CloverSiteBlocks = std::array<ChiralBlock<double>, 2>;

struct CloverLayout {
  Precision precision = Precision::kDouble;
  int pad = 0;  // extra sites per sub-array (>= 0)
};

class DeviceCloverField {
 public:
  static constexpr double kHermitianTolerance = 0x1p-40;  // relative to the block's largest entry
  static constexpr double kHalfMinimumNorm = 0x1p-100;
  static constexpr double kHalfMaximumNorm = 0x1p100;

  // T and T^{-1} of the oracle's field (any CloverParams::basis: the blocks are DeGrand-Rossi in every case).
  DeviceCloverField(const CloverField<double>& host, const CloverLayout& layout);
  DeviceCloverField(const CloverField<float>& host, const CloverLayout& layout);
  // Any Hermitian blocks, per lexicographic site (size V each): tests use small integers. `t_inverse` is stored
  // as given, as what ApplyCloverTerm(..., inverse = true) applies; nothing checks that it inverts `t`.
  DeviceCloverField(const Lattice& lattice, const std::vector<CloverSiteBlocks>& t,
                    const std::vector<CloverSiteBlocks>& t_inverse, const CloverLayout& layout);

  // The paper's padding for spinors and links (DeviceSpinorField::PaperPad): one time slice of one parity.
  static int PaperPad(const Lattice& lattice) { return lattice.extent(0) * lattice.extent(1) * lattice.extent(2) / 2; }

  const Lattice& lattice() const { return lattice_; }
  const CloverLayout& layout() const { return layout_; }
  Precision precision() const { return layout_.precision; }
  int stride() const { return lattice_.half_volume() + layout_.pad; }
  std::size_t bytes() const { return data_.bytes() + norm_.bytes(); }  // device memory held

  // The sites of one parity of T (inverse = false) or of T^{-1}.
  CloverView View(Parity parity, bool inverse) const;

  // The blocks as the kernels use them (B = 2 C from the stored C; exact for double and single, half to one
  // double rounding of q n / 32767), per lexicographic site, completed to full Hermitian matrices.
  std::vector<CloverSiteBlocks> Download(bool inverse) const;

 private:
  // block(site, chirality, inverse): the host block in double. Validates every block, then allocates and packs.
  void Upload(const std::function<ChiralBlock<double>(int site, int chirality, bool inverse)>& block);
  Lattice lattice_;
  CloverLayout layout_;
  DeviceBuffer data_;  // sub-fields (inverse, parity) in the order T even, T odd, T^{-1} even, T^{-1} odd
  DeviceBuffer norm_;  // half: 2 floats per site per sub-field
};

}  // namespace lqcd::gpu
