// device_colour_vector_field.h: one parity of a staggered quark field (one colour 3-vector per site) in device
// memory, double, single or half precision, with transfers from and to the oracle's ColourVectorField
// (reference/staggered/colour_vector_field.h).
//
// Host-only header (no CUDA types). Storage: staggered_dslash_launch.h (structure of arrays, one complex number
// per word, stride V/2 + pad; half: 16-bit levels and a float norm per site). Colour vectors have no spin, so no
// basis change applies: the device holds the oracle's numbers (rounded to float in single precision; in half,
// each real to the nearest of 32767 levels of its site's largest |real|). Half fields serve the Dslash and the
// vector operations (staggered_blas.h), i.e. the low precision of the reliable-update solvers.
// New fields are zero. Errors (std::invalid_argument): a negative pad, an upload of a field of another lattice or
// parity, or of a non-finite value or (single, half) one beyond the float range: a clear error at the upload
// instead of an Inf in a later solve.
#pragma once

#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/precision.h"
#include "gpu/staggered_dslash_launch.h"
#include "reference/lattice.h"
#include "reference/staggered/colour_vector_field.h"

namespace lqcd::gpu {

// The host halves of Upload and Download: a single-parity field in the device's storage of `precision`, with
// `stride` words per colour (staggered_dslash_launch.h), as bytes, and back (half: decoded as the kernel's load
// does). No checks beyond the layout's (Upload checks the values). The host check of the staggered kernel works
// on these too.
std::vector<unsigned char> PackColourVectors(const ColourVectorField<double>& host, Precision precision, int stride);
ColourVectorField<double> UnpackColourVectors(const void* data, Precision precision, int stride, const Lattice& lattice,
                                              Parity parity);

class DeviceColourVectorField {
 public:
  DeviceColourVectorField(const Lattice& lattice, Parity parity, Precision precision, int pad = 0);

  void Upload(const ColourVectorField<double>& host);  // host on this lattice and parity
  ColourVectorField<double> Download() const;           // the stored numbers, exactly (single widened)
  // Every byte (pad included) set to `byte`: 0 is +0.0 in both precisions; tests poison with 0xff (NaN).
  void Fill(unsigned char byte) { data_.Fill(byte); }
  // This = other bit for bit: same lattice, parity, precision and pad (std::invalid_argument otherwise).
  void CopyFrom(const DeviceColourVectorField& other);

  const Lattice& lattice() const { return lattice_; }
  Parity parity() const { return parity_; }
  Precision precision() const { return precision_; }
  int stride() const { return lattice_.half_volume() + pad_; }
  std::size_t bytes() const { return data_.bytes(); }
  ColourVectorView View();
  ConstColourVectorView View() const;

 private:
  Lattice lattice_;
  Parity parity_;
  Precision precision_;
  int pad_;
  DeviceBuffer data_;
};

}  // namespace lqcd::gpu
