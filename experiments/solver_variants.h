// solver_variants.h: the solvers of the paper's Tables 3-5, each as a named variant that solves the full
// Wilson system M x = b through the even-odd Schur complement M_ee (the paper's solvers run on the
// even-odd preconditioned matrix, its Table 2 and section 3) on the CPU backend (solvers/cpu_backend.h):
//
//   table 3   cg                  CG on the normal equations of M_ee (CGNR), double          (Table 3, "CG")
//             bicgstab            BiCGstab on M_ee, double                                    (Table 3)
//   table 4   defect-correction   Algorithm 1: double outer correction, inner BiCGstab on M_ee in
//                                 single or half precision to eps_in (parameter)             (Table 4)
//   table 5   reliable-update     Algorithm 2: BiCGstab on M_ee in single or half precision with double
//                                 reliable updates at delta (parameter)                      (Table 5)
//
// Iterations follow the paper (solvers/solve_result.h): a CG iteration is one M_ee^dag M_ee application,
// a BiCGstab iteration two M_ee applications (so the two cost the same per iteration); defect correction
// counts every inner iteration of every restart ("including restart iterations"); reliable updates count
// k + l (Krylov iterations plus high-precision updates). The tolerance is the paper's eps on the relative
// residual |b - M x| / |b| of the FULL system (the even-odd driver translates it for M_ee), and the true
// residual is recomputed at the end in double with the reference operator (reference/wilson.h), not with
// the solver's objects.
// The half precision is the CPU emulation of the paper's 16-bit format (solvers/half_spinor_field.h): its
// iteration counts are what the GPU's would be; its time is not (emulation costs more than float here).
// Errors: std::invalid_argument for an unknown variant name or a parameter outside its range.
#pragma once

#include <string>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/spinor_field.h"
#include "solvers/solve_result.h"

namespace lqcd::experiments {

enum class SolverMethod { kCg, kBiCGstab, kDefectCorrection, kReliableUpdate };
enum class InnerPrecision { kDouble, kSingle, kHalf };

const char* ToString(SolverMethod m);     // "cg", "bicgstab", "defect-correction", "reliable-update"
const char* ToString(InnerPrecision p);   // "double", "single", "half"

struct SolverVariant {
  SolverMethod method = SolverMethod::kBiCGstab;
  InnerPrecision precision = InnerPrecision::kDouble;  // the low (inner) precision; double for cg/bicgstab
  double parameter = 0;  // eps_in (defect correction) or delta (reliable update); 0 otherwise

  const char* ParameterName() const;  // "eps_in", "delta" or "none"
  int PaperTable() const;             // 3, 4 or 5
  std::string Label() const;          // e.g. "reliable-update half delta=0.1"
  // Throws std::invalid_argument naming the problem (double inner precision for a mixed method, a
  // parameter outside (u_low, 1) for delta or (0, 1) for eps_in, a parameter given to cg/bicgstab).
  void Validate() const;
};

// "cg", "bicgstab", "dc:<half|single>:<eps_in>", "ru:<half|single>:<delta>" (e.g. "ru:half:0.1").
SolverVariant ParseVariant(const std::string& text);

// The paper's columns with the precisions we have (no 8/12-number gauge variants on the CPU):
//   Table 3: cg, bicgstab;
//   Table 4: half eps_in = 1e-1, 1e-2; single eps_in = 1e-3, 1e-4, 1e-5, 1e-6;
//   Table 5: half delta = 1e-1, 1e-2, 1e-3; single delta = 1e-1, 1e-2, 1e-3.
std::vector<SolverVariant> PaperVariants();

// The default of the experiment: the paper's columns without single eps_in = 1e-4 and 1e-6 (12 variants;
// eps_in = 1e-3 and 1e-5 still show the trend with eps_in), to keep the default run under 15 minutes on
// two shared cores.
std::vector<SolverVariant> DefaultVariants();

struct VariantOutcome {
  solvers::SolveResult result;  // the even-odd driver's record (iterations, status, time, ...)
  double true_residual = 0;     // |b - M x| / |b| recomputed in double with reference/wilson.h
};

// Solves M x = b (M = (4 + m) - D/2, DeGrand-Rossi basis, antiperiodic in time) from x = 0 with the
// variant; params.tolerance is eps, params.max_iterations the budget in the paper's counting.
VariantOutcome RunVariant(const SolverVariant& variant, const GaugeField<double>& u, double mass,
                          const SpinorField<double>& b, const solvers::SolverParams& params);

}  // namespace lqcd::experiments
