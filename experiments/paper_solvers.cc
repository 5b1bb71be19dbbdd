// paper_solvers.cc: see paper_solvers.h.
#include "experiments/paper_solvers.h"

namespace lqcd::experiments {

using solvers::KrylovMethod;
using solvers::MixedScheme;
using solvers::SolverSpec;

int PaperTable(const SolverSpec& spec) {
  switch (spec.scheme) {
    case MixedScheme::kNone: return 3;
    case MixedScheme::kDefectCorrection: return spec.krylov == KrylovMethod::kBiCGstab ? 4 : 0;
    case MixedScheme::kReliableUpdate: return spec.krylov == KrylovMethod::kBiCGstab ? 5 : 0;
  }
  return 0;
}

std::string MethodLabel(const SolverSpec& spec) {
  const std::string prefix = spec.krylov == KrylovMethod::kCg ? "cg-" : "";
  switch (spec.scheme) {
    case MixedScheme::kNone: return solvers::ToString(spec.krylov);
    case MixedScheme::kDefectCorrection: return prefix + "defect-correction";
    case MixedScheme::kReliableUpdate: return prefix + "reliable-update";
  }
  return "unknown";
}

std::string PrecisionLabel(const SolverSpec& spec) {
  std::string s = solvers::ToString(spec.inner.precision);
  if (spec.inner.link_reals != 18) s += "/" + std::to_string(spec.inner.link_reals);
  if (spec.temporal_gauge) s += "/gf";
  return s;
}

std::vector<SolverSpec> PaperSolvers() {
  std::vector<SolverSpec> v;
  for (const char* s : {"cg", "bicgstab", "bicgstab-dc:half:1e-1", "bicgstab-dc:half:1e-2", "bicgstab-dc:single:1e-3",
                        "bicgstab-dc:single:1e-4", "bicgstab-dc:single:1e-5", "bicgstab-dc:single:1e-6",
                        "bicgstab-reliable:half:1e-1", "bicgstab-reliable:half:1e-2", "bicgstab-reliable:half:1e-3",
                        "bicgstab-reliable:single:1e-1", "bicgstab-reliable:single:1e-2",
                        "bicgstab-reliable:single:1e-3"}) {
    v.push_back(SolverSpec::Parse(s));
  }
  return v;
}

std::vector<SolverSpec> PaperGpuSolvers() {
  std::vector<SolverSpec> v;
  for (const char* s : {"cg", "bicgstab", "bicgstab-dc:half/12:1e-1", "bicgstab-dc:half/12:1e-2",
                        "bicgstab-dc:single/8:1e-3", "bicgstab-dc:single/8:1e-4", "bicgstab-dc:single/8:1e-5",
                        "bicgstab-dc:single/12:1e-5", "bicgstab-dc:single/12:1e-6", "bicgstab-reliable:half/12:1e-1",
                        "bicgstab-reliable:half/12:1e-2", "bicgstab-reliable:half/12:1e-3",
                        "bicgstab-reliable:single/8:1e-1", "bicgstab-reliable:single/8:1e-2",
                        "bicgstab-reliable:single/8:1e-3", "bicgstab-reliable:single/12:1e-2",
                        "bicgstab-reliable:single/12:1e-3"}) {
    v.push_back(SolverSpec::Parse(s));
  }
  return v;
}

std::vector<SolverSpec> DefaultSolvers() {
  std::vector<SolverSpec> v;
  for (const SolverSpec& s : PaperSolvers()) {
    const bool dropped = s.scheme == MixedScheme::kDefectCorrection &&
                         s.inner.precision == solvers::OperatorPrecision::kSingle &&
                         (s.parameter == 1e-4 || s.parameter == 1e-6);
    if (!dropped) v.push_back(s);
  }
  return v;
}

}  // namespace lqcd::experiments
