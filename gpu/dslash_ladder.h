// dslash_ladder.h: the teaching ladder for the Wilson Dslash (the paper's Eq. (1), sections 4.1-4.6): from the
// most naive GPU kernel to the tuned production one, ONE change per rung, every rung checked against the CPU
// oracle (dslash_ladder_test.cc) and benchmarked (dslash_ladder_benchmark.cc; table in docs/dslash_ladder.md).
//
// rung  name            what it changes over the previous rung                          what it gains
//  1    naive-aos       double, DeGrand-Rossi basis, 1 thread/site; per hop the full     (the baseline)
//                       spinor + full link from arrays of structs, 4 mat-vecs, 4x4 projector
//  2    soa             structure of arrays (double2 words): coalesced loads              bandwidth actually used
//  3    half-spinor     project to 2 spins first: 2 mat-vecs per hop, no 4x4 multiply    fewer flops, registers
//  4    ukqcd-basis     gamma_4 diagonal: temporal hops load 12 of 24 reals (= production) bytes 2880 -> 2688/site
//  5    reconstruct-12  links as 12 reals, third row rebuilt in registers                 bytes 2688 -> 2304/site
//  6    reconstruct-8   links as 8 reals (Appendix A.2), rebuilt with sincos and a sqrt   bytes 2304 -> 2048/site
//  7    gauge-fixed     temporal gauge: t-links loaded only on the last time slice        bytes 2048 -> ~1924/site
//  8    single          float storage and arithmetic                                     bytes halved
//  9    half            16-bit fixed point + one float norm per site, float arithmetic   bytes halved again
// (byte counts per output site at Lt = 32, the model of wilson_dslash.h; rungs 1-3: 8 (24 + 18) + 24 reals)
//
// Run:   bazel build //gpu:dslash_ladder_benchmark && bazel-bin/gpu/dslash_ladder_benchmark --lattice=32x32x32x32
//        (on the GPU machine: tools/gpu_bundle.sh here, gpu_bundle/benchmarks/dslash_ladder_benchmark there)
// Check: bazel test //gpu:dslash_ladder_test   (skips without a GPU; runs through the bundle)
//
// Rungs 1-3 are this file family's own kernels (dslash_ladder_kernels.cu), D only, in the oracle's basis (the
// device holds the host numbers unchanged). Rungs 4-9 call the production kernel (wilson_dslash.h), which
// converts to the UKQCD basis on upload and back on download. Host-only header (no CUDA types).
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
  int number;
  const char* name;
  const char* change;  // what it changes over the previous rung (one line)
  const char* gain;    // what that should gain (one line)
  SpinorLayout layout;
  bool spin_projection;  // half spinors before the colour multiply
  GammaBasis basis;      // the basis the kernel computes in
  Precision precision;
  Reconstruct reconstruct;
  bool temporal_gauge_fixed;

  bool production() const { return basis == GammaBasis::kUkqcd; }  // rungs 4-9: wilson_dslash.h's kernel
  DslashVariant Variant() const { return {precision, reconstruct, temporal_gauge_fixed, Dagger::kNo, false}; }
};

const std::vector<LadderRung>& DslashLadder();
// Rung `number` (1-based); std::invalid_argument naming the valid range otherwise.
const LadderRung& DslashLadderRung(int number);

// Flops (1320 per output site), modelled bytes and minimum bytes of one application on V/2 output sites.
// Rungs 1-3 load 8 (24 + 18) reals and store 24 per site (the paper's section 4.3 count, 2880 bytes in double);
// rungs 4-9 use wilson_dslash.h's model. The minimum (each link, input and output spinor once) is that of the
// rung's storage.
KernelCost LadderCost(const LadderRung& rung, const Extents& extents);

// One rung, ready to run: out_p = D_{p,p'} in_{p'} with the rung's kernel.
class LadderDslash {
 public:
  // `links` must suit the rung: SU(3) for 12 and 8 reals, in temporal gauge for the gauge-fixed rungs
  // (DeviceGaugeField checks and throws std::invalid_argument). Throws CudaError without a device.
  LadderDslash(int rung, const GaugeField<double>& links, Parity out_parity,
               const FermionBoundary& boundary = FermionBoundary::AntiperiodicTime());

  const LadderRung& rung() const { return rung_; }
  const Lattice& lattice() const { return lattice_; }
  Parity out_parity() const { return out_parity_; }
  KernelCost Cost() const;

  // The input, a DeGrand-Rossi field on the parity opposite out_parity (std::invalid_argument otherwise).
  void Upload(const SpinorField<double>& in);
  // out = D in, queued on the default stream.
  void Apply();
  // The output, in the DeGrand-Rossi basis.
  SpinorField<double> Download() const;
  // Sets every byte of the output storage (tests poison it with 0xff, a NaN, to see that every site is written).
  void FillOutputBytes(unsigned char byte);

 private:
  LadderRung rung_;
  Lattice lattice_;
  Parity out_parity_;
  FermionBoundary boundary_;
  // Rung 1: arrays of structs (dslash_ladder_launch.h gives the layout).
  DeviceBuffer aos_links_, aos_in_, aos_out_;
  // Rungs 2-9: the production storage.
  std::unique_ptr<DeviceGaugeField> gauge_;
  std::unique_ptr<DeviceSpinorField> in_, out_;
};

}  // namespace lqcd::gpu
