// solver_spec.cc: see solver_spec.h.
#include "solvers/solver_spec.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "solvers/precision.h"

namespace lqcd::solvers {

namespace {

std::string Num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

struct SolverName {
  const char* name;
  KrylovMethod krylov;
  MixedScheme scheme;
};
constexpr SolverName kSolverNames[] = {
    {"cg", KrylovMethod::kCg, MixedScheme::kNone},
    {"bicgstab", KrylovMethod::kBiCGstab, MixedScheme::kNone},
    {"cg-dc", KrylovMethod::kCg, MixedScheme::kDefectCorrection},
    {"bicgstab-dc", KrylovMethod::kBiCGstab, MixedScheme::kDefectCorrection},
    {"cg-reliable", KrylovMethod::kCg, MixedScheme::kReliableUpdate},
    {"bicgstab-reliable", KrylovMethod::kBiCGstab, MixedScheme::kReliableUpdate},
};

const char* SolverNameOf(KrylovMethod k, MixedScheme s) {
  for (const SolverName& n : kSolverNames) {
    if (n.krylov == k && n.scheme == s) return n.name;
  }
  return "unknown";
}

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw std::invalid_argument("solver '" + text + "': " + why +
                              " (form <solver>[:<precision>[/<links>][/gf]][:<parameter>], e.g. "
                              "bicgstab-reliable:half/12:0.1)");
}

}  // namespace

const char* ToString(KrylovMethod m) { return m == KrylovMethod::kCg ? "cg" : "bicgstab"; }

const char* ToString(MixedScheme s) {
  switch (s) {
    case MixedScheme::kNone: return "none";
    case MixedScheme::kDefectCorrection: return "defect-correction";
    case MixedScheme::kReliableUpdate: return "reliable-update";
  }
  return "unknown";
}

const char* ToString(OperatorPrecision p) {
  switch (p) {
    case OperatorPrecision::kDouble: return "double";
    case OperatorPrecision::kSingle: return "single";
    case OperatorPrecision::kHalf: return "half";
  }
  return "unknown";
}

double UnitRoundoff(OperatorPrecision p) {
  switch (p) {
    case OperatorPrecision::kDouble: return PrecisionTraits<double>::kUnitRoundoff;
    case OperatorPrecision::kSingle: return PrecisionTraits<float>::kUnitRoundoff;
    case OperatorPrecision::kHalf: return PrecisionTraits<Half>::kUnitRoundoff;
  }
  return 1;
}

std::string OperatorFormat::Name() const { return std::string(ToString(precision)) + "/" + std::to_string(link_reals); }

const char* SolverSpec::ParameterName() const {
  switch (scheme) {
    case MixedScheme::kDefectCorrection: return "eps_in";
    case MixedScheme::kReliableUpdate: return "delta";
    case MixedScheme::kNone: return "none";
  }
  return "none";
}

std::string SolverSpec::Name() const {
  std::string s = SolverNameOf(krylov, scheme);
  const bool default_operator = !mixed() && inner == OperatorFormat{} && !temporal_gauge;
  if (!default_operator) {
    s += ":" + std::string(ToString(inner.precision));
    if (inner.link_reals != 18) s += "/" + std::to_string(inner.link_reals);
    if (temporal_gauge) s += "/gf";
  }
  if (mixed()) s += ":" + Num(parameter);
  return s;
}

std::string SolverSpec::Describe() const {
  std::ostringstream s;
  s << "even-odd ";
  if (scheme == MixedScheme::kNone) {
    s << (krylov == KrylovMethod::kCg ? "CGNR (CG on the Schur normal equations)" : "BiCGstab") << " in "
      << inner.Name();
  } else {
    s << (scheme == MixedScheme::kReliableUpdate ? "reliable-update " : "defect-correction ")
      << (krylov == KrylovMethod::kCg ? "CGNR" : "BiCGstab") << ", " << outer().Name() << " outer / " << inner.Name()
      << " inner, " << ParameterName() << " = " << Num(parameter);
  }
  if (temporal_gauge) s << ", on the temporal-gauge-fixed links";
  s << "; tolerance |b - M x| / |b| <= " << Num(tolerance) << ", at most " << max_iterations << " iterations";
  return s.str();
}

namespace {

// SolverSpec::Validate, naming the spec `text` in messages (the user's text when parsing).
void ValidateSpec(const SolverSpec& spec, const std::string& text) {
  const KrylovMethod krylov = spec.krylov;
  const MixedScheme scheme = spec.scheme;
  const OperatorFormat& inner = spec.inner;
  const double parameter = spec.parameter;
  if (inner.link_reals != 18 && inner.link_reals != 12 && inner.link_reals != 8) {
    Fail(text, "links must be 18, 12 or 8, not " + std::to_string(inner.link_reals));
  }
  if (!spec.mixed()) {
    if (inner.precision != OperatorPrecision::kDouble) {
      Fail(text, std::string(SolverNameOf(krylov, scheme)) + " runs in double; a " + ToString(inner.precision) +
                     " operator needs a mixed-precision solver (-dc or -reliable)");
    }
    if (parameter != 0) Fail(text, std::string(SolverNameOf(krylov, scheme)) + " takes no parameter");
  } else {
    if (inner.precision == OperatorPrecision::kDouble) {
      Fail(text, "a mixed-precision solver needs a single or half inner operator, not double");
    }
    const double u_low = UnitRoundoff(inner.precision);
    if (scheme == MixedScheme::kReliableUpdate && !(parameter > u_low && parameter < 1)) {
      Fail(text, "delta = " + Num(parameter) + " must lie in (u_" + ToString(inner.precision) + " = " + Num(u_low) +
                     ", 1) (the paper's section 5.3)");
    }
    if (scheme == MixedScheme::kDefectCorrection && !(parameter > 0 && parameter < 1)) {
      Fail(text, "eps_in = " + Num(parameter) + " must lie in (0, 1)");
    }
  }
  if (!(spec.tolerance > 0 && spec.tolerance < 1)) {
    throw std::invalid_argument("solver tolerance " + Num(spec.tolerance) + " must lie in (0, 1)");
  }
  if (spec.max_iterations < 1) {
    throw std::invalid_argument("solver iteration budget " + std::to_string(spec.max_iterations) + " must be >= 1");
  }
}

}  // namespace

void SolverSpec::Validate() const { ValidateSpec(*this, Name()); }

SolverParams SolverSpec::Params() const {
  SolverParams p;
  p.tolerance = tolerance;
  p.max_iterations = max_iterations;
  p.record_history = record_history;
  if (scheme == MixedScheme::kReliableUpdate) p.delta = parameter;
  if (scheme == MixedScheme::kDefectCorrection) p.inner_tolerance = parameter;
  return p;
}

SolverSpec SolverSpec::Parse(const std::string& text) {
  const std::vector<std::string> parts = Split(text, ':');
  if (parts.size() > 3) Fail(text, "too many ':'-separated parts");
  SolverSpec spec;
  bool known = false;
  for (const SolverName& n : kSolverNames) {
    if (parts[0] == n.name) {
      spec.krylov = n.krylov;
      spec.scheme = n.scheme;
      known = true;
    }
  }
  if (!known) {
    Fail(text, "unknown solver '" + parts[0] +
                   "' (cg, bicgstab, cg-dc, bicgstab-dc, cg-reliable or bicgstab-reliable)");
  }
  if (parts.size() >= 2) {
    const std::vector<std::string> op = Split(parts[1], '/');
    if (op[0] == "double") {
      spec.inner.precision = OperatorPrecision::kDouble;
    } else if (op[0] == "single") {
      spec.inner.precision = OperatorPrecision::kSingle;
    } else if (op[0] == "half") {
      spec.inner.precision = OperatorPrecision::kHalf;
    } else {
      Fail(text, "precision must be double, single or half, got '" + op[0] + "'");
    }
    bool links_given = false;
    for (std::size_t i = 1; i < op.size(); ++i) {
      if (op[i] == "gf" && !spec.temporal_gauge) {
        spec.temporal_gauge = true;
      } else if ((op[i] == "18" || op[i] == "12" || op[i] == "8") && !links_given && !spec.temporal_gauge) {
        spec.inner.link_reals = std::stoi(op[i]);
        links_given = true;
      } else {
        Fail(text, "'" + op[i] + "' is not a link count (18, 12, 8) followed by an optional gf");
      }
    }
  } else if (spec.mixed()) {
    Fail(text, "a mixed-precision solver needs its inner precision (single or half)");
  }
  if (parts.size() == 3) {
    if (!spec.mixed()) Fail(text, std::string(parts[0]) + " takes no parameter");
    const std::string& number = parts[2];
    std::size_t used = 0;
    try {
      spec.parameter = std::stod(number, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (number.empty() || used != number.size() || !std::isfinite(spec.parameter) ||
        std::isspace(static_cast<unsigned char>(number[0]))) {
      Fail(text, "parameter '" + number + "' is not a number");
    }
  } else if (spec.mixed()) {
    Fail(text, std::string("needs its parameter (") + spec.ParameterName() + ")");
  }
  ValidateSpec(spec, text);
  return spec;
}

BackendCapabilities CpuCapabilities() { return {"cpu", {18}, true, true}; }

void RequireSupported(const SolverSpec& spec, const BackendCapabilities& backend, bool clover) {
  spec.Validate();
  if (clover && !backend.clover) {
    throw std::invalid_argument("the " + backend.name +
                                " backend has no Wilson-clover operator; run clover on the cpu backend");
  }
  for (const OperatorFormat& f : {spec.inner, spec.outer()}) {
    if (std::find(backend.link_reals.begin(), backend.link_reals.end(), f.link_reals) == backend.link_reals.end()) {
      throw std::invalid_argument("solver '" + spec.Name() + "': the " + backend.name + " backend does not store " +
                                  std::to_string(f.link_reals) + " reals per link ('" + f.Name() +
                                  "'); compressed links are a GPU storage form (--backend=gpu)");
    }
  }
  if (spec.temporal_gauge && !backend.temporal_gauge) {
    throw std::invalid_argument("solver '" + spec.Name() + "': the " + backend.name +
                                " backend cannot solve on temporal-gauge-fixed links");
  }
}

StaggeredSolveForm StaggeredSolveFormOf(const SolverSpec& spec) {
  const std::string name = spec.Name();
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("solver '" + name + "' for staggered fermions: " + why);
  };
  if (spec.krylov != KrylovMethod::kCg) {
    refuse("the staggered even-odd operator is Hermitian positive definite: CG (cg, cg-reliable) only");
  }
  if (spec.scheme == MixedScheme::kDefectCorrection) refuse("defect correction is not implemented for staggered");
  if (spec.temporal_gauge) refuse("no gauge fixing for staggered solves");
  if (spec.inner.link_reals != 18) {
    refuse("the fat links keep 18 reals (the long links' storage is the program's own option)");
  }
  StaggeredSolveForm form;
  if (spec.scheme == MixedScheme::kReliableUpdate) {
    if (spec.inner.precision == OperatorPrecision::kDouble) {
      refuse("reliable updates need single- or half-precision iterations (cg is the double solve)");
    }
    form.reliable = true;
    form.inner = spec.inner.precision;
    form.delta = spec.parameter;
  }
  return form;
}

}  // namespace lqcd::solvers
