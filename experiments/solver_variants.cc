#include "experiments/solver_variants.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "reference/spinor_algebra.h"
#include "reference/wilson.h"
#include "solvers/cpu_backend.h"
#include "solvers/defect_correction.h"
#include "solvers/even_odd.h"
#include "solvers/normal_equations.h"
#include "solvers/precision.h"
#include "solvers/reliable_update.h"

namespace lqcd::experiments {

using solvers::CpuWilson;
using solvers::CpuWilsonSchur;
using solvers::Half;
using solvers::SolveResult;
using solvers::SolverParams;

const char* ToString(SolverMethod m) {
  switch (m) {
    case SolverMethod::kCg: return "cg";
    case SolverMethod::kBiCGstab: return "bicgstab";
    case SolverMethod::kDefectCorrection: return "defect-correction";
    case SolverMethod::kReliableUpdate: return "reliable-update";
  }
  return "unknown";
}

const char* ToString(InnerPrecision p) {
  switch (p) {
    case InnerPrecision::kDouble: return "double";
    case InnerPrecision::kSingle: return "single";
    case InnerPrecision::kHalf: return "half";
  }
  return "unknown";
}

const char* SolverVariant::ParameterName() const {
  switch (method) {
    case SolverMethod::kDefectCorrection: return "eps_in";
    case SolverMethod::kReliableUpdate: return "delta";
    default: return "none";
  }
}

int SolverVariant::PaperTable() const {
  switch (method) {
    case SolverMethod::kDefectCorrection: return 4;
    case SolverMethod::kReliableUpdate: return 5;
    default: return 3;
  }
}

std::string SolverVariant::Label() const {
  std::ostringstream s;
  s << ToString(method) << " " << ToString(precision);
  if (method == SolverMethod::kDefectCorrection || method == SolverMethod::kReliableUpdate) {
    s << " " << ParameterName() << "=" << parameter;
  }
  return s.str();
}

void SolverVariant::Validate() const {
  const bool mixed = method == SolverMethod::kDefectCorrection || method == SolverMethod::kReliableUpdate;
  if (!mixed) {
    if (precision != InnerPrecision::kDouble) {
      throw std::invalid_argument(std::string(ToString(method)) + " runs in double only (got " + ToString(precision) + ")");
    }
    if (parameter != 0) throw std::invalid_argument(std::string(ToString(method)) + " takes no parameter");
    return;
  }
  if (precision == InnerPrecision::kDouble) {
    throw std::invalid_argument(std::string(ToString(method)) + " needs a single or half inner precision");
  }
  const double u_low = precision == InnerPrecision::kHalf ? solvers::PrecisionTraits<Half>::kUnitRoundoff
                                                          : solvers::PrecisionTraits<float>::kUnitRoundoff;
  if (method == SolverMethod::kReliableUpdate && !(parameter > u_low && parameter < 1)) {
    std::ostringstream s;
    s << "reliable-update: delta = " << parameter << " must lie in (u_" << ToString(precision) << " = " << u_low
      << ", 1) (the paper's section 5.3)";
    throw std::invalid_argument(s.str());
  }
  if (method == SolverMethod::kDefectCorrection && !(parameter > 0 && parameter < 1)) {
    std::ostringstream s;
    s << "defect-correction: eps_in = " << parameter << " must lie in (0, 1)";
    throw std::invalid_argument(s.str());
  }
}

SolverVariant ParseVariant(const std::string& text) {
  SolverVariant v;
  if (text == "cg") {
    v.method = SolverMethod::kCg;
  } else if (text == "bicgstab") {
    v.method = SolverMethod::kBiCGstab;
  } else {
    const std::size_t a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
    if (b == std::string::npos) {
      throw std::invalid_argument("solver variant '" + text +
                                  "': expected cg, bicgstab, dc:<half|single>:<eps_in> or ru:<half|single>:<delta>");
    }
    const std::string kind = text.substr(0, a), prec = text.substr(a + 1, b - a - 1), number = text.substr(b + 1);
    if (kind == "dc") {
      v.method = SolverMethod::kDefectCorrection;
    } else if (kind == "ru") {
      v.method = SolverMethod::kReliableUpdate;
    } else {
      throw std::invalid_argument("solver variant '" + text + "': kind must be dc or ru, got '" + kind + "'");
    }
    if (prec == "half") {
      v.precision = InnerPrecision::kHalf;
    } else if (prec == "single") {
      v.precision = InnerPrecision::kSingle;
    } else {
      throw std::invalid_argument("solver variant '" + text + "': precision must be half or single, got '" + prec + "'");
    }
    char* end = nullptr;
    v.parameter = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v.parameter)) {
      throw std::invalid_argument("solver variant '" + text + "': parameter '" + number + "' is not a number");
    }
  }
  v.Validate();
  return v;
}

std::vector<SolverVariant> PaperVariants() {
  std::vector<SolverVariant> v = {ParseVariant("cg"), ParseVariant("bicgstab")};
  for (const char* s : {"dc:half:1e-1", "dc:half:1e-2", "dc:single:1e-3", "dc:single:1e-4", "dc:single:1e-5",
                        "dc:single:1e-6", "ru:half:1e-1", "ru:half:1e-2", "ru:half:1e-3", "ru:single:1e-1",
                        "ru:single:1e-2", "ru:single:1e-3"}) {
    v.push_back(ParseVariant(s));
  }
  return v;
}

std::vector<SolverVariant> DefaultVariants() {
  std::vector<SolverVariant> v;
  for (const SolverVariant& s : PaperVariants()) {
    const bool dropped = s.method == SolverMethod::kDefectCorrection && s.precision == InnerPrecision::kSingle &&
                         (s.parameter == 1e-4 || s.parameter == 1e-6);
    if (!dropped) v.push_back(s);
  }
  return v;
}

namespace {

template <typename Low>
SolveResult MixedSolve(const SolverVariant& v, const CpuWilsonSchur<double>& schur, const CpuWilson<double>& m,
                       const Low& low, SpinorField<double>& x, const SpinorField<double>& b, SolverParams params) {
  if (v.method == SolverMethod::kDefectCorrection) {
    params.inner_tolerance = v.parameter;
    return solvers::SolveEvenOdd(schur, m, x, b, params,
                                 [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                                   return solvers::DefectCorrection(solvers::InnerSolver::kBiCGstab, schur, low, xp, bp, p);
                                 });
  }
  params.delta = v.parameter;
  return solvers::SolveEvenOdd(schur, m, x, b, params,
                               [&](SpinorField<double>& xp, const SpinorField<double>& bp, const SolverParams& p) {
                                 return solvers::ReliableBiCGstab(schur, low, xp, bp, p);
                               });
}

}  // namespace

VariantOutcome RunVariant(const SolverVariant& variant, const GaugeField<double>& u, double mass,
                          const SpinorField<double>& b, const SolverParams& params) {
  variant.Validate();
  WilsonParams wilson;
  wilson.mass = mass;
  wilson.kappa();  // throws for 4 + m <= 0
  const CpuWilson<double> m(u, wilson);
  const CpuWilsonSchur<double> schur(u, wilson);
  SpinorField<double> x(u.lattice());
  VariantOutcome out;
  switch (variant.method) {
    case SolverMethod::kCg:
      out.result = solvers::SolveEvenOdd(schur, m, x, b, params,
                                         [&](SpinorField<double>& xp, const SpinorField<double>& bp,
                                             const SolverParams& p) { return solvers::Cgnr(schur, xp, bp, p); });
      break;
    case SolverMethod::kBiCGstab:
      out.result = solvers::EvenOddBiCGstab(schur, m, x, b, params);
      break;
    case SolverMethod::kDefectCorrection:
    case SolverMethod::kReliableUpdate:
      if (variant.precision == InnerPrecision::kSingle) {
        const CpuWilsonSchur<float> low(u, wilson);
        out.result = MixedSolve(variant, schur, m, low, x, b, params);
      } else {
        const CpuWilsonSchur<Half> low(u, wilson);
        out.result = MixedSolve(variant, schur, m, low, x, b, params);
      }
      break;
  }
  SpinorField<double> mx(u.lattice());
  ApplyWilson(mx, u, x, wilson, Dagger::kNo);
  out.true_residual = std::sqrt(Norm2(Difference(b, mx)) / Norm2(b));
  return out;
}

}  // namespace lqcd::experiments
