// fuzz_seeds.h: small, valid configuration files in every variant the writers produce, as starting
// points for fuzzing (beside the sample files of ../shared/data/gauge, which are larger).
// 2x2x2x2 lattices of Philox-random SU(3) links (reference/io/gauge_io_testing.h RandomSu3Field):
// NERSC in 3x3 and two-row storage x float32/float64 x both byte orders, LIME in float32 and float64,
// MILC in both byte orders and with a site list (order = 1). Deterministic: the same bytes on every
// machine (fixed dates).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lqcd {

struct FuzzSeed {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

std::vector<FuzzSeed> SyntheticFuzzSeeds();

}  // namespace lqcd
