// synthetic_clover.h (testonly): a clover term for the benchmarks, whose timings do not depend on its values,
// and where building the oracle's CloverField from the links (reference/clover.h) would take minutes of host time
// on a 32^4 lattice.
//
//   MakeSyntheticClover(lattice): the same T(n) = B at every site, B = 5 + H per chiral block with H Hermitian
//   of small fixed entries (|H| < 1), and its inverse from Eigen: well conditioned, so the stored T^{-1} is a
//   real inverse. For DeviceCloverField's block constructor.
#pragma once

#include <vector>

#include "gpu/device_clover_field.h"
#include "reference/lattice.h"

namespace lqcd::gpu {

struct SyntheticClover {
  std::vector<CloverSiteBlocks> t, t_inverse;  // per lexicographic site
};

SyntheticClover MakeSyntheticClover(const Lattice& lattice);

}  // namespace lqcd::gpu
