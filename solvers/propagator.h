// propagator.h (solvers/): the point-source quark propagator S(x; x0) (reference/propagator.h) for Wilson
// or Wilson-clover fermions, each of its 12 columns solved through the even-odd driver (even_odd.h) with
// the chosen Krylov solver on the CPU backend.
//
// What is solved: M psi = eta_{s,c} for the 12 point sources at x0, with the oracle's m-normalised matrix
//     Wilson:  M = (4 + m) - D/2                        (reference/wilson.h, CpuWilson/CpuWilsonSchur)
//     clover:  M = (4 + m) + A - D/2                    (reference/clover.h, CpuClover/CpuCloverSchur)
// so the propagator is M^{-1}; the kappa-normalised one is M^{-1} / (2 kappa) (reference/propagator.h).
// Solvers (all on the parity-even Schur system, reconstructed to the full lattice):
//     kBiCGstab          BiCGstab in double (the paper's solver)
//     kCg                CGNR in double: CG on X^dag X x = X^dag b' for the Schur matrix X
//     kReliableBiCGstab  reliable-update BiCGstab, double outer, single or half inner (the paper's Alg. 2)
//     kReliableCg        reliable-update CG on the normal equations, double outer, single or half inner
// Each solve is recorded: the solver's SolveResult (iterations in the paper's counting, status, time) and the
// true residual |b - M x| / |b| recomputed here in double on the full lattice with the reference operator
// (not with the solver's operator objects), so the record does not rest on the solver's own bookkeeping.
// Errors: std::invalid_argument for bad parameters (mass with 4 + m <= 0, c_sw with a Wilson action, a
// source off the lattice, bad solver parameters); std::runtime_error from RequireConverged when asked to.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reference/clover.h"
#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/gauge_field.h"
#include "reference/propagator.h"
#include "solvers/solve_result.h"

namespace lqcd::solvers {

enum class FermionKind { kWilson, kClover };

struct FermionAction {
  FermionKind kind = FermionKind::kWilson;
  double mass = 0;   // m of M = (4 + m) - D/2; kappa = 1 / (2 (4 + m))
  double c_sw = 0;   // clover only
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  CloverSchurForm schur_form = CloverSchurForm::kComplement;  // clover only

  static FermionAction WilsonFromKappa(double kappa);
  static FermionAction CloverFromKappa(double kappa, double c_sw);
  double kappa() const;  // throws std::invalid_argument unless 4 + m > 0
  // Throws std::invalid_argument naming the problem (bad mass, c_sw != 0 for Wilson, non-finite c_sw).
  void Validate() const;
  // "Wilson" or "clover (c_sw = ...)" with m, kappa, basis and boundary conditions.
  std::string Describe() const;
};

enum class PropagatorSolver { kBiCGstab, kCg, kReliableBiCGstab, kReliableCg };
enum class LowPrecision { kSingle, kHalf };

const char* ToString(PropagatorSolver s);
const char* ToString(LowPrecision p);

struct PropagatorSolverOptions {
  PropagatorSolver solver = PropagatorSolver::kBiCGstab;
  LowPrecision low_precision = LowPrecision::kSingle;  // reliable-update solvers only
  SolverParams params;                                  // tolerance = |b - M x| / |b| of the full system
  // Columns solved concurrently, each thread with operators of its own. The results and the order in which
  // records are reported do not depend on it (every solve is deterministic and independent).
  int threads = 1;
  std::string Describe() const;
};

struct PropagatorSolveRecord {
  int spin = 0, colour = 0;
  SolveResult result;           // the even-odd driver's record
  double true_residual = 0;     // |b - M x| / |b| recomputed in double on the full lattice (FullResidual)
};

struct PropagatorRun {
  PointPropagator propagator;
  std::vector<PropagatorSolveRecord> solves;  // in column order (spin-major)
  double seconds = 0;                         // wall time of all 12 solves
  bool all_converged() const;
};

// Called for each of the 12 solves in column order, as soon as it and all earlier columns are done (from the
// solving threads, one call at a time).
using PropagatorObserver = std::function<void(const PropagatorSolveRecord&)>;

PropagatorRun ComputePropagator(const GaugeField<double>& u, const FermionAction& action,
                                const PropagatorSolverOptions& options, int source_site,
                                const PropagatorObserver& observer = {});

// |b - M x| / |b| in double on the full lattice, M of `action`, with the reference operators
// (ApplyWilson / ApplyWilsonClover). Throws std::invalid_argument for b = 0 or mismatched fields.
double FullResidual(const GaugeField<double>& u, const FermionAction& action, const SpinorField<double>& x,
                    const SpinorField<double>& b);

}  // namespace lqcd::solvers
