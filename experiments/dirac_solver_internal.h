// dirac_solver_internal.h: pieces shared by the CPU and GPU DiracSolvers (dirac_solver.h); not an interface.
#pragma once

#include <memory>

#include "experiments/dirac_solver.h"
#include "reference/gauge_field.h"
#include "reference/gauge_transform.h"
#include "reference/spinor_field.h"

namespace lqcd::experiments::internal {

// The temporal-gauge-fixed copy of a configuration and the transformation G between the two:
// fixed links = G U G^dag (reference/gauge_transform.h), so M_fixed = G M G^dag and M x = b is
// M_fixed (G x) = G b.
class TemporalGaugeCopy {
 public:
  explicit TemporalGaugeCopy(const GaugeField<double>& u);
  const GaugeField<double>& links() const { return fixed_.field; }
  SpinorField<double> ToFixed(const SpinorField<double>& psi) const;    // G psi
  SpinorField<double> FromFixed(const SpinorField<double>& psi) const;  // G^dag psi

 private:
  TemporalGauge<double> fixed_;
  GaugeTransformation<double> inverse_;
};

// Throws std::invalid_argument unless b and x are full-lattice fields on u's lattice (Shapes), and b != 0
// (Fields: one pass over b).
void RequireSystemShapes(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x);
void RequireSystemFields(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x);

// True when every component of x is exactly zero (a zero initial guess needs no upload).
bool IsZero(const SpinorField<double>& x);

std::unique_ptr<DiracSolver> MakeGpuDiracSolver(const GaugeField<double>& u, VerifyOn verify);
// The partitioned GPU solver (dirac_solver.h, "Domain decomposition"); communicator.size() > 1.
std::unique_ptr<DiracSolver> MakePartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify,
                                                        comm::Communicator& communicator,
                                                        gpu::HaloTransport transport);

}  // namespace lqcd::experiments::internal
