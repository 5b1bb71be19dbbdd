// command_line.cc: see command_line.h.
#include "reference/cli/command_line.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace lqcd::command_line {

namespace {

// std::stod and std::stol skip leading white space; a flag's value may not have any.
bool StartsWithSpace(const std::string& s) { return !s.empty() && std::isspace(static_cast<unsigned char>(s[0])); }

std::string FormatDouble(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::string FormatExtents(const Coordinates& c) {
  return std::to_string(c[0]) + "x" + std::to_string(c[1]) + "x" + std::to_string(c[2]) + "x" + std::to_string(c[3]);
}

template <typename T>
std::string FormatList(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ",";
    if constexpr (std::is_floating_point_v<T>) {
      s += FormatDouble(v[i]);
    } else {
      s += std::to_string(v[i]);
    }
  }
  return s;
}

// `text` broken at spaces into lines of at most `width` columns, the lines after the first indented by
// `indent` (the first line starts at column `indent` already).
std::string Wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, word;
  std::size_t column = indent;
  std::istringstream words(text);
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += " ";
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out;
}

}  // namespace

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

std::uint64_t ParseUnsigned64(const std::string& key, const std::string& value) {
  bool digits = !value.empty() && value.size() <= 20;
  for (char c : value) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  std::size_t used = 0;
  unsigned long long v = 0;
  if (digits) {
    try {
      v = std::stoull(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
  }
  if (!digits || used != value.size()) {
    throw std::invalid_argument("--" + key + ": not an unsigned 64-bit integer: '" + value + "'");
  }
  return static_cast<std::uint64_t>(v);
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

Lattice ParseLattice(const std::string& key, const std::string& value) {
  const Coordinates extents = ParseExtents(key, value);
  try {
    Lattice::CheckExtents(extents);
    return Lattice(extents);
  } catch (const std::exception& e) {
    throw std::invalid_argument("--" + key + "=" + value + ": " + e.what());
  }
}

std::vector<std::string> SplitList(const std::string& key, const std::string& value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = value.find(',', start);
    out.push_back(value.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (out.back().empty()) {
      throw std::invalid_argument("--" + key + ": empty item in the list '" + value + "'");
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

bool Range::Contains(double v) const {
  const bool above = lo_open ? v > lo : v >= lo;
  const bool below = hi_open ? v < hi : v <= hi;
  return above && below;
}

std::string Range::ToString() const {
  return std::string(lo_open || std::isinf(lo) ? "(" : "[") + FormatDouble(lo) + ", " + FormatDouble(hi) +
         (hi_open || std::isinf(hi) ? ")" : "]");
}

std::string JoinNames(const std::vector<std::string>& names, const char* separator) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? separator : "") + names[i];
  return s;
}

FlagSet::FlagSet(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

void FlagSet::Section(const std::string& title) { section_ = title; }

void FlagSet::Add(Entry entry) {
  if (entry.name.empty() || entry.name == "help" || index_.count(entry.name)) {
    throw std::logic_error(program_ + ": flag --" + entry.name + " declared twice or reserved");
  }
  entry.section = section_;
  index_[entry.name] = entries_.size();
  entries_.push_back(std::move(entry));
}

void FlagSet::Double(const std::string& name, double* target, const std::string& help, Range range) {
  std::string text = help;
  if (range.lo != Range::Any().lo || range.hi != Range::Any().hi) text += "; in " + range.ToString();
  Add({name, "X", FormatDouble(*target), text, "", false, [name, target, range](const std::string& v) {
         const double d = ParseFiniteDouble(name, v);
         if (!range.Contains(d)) {
           throw std::invalid_argument("--" + name + " = " + v + " is outside " + range.ToString());
         }
         *target = d;
       }});
}

void FlagSet::Int(const std::string& name, int* target, long lo, long hi, const std::string& help) {
  Add({name, "N", std::to_string(*target), help + "; in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
       "", false,
       [name, target, lo, hi](const std::string& v) { *target = static_cast<int>(ParseLong(name, v, lo, hi)); }});
}

void FlagSet::Unsigned64(const std::string& name, std::uint64_t* target, const std::string& help) {
  Add({name, "N", std::to_string(*target), help, "", false,
       [name, target](const std::string& v) { *target = ParseUnsigned64(name, v); }});
}

void FlagSet::String(const std::string& name, std::string* target, const std::string& placeholder,
                     const std::string& help) {
  Add({name, placeholder, target->empty() ? "" : *target, help, "", false, [name, target](const std::string& v) {
         if (v.empty()) throw std::invalid_argument("--" + name + " needs a non-empty value");
         *target = v;
       }});
}

void FlagSet::Switch(const std::string& name, bool* target, const std::string& help) {
  Add({name, "", "", help, "", true, [target](const std::string&) { *target = true; }});
}

void FlagSet::Extents(const std::string& name, Coordinates* target, const std::string& help) {
  Add({name, "LXxLYxLZxLT", FormatExtents(*target), help, "", false, [name, target](const std::string& v) {
         const Coordinates extents = ParseExtents(name, v);
         try {
           Lattice::CheckExtents(extents);
         } catch (const std::exception& e) {
           throw std::invalid_argument("--" + name + "=" + v + ": " + e.what());
         }
         *target = extents;
       }});
}

void FlagSet::ExtentsList(const std::string& name, std::vector<Coordinates>* target, const std::string& help) {
  std::string shown;
  for (const Coordinates& c : *target) shown += (shown.empty() ? "" : ",") + FormatExtents(c);
  Add({name, "LXxLYxLZxLT[,...]", shown, help, "", false, [name, target](const std::string& v) {
         std::vector<Coordinates> lattices;
         for (const std::string& item : SplitList(name, v)) {
           const Coordinates extents = ParseExtents(name, item);
           try {
             Lattice::CheckExtents(extents);
           } catch (const std::exception& e) {
             throw std::invalid_argument("--" + name + "=" + item + ": " + e.what());
           }
           lattices.push_back(extents);
         }
         *target = lattices;
       }});
}

void FlagSet::DoubleList(const std::string& name, std::vector<double>* target, const std::string& help, Range range) {
  std::string text = help;
  if (range.lo != Range::Any().lo || range.hi != Range::Any().hi) text += "; each in " + range.ToString();
  Add({name, "X,...", FormatList(*target), text, "", false, [name, target, range](const std::string& v) {
         std::vector<double> out;
         for (const std::string& item : SplitList(name, v)) {
           const double d = ParseFiniteDouble(name, item);
           if (!range.Contains(d)) {
             throw std::invalid_argument("--" + name + ": " + item + " is outside " + range.ToString());
           }
           out.push_back(d);
         }
         *target = std::move(out);
       }});
}

void FlagSet::IntList(const std::string& name, std::vector<int>* target, long lo, long hi, const std::string& help) {
  Add({name, "N,...", FormatList(*target), help + "; each in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
       "", false, [name, target, lo, hi](const std::string& v) {
         std::vector<int> out;
         for (const std::string& item : SplitList(name, v)) out.push_back(static_cast<int>(ParseLong(name, item, lo, hi)));
         *target = std::move(out);
       }});
}

void FlagSet::Custom(const std::string& name, const std::string& placeholder, const std::string& default_text,
                     const std::string& help, std::function<void(const std::string& value)> set) {
  Add({name, placeholder, default_text, help, "", false, std::move(set)});
}

void FlagSet::Positional(const std::string& placeholder, std::vector<std::string>* target, int min_count,
                         const std::string& help, int max_count) {
  positional_placeholder_ = placeholder;
  positional_help_ = help;
  positional_ = target;
  positional_min_ = min_count;
  positional_max_ = max_count;
}

bool FlagSet::Parse(int argc, char** argv, std::ostream& out) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      out << Usage();
      return false;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      if (positional_ != nullptr && !arg.empty() && arg[0] != '-') {
        positional.push_back(arg);
        continue;
      }
      throw std::invalid_argument("unexpected argument '" + arg + "' (see --help)");
    }
    std::string name = arg.substr(2), value;
    const std::size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const auto it = index_.find(name);
    if (it == index_.end()) throw std::invalid_argument("unknown flag --" + name + " (see --help)");
    const Entry& entry = entries_[it->second];
    if (entry.is_switch && inline_value) throw std::invalid_argument("--" + name + " takes no value (see --help)");
    if (!entry.is_switch && !inline_value) {
      if (i + 1 >= argc) throw std::invalid_argument("--" + name + " needs a value (see --help)");
      value = argv[++i];
    }
    if (!given_.insert(name).second) throw std::invalid_argument("--" + name + " is given more than once");
    entry.set(value);
  }
  if (positional_ != nullptr) {
    if (static_cast<int>(positional.size()) < positional_min_) {
      throw std::invalid_argument("needs at least " + std::to_string(positional_min_) + " " + positional_placeholder_ +
                                  " argument(s) (see --help)");
    }
    if (positional_max_ >= 0 && static_cast<int>(positional.size()) > positional_max_) {
      throw std::invalid_argument("takes at most " + std::to_string(positional_max_) + " " + positional_placeholder_ +
                                  " argument(s), got " + std::to_string(positional.size()) + " (see --help)");
    }
    *positional_ = std::move(positional);
  }
  return true;
}

bool FlagSet::Given(const std::string& name) const {
  if (!index_.count(name)) throw std::logic_error(program_ + ": no flag --" + name + " is declared");
  return given_.count(name) > 0;
}

std::string FlagSet::Usage() const {
  std::ostringstream s;
  s << "usage: " << program_ << " [flags]";
  if (positional_ != nullptr) s << " " << positional_placeholder_ << (positional_max_ == 1 ? "" : "...");
  s << "\n\n" << summary_;
  if (!summary_.empty() && summary_.back() != '\n') s << "\n";
  if (positional_ != nullptr) {
    s << "\n  " << positional_placeholder_ << (positional_max_ == 1 ? "" : "...") << "  " << positional_help_ << "\n";
  }
  std::string section = "\x01";
  for (const Entry& e : entries_) {
    if (e.section != section) {
      section = e.section;
      s << "\n" << (section.empty() ? "Flags" : section) << "\n";
    }
    std::string left = "  --" + e.name + (e.is_switch ? "" : "=" + e.placeholder);
    s << left;
    if (left.size() < 30) {
      s << std::string(30 - left.size(), ' ');
    } else {
      s << "\n" << std::string(30, ' ');
    }
    std::string text = e.help;
    if (!e.is_switch) text += " (default: " + (e.default_text.empty() ? std::string("none") : e.default_text) + ")";
    s << Wrap(text, 30, 110) << "\n";
  }
  s << "\n  --help, -h                  this text\n";
  return s.str();
}

int RunMain(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cout.flush();
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n') c = ' ';
    }
    std::fprintf(stderr, "%s: error: %s\n", program, what.c_str());
    return 1;
  } catch (...) {
    std::cout.flush();
    std::fprintf(stderr, "%s: error: unknown exception\n", program);
    return 1;
  }
}

}  // namespace lqcd::command_line
