// gauge_file_info: reads gauge configuration files in any supported format (detected from the bytes),
// verifies everything the readers check, and prints what was found and the gauge-invariant observables.
//
//   bazel run //reference/io:gauge_file_info -- FILE...
//
// Exit status 0 if every file was read, 1 if any was rejected (the GaugeFileError is printed) or the command
// line is wrong (one line "gauge_file_info: error: ..." on stderr).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "reference/cli/command_line.h"
#include "reference/io/gauge_io.h"
#include "reference/plaquette.h"

namespace lqcd {
namespace {

int Main(int argc, char** argv) {
  std::vector<std::string> files;
  command_line::FlagSet flags(
      "gauge_file_info",
      "Reads gauge configuration files (NERSC, ILDG/SciDAC LIME or MILC v5; the format is detected from the\n"
      "bytes), verifies everything the readers check (checksums, unitarity, header consistency) and prints the\n"
      "metadata found, the plaquette and the link trace of each. A rejected file is reported as REJECTED with\n"
      "the reason and makes the exit status 1. Relative paths under `bazel run` are the caller's.");
  flags.Positional("FILE", &files, 1, "gauge configuration files to read");
  if (!flags.Parse(argc, argv, std::cout)) return 0;

  std::printf("gauge_file_info: %zu file(s); CPU reader (reference/io/gauge_io.h), links converted to double\n",
              files.size());
  int rejected = 0;
  for (std::string path : files) {
    // Under `bazel run` the working directory is the runfiles tree; relative paths mean the caller's.
    const char* caller_directory = std::getenv("BUILD_WORKING_DIRECTORY");
    if (caller_directory != nullptr && !path.empty() && path[0] != '/')
      path = std::string(caller_directory) + "/" + path;
    try {
      const GaugeConfiguration c = ReadGaugeConfiguration(path);
      const PlaquetteAverages p = MeasurePlaquette(c.field);
      std::printf("%s", c.metadata.Describe().c_str());
      std::printf("  plaquette <Re Tr U_p>/3 = %.15f (spatial %.15f, temporal %.15f); link trace <Re Tr U>/3 = %.15f\n",
                  p.total, p.spatial, p.temporal, LinkTrace(c.field));
    } catch (const GaugeFileError& e) {
      std::printf("REJECTED: %s\n", e.what());
      ++rejected;
    }
  }
  return rejected == 0 ? 0 : 1;
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  return lqcd::command_line::RunMain("gauge_file_info", [&] { return lqcd::Main(argc, argv); });
}
