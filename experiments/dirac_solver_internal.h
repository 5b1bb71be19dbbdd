// dirac_solver_internal.h: pieces shared by the CPU and GPU DiracSolvers (dirac_solver.h); not an interface.
#pragma once

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "experiments/dirac_solver.h"
#include "experiments/stopwatch.h"
#include "experiments/fermion_action.h"
#include "gpu/comm/communicator.h"
#include "gpu/spec_solver.h"
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
  const GaugeTransformation<double>& transformation() const { return fixed_.transformation; }  // G
  const GaugeTransformation<double>& inverse() const { return inverse_; }                      // G^dag

 private:
  TemporalGauge<double> fixed_;
  GaugeTransformation<double> inverse_;
};

// Throws std::invalid_argument unless b and x are full-lattice fields on u's lattice (Shapes), and b != 0
// (Fields: one pass over b).
void RequireSystemShapes(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x);
void RequireSystemFields(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x);

// Throws std::invalid_argument unless b and x have the same length >= 1, no null field, the x[k] distinct.
void RequireBlockShapes(const std::vector<const SpinorField<double>*>& b, const std::vector<SpinorField<double>*>& x);

// True when every component of x is exactly zero (a zero initial guess needs no upload).
bool IsZero(const SpinorField<double>& x);

// |b - M x| / |b| in double on the device, M = m (GpuWilson<double> or GpuClover<double>, on one GPU or on a
// partitioned Dslash, whose norms are then global).
template <class Operator>
double DeviceResidual(const Operator& m, const gpu::GpuSpinorField<double>& b, const gpu::GpuSpinorField<double>& x) {
  gpu::GpuSpinorField<double> r = m.NewField();
  m.Apply(r, x);
  gpu::GpuBackend::Axpy(-1.0, b, r);  // r = M x - b
  return std::sqrt(gpu::GpuBackend::Norm2(r) / gpu::GpuBackend::Norm2(b));
}

// The clover term of one action on one configuration for the GPU solvers, rebuilt when the action changes
// (two actions with the same mass, c_sw and description have the same T(n); the previous term's device memory
// is freed first). With a communicator (the partitioned solver) every rank builds the CloverField on the GLOBAL
// links u (T(n) needs the links around n, which reach the neighbouring ranks) and keeps only its own piece
// (gpu/comm/subdomain.h ScatterClover). Construction of the term throws CloverField's std::domain_error for a
// singular or ill-conditioned T(n), on every rank alike.
class CloverCache {
 public:
  CloverCache() = default;                                                         // the whole field
  explicit CloverCache(const comm::Communicator& communicator) : communicator_(&communicator) {}  // this rank's piece
  gpu::GpuCloverTerms& For(const GaugeField<double>& u, const FermionAction& action);

 private:
  const comm::Communicator* communicator_ = nullptr;
  std::string key_;
  std::unique_ptr<gpu::GpuCloverTerms> terms_;
};

std::unique_ptr<DiracSolver> MakeGpuDiracSolver(const GaugeField<double>& u, VerifyOn verify);
// The partitioned GPU solver (dirac_solver.h, "Domain decomposition"); communicator.size() > 1.
std::unique_ptr<DistributedDiracSolver> MakePartitionedDiracSolver(const GaugeField<double>& u, VerifyOn verify,
                                                        comm::Communicator& communicator,
                                                        gpu::HaloTransport transport,
                                                        const gpu::DeviceRankSum* device_sums);

}  // namespace lqcd::experiments::internal
