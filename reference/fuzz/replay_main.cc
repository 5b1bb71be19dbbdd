// replay_main.cc: runs LLVMFuzzerTestOneInput (gauge_file_fuzzer.cc) on each file named on the command
// line, the way libFuzzer replays a crash reproducer, but with any compiler. Prints one line per file.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "reference/fuzz/gauge_file_fuzz_target.h"
#include "reference/gauge_file_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::printf("gauge_file_fuzzer_replay: replaying %d file(s) through the configuration-file readers\n", argc - 1);
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      const std::vector<std::uint8_t> bytes = lqcd::ReadFileBytes(argv[i]);
      std::string rejection;
      const lqcd::FuzzOutcome outcome = lqcd::FuzzGaugeFileInput(bytes.data(), bytes.size(), &rejection);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      std::printf("%s (%zu bytes): %s\n", argv[i], bytes.size(),
                  outcome == lqcd::FuzzOutcome::kAccepted ? "accepted" : ("rejected: " + rejection).c_str());
    } catch (const std::exception& e) {
      std::printf("%s: BUG, escaped: %s\n", argv[i], e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
