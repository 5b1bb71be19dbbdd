// staggered_dslash_cost.cc: see staggered_dslash_cost.h.
#include "gpu/staggered_dslash_cost.h"

#include <stdexcept>
#include <string>

#include "reference/staggered/staggered_dslash.h"

namespace lqcd::gpu {

KernelCost StaggeredDslashCost(const StaggeredDslashVariant& v, const Extents& extents, int rhs) {
  if (rhs < 1) throw std::invalid_argument("StaggeredDslashCost: " + std::to_string(rhs) + " right-hand sides");
  const int r = v.long_link_reals;
  if (r != 0 && r != 8 && r != 9 && r != 10 && r != 12 && r != 13 && r != 14 && r != 18) {
    throw std::invalid_argument("StaggeredDslashCost: " + std::to_string(r) +
                                " reals per long link (18, 14, 13, 12, 10, 9, 8, or 0 for none)");
  }
  const bool improved = r > 0;
  const double sites = HalfVolume(extents);
  const double real_bytes = BytesPerReal(v.precision);
  const double norm_bytes = v.precision == Precision::kHalf ? 4 : 0;
  const double vector_bytes = 6 * real_bytes + norm_bytes;
  const double link_bytes = 8 * (18 + r) * real_bytes;
  const double neighbours = improved ? 16 : 8;
  const double n = rhs;
  KernelCost cost;
  cost.flops = n * sites * (improved ? kImprovedStaggeredFlopsPerSite : kNaiveStaggeredFlopsPerSite);
  cost.bytes = sites * (link_bytes + n * (neighbours + 1) * vector_bytes);
  cost.minimum_bytes = sites * (link_bytes + n * 2 * vector_bytes);
  return cost;
}

}  // namespace lqcd::gpu
