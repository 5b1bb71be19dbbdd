// staggered_dslash_cost.h: the cost model of the improved (asqtad/HISQ) staggered Dslash D_{p,p'}
// (reference/staggered/staggered_dslash.h) applied to n right-hand sides at once, each link read once per
// output site for all of them: the flops and bytes a GPU kernel of that design moves, and the minimum.
// Host-only; the roofline the GPU staggered Dslash (staggered_dslash.h: 18-real fat and long links, double and
// single) is measured against; reproduces the seed's single-precision flop/byte of 0.73 (n = 1) and 2.08 (n = 8).
//
// Per output site (V/2 of them), with R_f = 18 reals per fat link (fat links are sums of paths, neither
// unitary nor bounded, so they are not compressed) and R_l reals per long link:
//   flops   n x 1146 (16 matrix-vector products of 66 flops and 15 additions of 6; MILC's count, as
//           reference/staggered/staggered_dslash.h); 570 without long links (naive: 8 products, 7 additions).
//   links   8 fat links (4 forward at the site, 4 backward at the neighbours) and 8 long links (3-hop):
//           8 R_f + 8 R_l reals, read once per site whatever n.
//   vectors (the kernel's loads) n x (16 neighbour colour vectors of 6 reals + 6 reals out; 8 neighbours
//           without long links), + one norm of 4 bytes per vector in half precision;
//   minimum n x (6 reals in + 6 out) (+ norms): each input vector once.
// R_l: 18 (full), 13 (two rows + arg det U, u3_compression.h; 14 when padded for aligned loads, as the GPU
// stores them) or 9 (8 + the phase; 10 padded, as the GPU stores them) for HISQ's U(3) Naik links; 12 or 8 for
// asqtad's SU(3) ones; 0 = no long links (naive).
// Reals are 8, 4 or 2 bytes (half: 16-bit fixed point, links with one scale for the whole field).
#pragma once

#include "gpu/field_views.h"
#include "gpu/kernel_cost.h"
#include "gpu/precision.h"

namespace lqcd::gpu {

struct StaggeredDslashVariant {
  Precision precision = Precision::kSingle;
  int long_link_reals = 18;  // 18, 14, 13, 12, 10, 9 or 8; 0 = naive (no long links)
};

// Cost of one call on one output parity of a lattice with these extents, on rhs right-hand sides.
// std::invalid_argument for rhs < 1 or a long-link storage not listed above.
KernelCost StaggeredDslashCost(const StaggeredDslashVariant& variant, const Extents& extents, int rhs = 1);

}  // namespace lqcd::gpu
