// Tests of quenched_generator.h: the sweep schedule, what is handed to the sink and written to the CSV,
// reproducibility of a whole run, the NERSC round trip of a saved configuration, and option checks.
#include "reference/ensemble/quenched_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/io/nersc_io.h"
#include "reference/plaquette.h"

namespace lqcd {
namespace {

QuenchedOptions Small() {
  QuenchedOptions o;
  o.extents = {4, 4, 4, 4};
  o.beta = 5.8;
  o.seed = 17;
  o.thermalisation_sweeps = 2;
  o.separation_sweeps = 2;
  o.configurations = 3;
  o.overrelaxation_steps = 1;
  o.progress_every = 1;
  return o;
}

struct Saved {
  int index;
  long sweep;
  double plaquette;
};

TEST(QuenchedGenerator, ScheduleHistoryAndSink) {
  std::vector<Saved> saved;
  std::ostringstream log;
  GaugeField<double> final_field(Lattice(2, 2, 2, 2));
  const QuenchedSummary s = GenerateQuenched(
      Small(), log, [&](const GaugeField<double>& u, int index, long sweep) {
        saved.push_back({index, sweep, MeasurePlaquette(u).total});
      },
      &final_field);
  // 2 thermalisation + 3 * 2 production sweeps; configurations after sweeps 3, 5, 7.
  ASSERT_EQ(s.history.size(), 1u + 8u);
  EXPECT_EQ(s.history[0].sweep, -1);
  EXPECT_DOUBLE_EQ(s.history[0].plaquette, 1.0);  // cold start
  ASSERT_EQ(saved.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(saved[k].index, k);
    EXPECT_EQ(saved[k].sweep, 3 + 2 * k);
    EXPECT_EQ(saved[k].plaquette, s.history[saved[k].sweep + 1].plaquette);
    EXPECT_TRUE(s.history[saved[k].sweep + 1].saved);
  }
  for (std::size_t i = 1; i < s.history.size(); ++i) {
    EXPECT_EQ(s.history[i].sweep, static_cast<long>(i) - 1);
    EXPECT_EQ(s.history[i].thermalisation, i <= 2);
    // After a few sweeps at beta = 5.8 from a cold start the plaquette is between the hot and cold values.
    EXPECT_GT(s.history[i].plaquette, 0.3);
    EXPECT_LT(s.history[i].plaquette, 1.0);
    EXPECT_NEAR(s.history[i].plaquette, (s.history[i].spatial + s.history[i].temporal) / 2, 1e-14);
  }
  EXPECT_EQ(MeasurePlaquette(final_field).total, s.history.back().plaquette);
  EXPECT_EQ(s.production_plaquette.bins, 6);  // 6 production sweeps, fewer than 64: bins of 1
  // Parameters and one progress line per sweep are printed.
  const std::string text = log.str();
  EXPECT_NE(text.find("beta = 5.8"), std::string::npos);
  EXPECT_NE(text.find("lattice = 4x4x4x4"), std::string::npos);
  EXPECT_NE(text.find("sweep      7 prod"), std::string::npos);
  EXPECT_NE(text.find("production plaquette"), std::string::npos);
}

TEST(QuenchedGenerator, RunIsAFunctionOfTheOptions) {
  std::ostream quiet(nullptr);
  QuenchedOptions o = Small();
  o.hot_start = true;
  const QuenchedSummary a = GenerateQuenched(o, quiet, nullptr), b = GenerateQuenched(o, quiet, nullptr);
  ASSERT_EQ(a.history.size(), b.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) EXPECT_EQ(a.history[i].plaquette, b.history[i].plaquette);
  // Hot start: Haar links, <P> = 0 within 5 standard errors (Var(Re Tr U_p / 3) = 1/18 per plaquette, 6V of them).
  EXPECT_NEAR(a.history[0].plaquette, 0.0, 5 * std::sqrt(1.0 / 18 / (6 * 256)));
  o.seed = 18;
  const QuenchedSummary c = GenerateQuenched(o, quiet, nullptr);
  EXPECT_NE(c.history.back().plaquette, a.history.back().plaquette);
}

// A run continued from its own final field (passed through a double-precision NERSC file) is
// bit-identical to one longer run: sweep numbers, and hence random streams and reunitarisation points,
// carry on.
TEST(QuenchedGenerator, ContinuationIsBitIdenticalToOneLongRun) {
  std::ostream quiet(nullptr);
  QuenchedOptions o = Small();
  o.hot_start = true;
  o.thermalisation_sweeps = 0;
  o.separation_sweeps = 1;
  o.configurations = 6;
  o.reunitarize_every = 2;
  GaugeField<double> long_run(Lattice(o.extents)), first_half(Lattice(o.extents)), second_half(Lattice(o.extents));
  GenerateQuenched(o, quiet, nullptr, &long_run);
  o.configurations = 3;
  GenerateQuenched(o, quiet, nullptr, &first_half);
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") + "/continuation.nersc";
  WriteNersc(path, first_half);
  const GaugeConfiguration read = ReadNersc(path);
  o.hot_start = false;
  o.first_sweep = 3;
  const QuenchedSummary s = GenerateQuenched(o, quiet, nullptr, &second_half, &read.field);
  EXPECT_EQ(s.history.front().sweep, 2);
  EXPECT_EQ(s.history.back().sweep, 5);
  EXPECT_EQ(std::memcmp(long_run.links().data(), second_half.links().data(),
                        long_run.links().size() * sizeof(ColorMatrix<double>)),
            0);
  // A starting field of the wrong size, or together with a hot start, is refused.
  GaugeField<double> wrong(Lattice(4, 4, 4, 8));
  EXPECT_THROW(GenerateQuenched(o, quiet, nullptr, nullptr, &wrong), std::invalid_argument);
  o.hot_start = true;
  EXPECT_THROW(GenerateQuenched(o, quiet, nullptr, nullptr, &read.field), std::invalid_argument);
}

// A sweep engine (here the CPU one, which copies the field in and out) changes nothing: the same history and
// the same field bit for bit as the in-place default, with reunitarisation every sweep and every other sweep
// (the engine is reloaded after each).
TEST(QuenchedGenerator, SweepEngineGivesTheSameFieldAsTheInPlaceSweeps) {
  std::ostream quiet(nullptr);
  for (int reunitarize_every : {1, 2}) {
    QuenchedOptions o = Small();
    o.hot_start = true;
    o.reunitarize_every = reunitarize_every;
    GaugeField<double> in_place(Lattice(o.extents)), by_engine(Lattice(o.extents));
    const QuenchedSummary a = GenerateQuenched(o, quiet, nullptr, &in_place);
    CpuSweeps engine;
    std::ostringstream log;
    const QuenchedSummary b = GenerateQuenched(o, log, nullptr, &by_engine, nullptr, &engine);
    ASSERT_EQ(a.history.size(), b.history.size());
    for (std::size_t i = 0; i < a.history.size(); ++i) EXPECT_EQ(a.history[i].plaquette, b.history[i].plaquette);
    EXPECT_EQ(std::memcmp(in_place.links().data(), by_engine.links().data(),
                          in_place.links().size() * sizeof(ColorMatrix<double>)),
              0);
    EXPECT_NE(log.str().find("sweeps on = CPU"), std::string::npos);
  }
}

TEST(QuenchedGenerator, CsvAndNerscRoundTrip) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") + "/quenched";
  std::filesystem::create_directories(dir);
  std::ostream quiet(nullptr);
  std::vector<std::string> paths;
  std::vector<double> plaquettes;
  const QuenchedSummary s = GenerateQuenched(Small(), quiet, [&](const GaugeField<double>& u, int index, long) {
    paths.push_back(dir + "/config_" + std::to_string(index) + ".nersc");
    plaquettes.push_back(MeasurePlaquette(u).total);
    WriteNersc(paths.back(), u);
  });
  WritePlaquetteHistoryCsv(dir + "/plaquette.csv", s.history);

  std::ifstream csv(dir + "/plaquette.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "sweep,phase,plaquette,spatial,temporal,heatbath_seconds,overrelaxation_seconds,saved");
  std::vector<std::string> rows;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), s.history.size());
  EXPECT_EQ(rows[0].rfind("-1,start,", 0), 0u);
  EXPECT_EQ(rows[4].rfind("3,production,", 0), 0u);
  EXPECT_EQ(rows[4].back(), '1');  // saved
  // The plaquette column is written with 17 significant digits: it reads back exactly.
  std::istringstream fields(rows[4]);
  std::string sweep, phase, plaquette;
  std::getline(fields, sweep, ',');
  std::getline(fields, phase, ',');
  std::getline(fields, plaquette, ',');
  EXPECT_EQ(std::stod(plaquette), s.history[4].plaquette);

  // The saved files read back (the reader checks checksum, SU(3), PLAQUETTE and LINK_TRACE) to the same
  // plaquette: double precision storage is exact.
  ASSERT_EQ(paths.size(), 3u);
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const GaugeConfiguration read = ReadNersc(paths[k]);
    EXPECT_EQ(MeasurePlaquette(read.field).total, plaquettes[k]);
  }
}

TEST(QuenchedGenerator, BadOptionsAreRejected) {
  std::ostream quiet(nullptr);
  auto expect_rejected = [&](QuenchedOptions o, const std::string& words) {
    try {
      GenerateQuenched(o, quiet, nullptr);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  QuenchedOptions o = Small();
  o.beta = -1;
  expect_rejected(o, "beta");
  o = Small();
  o.beta = NAN;
  expect_rejected(o, "beta");
  o = Small();
  o.separation_sweeps = 0;
  expect_rejected(o, "separation");
  o = Small();
  o.thermalisation_sweeps = -1;
  expect_rejected(o, "thermalisation");
  o = Small();
  o.configurations = -2;
  expect_rejected(o, "configurations");
  o = Small();
  o.overrelaxation_steps = -1;
  expect_rejected(o, "overrelaxation");
  o = Small();
  o.reunitarize_every = 0;
  expect_rejected(o, "reunitarize");
  o = Small();
  o.first_sweep = -1;
  expect_rejected(o, "first sweep");
  o = Small();
  o.extents = {4, 4, 3, 4};
  EXPECT_THROW(GenerateQuenched(o, quiet, nullptr), std::invalid_argument);
  EXPECT_THROW(WritePlaquetteHistoryCsv("/nonexistent-directory/x.csv", {}), std::runtime_error);
}

}  // namespace
}  // namespace lqcd
