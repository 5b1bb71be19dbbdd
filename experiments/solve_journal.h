// solve_journal.h: a run's finished solves, kept on disk as each finishes, so that an interrupted run (killed,
// out of time on a lent GPU, a crash) resumes where it stopped instead of starting over (solver_tables).
//
// A journal belongs to one run: its first line is the run's key (everything that determines the results:
// ensemble, masses, solvers, tolerances, sources, backend). Each finished solve appends one record, the task's
// key, whether it converged, and its output row (any text: commas, quotes, newlines), then flushes, so that a
// kill loses at most the record being written.
//
//   SolveJournal journal(path, run_key);   // reads an earlier journal of the SAME run, else starts a new one
//   journal.entries()                       // task key -> {converged, row} of the solves already done
//   journal.Record(task_key, converged, row)   // thread-safe; on disk when it returns
//   journal.Finish()                        // the run's output is complete: the journal file is removed
//
// What opening does, in note(): "new journal", "resumed N solves", or "discarded ..." with the reason (a journal
// of another run, or an unreadable one); a truncated last record (the kill came mid-write) is dropped and the
// file rewritten without it. Errors: std::runtime_error if the file cannot be written.
#pragma once

#include <fstream>
#include <map>
#include <mutex>
#include <string>

namespace lqcd::experiments {

class SolveJournal {
 public:
  struct Entry {
    bool converged = false;
    std::string row;
  };

  SolveJournal(const std::string& path, const std::string& run_key);

  const std::map<std::string, Entry>& entries() const { return entries_; }
  const std::string& note() const { return note_; }
  void Record(const std::string& task_key, bool converged, const std::string& row);
  void Finish();

 private:
  void Rewrite();  // header and every entry, replacing the file
  std::string path_, run_key_, note_;
  std::map<std::string, Entry> entries_;
  std::ofstream out_;
  std::mutex mutex_;
};

}  // namespace lqcd::experiments
