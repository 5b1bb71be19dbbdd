// sweep_engine.h: where the quenched generator's sweeps run, following the solves' backend choice
// (dirac_solver.h): on a GPU choice the GPU's sweeps (gpu/gpu_heatbath.h), on a CPU choice the CPU's (null: the
// generator updates its field in place). The configurations are the same bit for bit either way (the GPU sweeps'
// tests), so caches made by one backend serve the other.
#pragma once

#include <memory>

#include "experiments/dirac_solver.h"
#include "reference/ensemble/quenched_generator.h"

namespace lqcd::experiments {

std::unique_ptr<SweepEngine> MakeSweepEngine(const BackendChoice& choice);

}  // namespace lqcd::experiments
