// clover_oracle_chain.h (testonly): the CPU oracle's side of the GPU clover launches, with their derived per-site
// error bounds (oracle_comparison.h items 7-8, docs/error_bounds.md "GPU clover Dslash"), shared by the tests of
// the single-RHS and the multi-RHS clover Dslash and of GpuCloverSchur (clover_dslash_test,
// multi_rhs_clover_dslash_test):
//   one Dslash launch with a clover epilogue (RunOracle, LaunchBound), and
//   the chain of launches a GpuCloverSchur application makes (SchurChainOf: each launch's bound with the previous
//   launch's Propagated() error as its input error), built from DslashStep and InverseStep.
// The oracle's values are computed with reference/clover.h's and reference/wilson.h's own functions (double,
// DeGrand-Rossi) in the order reference/clover.cc uses; clover_dslash_test checks that the chains end in the
// oracle operators' results bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/oracle_comparison.h"
#include "gpu/precision.h"
#include "gpu/wilson_dslash.h"
#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/lattice.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"

namespace lqcd::gpu::testing {

// out = C in with the oracle's blocks, C = T (inverse = false) or T^{-1}.
void ApplyC(SpinorField<double>& out, const CloverField<double>& clover, const SpinorField<double>& in, bool inverse);
// a x + b y, site by site.
SpinorField<double> Combine(double a, const SpinorField<double>& x, double b, const SpinorField<double>& y);

// One clover-epilogue launch of the oracle tests, e.g. "single/12/gf/dagger/clover-xpay T^-1 even".
struct EpilogueCase {
  Precision precision;
  Reconstruct reconstruct;
  bool gauge_fixed;
  Dagger dagger;
  DslashEpilogue epilogue;
  bool inverse;  // C = T^{-1} (else T)
  Parity out_parity;
  std::string Name() const;
};

// The oracle's side of one launch: inputs, D in, B x or B D in (the clover product of the epilogue), out; and
// the magnitudes the bound needs (precision-independent, so computed once for every precision and link form).
struct OracleLaunch {
  OracleLaunch(const Lattice& lat, Parity out_parity)
      : in(lat, SubsetOf(Opposite(out_parity))),
        x(lat, SubsetOf(out_parity)),
        d(lat, SubsetOf(out_parity)),
        c(lat, SubsetOf(out_parity)),
        out(lat, SubsetOf(out_parity)) {}
  SpinorField<double> in, x, d, c, out;
  std::vector<double> in_magnitude, x_magnitude, d_magnitude, c_magnitude, out_magnitude;
  double a = 0, b = 0;  // the epilogue's coefficients
};

// Gaussian in (seed) and x (seed + 1), and out = the epilogue of D in with a, b.
OracleLaunch RunOracle(const GaugeField<double>& u, const CloverField<double>& clover, Parity out_parity, Dagger dagger,
                       DslashEpilogue epilogue, bool inverse, double a, double b, std::uint64_t seed);

// The bound of the launch c on the oracle's launch o (its inputs uploaded in c's precision, links of link_error,
// the blocks of C).
SiteErrors LaunchBound(const Lattice& lat, const EpilogueCase& c, const OracleLaunch& o,
                       const std::vector<double>& link_error, const std::vector<CloverSiteBlocks>& blocks);

// What a chain of launches needs: the links and clover term (with the blocks of T and T^{-1}), the device's
// precision and its links' errors.
struct OperatorSetup {
  const GaugeField<double>& u;
  const CloverField<double>& clover;
  const std::vector<CloverSiteBlocks>& t;
  const std::vector<CloverSiteBlocks>& t_inverse;
  Precision precision;
  std::vector<double> link_error;
};

// One launch of a chain: its two error accounts and the oracle's value.
struct ChainStep {
  SiteErrors errors;
  SpinorField<double> out;
};

// One launch out = epilogue(D in) on out_parity (dagger), with the oracle's values computed here: kXpay
// (x + b D in, a = 1), kClover, kCloverXpay (T x + b D in, a = 1), kXpayClover (x + b C D in, a = 1); C = T^{-1}
// when inverse.
ChainStep DslashStep(const OperatorSetup& s, Parity out_parity, Dagger dagger, DslashEpilogue epilogue,
                     const SpinorField<double>& in, const std::vector<double>& in_error, const SpinorField<double>* x,
                     const std::vector<double>* x_error, double a, double b, bool inverse);

// ApplyCloverTerm (T^{-1}) on in's parity.
ChainStep InverseStep(const OperatorSetup& s, const SpinorField<double>& in, const std::vector<double>& in_error);

// The Schur application's chain (gpu_clover.cc's launches; the oracle's order in reference/clover.cc), for an
// input uploaded in the setup's precision.
ChainStep SchurChainOf(const OperatorSetup& s, CloverSchurForm form, Dagger dagger, const SpinorField<double>& in);

}  // namespace lqcd::gpu::testing
