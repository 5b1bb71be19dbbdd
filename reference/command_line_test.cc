// command_line_test: the flag reader and the value parsers of the command-line programs. Every malformed
// input is a std::invalid_argument whose message names the flag; nothing is half-parsed.
#include "reference/command_line.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lqcd::command_line {
namespace {

// Runs the reader over `args` (program name added) and returns the flags, or rethrows.
std::vector<Flag> ReadAll(std::vector<std::string> args, std::set<std::string> switches = {"help", "no-plot"}) {
  args.insert(args.begin(), "program");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  FlagReader reader(static_cast<int>(argv.size()), argv.data(), std::move(switches));
  std::vector<Flag> flags;
  for (Flag f; reader.Next(&f);) flags.push_back(f);
  return flags;
}

// The message of the std::invalid_argument `f` throws ("" if none).
template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(FlagReader, BothValueFormsSwitchesAndHelp) {
  const std::vector<Flag> f = ReadAll({"--beta=6.0", "--lattice", "8x8x8x16", "--no-plot", "-h", "--out=a=b", "--x="});
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0].key, "beta");
  EXPECT_EQ(f[0].value, "6.0");
  EXPECT_EQ(f[1].key, "lattice");
  EXPECT_EQ(f[1].value, "8x8x8x16");
  EXPECT_EQ(f[2].key, "no-plot");
  EXPECT_EQ(f[2].value, "");
  EXPECT_EQ(f[3].key, "help");
  EXPECT_EQ(f[4].key, "out");
  EXPECT_EQ(f[4].value, "a=b");  // only the first '=' separates
  EXPECT_EQ(f[5].key, "x");
  EXPECT_EQ(f[5].value, "");
  EXPECT_TRUE(ReadAll({}).empty());
}

TEST(FlagReader, MalformedArgumentsAreErrors) {
  EXPECT_NE(ErrorOf([] { ReadAll({"positional"}); }).find("unexpected argument 'positional'"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ReadAll({"--"}); }).find("unexpected argument"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ReadAll({"-beta=6"}); }).find("unexpected argument"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ReadAll({"--beta"}); }).find("--beta needs a value"), std::string::npos);
  EXPECT_NE(ErrorOf([] { ReadAll({"--no-plot=1"}); }).find("--no-plot takes no value"), std::string::npos);
}

TEST(ParseFiniteDouble, AcceptsOnlyAWholeFiniteNumber) {
  EXPECT_EQ(ParseFiniteDouble("beta", "6.0"), 6.0);
  EXPECT_EQ(ParseFiniteDouble("tol", "1e-10"), 1e-10);
  EXPECT_EQ(ParseFiniteDouble("m", "-0.5"), -0.5);
  for (const char* bad : {"", "6.0x", "x6", "nan", "inf", "-inf", "1e999", " 6"}) {
    EXPECT_NE(ErrorOf([&] { ParseFiniteDouble("beta", bad); }).find("--beta: not a finite number"), std::string::npos)
        << bad;
  }
}

TEST(ParseLong, AcceptsOnlyAWholeIntegerInRange) {
  EXPECT_EQ(ParseLong("or", "4", 0, 100), 4);
  EXPECT_EQ(ParseLong("or", "-3", -5, 5), -3);
  EXPECT_EQ(ParseLong("seed", "9223372036854775807", 0, std::numeric_limits<long>::max()),
            std::numeric_limits<long>::max());
  for (const char* bad : {"", "4.0", "4x", "x", " 4", "99999999999999999999"}) {
    EXPECT_NE(ErrorOf([&] { ParseLong("or", bad, 0, 100); }).find("--or: not an integer"), std::string::npos) << bad;
  }
  EXPECT_NE(ErrorOf([] { ParseLong("or", "101", 0, 100); }).find("--or = 101 is out of range [0, 100]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { ParseLong("or", "-1", 0, 100); }).find("out of range"), std::string::npos);
}

TEST(ParseLongList, ExactlyTheCountWithNothingElse) {
  EXPECT_EQ(ParseLongList("source", "1,2,3,4", ',', 4, -10, 10), (std::vector<long>{1, 2, 3, 4}));
  for (const char* bad : {"1,2,3", "1,2,3,4,5", "1,,3,4", "1,2,3,", ",1,2,3", "1;2;3;4", ""}) {
    EXPECT_NE(ErrorOf([&] { ParseLongList("source", bad, ',', 4, -10, 10); }).find("--source"), std::string::npos)
        << bad;
  }
  EXPECT_NE(ErrorOf([] { ParseLongList("source", "1,2,3,11", ',', 4, -10, 10); }).find("out of range"),
            std::string::npos);
}

TEST(ParseExtents, FourPositiveExtents) {
  EXPECT_EQ(ParseExtents("lattice", "8x8x8x16"), (Coordinates{8, 8, 8, 16}));
  for (const char* bad : {"8x8x8", "8x8x8x16x2", "8xax8x16", "8x8x8x0", "8x-8x8x16", "8X8X8X16", "8x8x8x16 "}) {
    EXPECT_NE(ErrorOf([&] { ParseExtents("lattice", bad); }).find("--lattice"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace lqcd::command_line
