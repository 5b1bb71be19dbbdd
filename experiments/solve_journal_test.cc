// solve_journal_test.cc: SolveJournal keeps what was recorded across a reopening of the same run, with any text
// in a row; forgets a journal of another run; survives a record cut short by a kill; takes concurrent records;
// and is gone after Finish.
#include "experiments/solve_journal.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace lqcd::experiments {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return (std::filesystem::path(dir ? dir : "/tmp") / name).string();
}

TEST(SolveJournal, KeepsRecordsOfTheSameRunWithAnyText) {
  const std::string path = TempPath("same_run.journal");
  std::filesystem::remove(path);
  const std::string awkward = "1,2,\"quoted, with comma\",line\nbreak,\\ and 5 spaces     ";
  {
    SolveJournal j(path, "run A\nwith a newline in its key");
    EXPECT_EQ(j.note(), "new journal");
    EXPECT_TRUE(j.entries().empty());
    j.Record("c0s0m0 bicgstab", true, "row one");
    j.Record("c0s0m1 cg", false, awkward);
  }
  SolveJournal again(path, "run A\nwith a newline in its key");
  EXPECT_EQ(again.note(), "resumed 2 solves");
  ASSERT_EQ(again.entries().size(), 2u);
  EXPECT_TRUE(again.entries().at("c0s0m0 bicgstab").converged);
  EXPECT_EQ(again.entries().at("c0s0m0 bicgstab").row, "row one");
  EXPECT_FALSE(again.entries().at("c0s0m1 cg").converged);
  EXPECT_EQ(again.entries().at("c0s0m1 cg").row, awkward);
  again.Finish();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SolveJournal, ForgetsAnotherRunsJournal) {
  const std::string path = TempPath("other_run.journal");
  std::filesystem::remove(path);
  { SolveJournal(path, "run A").Record("task", true, "row"); }
  SolveJournal b(path, "run B");
  EXPECT_NE(b.note().find("discarded"), std::string::npos);
  EXPECT_TRUE(b.entries().empty());
  b.Record("task", true, "row of B");
  SolveJournal b_again(path, "run B");  // the file now belongs to run B
  ASSERT_EQ(b_again.entries().size(), 1u);
  EXPECT_EQ(b_again.entries().at("task").row, "row of B");
}

TEST(SolveJournal, DropsARecordCutShortAndKeepsTheRest) {
  const std::string path = TempPath("truncated.journal");
  std::filesystem::remove(path);
  {
    SolveJournal j(path, "run");
    j.Record("first", true, "complete row");
    j.Record("second", true, "a row that the kill will cut");
  }
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 10);  // the second record loses its end
  SolveJournal j(path, "run");
  EXPECT_EQ(j.note(), "resumed 1 solves (dropped a truncated last record)");
  ASSERT_EQ(j.entries().size(), 1u);
  EXPECT_EQ(j.entries().at("first").row, "complete row");
  j.Record("second", true, "redone");  // appended after the rewritten, clean file
  SolveJournal k(path, "run");
  EXPECT_EQ(k.note(), "resumed 2 solves");
  EXPECT_EQ(k.entries().at("second").row, "redone");
}

TEST(SolveJournal, ConcurrentRecordsAreAllKept) {
  const std::string path = TempPath("concurrent.journal");
  std::filesystem::remove(path);
  {
    SolveJournal j(path, "run");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&j, t] {
        for (int k = 0; k < 50; ++k) j.Record(std::to_string(t) + "/" + std::to_string(k), k % 2 == 0, std::string(k, 'x'));
      });
    }
    for (auto& thread : threads) thread.join();
  }
  SolveJournal j(path, "run");
  ASSERT_EQ(j.entries().size(), 200u);
  EXPECT_EQ(j.entries().at("3/49").row, std::string(49, 'x'));
  EXPECT_FALSE(j.entries().at("3/49").converged);
}

TEST(SolveJournal, AnUnwritablePathIsAClearError) {
  EXPECT_THROW(SolveJournal("/nonexistent-directory/solves.journal", "run"), std::runtime_error);
}

}  // namespace
}  // namespace lqcd::experiments
