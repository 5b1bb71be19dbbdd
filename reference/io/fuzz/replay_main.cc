// replay_main.cc: runs LLVMFuzzerTestOneInput (gauge_file_fuzzer.cc) on each file named on the command
// line, the way libFuzzer replays a crash reproducer, but with any compiler. Prints one line per file.
//
//   bazel run //reference/io/fuzz:gauge_file_fuzzer_replay -- FILE...
//
// Exit status 0 if no file made an exception other than GaugeFileError escape, 1 otherwise or if the command
// line is wrong (one line "gauge_file_fuzzer_replay: error: ..." on stderr).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "reference/cli/command_line.h"
#include "reference/io/fuzz/gauge_file_fuzz_target.h"
#include "reference/io/gauge_file_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace lqcd {
namespace {

int Main(int argc, char** argv) {
  std::vector<std::string> files;
  command_line::FlagSet flags(
      "gauge_file_fuzzer_replay",
      "Replays files through the fuzz target of the configuration-file readers (LLVMFuzzerTestOneInput of\n"
      "reference/io/fuzz/gauge_file_fuzzer.cc), the way libFuzzer replays a crash reproducer, but built with any\n"
      "compiler. Prints per file whether the readers accepted or rejected it, or BUG if anything but a\n"
      "GaugeFileError escaped (exit status 1). A crash or sanitizer report shows the bug directly.");
  flags.Positional("FILE", &files, 1, "inputs to replay (crash reproducers, corpus files)");
  if (!flags.Parse(argc, argv, std::cout)) return 0;

  std::printf("gauge_file_fuzzer_replay: replaying %zu file(s) through the configuration-file readers\n",
              files.size());
  int failures = 0;
  for (const std::string& file : files) {
    try {
      const std::vector<std::uint8_t> bytes = ReadFileBytes(file);
      std::string rejection;
      const FuzzOutcome outcome = FuzzGaugeFileInput(bytes.data(), bytes.size(), &rejection);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      std::printf("%s (%zu bytes): %s\n", file.c_str(), bytes.size(),
                  outcome == FuzzOutcome::kAccepted ? "accepted" : ("rejected: " + rejection).c_str());
    } catch (const std::exception& e) {
      std::printf("%s: BUG, escaped: %s\n", file.c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("gauge_file_fuzzer_replay", [&] { return lqcd::Main(argc, argv); });
}
