// fermion_action.h: which Dirac matrix a job inverts: Wilson or Wilson-clover, its mass, gamma basis,
// fermion boundary conditions and (clover) even-odd form. The operators themselves are reference/wilson.h,
// reference/clover.h (CPU oracle) and gpu/gpu_backend.h (GPU, Wilson only).
//
// m-normalised matrices (docs/conventions.md):
//     Wilson:  M = (4 + m) - D/2                  kappa = 1 / (2 (4 + m))
//     clover:  M = (4 + m) + A - D/2              A = the clover term with coefficient c_sw, its field
//                                                 strength traceless (default) or with its trace kept
//                                                 (clover_trace; reference/clover.h, CloverTrace)
// Errors: std::invalid_argument from Validate / kappa naming the problem.
#pragma once

#include <string>

#include "reference/clover.h"
#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/wilson.h"

namespace lqcd::experiments {

enum class FermionKind { kWilson, kClover };

struct FermionAction {
  FermionKind kind = FermionKind::kWilson;
  double mass = 0;   // m of M = (4 + m) - D/2; kappa = 1 / (2 (4 + m))
  double c_sw = 0;   // clover only
  GammaBasis basis = GammaBasis::kDeGrandRossi;
  FermionBoundary boundary = FermionBoundary::AntiperiodicTime();
  CloverSchurForm schur_form = CloverSchurForm::kComplement;  // clover only
  // clover only: kWithTrace is the field strength of Chroma and MILC (reference/clover.h)
  CloverTrace clover_trace = CloverTrace::kTraceless;

  static FermionAction WilsonFromKappa(double kappa);
  static FermionAction CloverFromKappa(double kappa, double c_sw);
  bool clover() const { return kind == FermionKind::kClover; }
  double kappa() const;  // throws std::invalid_argument unless 4 + m > 0
  // Throws std::invalid_argument naming the problem (bad mass, c_sw != 0 or a with-trace field strength for
  // Wilson, non-finite c_sw, a clover_trace that is no CloverTrace enumerator).
  void Validate() const;
  // "Wilson" or "Wilson-clover, c_sw = ..., field strength traceless|with-trace, ..." with m, kappa, basis and
  // boundary conditions.
  std::string Describe() const;
  WilsonParams wilson() const;   // mass, basis, boundary
  CloverParams clover_params() const;  // mass, c_sw, basis, boundary, clover_trace
};

}  // namespace lqcd::experiments
