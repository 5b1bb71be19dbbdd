// command_line.cc: see command_line.h.
#include "reference/command_line.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace lqcd::command_line {

namespace {
// std::stod and std::stol skip leading white space; a flag's value may not have any.
bool StartsWithSpace(const std::string& s) { return !s.empty() && std::isspace(static_cast<unsigned char>(s[0])); }
}  // namespace

FlagReader::FlagReader(int argc, char** argv, std::set<std::string> switches)
    : argc_(argc), argv_(argv), switches_(std::move(switches)) {}

bool FlagReader::Next(Flag* flag) {
  if (next_ >= argc_) return false;
  const std::string arg = argv_[next_++];
  if (arg == "-h") {
    *flag = {"help", ""};
    return true;
  }
  if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
    throw std::invalid_argument("unexpected argument '" + arg + "' (see --help)");
  }
  std::string key = arg.substr(2), value;
  const auto eq = key.find('=');
  if (eq != std::string::npos) {
    value = key.substr(eq + 1);
    key = key.substr(0, eq);
    if (switches_.count(key)) throw std::invalid_argument("--" + key + " takes no value (see --help)");
  } else if (!switches_.count(key)) {
    if (next_ >= argc_) throw std::invalid_argument("--" + key + " needs a value (see --help)");
    value = argv_[next_++];
  }
  *flag = {key, value};
  return true;
}

double ParseFiniteDouble(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || StartsWithSpace(value) || used != value.size() || !std::isfinite(v)) {
    throw std::invalid_argument("--" + key + ": not a finite number: '" + value + "'");
  }
  return v;
}

long ParseLong(const std::string& key, const std::string& value, long lo, long hi) {
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || StartsWithSpace(value) || used != value.size()) {
    throw std::invalid_argument("--" + key + ": not an integer: '" + value + "'");
  }
  if (v < lo || v > hi) {
    throw std::invalid_argument("--" + key + " = " + value + " is out of range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  }
  return v;
}

std::vector<long> ParseLongList(const std::string& key, const std::string& value, char separator, int count, long lo,
                                long hi) {
  std::vector<long> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = value.find(separator, start);
    out.push_back(ParseLong(key, value.substr(start, end - start), lo, hi));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (static_cast<int>(out.size()) != count) {
    throw std::invalid_argument("--" + key + " needs " + std::to_string(count) + " integers separated by '" +
                                std::string(1, separator) + "', got '" + value + "'");
  }
  return out;
}

Coordinates ParseExtents(const std::string& key, const std::string& value) {
  const std::vector<long> e = ParseLongList(key, value, 'x', kDims, 1, 1000000);
  Coordinates extents{};
  for (int mu = 0; mu < kDims; ++mu) extents[mu] = static_cast<int>(e[mu]);
  return extents;
}

}  // namespace lqcd::command_line
