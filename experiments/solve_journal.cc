// solve_journal.cc: SolveJournal (solve_journal.h). File format, all text:
//   line 1: "lqcd solve journal v1 <run key with newlines escaped>"
//   each record: "<length of the task key> <converged 0|1> <length of the row>\n<task key><row>\n"
// Lengths make any text safe and a truncated record detectable.
#include "experiments/solve_journal.h"

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace lqcd::experiments {
namespace {

constexpr const char* kMagic = "lqcd solve journal v1 ";

std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

SolveJournal::SolveJournal(const std::string& path, const std::string& run_key) : path_(path), run_key_(run_key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    note_ = "new journal";
  } else {
    std::string header;
    std::getline(in, header);
    if (header != kMagic + OneLine(run_key)) {
      note_ = "discarded a journal of another run (its key differs)";
    } else {
      int dropped = 0;
      for (;;) {
        std::string line;
        if (!std::getline(in, line)) break;
        std::istringstream fields(line);
        std::size_t key_length = 0, row_length = 0;
        int converged = 0;
        if (!(fields >> key_length >> converged >> row_length) || (converged != 0 && converged != 1)) {
          ++dropped;
          break;
        }
        std::string key(key_length, '\0'), row(row_length, '\0');
        char newline = 0;
        if (!in.read(key.data(), static_cast<std::streamsize>(key_length)) ||
            !in.read(row.data(), static_cast<std::streamsize>(row_length)) || !in.get(newline) || newline != '\n') {
          ++dropped;  // the last record was cut short
          break;
        }
        entries_[key] = Entry{converged == 1, row};
      }
      note_ = "resumed " + std::to_string(entries_.size()) + " solves" +
              (dropped ? " (dropped a truncated last record)" : "");
    }
  }
  Rewrite();
}

void SolveJournal::Rewrite() {
  const std::string temporary = path_ + ".tmp";
  {
    std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("solve journal: cannot write " + temporary);
    f << kMagic << OneLine(run_key_) << "\n";
    for (const auto& [key, e] : entries_) {
      f << key.size() << " " << (e.converged ? 1 : 0) << " " << e.row.size() << "\n" << key << e.row << "\n";
    }
    if (!f.flush()) throw std::runtime_error("solve journal: cannot write " + temporary);
  }
  std::filesystem::rename(temporary, path_);
  out_.open(path_, std::ios::binary | std::ios::app);
  if (!out_) throw std::runtime_error("solve journal: cannot append to " + path_);
}

void SolveJournal::Record(const std::string& task_key, bool converged, const std::string& row) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << task_key.size() << " " << (converged ? 1 : 0) << " " << row.size() << "\n" << task_key << row << "\n";
  out_.flush();
  if (!out_) throw std::runtime_error("solve journal: cannot append to " + path_);
  entries_[task_key] = Entry{converged, row};
}

void SolveJournal::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  out_.close();
  std::filesystem::remove(path_);
}

}  // namespace lqcd::experiments
