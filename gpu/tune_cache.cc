// tune_cache.cc: see tune_cache.h.
#include "gpu/tune_cache.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace lqcd::gpu {
namespace {

bool ValidResult(const TuneResult& r) {
  return r.block > 0 && r.block % kTuneBlockGranularity == 0 && std::isfinite(r.microseconds) &&
         r.microseconds >= 0;
}

// The whole of `text` as a number, or false.
bool ParseInt(const std::string& text, int& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < 0 || v > 1 << 20) return false;
  value = static_cast<int>(v);
  return true;
}
bool ParseDouble(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0';
}

}  // namespace

ParsedTuneCache ParseTuneCache(std::istream& in) {
  ParsedTuneCache parsed;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      fields.push_back(line.substr(start, tab - start));
    }
    fields.push_back(line.substr(start));
    TuneResult r;
    if (fields.size() == 3 && !fields[0].empty() && ParseInt(fields[1], r.block) &&
        ParseDouble(fields[2], r.microseconds) && ValidResult(r)) {
      parsed.entries[fields[0]] = r;
    } else {
      ++parsed.skipped_lines;
    }
  }
  return parsed;
}

std::string FormatTuneCacheLine(const std::string& key, const TuneResult& result) {
  if (key.empty() || key.find_first_of("\t\n\r") != std::string::npos) {
    throw std::invalid_argument("tune cache: a key must be non-empty without tabs or newlines: '" + key + "'");
  }
  if (!ValidResult(result)) {
    throw std::invalid_argument("tune cache: block " + std::to_string(result.block) + " / time " +
                                std::to_string(result.microseconds) + " us is not a valid tuning result");
  }
  char numbers[64];
  std::snprintf(numbers, sizeof numbers, "\t%d\t%.17g\n", result.block, result.microseconds);
  return key + numbers;
}

}  // namespace lqcd::gpu
