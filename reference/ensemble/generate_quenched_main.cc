// generate_quenched: quenched SU(3) ensembles from the command line, on the CPU (generate_quenched_program.h;
// //experiments:generate_quenched is the same program with the GPU's sweeps too).
#include "reference/cli/command_line.h"
#include "reference/ensemble/generate_quenched_program.h"

int main(int argc, char** argv) {
  const lqcd::SweepBackends cpu_only{
      {"cpu"}, "where the sweeps run: the CPU (//experiments:generate_quenched also offers the GPU)",
      [](const std::string&) { return std::unique_ptr<lqcd::SweepEngine>(); }};
  return lqcd::command_line::RunMain("generate_quenched",
                                     [&] { return lqcd::GenerateQuenchedProgram(argc, argv, cpu_only); });
}
