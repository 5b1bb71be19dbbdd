// tune_cache.h: the launch tuner's results and their on-disk format (tune.h), kept apart from the CUDA
// code so that the format is tested without a GPU.
//
// File: one entry per line, "key<TAB>block<TAB>microseconds", appended by each process that tunes a new
// key (LQCD_TUNE_CACHE names the file). Keys contain the device name, so one file can serve several GPUs;
// a key may contain spaces but no tab or newline. When a key appears more than once, the last line wins.
//
// Reading trusts nothing: a line is used only if it has exactly three fields, the block is a positive
// multiple of 32 (every candidate the tuner times is one; tune.h) and the time is finite and non-negative.
// Other lines (a truncated last line after a crash, hand edits, another format) are skipped and counted,
// never half-used. The tuner also re-checks a cached block against the launch's own limit (tune.h).
#pragma once

#include <istream>
#include <map>
#include <string>

namespace lqcd::gpu {

struct TuneResult {
  int block = 0;
  double microseconds = 0;  // mean time of one launch with that block
};

// Block sizes the tuner tries and accepts from a cache: multiples of this.
inline constexpr int kTuneBlockGranularity = 32;

struct ParsedTuneCache {
  std::map<std::string, TuneResult> entries;
  int skipped_lines = 0;  // non-empty lines that did not parse
};

ParsedTuneCache ParseTuneCache(std::istream& in);

// The line for one entry, newline included. Throws std::invalid_argument if the key contains a tab or a
// newline or the result would not parse back (so the file never gets a line its reader would skip).
std::string FormatTuneCacheLine(const std::string& key, const TuneResult& result);

}  // namespace lqcd::gpu
