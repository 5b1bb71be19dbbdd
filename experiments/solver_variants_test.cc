// solver_variants_test: the experiment's solver variants and its ensemble cache.
//   - variant names parse to the right method, precision and parameter; bad names and parameters outside
//     the paper's ranges (u_low < delta < 1, 0 < eps_in < 1) throw naming the problem;
//   - the default set is the paper's columns: 2 + 6 + 6 variants in Tables 3, 4, 5;
//   - RunVariant reaches eps = 1e-12 on a small Haar-random field for one variant of each method, with the
//     paper's iteration bookkeeping;
//   - the ensemble cache: the saved configurations are the generator's chain bit for bit, a second call
//     reads them instead of regenerating, a damaged file throws, and the tag names every chain parameter.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "experiments/quenched_ensemble.h"
#include "experiments/solver_variants.h"
#include "reference/gauge_file_common.h"
#include "reference/su3_random.h"

namespace lqcd::experiments {
namespace {

TEST(SolverVariant, ParsesNames) {
  const SolverVariant ru = ParseVariant("ru:half:0.1");
  EXPECT_EQ(ru.method, SolverMethod::kReliableUpdate);
  EXPECT_EQ(ru.precision, InnerPrecision::kHalf);
  EXPECT_EQ(ru.parameter, 0.1);
  EXPECT_EQ(ru.PaperTable(), 5);
  EXPECT_STREQ(ru.ParameterName(), "delta");
  const SolverVariant dc = ParseVariant("dc:single:1e-5");
  EXPECT_EQ(dc.method, SolverMethod::kDefectCorrection);
  EXPECT_EQ(dc.precision, InnerPrecision::kSingle);
  EXPECT_EQ(dc.parameter, 1e-5);
  EXPECT_EQ(dc.PaperTable(), 4);
  EXPECT_EQ(ParseVariant("cg").method, SolverMethod::kCg);
  EXPECT_EQ(ParseVariant("bicgstab").PaperTable(), 3);
  EXPECT_EQ(ru.Label(), "reliable-update half delta=0.1");
}

TEST(SolverVariant, BadNamesAndParametersThrow) {
  for (const char* bad : {"gmres", "ru:half", "ru:quad:0.1", "xx:half:0.1", "ru:half:abc", "ru:half:0.1x",
                          "dc:double:0.1",  // mixed methods need a low precision
                          "ru:half:1e-6",   // below u_half = 2^-16: "any reduction beyond ulp_in is erroneous"
                          "ru:single:1.0",  // delta ~ 1 is an outer-precision solve
                          "dc:single:0", "dc:half:1.5"}) {
    EXPECT_THROW(ParseVariant(bad), std::invalid_argument) << bad;
  }
  // Above u_single = 2^-24 but below u_half: fine for single, not for half.
  EXPECT_NO_THROW(ParseVariant("ru:single:1e-6"));
  try {
    ParseVariant("ru:half:1e-6");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("delta"), std::string::npos) << e.what();
  }
}

TEST(SolverVariant, PaperColumns) {
  const std::vector<SolverVariant> v = PaperVariants();
  int per_table[6] = {0, 0, 0, 0, 0, 0};
  int half = 0;
  for (const SolverVariant& s : v) {
    per_table[s.PaperTable()] += 1;
    half += s.precision == InnerPrecision::kHalf ? 1 : 0;
  }
  EXPECT_EQ(per_table[3], 2);
  EXPECT_EQ(per_table[4], 6);
  EXPECT_EQ(per_table[5], 6);
  EXPECT_EQ(half, 5);  // Table 4: eps_in 1e-1, 1e-2; Table 5: delta 1e-1, 1e-2, 1e-3
}

TEST(SolverVariant, DefaultDropsTwoSingleDefectCorrectionColumns) {
  const std::vector<SolverVariant> d = DefaultVariants();
  EXPECT_EQ(d.size(), 12u);
  for (const SolverVariant& s : d) {
    EXPECT_FALSE(s.method == SolverMethod::kDefectCorrection && s.precision == InnerPrecision::kSingle &&
                 (s.parameter == 1e-4 || s.parameter == 1e-6))
        << s.Label();
  }
}

TEST(RunVariant, EachMethodReachesEpsWithPaperBookkeeping) {
  const Lattice lattice(4, 4, 4, 4);
  const GaugeField<double> u = RandomGaugeField<double>(lattice, 3);
  SpinorField<double> b(lattice);
  FillGaussian(b, 17);
  solvers::SolverParams p;
  p.tolerance = 1e-12;
  p.record_history = false;
  for (const char* name : {"cg", "bicgstab", "dc:half:0.1", "ru:single:0.01"}) {
    const VariantOutcome out = RunVariant(ParseVariant(name), u, 0.0, b, p);
    EXPECT_TRUE(out.result.converged()) << name << ": " << out.result.Summary();
    EXPECT_LE(out.true_residual, 1e-12) << name;
    const solvers::SolveResult& r = out.result;
    if (std::string(name) == "ru:single:0.01") {
      EXPECT_EQ(r.iterations, r.krylov_iterations + r.high_precision_updates) << name;
      EXPECT_GT(r.high_precision_updates, 0);
    }
    if (std::string(name) == "dc:half:0.1") {
      // Table 4 counts all inner iterations of all restarts; one recorded true residual per correction.
      EXPECT_EQ(r.iterations, r.krylov_iterations) << name;
      EXPECT_GE(r.restarts, 2) << name;  // one half-precision correction cannot reach 1e-12 (2^-16 >> 1e-12)
      EXPECT_EQ(static_cast<int>(r.updates.size()), r.restarts) << name;
    }
  }
  EXPECT_THROW(RunVariant(ParseVariant("cg"), u, -4.0, b, p), std::invalid_argument);  // 4 + m = 0
}

EnsembleSpec TinySpec() {
  EnsembleSpec spec;
  spec.generator.extents = {4, 4, 4, 4};
  spec.generator.beta = 5.7;
  spec.generator.seed = 3;
  spec.generator.thermalisation_sweeps = 3;
  spec.generator.separation_sweeps = 2;
  spec.generator.configurations = 2;
  spec.generator.overrelaxation_steps = 1;
  spec.generator.progress_every = 0;
  return spec;
}

bool SameBits(const GaugeField<double>& a, const GaugeField<double>& b) {
  return a.links().size() == b.links().size() &&
         std::memcmp(a.links().data(), b.links().data(), a.links().size() * sizeof(a.links()[0])) == 0;
}

TEST(QuenchedEnsemble, CachesTheGeneratorChain) {
  const EnsembleSpec spec = TinySpec();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "lqcd_solver_variants_test_ensemble";
  std::filesystem::remove_all(dir);
  std::ostringstream log;
  const Ensemble first = LoadOrGenerateEnsemble(spec, dir.string(), log);
  ASSERT_TRUE(first.generated);
  ASSERT_EQ(first.members.size(), 2u);
  EXPECT_EQ(first.members[0].sweep, 5);  // therm + 1 * sep
  EXPECT_EQ(first.members[1].sweep, 7);
  EXPECT_TRUE(std::filesystem::exists(dir / spec.Tag() / "config_5.nersc"));
  EXPECT_TRUE(std::filesystem::exists(dir / spec.Tag() / "plaquette.csv"));

  // The members are the generator's configurations, bit for bit.
  std::vector<GaugeField<double>> direct;
  std::ostringstream quiet;
  GenerateQuenched(spec.generator, quiet, [&](const GaugeField<double>& u, int, long) { direct.push_back(u); });
  ASSERT_EQ(direct.size(), 2u);
  EXPECT_TRUE(SameBits(first.members[0].u, direct[0]));
  EXPECT_TRUE(SameBits(first.members[1].u, direct[1]));

  const Ensemble second = LoadOrGenerateEnsemble(spec, dir.string(), log);
  EXPECT_FALSE(second.generated);
  EXPECT_TRUE(SameBits(second.members[1].u, direct[1]));
  EXPECT_EQ(second.members[1].plaquette, first.members[1].plaquette);

  // A damaged cached file is an error, not a silent regeneration.
  const std::filesystem::path file = dir / spec.Tag() / "config_7.nersc";
  const auto size = std::filesystem::file_size(file);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 8));
    const char garbage[4] = {'\x12', '\x34', '\x56', '\x78'};
    f.write(garbage, 4);
  }
  EXPECT_THROW(LoadOrGenerateEnsemble(spec, dir.string(), log), GaugeFileError);
  std::filesystem::remove_all(dir);
}

TEST(QuenchedEnsemble, TagNamesTheChainParameters) {
  const EnsembleSpec a = TinySpec();
  EnsembleSpec b = a;
  b.generator.beta = 6.0;
  EnsembleSpec c = a;
  c.generator.seed = 4;
  EnsembleSpec d = a;
  d.generator.configurations = 5;  // same chain, more of it: same tag
  EXPECT_NE(a.Tag(), b.Tag());
  EXPECT_NE(a.Tag(), c.Tag());
  EXPECT_EQ(a.Tag(), d.Tag());
  EXPECT_EQ(a.Tag(), "quenched_b5.7_4x4x4x4_seed3_cold_therm3_sep2_or1_chain" + std::to_string(kQuenchedChainVersion));
}

}  // namespace
}  // namespace lqcd::experiments
