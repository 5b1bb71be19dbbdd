// solver_spec.h: which solver to run on an even-odd Wilson-type system, as data. A SolverSpec is parsed
// once (from one line of text) and solved on ANY backend by SolveWithSpec (spec_solve.h); what a backend
// can store is checked before any work by RequireSupported.
//
// Text form (the same in every program: --solver, --solvers, the experiments' CSV):
//
//     <solver>[:<operator>][:<parameter>]
//
//   solver     cg                  CGNR: CG on the normal equations of the Schur matrix M_ee, double
//              bicgstab            BiCGstab on M_ee, double (the paper's solver)
//              cg-dc, bicgstab-dc  defect correction (the paper's Algorithm 1): double outer corrections,
//                                  inner CG(NR) / BiCGstab in the low precision to eps_in
//              cg-reliable, bicgstab-reliable
//                                  reliable updates (the paper's Algorithm 2): the Krylov iteration in the
//                                  low precision, double residual replacements at delta
//   operator   <precision>[/<links>][/gf]
//              precision: double | single | half   (the low precision of a mixed solver; double for cg
//                         and bicgstab, which may omit the operator)
//              links:     18 | 12 | 8              reals stored per link (default 18; 12 and 8 are the
//                                                  paper's compressed forms, section 4.5)
//              gf:        solve on the temporal-gauge-fixed configuration (section 4.3): every operator
//                         of the solve, the double one included, uses the fixed links, and the solution
//                         is transformed back (the solution is that of the original system).
//   parameter  eps_in for -dc (in (0, 1)), delta for -reliable (in (u_low, 1), u_low the low precision's
//              unit roundoff); required for those, not allowed for cg and bicgstab.
//   Examples: "bicgstab", "cg", "bicgstab:double/12/gf", "bicgstab-reliable:half/12:0.1",
//             "bicgstab-dc:single/8/gf:1e-3", "cg-reliable:half:0.1".
// The double (outer) operator of a mixed solver stores 18 reals per link. Name() writes the canonical text,
// which parses back to the same spec.
//
// Tolerance, budget and whether to record the residual history are not part of the text: a program's
// --tolerance and --max-iterations set the first two.
// The tolerance is on |b - M x| / |b| of the FULL system (even_odd.h). Iterations count as in
// solve_result.h.
// Errors: std::invalid_argument naming the problem and the offending text.
#pragma once

#include <string>
#include <vector>

#include "solvers/solve_result.h"

namespace lqcd::solvers {

enum class KrylovMethod { kCg, kBiCGstab };
enum class MixedScheme { kNone, kDefectCorrection, kReliableUpdate };
enum class OperatorPrecision { kDouble, kSingle, kHalf };

const char* ToString(KrylovMethod m);        // "cg", "bicgstab"
const char* ToString(MixedScheme s);         // "none", "defect-correction", "reliable-update"
const char* ToString(OperatorPrecision p);   // "double", "single", "half"
double UnitRoundoff(OperatorPrecision p);    // PrecisionTraits<P>::kUnitRoundoff

// How one operator stores its links and in which precision it computes.
struct OperatorFormat {
  OperatorPrecision precision = OperatorPrecision::kDouble;
  int link_reals = 18;  // 18, 12 or 8

  std::string Name() const;  // "half/12", "double/18"
  bool operator==(const OperatorFormat& o) const {
    return precision == o.precision && link_reals == o.link_reals;
  }
};

struct SolverSpec {
  KrylovMethod krylov = KrylovMethod::kBiCGstab;
  MixedScheme scheme = MixedScheme::kNone;
  // The operator of a pure (non-mixed) solver, or the low-precision operator of a mixed one.
  OperatorFormat inner;
  bool temporal_gauge = false;
  double parameter = 0;  // eps_in (defect correction) or delta (reliable update); 0 otherwise
  double tolerance = 1e-10;
  int max_iterations = 10000;
  bool record_history = false;  // keep every iteration's residual (SolveResult::residual_history)

  // The double operator's format: 18 reals for mixed solvers; `inner` for pure ones.
  OperatorFormat outer() const { return mixed() ? OperatorFormat{} : inner; }
  bool mixed() const { return scheme != MixedScheme::kNone; }
  const char* ParameterName() const;  // "eps_in", "delta" or "none"

  // The canonical text (header comment); Parse(Name()) == *this apart from tolerance, budget and history.
  std::string Name() const;
  // One line for logs: method, precisions, link storage, gauge fixing, parameter, tolerance, budget.
  std::string Describe() const;
  // Backend-independent rules (header comment) plus tolerance in (0, 1) and max_iterations >= 1.
  void Validate() const;
  // The solvers' parameters (tolerance, budget, delta or inner_tolerance, record_history).
  SolverParams Params() const;

  static SolverSpec Parse(const std::string& text);
};

// What a backend can run. RequireSupported throws std::invalid_argument naming the backend and the
// missing piece (e.g. "the cpu backend stores 18 reals per link; 'half/12' needs the gpu backend").
struct BackendCapabilities {
  std::string name;                  // "cpu", "gpu"
  std::vector<int> link_reals;       // storage forms it implements
  bool temporal_gauge = false;       // can solve on the gauge-fixed field
  bool clover = false;               // has the Wilson-clover operator
};
BackendCapabilities CpuCapabilities();  // 18 reals, gauge fixing, clover
void RequireSupported(const SolverSpec& spec, const BackendCapabilities& backend, bool clover);

// Staggered fermions (staggered_pbp.h): the even-odd system 4m^2 - D_eo D_oe is Hermitian positive definite, so
// its solve is CG on it, not CGNR. A spec names one as "cg" (double), "cg-reliable:single:<delta>" or
// "cg-reliable:half:<delta>" (the CG iterations in single or half precision, double reliable updates at delta;
// gpu/gpu_staggered.h, on the GPU only: the CPU staggered backend has no half colour vectors, and the programs
// run its solves in double). Every other spec is refused with the reason (std::invalid_argument): BiCGstab,
// defect correction, a double low precision, a link form (the fat links keep 18 reals; how the long links are
// stored is the program's choice, e.g. staggered_pbp --long-links, and half links keep them in 18 reals), gauge
// fixing.
struct StaggeredSolveForm {
  bool reliable = false;                                 // reliable updates (else CG in double)
  OperatorPrecision inner = OperatorPrecision::kDouble;  // the iterations' precision: kSingle or kHalf if reliable
  double delta = 0;                                      // the updates' threshold (reliable only)
};
StaggeredSolveForm StaggeredSolveFormOf(const SolverSpec& spec);

}  // namespace lqcd::solvers
