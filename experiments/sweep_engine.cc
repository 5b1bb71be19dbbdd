// sweep_engine.cc: MakeSweepEngine (sweep_engine.h).
#include "experiments/sweep_engine.h"

#include "gpu/gpu_heatbath.h"

namespace lqcd::experiments {

std::unique_ptr<SweepEngine> MakeSweepEngine(const BackendChoice& choice) {
  if (choice.kind == BackendKind::kGpu) return std::make_unique<gpu::GpuSweeps>();
  return nullptr;
}

}  // namespace lqcd::experiments
