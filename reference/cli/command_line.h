// command_line.h: the one command-line library of every program in the project (mains, experiments,
// benchmarks, tools).
//
// A program declares its flags once in a FlagSet: name, target variable (whose value on entry is the
// default), allowed values, help text. FlagSet::Parse reads argv, converts and checks every value as it is
// read, and prints the usage (every flag with its default) for --help. RunMain turns any error into ONE line
// "<program>: error: <what>" on stderr and exit status 1, so no program aborts with an uncaught exception.
//
// Syntax: a flag is "--name=value" or "--name value"; a switch (a flag without a value) is "--name"; "-h" is
// "--help". Names are lower-case words joined by '-' (--max-iterations, --mass-fractions). Positional
// arguments are accepted only by programs that declare them (FlagSet::Positional).
// Strictness: a number is the WHOLE value ("8abc", " 8", "1e400", "nan" are errors), an integer is in its
// declared range, a real number is finite and in its declared Range, a list has exactly its declared form,
// a choice is one of its listed words, and a flag may be given once. Every error is a std::invalid_argument
// whose message names the flag and the offending text. Nothing here exits; only RunMain prints.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/lattice.h"

namespace lqcd::command_line {

// ---- value parsers (also usable on their own; `key` names the flag in messages) ----

// The whole of `value` as a finite double.
double ParseFiniteDouble(const std::string& key, const std::string& value);
// The whole of `value` as an integer in [lo, hi].
long ParseLong(const std::string& key, const std::string& value, long lo, long hi);
// The whole of `value` as an unsigned 64-bit integer (decimal digits only).
std::uint64_t ParseUnsigned64(const std::string& key, const std::string& value);
// `count` integers in [lo, hi] separated by `separator` ("8x8x8x16"), nothing else.
std::vector<long> ParseLongList(const std::string& key, const std::string& value, char separator, int count, long lo,
                                long hi);
// Four lattice extents "LXxLYxLZxLT", each in [1, 1000000] (the Lattice itself checks evenness).
Coordinates ParseExtents(const std::string& key, const std::string& value);
// A lattice "LXxLYxLZxLT": ParseExtents, then Lattice's own checks (even extents), as one invalid_argument.
Lattice ParseLattice(const std::string& key, const std::string& value);
// One or more words separated by commas, none empty ("a,b,c").
std::vector<std::string> SplitList(const std::string& key, const std::string& value);

// A closed, open or half-open interval of allowed real values.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;

  static Range Any() { return {}; }
  static Range Positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static Range AtLeast(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
  static Range Open(double lo, double hi) { return {lo, hi, true, true}; }
  static Range Closed(double lo, double hi) { return {lo, hi, false, false}; }
  bool Contains(double v) const;
  std::string ToString() const;  // "(0, 1)", "[1, inf)", ...
};

// ---- the flag set ----

class FlagSet {
 public:
  // `program` appears in the usage line and in messages; `summary` is printed by --help above the flags.
  FlagSet(std::string program, std::string summary);

  // Starts a titled group of flags in the usage.
  void Section(const std::string& title);

  // Declarations. `target` holds the default on entry (shown by --help) and receives the parsed value.
  void Double(const std::string& name, double* target, const std::string& help, Range range = Range::Any());
  void Int(const std::string& name, int* target, long lo, long hi, const std::string& help);
  void Unsigned64(const std::string& name, std::uint64_t* target, const std::string& help);
  void String(const std::string& name, std::string* target, const std::string& placeholder, const std::string& help);
  // A switch: no value; sets *target = true.
  void Switch(const std::string& name, bool* target, const std::string& help);
  // Lattice extents LXxLYxLZxLT (each even, >= 2: what Lattice accepts).
  void Extents(const std::string& name, Coordinates* target, const std::string& help);
  // Comma-separated lattice extents, each as Extents checks them, at least one, in the order given.
  void ExtentsList(const std::string& name, std::vector<Coordinates>* target, const std::string& help);
  // Comma-separated finite reals, each in `range`, at least one.
  void DoubleList(const std::string& name, std::vector<double>* target, const std::string& help,
                  Range range = Range::Any());
  // Comma-separated integers in [lo, hi], at least one.
  void IntList(const std::string& name, std::vector<int>* target, long lo, long hi, const std::string& help);
  // One of the listed words.
  template <typename T>
  void Choice(const std::string& name, T* target, std::vector<std::pair<std::string, T>> choices,
              const std::string& help);
  // Anything else: `set` converts and stores the value (and throws std::invalid_argument naming --name if it
  // is bad); `default_text` is shown by --help.
  void Custom(const std::string& name, const std::string& placeholder, const std::string& default_text,
              const std::string& help, std::function<void(const std::string& value)> set);
  // Positional arguments (only for programs that declare them): at least `min_count`, at most `max_count`
  // (-1: any number).
  void Positional(const std::string& placeholder, std::vector<std::string>* target, int min_count,
                  const std::string& help, int max_count = -1);

  // Parses argv[1..]. Returns false if --help (or -h) was given: the usage has then been written to `out`
  // and nothing else was parsed into the targets after it. Throws std::invalid_argument otherwise on any
  // error (see the header comment).
  bool Parse(int argc, char** argv, std::ostream& out);
  // Whether the flag was given on the command line.
  bool Given(const std::string& name) const;
  // The usage text: synopsis, summary, every flag with its placeholder, help and default.
  std::string Usage() const;
  const std::string& program() const { return program_; }

 private:
  struct Entry {
    std::string name, placeholder, default_text, help, section;
    bool is_switch = false;
    std::function<void(const std::string&)> set;
  };
  void Add(Entry entry);

  std::string program_, summary_, section_;
  std::vector<Entry> entries_;
  std::map<std::string, std::size_t> index_;
  std::set<std::string> given_;
  std::string positional_placeholder_, positional_help_;
  std::vector<std::string>* positional_ = nullptr;
  int positional_min_ = 0, positional_max_ = -1;
};

// "a|b|c" for the choices' names.
std::string JoinNames(const std::vector<std::string>& names, const char* separator);

template <typename T>
void FlagSet::Choice(const std::string& name, T* target, std::vector<std::pair<std::string, T>> choices,
                     const std::string& help) {
  std::vector<std::string> names;
  std::string default_text;
  for (const auto& c : choices) {
    names.push_back(c.first);
    if (c.second == *target && default_text.empty()) default_text = c.first;
  }
  const std::string placeholder = JoinNames(names, "|");
  Custom(name, placeholder, default_text, help, [name, target, choices, placeholder](const std::string& value) {
    for (const auto& c : choices) {
      if (c.first == value) {
        *target = c.second;
        return;
      }
    }
    throw std::invalid_argument("--" + name + " must be one of " + placeholder + ", got '" + value + "'");
  });
}

// Runs a program's body. Any exception becomes one line "<program>: error: <what>" on stderr and status 1
// (std::cout is flushed first, so the line comes after what was printed). Otherwise the body's status.
int RunMain(const char* program, const std::function<int()>& body);

}  // namespace lqcd::command_line
