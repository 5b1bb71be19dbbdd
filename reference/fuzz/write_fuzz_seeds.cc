// write_fuzz_seeds: writes SyntheticFuzzSeeds() (fuzz_seeds.h) into the directory given as argument,
// one file each, for a fuzzing corpus (run_fuzzer.sh).
#include <cstdio>

#include "reference/fuzz/fuzz_seeds.h"
#include "reference/gauge_file_common.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIRECTORY\n", argv[0]);
    return 2;
  }
  const auto seeds = lqcd::SyntheticFuzzSeeds();
  for (const auto& seed : seeds) lqcd::WriteFileBytes(std::string(argv[1]) + "/" + seed.name, seed.bytes);
  std::printf("write_fuzz_seeds: wrote %zu seed files (2x2x2x2 lattice) to %s\n", seeds.size(), argv[1]);
  return 0;
}
