// command_line.h: the flags of the project's command-line programs (generate_quenched, the main job
// experiments/pion, ...) and strict parsers for their values.
//
// A flag is "--key=value" or "--key value"; a switch (a flag without a value, such as --no-plot) is
// "--key". "-h" is read as the switch "--help". Every error is a std::invalid_argument whose message names
// the flag and the offending text, for the program to print: a positional argument, a missing value, a
// number with trailing characters, out of range, or not finite. Nothing here prints or exits.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "reference/lattice.h"

namespace lqcd::command_line {

struct Flag {
  std::string key;    // without the leading "--"
  std::string value;  // empty for a switch
};

// Reads argv[1..argc-1] flag by flag. `switches` lists the keys that take no value.
class FlagReader {
 public:
  FlagReader(int argc, char** argv, std::set<std::string> switches);
  // The next flag into *flag; false at the end.
  bool Next(Flag* flag);

 private:
  int argc_;
  char** argv_;
  int next_ = 1;
  std::set<std::string> switches_;
};

// The whole of `value` as a finite double.
double ParseFiniteDouble(const std::string& key, const std::string& value);
// The whole of `value` as an integer in [lo, hi].
long ParseLong(const std::string& key, const std::string& value, long lo, long hi);
// `count` integers in [lo, hi] separated by `separator` ("8x8x8x16"), nothing else.
std::vector<long> ParseLongList(const std::string& key, const std::string& value, char separator, int count, long lo,
                                long hi);
// Four lattice extents "LxxLyxLzxLt", each in [1, 1000000] (the Lattice itself checks evenness).
Coordinates ParseExtents(const std::string& key, const std::string& value);

}  // namespace lqcd::command_line
