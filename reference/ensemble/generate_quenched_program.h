// generate_quenched_program.h: the generate_quenched command-line program (flags, output files: the file
// comment of generate_quenched_program.cc), written once and built twice: //reference/ensemble:generate_quenched
// with the CPU only, and //experiments:generate_quenched, which also offers the GPU's sweeps. The caller says
// which --backend values exist and makes the sweep engine of the chosen one (null: the CPU, in place); the
// configurations are the same bit for bit on every backend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reference/ensemble/quenched_generator.h"

namespace lqcd {

struct SweepBackends {
  std::vector<std::string> names;  // the --backend values; the first is the default
  std::string help;                // the flag's description
  // The engine of a backend (null: the CPU in place); throws std::invalid_argument with the reason when the
  // backend cannot run here (called after the flags are checked, before any work).
  std::function<std::unique_ptr<SweepEngine>(const std::string& name)> make;
};

// Runs the program; returns its exit status (bad flags and failures throw, as command_line::RunMain expects).
int GenerateQuenchedProgram(int argc, char** argv, const SweepBackends& backends);

}  // namespace lqcd
