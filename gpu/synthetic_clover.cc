// synthetic_clover.cc: the benchmarks' clover term (synthetic_clover.h).
#include "gpu/synthetic_clover.h"

#include <Eigen/LU>

#include <complex>

namespace lqcd::gpu {

SyntheticClover MakeSyntheticClover(const Lattice& lattice) {
  CloverSiteBlocks b;
  for (int chirality = 0; chirality < 2; ++chirality) {
    ChiralBlock<double> h = ChiralBlock<double>::Zero();
    for (int i = 0; i < 6; ++i) {
      h(i, i) = 5.0 + 0.1 * (i - 3 * chirality);
      for (int j = 0; j < i; ++j) {
        h(i, j) = Complex<double>(0.05 * (i + j), 0.03 * (i - 2 * j));
        h(j, i) = std::conj(h(i, j));
      }
    }
    b[chirality] = h;
  }
  const CloverSiteBlocks inverse{b[0].inverse(), b[1].inverse()};
  return {std::vector<CloverSiteBlocks>(lattice.volume(), b), std::vector<CloverSiteBlocks>(lattice.volume(), inverse)};
}

}  // namespace lqcd::gpu
