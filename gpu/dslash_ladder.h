// dslash_ladder.h: the teaching ladder for the Wilson Dslash (the paper's Eq. (1), sections 4.1-4.6): from the
// most naive GPU kernel to the tuned production one, ONE change per rung, every rung checked against the CPU
// oracle (dslash_ladder_test.cc) and benchmarked (dslash_ladder_benchmark.cc; table in docs/dslash_ladder.md).
//
// rung  name                   what it changes over the previous rung                    bytes/site  what it gains
//  1    naive-aos              double, DeGrand-Rossi basis, 1 thread/site; per hop the    2880        (the baseline)
//                              full spinor + full link from arrays of structs, 4 mat-vecs,
//                              4x4 projector
//  2    soa                    structure of arrays (double2 words)                        2880        coalesced loads
//  3    half-spinor            project to 2 spins first: 2 mat-vecs per hop, no 4x4       2880        fewer flops, registers
//                              multiply
//  4a   ukqcd-basis            the UKQCD basis (gamma_4 diagonal); the temporal hops      2880        no temporal projection
//                              still load the whole neighbour spinor and keep the spin                adds, half the temporal
//                              pair their projector keeps                                             accumulations
//  4b   temporal-half-spinors  the temporal hops load only those 12 of the 24 reals       2688        7% fewer bytes
//                              (the production kernel)
//  5    reconstruct-12         links as 12 reals, third row rebuilt in registers          2304        14% fewer bytes
//  6    reconstruct-8          links as 8 reals (Appendix A.2), rebuilt with sincos and   2048        11% fewer bytes
//                              a sqrt
//  7    gauge-fixed            temporal gauge: t-links loaded only on the last time slice ~1924       6% fewer bytes
//  8    single                 float storage and arithmetic                               ~962        bytes halved
//  9a   half                   16-bit fixed point + one float norm per site, computed     ~517        bytes halved again
//                              like single on the loaded values
//  9b   half-levels            computed on the stored 16-bit levels: integer projection,  ~517        fewer instructions
//                              scales folded into one fma per hop, multiply-high index
//                              division, fma-chain products (the production half kernel)
// (bytes per output site at Lt = 32: rungs 1-4a load 8 (24 + 18) reals and store 24, the paper's section 4.3
// count; from rung 4b on the model of wilson_dslash.h, whose temporal hops load 12 reals. Half adds a 4-byte
// norm per spinor loaded or stored.)
//
// Run:   bazel build //gpu:dslash_ladder_benchmark && bazel-bin/gpu/dslash_ladder_benchmark --lattice=32x32x32x32
//        (on the GPU machine: tools/gpu_bundle.sh here, gpu_bundle/benchmarks/dslash_ladder_benchmark there)
// Check: bazel test //gpu:dslash_ladder_test   (skips without a GPU; runs through the bundle)
//
// Where each rung's kernel lives: rungs 1-3 are this file family's own kernels (dslash_ladder_kernels.cu), D
// only, in the oracle's basis (the device holds the host numbers unchanged). Rung 4a is also its own kernel,
// built from the production kernel's helpers (wilson_dslash_kernel.cuh) with only the temporal loads written
// differently; rung 9a is the production kernel's half variant instantiated with the on-values arithmetic.
// Rungs 4b-8 and 9b are the production kernel itself (wilson_dslash.h). Every rung from 4a on computes in the
// UKQCD basis: the fields are converted on upload and back on download. Host-only header (no CUDA types).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpu/device_buffer.h"
#include "gpu/device_gauge_field.h"
#include "gpu/device_spinor_field.h"
#include "gpu/precision.h"
#include "gpu/wilson_dslash.h"
#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"

namespace lqcd::gpu {

enum class SpinorLayout { kArrayOfStructs, kStructureOfArrays };

// What a rung is, as data: each rung differs from the previous one in exactly one of the fields from `layout` on
// (a property the test checks).
struct LadderRung {
  const char* label;   // its place in the ladder: "1", "2", "3", "4a", "4b", "5", ..., "9a", "9b"
  const char* name;
  const char* change;  // what it changes over the previous rung (one line)
  const char* gain;    // what that should gain (one line)
  SpinorLayout layout;
  bool spin_projection;        // half spinors before the colour multiply
  GammaBasis basis;            // the basis the kernel computes in
  bool temporal_half_spinors;  // the temporal hops load only the 12 reals their diagonal projector keeps
  Precision precision;
  Reconstruct reconstruct;
  bool temporal_gauge_fixed;
  bool half_on_levels;  // half precision computes on the stored 16-bit levels (DslashArithmetic::kLevels)

  // Runs wilson_dslash.h's kernel with its production arithmetic (rungs 4b-8 and 9b): everything the
  // production kernel exploits is on, and half, if it is half, computes on its levels.
  bool production() const {
    return basis == GammaBasis::kUkqcd && temporal_half_spinors && half_on_levels == (precision == Precision::kHalf);
  }
  // The production variant with this storage (D, no epilogue): its cost model and link layout.
  DslashVariant Variant() const {
    DslashVariant v;
    v.precision = precision;
    v.reconstruct = reconstruct;
    v.temporal_gauge_fixed = temporal_gauge_fixed;
    return v;
  }
};

const std::vector<LadderRung>& DslashLadder();
// The rung labelled `label`; std::invalid_argument listing the valid labels otherwise.
const LadderRung& DslashLadderRung(const std::string& label);

// Flops (1320 per output site), modelled bytes and minimum bytes of one application on V/2 output sites.
// Bytes: wilson_dslash.h's model of the rung's storage, plus 2 x 12 reals per site for the rungs whose temporal
// hops load the whole neighbour spinor (1-4a: 8 (24 + 18) + 24 reals, the paper's section 4.3 count, 2880 bytes
// in double). The minimum (each link, input and output spinor once) is that of the rung's storage.
KernelCost LadderCost(const LadderRung& rung, const Extents& extents);

// One rung, ready to run: out_p = D_{p,p'} in_{p'} with the rung's kernel.
class LadderDslash {
 public:
  // `rung` is a label of DslashLadder() (std::invalid_argument listing them otherwise). `links` must suit the
  // rung: SU(3) for 12 and 8 reals, in temporal gauge for the gauge-fixed rungs (DeviceGaugeField checks and
  // throws std::invalid_argument). Throws CudaError without a device.
  LadderDslash(const std::string& rung, const GaugeField<double>& links, Parity out_parity,
               const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

  const LadderRung& rung() const { return rung_; }
  const Lattice& lattice() const { return lattice_; }
  Parity out_parity() const { return out_parity_; }
  KernelCost Cost() const;

  // The input, a field on the parity opposite out_parity (std::invalid_argument otherwise), in `basis`:
  // DeGrand-Rossi for every rung; UKQCD only for the rungs that compute in it (4a on), whose storage then takes
  // the numbers unchanged -- no 1/sqrt 2 basis change, so small-integer inputs stay exact.
  void Upload(const SpinorField<double>& in, GammaBasis basis = GammaBasis::kDeGrandRossi);
  // out = D in, queued on the default stream.
  void Apply();
  // The output, in `basis` (the same choices as Upload).
  SpinorField<double> Download(GammaBasis basis = GammaBasis::kDeGrandRossi) const;
  // Sets every byte of the output storage (tests poison it with 0xff, a NaN, to see that every site is written).
  void FillOutputBytes(unsigned char byte);

 private:
  // The basis to name to DeviceSpinorField's Upload / Download for a host field in `host_basis` (they convert
  // between it and the UKQCD basis they take the device to hold); refuses UKQCD for the DeGrand-Rossi rungs.
  GammaBasis TransferBasis(GammaBasis host_basis) const;

  LadderRung rung_;
  Lattice lattice_;
  Parity out_parity_;
  FermionBoundary boundary_;
  // Rung 1: arrays of structs (dslash_ladder_launch.h gives the layout).
  DeviceBuffer aos_links_, aos_in_, aos_out_;
  // Rungs 2-9b: the production storage.
  std::unique_ptr<DeviceGaugeField> gauge_;
  std::unique_ptr<DeviceSpinorField> in_, out_;
};

}  // namespace lqcd::gpu
