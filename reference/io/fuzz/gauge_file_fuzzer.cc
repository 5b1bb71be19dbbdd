// gauge_file_fuzzer.cc: libFuzzer target for the configuration-file readers (README.md here says how
// to build and run it). Every input goes through FuzzGaugeFileInput; a rejected input is fine, anything
// that escapes (crash, sanitizer report, exception other than GaugeFileError, broken invariant) is a bug.
// Built without -fsanitize=fuzzer (by Bazel, with g++), gauge_file_fuzzer_replay links this file with a
// main that replays files, so crash reproducers can be rerun anywhere.
#include <cstddef>
#include <cstdint>

#include "reference/io/fuzz/gauge_file_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lqcd::FuzzGaugeFileInput(data, size);
  return 0;
}
