// generate_quenched: the reference program (reference/ensemble/generate_quenched_program.h: flags, output files)
// with the GPU's sweeps as well: --backend=auto (the GPU when one is usable, else the CPU), cpu or gpu. The
// configurations are the same bit for bit on either (gpu/gpu_heatbath.h), so files made by one continue on the
// other (--load, --first-sweep).
//   bazel run //experiments:generate_quenched -- --lattice=24x24x24x64 --beta=6.0 --therm=500 --sep=100
//       --configs=5 --output=/tmp/ensemble   (one command line)
#include <iostream>
#include <memory>
#include <string>

#include "experiments/dirac_solver.h"
#include "experiments/sweep_engine.h"
#include "reference/cli/command_line.h"
#include "reference/ensemble/generate_quenched_program.h"

int main(int argc, char** argv) {
  using namespace lqcd::experiments;  // NOLINT: the backend choice's names
  const lqcd::SweepBackends backends{
      {"auto", "cpu", "gpu"},
      "where the sweeps run: auto = the GPU when one is usable, else the CPU (the same configurations either way)",
      [](const std::string& name) {
        const BackendKind kind = name == "gpu" ? BackendKind::kGpu : name == "cpu" ? BackendKind::kCpu : BackendKind::kAuto;
        const BackendChoice choice = ChooseBackend(kind, VerifyOn::kAuto);  // --backend=gpu without a GPU: the reason
        std::cout << "backend = " << ToString(choice.kind) << " (" << choice.reason << ")\n";
        return MakeSweepEngine(choice);
      }};
  return lqcd::command_line::RunMain("generate_quenched",
                                     [&] { return lqcd::GenerateQuenchedProgram(argc, argv, backends); });
}
