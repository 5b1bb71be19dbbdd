// fermion_action.cc: see fermion_action.h.
#include "experiments/fermion_action.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace lqcd::experiments {

FermionAction FermionAction::WilsonFromKappa(double kappa) {
  FermionAction a;
  a.mass = WilsonParams::FromKappa(kappa).mass;
  return a;
}

FermionAction FermionAction::CloverFromKappa(double kappa, double c_sw) {
  FermionAction a = WilsonFromKappa(kappa);
  a.kind = FermionKind::kClover;
  a.c_sw = c_sw;
  return a;
}

double FermionAction::kappa() const { return wilson().kappa(); }

void FermionAction::Validate() const {
  kappa();  // 4 + m > 0 and finite
  if (!std::isfinite(c_sw)) throw std::invalid_argument("fermion action: c_sw must be finite");
  if (kind == FermionKind::kWilson && c_sw != 0) {
    throw std::invalid_argument("fermion action: c_sw = " + std::to_string(c_sw) +
                                " needs the clover action (the Wilson action has no clover term)");
  }
  if (clover_trace != CloverTrace::kTraceless && clover_trace != CloverTrace::kWithTrace) {
    const int value = static_cast<int>(clover_trace);
    throw std::invalid_argument("fermion action: clover trace convention " + std::to_string(value) +
                                " is neither traceless nor with-trace");
  }
  if (kind == FermionKind::kWilson && clover_trace != CloverTrace::kTraceless) {
    throw std::invalid_argument(std::string("fermion action: a ") + ToString(clover_trace) +
                                " clover field strength needs the clover action (the Wilson action has no "
                                "clover term)");
  }
}

std::string FermionAction::Describe() const {
  std::ostringstream s;
  s.precision(10);
  if (kind == FermionKind::kWilson) {
    s << "Wilson";
  } else {
    s << "Wilson-clover, c_sw = " << c_sw << ", field strength " << ToString(clover_trace)
      << (clover_trace == CloverTrace::kWithTrace ? " (Chroma, MILC)" : "") << ", even-odd form "
      << ToString(schur_form);
  }
  s << "; m = " << mass << ", kappa = " << kappa() << "; gamma basis " << ToString(basis)
    << "; fermion boundary (x,y,z,t) = " << boundary.ToString() << " (P periodic, A antiperiodic)";
  return s.str();
}

WilsonParams FermionAction::wilson() const {
  WilsonParams p;
  p.mass = mass;
  p.basis = basis;
  p.boundary = boundary;
  return p;
}

CloverParams FermionAction::clover_params() const {
  CloverParams p;
  p.mass = mass;
  p.c_sw = c_sw;
  p.basis = basis;
  p.boundary = boundary;
  p.trace = clover_trace;
  return p;
}

}  // namespace lqcd::experiments
