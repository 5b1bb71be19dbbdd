// write_fuzz_seeds: writes SyntheticFuzzSeeds() (fuzz_seeds.h) into the directory given as argument,
// one file each, for a fuzzing corpus (run_fuzzer.sh, libfuzzer_short_run_test.sh).
//
//   write_fuzz_seeds OUTPUT_DIRECTORY
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/cli/command_line.h"
#include "reference/io/fuzz/fuzz_seeds.h"
#include "reference/io/gauge_file_common.h"

namespace lqcd {
namespace {

int Main(int argc, char** argv) {
  std::vector<std::string> directories;
  command_line::FlagSet flags(
      "write_fuzz_seeds",
      "Writes the synthetic fuzzing seeds (reference/io/fuzz/fuzz_seeds.h: 2x2x2x2 configuration files in every\n"
      "variant the writers produce, one file each) into OUTPUT_DIRECTORY, which must exist. The corpus of\n"
      "reference/io/fuzz/run_fuzzer.sh and of the libFuzzer short-run test.");
  flags.Positional("OUTPUT_DIRECTORY", &directories, 1, "the existing directory to write the seed files to", 1);
  if (!flags.Parse(argc, argv, std::cout)) return 0;
  const std::string& directory = directories.front();
  const auto seeds = SyntheticFuzzSeeds();
  for (const auto& seed : seeds) WriteFileBytes(directory + "/" + seed.name, seed.bytes);
  std::printf("write_fuzz_seeds: wrote %zu seed files (2x2x2x2 lattice) to %s\n", seeds.size(), directory.c_str());
  return 0;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("write_fuzz_seeds", [&] { return lqcd::Main(argc, argv); });
}
