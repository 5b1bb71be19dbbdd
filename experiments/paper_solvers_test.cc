// paper_solvers_test: the experiment's solver columns and its ensemble cache.
//   - the paper's table, method and precision labels of each spec (the parsing itself is
//     solvers/solver_spec_test.cc);
//   - the default set is the paper's columns: 2 + 6 + 6 solvers in Tables 3, 4, 5;
//   - the ensemble cache: the saved configurations are the generator's chain bit for bit, a second call
//     reads them instead of regenerating, a damaged file throws, and the tag names every chain parameter.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "experiments/quenched_ensemble.h"
#include "experiments/paper_solvers.h"
#include "reference/io/gauge_file_common.h"
#include "reference/su3_random.h"

namespace lqcd::experiments {
namespace {

using solvers::SolverSpec;

TEST(PaperSolvers, TablesAndLabels) {
  const SolverSpec ru = SolverSpec::Parse("bicgstab-reliable:half:0.1");
  EXPECT_EQ(PaperTable(ru), 5);
  EXPECT_EQ(MethodLabel(ru), "reliable-update");
  EXPECT_EQ(PrecisionLabel(ru), "half");
  const SolverSpec dc = SolverSpec::Parse("bicgstab-dc:single:1e-5");
  EXPECT_EQ(PaperTable(dc), 4);
  EXPECT_EQ(MethodLabel(dc), "defect-correction");
  EXPECT_EQ(PaperTable(SolverSpec::Parse("cg")), 3);
  EXPECT_EQ(MethodLabel(SolverSpec::Parse("cg")), "cg");
  EXPECT_EQ(PaperTable(SolverSpec::Parse("bicgstab")), 3);
  EXPECT_EQ(PrecisionLabel(SolverSpec::Parse("bicgstab")), "double");
  // CG-based mixed solvers are not the paper's columns but are labelled apart from them.
  EXPECT_EQ(PaperTable(SolverSpec::Parse("cg-reliable:half:0.1")), 0);
  EXPECT_EQ(MethodLabel(SolverSpec::Parse("cg-reliable:half:0.1")), "cg-reliable-update");
  EXPECT_EQ(MethodLabel(SolverSpec::Parse("cg-dc:half:0.1")), "cg-defect-correction");
  // GPU storage forms show in the precision column.
  EXPECT_EQ(PrecisionLabel(SolverSpec::Parse("bicgstab-reliable:half/12:0.1")), "half/12");
  EXPECT_EQ(PrecisionLabel(SolverSpec::Parse("bicgstab-reliable:single/8/gf:0.1")), "single/8/gf");
  EXPECT_EQ(PrecisionLabel(SolverSpec::Parse("bicgstab:double/12")), "double/12");
}

TEST(PaperSolvers, PaperColumns) {
  const std::vector<SolverSpec> v = PaperSolvers();
  int per_table[6] = {0, 0, 0, 0, 0, 0};
  int half = 0;
  for (const SolverSpec& s : v) {
    per_table[PaperTable(s)] += 1;
    half += s.inner.precision == solvers::OperatorPrecision::kHalf ? 1 : 0;
    EXPECT_EQ(s.inner.link_reals, 18);  // what the CPU runs
    EXPECT_FALSE(s.temporal_gauge);
  }
  EXPECT_EQ(per_table[3], 2);
  EXPECT_EQ(per_table[4], 6);
  EXPECT_EQ(per_table[5], 6);
  EXPECT_EQ(half, 5);  // Table 4: eps_in 1e-1, 1e-2; Table 5: delta 1e-1, 1e-2, 1e-3
}

TEST(PaperSolvers, PaperGpuColumnsAreThePapersHeaders) {
  // (table, precision label, parameter) of each of the paper's GPU columns, in its order.
  const std::vector<std::tuple<int, std::string, double>> expected = {
      {3, "double", 0},       {3, "double", 0},       {4, "half/12", 1e-1},   {4, "half/12", 1e-2},
      {4, "single/8", 1e-3},  {4, "single/8", 1e-4},  {4, "single/8", 1e-5},  {4, "single/12", 1e-5},
      {4, "single/12", 1e-6}, {5, "half/12", 1e-1},   {5, "half/12", 1e-2},   {5, "half/12", 1e-3},
      {5, "single/8", 1e-1},  {5, "single/8", 1e-2},  {5, "single/8", 1e-3},  {5, "single/12", 1e-2},
      {5, "single/12", 1e-3}};
  const std::vector<SolverSpec> v = PaperGpuSolvers();
  ASSERT_EQ(v.size(), expected.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    EXPECT_EQ(PaperTable(v[k]), std::get<0>(expected[k])) << v[k].Name();
    EXPECT_EQ(PrecisionLabel(v[k]), std::get<1>(expected[k])) << v[k].Name();
    EXPECT_EQ(v[k].parameter, std::get<2>(expected[k])) << v[k].Name();
  }
}

TEST(PaperSolvers, DefaultDropsTwoSingleDefectCorrectionColumns) {
  const std::vector<SolverSpec> d = DefaultSolvers();
  EXPECT_EQ(d.size(), 12u);
  for (const SolverSpec& s : d) {
    EXPECT_FALSE(s.scheme == solvers::MixedScheme::kDefectCorrection &&
                 s.inner.precision == solvers::OperatorPrecision::kSingle && (s.parameter == 1e-4 || s.parameter == 1e-6))
        << s.Name();
  }
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
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "lqcd_paper_solvers_test_ensemble";
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
