// paper_solvers.h: the solver columns of the paper's Tables 3-5 as SolverSpecs (solvers/solver_spec.h),
// and how the solver_tables experiment labels them. Every spec solves the full Wilson system M x = b
// through the even-odd Schur complement M_ee (the paper's solvers run on the even-odd preconditioned
// matrix, its Table 2 and section 3):
//
//   table 3   cg                           CG on the normal equations of M_ee (CGNR), double
//             bicgstab                     BiCGstab on M_ee, double
//   table 4   bicgstab-dc:<prec>:<eps_in>  Algorithm 1: double outer correction, inner BiCGstab on M_ee in
//                                          single or half precision to eps_in
//   table 5   bicgstab-reliable:<prec>:<delta>   Algorithm 2: BiCGstab on M_ee in single or half precision
//                                          with double reliable updates at delta
// (CG-based mixed solvers, cg-dc and cg-reliable, are not in the paper's tables; PaperTable says 0.)
// Iterations follow the paper (solvers/solve_result.h). The half precision on the CPU is the emulation of
// the paper's 16-bit format (solvers/half_spinor_field.h): its iteration counts are what the GPU's would
// be for 18-real links; its time is not.
#pragma once

#include <string>
#include <vector>

#include "solvers/solver_spec.h"

namespace lqcd::experiments {

// 3, 4 or 5 as in the file comment; 0 for solvers the paper's tables do not have.
int PaperTable(const solvers::SolverSpec& spec);
// The CSV's method column: "cg", "bicgstab", "defect-correction", "reliable-update" (BiCGstab-based, the
// paper's), "cg-defect-correction", "cg-reliable-update".
std::string MethodLabel(const solvers::SolverSpec& spec);
// The CSV's precision column: the inner precision, with "/12", "/8" and "/gf" when links are compressed or
// gauge fixed ("half", "half/12", "single/8/gf", "double").
std::string PrecisionLabel(const solvers::SolverSpec& spec);

// The paper's columns with 18-real links (what the CPU runs):
//   Table 3: cg, bicgstab;
//   Table 4: half eps_in = 1e-1, 1e-2; single eps_in = 1e-3, 1e-4, 1e-5, 1e-6;
//   Table 5: half delta = 1e-1, 1e-2, 1e-3; single delta = 1e-1, 1e-2, 1e-3.
std::vector<solvers::SolverSpec> PaperSolvers();

// The paper's GPU columns with the link storage it ran (its Tables 4 and 5 headers), for the GPU backend:
//   Table 3: cg, bicgstab (double, 18 reals);
//   Table 4: Half 12 eps_in = 1e-1, 1e-2; Single 8 eps_in = 1e-3, 1e-4, 1e-5; Single 12 eps_in = 1e-5, 1e-6;
//   Table 5: Half 12 delta = 1e-1, 1e-2, 1e-3; Single 8 delta = 1e-1, 1e-2, 1e-3; Single 12 delta = 1e-2, 1e-3.
std::vector<solvers::SolverSpec> PaperGpuSolvers();

// The default of the experiment: the paper's columns without single eps_in = 1e-4 and 1e-6 (12 solvers;
// eps_in = 1e-3 and 1e-5 still show the trend with eps_in), to keep the default run under 15 minutes on
// two shared cores.
std::vector<solvers::SolverSpec> DefaultSolvers();

}  // namespace lqcd::experiments
