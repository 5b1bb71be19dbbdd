// gauge_file_info: reads gauge configuration files in any supported format (detected from the bytes),
// verifies everything the readers check, and prints what was found and the gauge-invariant observables.
//
//   bazel run //reference:gauge_file_info -- FILE...
//
// Exit status 0 if every file was read, 1 if any was rejected (the GaugeFileError is printed).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reference/gauge_io.h"
#include "reference/plaquette.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...  (NERSC, ILDG/SciDAC LIME or MILC v5 gauge configurations)\n", argv[0]);
    return 2;
  }
  std::printf("gauge_file_info: %d file(s); CPU reader (reference/gauge_io.h), links converted to double\n", argc - 1);
  int rejected = 0;
  for (int i = 1; i < argc; ++i) {
    // Under `bazel run` the working directory is the runfiles tree; relative paths mean the caller's.
    std::string path = argv[i];
    const char* caller_directory = std::getenv("BUILD_WORKING_DIRECTORY");
    if (caller_directory != nullptr && !path.empty() && path[0] != '/')
      path = std::string(caller_directory) + "/" + path;
    try {
      const lqcd::GaugeConfiguration c = lqcd::ReadGaugeConfiguration(path);
      const lqcd::PlaquetteAverages p = lqcd::MeasurePlaquette(c.field);
      std::printf("%s", c.metadata.Describe().c_str());
      std::printf("  plaquette <Re Tr U_p>/3 = %.15f (spatial %.15f, temporal %.15f); link trace <Re Tr U>/3 = %.15f\n",
                  p.total, p.spatial, p.temporal, lqcd::LinkTrace(c.field));
    } catch (const lqcd::GaugeFileError& e) {
      std::printf("REJECTED: %s\n", e.what());
      ++rejected;
    }
  }
  return rejected == 0 ? 0 : 1;
}
