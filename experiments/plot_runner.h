// plot_runner.h: what the experiment mains share to make their plots: paths as the user typed them under
// `bazel run`, the plotting script found in the binary's runfiles, and /usr/bin/python3 run on it.
//
//   UserPath(p)                     p, relative to where `bazel run` was started (BUILD_WORKING_DIRECTORY),
//                                   else to the current directory; absolute paths unchanged.
//   FindPlotScript(name, explicit, argv0)
//                                   `explicit` (a --plot-script flag) if not empty, else
//                                   experiments/<name> in the runfiles (RUNFILES_DIR, argv0.runfiles, or the
//                                   current directory, in that order); std::runtime_error if none has it.
//   RunPython(script, args)         /usr/bin/python3 script args... with PYTHONPATH = the runfiles root (for
//                                   `from experiments import plotting`); its stdout and stderr go to
//                                   std::cout (so a main's run.log captures them). Returns the exit status
//                                   (128 if it did not exit normally).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lqcd::experiments {

std::filesystem::path UserPath(const std::string& path);
std::filesystem::path FindPlotScript(const std::string& name, const std::string& explicit_path, const char* argv0);
int RunPython(const std::filesystem::path& script, const std::vector<std::string>& args);

}  // namespace lqcd::experiments
