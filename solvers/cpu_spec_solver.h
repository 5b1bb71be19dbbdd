// cpu_spec_solver.h: a SolverSpec (solver_spec.h) solved on the CPU oracle: SolveWithSpec (spec_solve.h)
// with the CPU backend's Wilson (cpu_backend.h) or Wilson-clover (cpu_clover.h) operators.
//
//   SolveWithSpecOnCpu(spec, u, WilsonParams, x, b)                x = M^{-1} b, M = (4 + m) - D/2
//   SolveWithSpecOnCpu(spec, u, CloverParams, form, x, b)          M = (4 + m) + A - D/2, even-odd `form`
// x is the initial guess on entry. The operators are built for this call (their links are copied into
// their precision; the low-precision one only for mixed solvers). u is whatever field the caller wants
// solved on: for spec.temporal_gauge the caller passes the gauge-fixed field and transforms source and
// solution (the operators cannot tell).
// Errors: std::invalid_argument for a spec the CPU cannot run (RequireSupported: compressed links) and
// those of the algorithms.
#pragma once

#include <memory>

#include "reference/clover.h"
#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/cpu_clover.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"
#include "solvers/spec_solve.h"

namespace lqcd::solvers {

inline SolveResult SolveWithSpecOnCpu(const SolverSpec& spec, const GaugeField<double>& u,
                                      const WilsonParams& params, SpinorField<double>& x,
                                      const SpinorField<double>& b) {
  RequireSupported(spec, CpuCapabilities(), /*clover=*/false);
  const CpuWilson<double> m(u, params);
  const CpuWilsonSchur<double> schur(u, params);
  auto low = MakeLowSchurOperators<CpuWilsonSchur>([&](auto tag) {
    using P = typename decltype(tag)::type;
    return std::make_unique<CpuWilsonSchur<P>>(u, params);
  });
  return SolveWithSpec(spec, m, schur, low, x, b);
}

inline SolveResult SolveWithSpecOnCpu(const SolverSpec& spec, const GaugeField<double>& u,
                                      const CloverParams& params, CloverSchurForm form, SpinorField<double>& x,
                                      const SpinorField<double>& b) {
  RequireSupported(spec, CpuCapabilities(), /*clover=*/true);
  const CpuClover<double> m(u, params);
  const CpuCloverSchur<double> schur(u, params, form);
  auto low = MakeLowSchurOperators<CpuCloverSchur>([&](auto tag) {
    using P = typename decltype(tag)::type;
    return std::make_unique<CpuCloverSchur<P>>(u, params, form);
  });
  return SolveWithSpec(spec, m, schur, low, x, b);
}

}  // namespace lqcd::solvers
