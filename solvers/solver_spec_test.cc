// solver_spec_test: the solver factory. Every spec the grammar accepts parses, prints back canonically
// and, where the CPU runs it, solves a Wilson and a clover system to its tolerance with the paper's
// bookkeeping; every malformed or unsupported spec is a clear std::invalid_argument before any work.
#include "solvers/solver_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "reference/clover.h"
#include "reference/spinor_algebra.h"
#include "reference/su3_random.h"
#include "reference/wilson.h"
#include "solvers/cpu_spec_solver.h"
#include "solvers/testing.h"
#include "reference/error_testing.h"

namespace lqcd::solvers {
namespace {


// Every spec text the grammar accepts for a given parameter: 6 solvers x precisions x links x gauge fixing.
std::vector<std::string> AllSpecTexts() {
  std::vector<std::string> texts;
  for (const char* links : {"", "/18", "/12", "/8"}) {
    for (const char* gf : {"", "/gf"}) {
      const std::string op = std::string(links) + gf;
      for (const char* pure : {"cg", "bicgstab"}) texts.push_back(std::string(pure) + ":double" + op);
      for (const char* mixed : {"cg-dc", "bicgstab-dc", "cg-reliable", "bicgstab-reliable"}) {
        for (const char* precision : {"single", "half"}) {
          texts.push_back(std::string(mixed) + ":" + precision + op + ":0.1");
        }
      }
    }
  }
  texts.push_back("cg");
  texts.push_back("bicgstab");
  return texts;
}

TEST(SolverSpec, ParsesEveryFormAndPrintsItBackCanonically) {
  const std::vector<std::string> texts = AllSpecTexts();
  EXPECT_EQ(texts.size(), 4u * 2 * (2 + 8) + 2);
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    const SolverSpec spec = SolverSpec::Parse(text);
    const SolverSpec again = SolverSpec::Parse(spec.Name());
    EXPECT_EQ(again.Name(), spec.Name());
    EXPECT_EQ(again.krylov, spec.krylov);
    EXPECT_EQ(again.scheme, spec.scheme);
    EXPECT_EQ(again.inner, spec.inner);
    EXPECT_EQ(again.temporal_gauge, spec.temporal_gauge);
    EXPECT_EQ(again.parameter, spec.parameter);
    EXPECT_EQ(spec.temporal_gauge, text.find("/gf") != std::string::npos);
    EXPECT_EQ(spec.mixed(), text.find("-dc") != std::string::npos || text.find("-reliable") != std::string::npos);
    EXPECT_EQ(spec.outer().precision, OperatorPrecision::kDouble);
    EXPECT_EQ(spec.outer().link_reals, spec.mixed() ? 18 : spec.inner.link_reals);
    EXPECT_FALSE(spec.Describe().empty());
  }
  const SolverSpec s = SolverSpec::Parse("bicgstab-reliable:half/12/gf:0.1");
  EXPECT_EQ(s.krylov, KrylovMethod::kBiCGstab);
  EXPECT_EQ(s.scheme, MixedScheme::kReliableUpdate);
  EXPECT_EQ(s.inner.precision, OperatorPrecision::kHalf);
  EXPECT_EQ(s.inner.link_reals, 12);
  EXPECT_TRUE(s.temporal_gauge);
  EXPECT_EQ(s.parameter, 0.1);
  EXPECT_EQ(s.Name(), "bicgstab-reliable:half/12/gf:0.1");
  EXPECT_EQ(s.Params().delta, 0.1);
  EXPECT_EQ(SolverSpec::Parse("cg-dc:single:1e-3").Params().inner_tolerance, 1e-3);
  EXPECT_EQ(SolverSpec::Parse("bicgstab:double/18").Name(), "bicgstab");
  EXPECT_EQ(SolverSpec::Parse("bicgstab:double/8/gf").Name(), "bicgstab:double/8/gf");
}

TEST(SolverSpec, MalformedSpecsAreClearErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "unknown solver ''"},
      {"gmres", "unknown solver 'gmres'"},
      {"bicgstab:", "precision must be double, single or half, got ''"},
      {"bicgstab:float", "precision must be double, single or half, got 'float'"},
      {"bicgstab:single", "bicgstab runs in double"},
      {"cg:half/12", "cg runs in double"},
      {"bicgstab:double:0.1", "bicgstab takes no parameter"},
      {"bicgstab-reliable", "needs its inner precision"},
      {"bicgstab-reliable:half", "needs its parameter (delta)"},
      {"cg-dc:single", "needs its parameter (eps_in)"},
      {"bicgstab-reliable:double:0.1", "needs a single or half inner operator"},
      {"bicgstab-reliable:half:1", "delta = 1 must lie in (u_half"},
      {"bicgstab-reliable:half:1e-6", "delta = 1e-06 must lie in (u_half"},  // below 2^-16
      {"bicgstab-reliable:single:1e-8", "delta = 1e-08 must lie in (u_single"},  // below 2^-24
      {"bicgstab-dc:single:0", "eps_in = 0 must lie in (0, 1)"},
      {"bicgstab-dc:single:1.5", "eps_in = 1.5 must lie in (0, 1)"},
      {"bicgstab-reliable:half:0.1x", "parameter '0.1x' is not a number"},
      {"bicgstab-reliable:half:nan", "parameter 'nan' is not a number"},
      {"bicgstab-reliable:half: 0.1", "parameter ' 0.1' is not a number"},
      {"bicgstab-reliable:half/16:0.1", "'16' is not a link count"},
      {"bicgstab-reliable:half/12/12:0.1", "'12' is not a link count"},
      {"bicgstab-reliable:half/gf/12:0.1", "'12' is not a link count"},
      {"bicgstab-reliable:half/gf/gf:0.1", "'gf' is not a link count"},
      {"bicgstab-reliable:half:0.1:2", "too many ':'-separated parts"},
  };
  for (const auto& [text, message] : cases) {
    const std::string error = ErrorOf([&] { SolverSpec::Parse(text); });
    EXPECT_NE(error.find(message), std::string::npos) << "'" << text << "' gave '" << error << "'";
    EXPECT_NE(error.find("solver '" + text + "'"), std::string::npos) << error;
  }
  SolverSpec bad = SolverSpec::Parse("bicgstab");
  bad.tolerance = 0;
  EXPECT_NE(ErrorOf([&] { bad.Validate(); }).find("tolerance 0 must lie in (0, 1)"), std::string::npos);
  bad.tolerance = 1e-10;
  bad.max_iterations = 0;
  EXPECT_NE(ErrorOf([&] { bad.Validate(); }).find("budget 0 must be >= 1"), std::string::npos);
}

TEST(SolverSpec, BackendsRefuseWhatTheyCannotStore) {
  const BackendCapabilities cpu = CpuCapabilities();
  const BackendCapabilities gpu{"gpu", {18, 12, 8}, true, true};  // gpu/spec_solver.h GpuCapabilities()
  const BackendCapabilities no_clover{"wilson-only", {18, 12, 8}, true, false};
  for (const std::string& text : AllSpecTexts()) {
    SCOPED_TRACE(text);
    const SolverSpec spec = SolverSpec::Parse(text);
    const bool compressed = spec.inner.link_reals != 18;
    if (compressed) {
      EXPECT_NE(ErrorOf([&] { RequireSupported(spec, cpu, false); })
                    .find("the cpu backend does not store " + std::to_string(spec.inner.link_reals) + " reals per link"),
                std::string::npos);
    } else {
      EXPECT_NO_THROW(RequireSupported(spec, cpu, false));
      EXPECT_NO_THROW(RequireSupported(spec, cpu, true));
    }
    EXPECT_NO_THROW(RequireSupported(spec, gpu, false));
    EXPECT_NO_THROW(RequireSupported(spec, gpu, true));
    EXPECT_NE(ErrorOf([&] { RequireSupported(spec, no_clover, true); })
                  .find("the wilson-only backend has no Wilson-clover operator"),
              std::string::npos);
  }
  const BackendCapabilities no_gf{"plain", {18}, false, true};
  EXPECT_NE(ErrorOf([] {
              RequireSupported(SolverSpec::Parse("bicgstab:double/gf"), BackendCapabilities{"plain", {18}, false, true},
                               false);
            }).find("cannot solve on temporal-gauge-fixed links"),
            std::string::npos);
  EXPECT_NO_THROW(RequireSupported(SolverSpec::Parse("bicgstab"), no_gf, false));
}

// |b - M x| / |b| with the reference operators, independent of the solver's objects.
double Residual(const GaugeField<double>& u, const CloverField<double>* clover, const WilsonParams& w,
                const SpinorField<double>& x, const SpinorField<double>& b) {
  SpinorField<double> mx(u.lattice());
  if (clover != nullptr) {
    ApplyWilsonClover(mx, u, *clover, x, Dagger::kNo);
  } else {
    ApplyWilson(mx, u, x, w, Dagger::kNo);
  }
  return std::sqrt(Norm2(Difference(b, mx)) / Norm2(b));
}

TEST(SolverSpec, StaggeredSolvesAreCgInDoubleOrReliableWithSingleOrHalfIterations) {
  const StaggeredSolveForm plain = StaggeredSolveFormOf(SolverSpec::Parse("cg"));
  EXPECT_FALSE(plain.reliable);
  EXPECT_EQ(plain.inner, OperatorPrecision::kDouble);
  const StaggeredSolveForm reliable = StaggeredSolveFormOf(SolverSpec::Parse("cg-reliable:single:0.2"));
  EXPECT_TRUE(reliable.reliable);
  EXPECT_EQ(reliable.inner, OperatorPrecision::kSingle);
  EXPECT_EQ(reliable.delta, 0.2);
  const StaggeredSolveForm half = StaggeredSolveFormOf(SolverSpec::Parse("cg-reliable:half:0.1"));
  EXPECT_TRUE(half.reliable);
  EXPECT_EQ(half.inner, OperatorPrecision::kHalf);
  EXPECT_EQ(half.delta, 0.1);
  for (const char* refused : {"bicgstab", "bicgstab-reliable:single:0.1", "cg-dc:single:1e-3",
                              "cg:double/12", "cg:double/18/gf", "cg-reliable:single/8:0.1", "cg-reliable:half/12:0.1",
                              "cg-dc:half:1e-2", "cg-reliable:half/18/gf:0.1"}) {
    try {
      StaggeredSolveFormOf(SolverSpec::Parse(refused));
      ADD_FAILURE() << refused << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("staggered"), std::string::npos) << e.what();
    }
  }
}

TEST(SolveWithSpecOnCpu, EveryCpuSpecSolvesWilsonAndCloverWithThePapersBookkeeping) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomNearUnitGaugeField<double>(lattice, 11, 0.5);
  SpinorField<double> b(lattice);
  FillGaussian(b, 12);
  const WilsonParams wilson = WilsonParams::FromKappa(0.12);
  CloverParams clover_params;
  clover_params.mass = wilson.mass;
  clover_params.c_sw = 1.0;
  const CloverField<double> clover(u, clover_params);
  int solved = 0;
  for (const std::string& text : AllSpecTexts()) {
    SolverSpec spec = SolverSpec::Parse(text);
    if (spec.inner.link_reals != 18) continue;  // refused above
    spec.tolerance = 1e-11;
    spec.max_iterations = 4000;
    for (const bool use_clover : {false, true}) {
      SCOPED_TRACE(text + (use_clover ? " clover" : " wilson"));
      SpinorField<double> x(lattice);
      const SolveResult r = use_clover
                                ? SolveWithSpecOnCpu(spec, u, clover_params, CloverSchurForm::kComplement, x, b)
                                : SolveWithSpecOnCpu(spec, u, wilson, x, b);
      ++solved;
      ASSERT_TRUE(r.converged()) << r.Summary();
      EXPECT_LE(Residual(u, use_clover ? &clover : nullptr, wilson, x, b), spec.tolerance);
      // The record names the method and counts iterations as the paper does (solve_result.h).
      const std::string expected = spec.scheme == MixedScheme::kReliableUpdate     ? "Reliable"
                                   : spec.scheme == MixedScheme::kDefectCorrection ? "DefectCorrection"
                                   : spec.krylov == KrylovMethod::kCg              ? "CGNR"
                                                                                   : "BiCGstab";
      EXPECT_NE(r.solver.find(expected), std::string::npos) << r.solver;
      if (spec.mixed()) {
        const std::string low = ToString(spec.inner.precision);
        EXPECT_NE(r.solver.find(low), std::string::npos) << r.solver;
        EXPECT_GT(r.low_precision_applications, 0);
      } else {
        EXPECT_EQ(r.low_precision_applications, 0);
      }
      if (spec.scheme == MixedScheme::kReliableUpdate && spec.krylov == KrylovMethod::kBiCGstab) {
        EXPECT_EQ(r.iterations, r.krylov_iterations + r.high_precision_updates);
        EXPECT_GT(r.high_precision_updates, 0);
      }
      if (spec.scheme == MixedScheme::kDefectCorrection && spec.krylov == KrylovMethod::kBiCGstab) {
        // Table 4 counts every inner iteration of every restart; eps = 1e-11 needs several corrections at
        // eps_in = 0.1.
        EXPECT_EQ(r.iterations, r.krylov_iterations);
        EXPECT_GE(r.restarts, 2);
      }
    }
  }
  EXPECT_EQ(solved, 2 * (2 * 2 * (2 + 8) + 2));  // ("" or /18) x gf x 10 solvers, + cg, bicgstab; x 2 actions
  // A spec the CPU cannot run is refused before any work.
  SpinorField<double> x(lattice);
  EXPECT_NE(ErrorOf([&] { SolveWithSpecOnCpu(SolverSpec::Parse("bicgstab-reliable:half/12:0.1"), u, wilson, x, b); })
                .find("the cpu backend does not store 12 reals per link"),
            std::string::npos);
  EXPECT_EQ(Norm2(x), 0.0);
}

}  // namespace
}  // namespace lqcd::solvers
