// device_spinor_field.h: a spinor field in device memory, on one parity or on the full lattice, in
// double, single or half precision, and its transfer to and from the oracle's SpinorField.
//
// Host-only header (no CUDA types). Storage (spinor_accessor.cuh): structure of arrays per parity,
// double2 / float4 / short4 words plus one float norm per site in half precision, `pad` extra sites
// between the sub-arrays (stride = V/2 + pad; PaperPad gives the paper's choice).
//
// Transfers stage through one reused page-locked host buffer (device_buffer.h, PinnedStagingLease): one at a
// time per process. A double host field whose storage is page-locked and mapped (device_buffer.h
// HostRegistration) is read or written by the transfer kernels directly over the bus instead, with the basis
// change on the device: no host-side pass, the same values bit for bit (field_packing.h PackSpinorsFromSites).
// Basis: the device always holds spinors in the UKQCD basis (gamma_4 diagonal). Upload and Download
// convert from and to the basis of the host field, given as an argument (the oracle's default is
// DeGrand-Rossi): psi(UKQCD) = S psi(DR), S = (1/sqrt 2) [[1, 1], [1, -1]] (x) 1_2 in 2x2 spin blocks,
// and S is its own inverse (docs/conventions.md, "Gamma matrices"). The change is done here, in double,
// with our own code (not the oracle's). Uploading a host field already in the UKQCD basis changes
// nothing, so a double-precision round trip is then bit-exact.
//
// Errors: a host field on another lattice or subset, or a view of a parity the field does not hold,
// throws std::invalid_argument; CUDA failures (out of memory, no device) throw CudaError.
#pragma once

#include <cstddef>

#include "gpu/device_buffer.h"
#include "gpu/field_views.h"
#include "gpu/precision.h"
#include "reference/gamma.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {

class DeviceSpinorField {
 public:
  // Allocates (uninitialised) storage for `subset` of `lattice`; pad >= 0 extra sites per sub-array.
  DeviceSpinorField(const Lattice& lattice, Subset subset, Precision precision, int pad = 0);

  // The paper's padding: one time slice of one parity, so each sub-array starts (Lx Ly Lz / 2) (Lt + 1)
  // words after the previous one (section 4.4).
  static int PaperPad(const Lattice& lattice) { return lattice.extent(0) * lattice.extent(1) * lattice.extent(2) / 2; }

  const Lattice& lattice() const { return lattice_; }
  Subset subset() const { return subset_; }
  Precision precision() const { return precision_; }
  int pad() const { return pad_; }
  int stride() const { return lattice_.half_volume() + pad_; }
  int parities() const { return subset_ == Subset::kFull ? 2 : 1; }
  std::size_t bytes() const { return data_.bytes() + norm_.bytes(); }  // device memory held

  // The sites of one parity. A single-parity field holds only its own parity.
  SpinorView View(Parity parity);
  ConstSpinorView View(Parity parity) const;
  // The only parity of a single-parity field.
  SpinorView View();
  ConstSpinorView View() const;

  // Host -> device: same lattice and subset as this field; `basis` is the host field's gamma basis.
  void Upload(const SpinorField<double>& host, GammaBasis basis = GammaBasis::kDeGrandRossi);
  void Upload(const SpinorField<float>& host, GammaBasis basis = GammaBasis::kDeGrandRossi);
  // Device -> host, in double (exact for every precision: the stored values are representable), in `basis`.
  SpinorField<double> Download(GammaBasis basis = GammaBasis::kDeGrandRossi) const;
  // The same into an existing host field of this field's lattice and subset (every site overwritten; no new
  // whole-lattice host field).
  void Download(SpinorField<double>& host, GammaBasis basis = GammaBasis::kDeGrandRossi) const;

  // Sets every byte of the storage (tests poison outputs with 0xff, a NaN in every precision's norm
  // or value, to see that a kernel writes every site).
  void FillBytes(unsigned char byte);

 private:
  int ParityBlock(Parity parity) const;  // index of the parity's block; throws if not held
  Lattice lattice_;
  Subset subset_;
  Precision precision_;
  int pad_;
  DeviceBuffer data_;
  DeviceBuffer norm_;  // half only
};

// Page-locks the storage of a double host field for as long as the result lives (device_buffer.h
// HostRegistration): exactly the range Upload and Download look for, so that they read and write this field
// straight over the bus. For host fields reused across many transfers; the field must not be resized meanwhile.
HostRegistration RegisterHostField(SpinorField<double>& host);

// psi(UKQCD) = S psi(DR) at one site; S is its own inverse, so this also maps UKQCD -> DR.
// Computed as (u + l) / sqrt 2 and (u - l) / sqrt 2 for the upper (spins 0, 1) and lower (2, 3) blocks.
template <typename T>
SiteSpinor<T> ChangeSpinorBasis(const SiteSpinor<T>& psi);

}  // namespace lqcd::gpu
