// module_common.h: what the two halves of the `lqcd` module (lqcd_module.cc: the CPU oracle, lqcd_gpu.cc: the
// GPU) share: argument parsing (strings -> the library's enums, ValueError naming the bad value), the GIL
// release, and the GPU half's entry point.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <utility>

#include "reference/clover.h"
#include "reference/ensemble/quenched_generator.h"
#include "reference/fermion_boundary.h"
#include "reference/gamma.h"
#include "reference/lattice.h"
#include "reference/observables/propagator.h"
#include "reference/spinor_field.h"
#include "reference/wilson.h"
#include "solvers/solve_result.h"
#include "solvers/solver_spec.h"

namespace lqcd::python {

namespace py = pybind11;

// std::invalid_argument becomes ValueError in Python.
[[noreturn]] inline void Fail(const std::string& what) { throw std::invalid_argument(what); }

inline Subset ParseSubset(const std::string& s) {
  if (s == "full") return Subset::kFull;
  if (s == "even") return Subset::kEven;
  if (s == "odd") return Subset::kOdd;
  Fail("subset must be 'full', 'even' or 'odd', got '" + s + "'");
}

inline Parity ParseParity(const std::string& s) {
  if (s == "even") return Parity::kEven;
  if (s == "odd") return Parity::kOdd;
  Fail("parity must be 'even' or 'odd', got '" + s + "'");
}

inline GammaBasis ParseBasis(const std::string& s) {
  if (s == "degrand-rossi") return GammaBasis::kDeGrandRossi;
  if (s == "ukqcd") return GammaBasis::kUkqcd;
  Fail("basis must be 'degrand-rossi' or 'ukqcd', got '" + s + "'");
}

inline std::string BasisName(GammaBasis b) { return b == GammaBasis::kDeGrandRossi ? "degrand-rossi" : "ukqcd"; }

// "PPPA": one letter per direction x, y, z, t; P periodic, A antiperiodic.
inline FermionBoundary ParseBoundary(const std::string& s) {
  if (s.size() != kDims) Fail("boundary must be 4 letters P/A for x, y, z, t (e.g. 'PPPA'), got '" + s + "'");
  FermionBoundary b;
  for (int mu = 0; mu < kDims; ++mu) {
    if (s[mu] == 'P') {
      b.condition[mu] = BoundaryCondition::kPeriodic;
    } else if (s[mu] == 'A') {
      b.condition[mu] = BoundaryCondition::kAntiperiodic;
    } else {
      Fail("boundary must be 4 letters P/A for x, y, z, t (e.g. 'PPPA'), got '" + s + "'");
    }
  }
  return b;
}

inline Dagger ToDagger(bool dagger) { return dagger ? Dagger::kYes : Dagger::kNo; }

// The parity of a one-parity field's subset; ValueError naming `where` for a full-lattice field.
inline Parity ParityOfSubset(Subset s, const char* where) {
  if (s == Subset::kFull) Fail(std::string(where) + ": input must be on one parity ('even' or 'odd')");
  return s == Subset::kEven ? Parity::kEven : Parity::kOdd;
}

// The other parity's subset (where a hop from a one-parity field lands).
inline Subset OtherSubset(Subset s, const char* where) { return SubsetOf(Opposite(ParityOfSubset(s, where))); }

inline CloverSchurForm ParseCloverForm(const std::string& s) {
  if (s == "complement") return CloverSchurForm::kComplement;
  if (s == "unit-diagonal") return CloverSchurForm::kUnitDiagonal;
  Fail("clover Schur form must be 'complement' or 'unit-diagonal', got '" + s + "'");
}

// Runs a C++ computation without the GIL.
template <typename F>
auto NoGil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

inline void RequireFullOn(const SpinorField<double>& f, const Lattice& lattice, const char* what) {
  if (f.subset() != Subset::kFull || f.lattice() != lattice) {
    Fail(std::string(what) + " must be a full-lattice field on " + lattice.ToString() + " (the gauge field's lattice)");
  }
}

// Progress of a long call: each complete line written to this stream buffer goes to a Python callable
// (progress(line)), the GIL taken for the call; with None, lines are dropped. Constructed and destroyed with
// the GIL held; written to from the computation, which runs without it. An exception from the callable
// propagates out of the computation to the caller.
class ProgressLines : public std::streambuf {
 public:
  explicit ProgressLines(py::object callback) : callback_(std::move(callback)) {}
  void Line(const std::string& line) {
    if (callback_.is_none()) return;
    py::gil_scoped_acquire gil;
    callback_(line);
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    if (c == '\n') {
      Line(line_);
      line_.clear();
    } else {
      line_.push_back(static_cast<char>(c));
    }
    return c;
  }

 private:
  py::object callback_;
  std::string line_;
};

// A SolverSpec from its text with what the text does not carry (tolerance, budget, history), validated and checked
// against the backend that will run it (clover: for the clover operator); ValueError with the parser's message.
inline solvers::SolverSpec ParseSpec(const std::string& text, double tolerance, int max_iterations,
                                     bool record_history, const solvers::BackendCapabilities& backend, bool clover) {
  solvers::SolverSpec spec = solvers::SolverSpec::Parse(text);
  spec.tolerance = tolerance;
  spec.max_iterations = max_iterations;
  spec.record_history = record_history;
  spec.Validate();
  solvers::RequireSupported(spec, backend, clover);
  return spec;
}

// The 12 point-source solves of a propagator (reference/observables/propagator.h), x = M^{-1} eta by
// solve(eta, x) (x zero on entry; returns the solve's record), each reported to `progress` as it ends
// ("solve k/12 (spin s, colour c): <record>"); RuntimeError at the first one that did not converge.
template <typename Solve>
PointPropagator SolvePointPropagator(const Lattice& lattice, int source_site, Solve&& solve, ProgressLines& progress) {
  int done = 0;
  return ComputePointPropagator(lattice, source_site, [&](const SpinorField<double>& eta, int spin, int colour) {
    SpinorField<double> x(lattice, Subset::kFull);
    const solvers::SolveResult r = solve(eta, x);
    progress.Line("solve " + std::to_string(++done) + "/12 (spin " + std::to_string(spin) + ", colour " +
                  std::to_string(colour) + "): " + r.Summary());
    solvers::RequireConverged(r);
    return x;
  });
}

// Adds the submodule `lqcd.gpu` (lqcd_gpu.cc) to the module.
void BindGpu(py::module_& m);

// The GPU's quenched sweeps (gpu/gpu_heatbath.h) for generate_quenched(backend="gpu"); RuntimeError without a
// usable GPU. Defined in lqcd_gpu.cc, so that the CPU half includes nothing of gpu/.
std::unique_ptr<SweepEngine> MakeGpuSweeps();

}  // namespace lqcd::python
