// command_line_test: the flag set, the value parsers and RunMain of the command-line programs. Every
// malformed input is a std::invalid_argument whose message names the flag.
#include "reference/cli/command_line.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/error_testing.h"

namespace lqcd::command_line {
namespace {


// A small program's flags: every kind of declaration, with its defaults.
struct Program {
  double beta = 6.0, kappa = 0.12;
  int iterations = 100;
  std::uint64_t seed = 7;
  std::string output = "out";
  bool no_plot = false;
  Coordinates lattice{8, 8, 8, 16};
  std::vector<double> masses{0.1, 0.2};
  std::vector<int> sizes{4};
  enum class Colour { kRed, kBlue } colour = Colour::kBlue;
  std::string custom = "unset";
  FlagSet flags{"program", "A test program."};

  Program() {
    flags.Section("Physics");
    flags.Double("beta", &beta, "gauge coupling");
    flags.Double("kappa", &kappa, "hopping parameter", Range::Open(0, 0.25));
    flags.Int("max-iterations", &iterations, 1, 1000, "budget");
    flags.Unsigned64("seed", &seed, "seed");
    flags.Section("Output");
    flags.String("output", &output, "DIR", "directory");
    flags.Switch("no-plot", &no_plot, "skip the plot");
    flags.Extents("lattice", &lattice, "extents");
    flags.DoubleList("masses", &masses, "masses", Range::AtLeast(-4));
    flags.IntList("sizes", &sizes, 2, 64, "sizes");
    flags.Choice<Colour>("colour", &colour, {{"red", Colour::kRed}, {"blue", Colour::kBlue}}, "a colour");
    flags.Custom("custom", "X", "unset", "anything", [this](const std::string& v) {
      if (v == "bad") throw std::invalid_argument("--custom: bad");
      custom = v;
    });
  }
  // Parses `args` (program name added); returns Parse's result.
  bool Parse(std::vector<std::string> args, std::ostream& out) {
    args.insert(args.begin(), "program");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return flags.Parse(static_cast<int>(argv.size()), argv.data(), out);
  }
  bool Parse(std::vector<std::string> args) {
    std::ostringstream out;
    return Parse(std::move(args), out);
  }
};

TEST(FlagSet, BothValueFormsSwitchesListsAndChoices) {
  Program p;
  ASSERT_TRUE(p.Parse({"--beta=5.7", "--lattice", "4x4x4x8", "--no-plot", "--output=a=b", "--masses=-0.5,0.25",
                       "--sizes", "8,16", "--colour=red", "--seed=18446744073709551615", "--max-iterations=1000",
                       "--custom=ok"}));
  EXPECT_EQ(p.beta, 5.7);
  EXPECT_EQ(p.lattice, (Coordinates{4, 4, 4, 8}));
  EXPECT_TRUE(p.no_plot);
  EXPECT_EQ(p.output, "a=b");  // only the first '=' separates
  EXPECT_EQ(p.masses, (std::vector<double>{-0.5, 0.25}));
  EXPECT_EQ(p.sizes, (std::vector<int>{8, 16}));
  EXPECT_EQ(p.colour, Program::Colour::kRed);
  EXPECT_EQ(p.seed, 18446744073709551615ull);
  EXPECT_EQ(p.iterations, 1000);
  EXPECT_EQ(p.custom, "ok");
  EXPECT_TRUE(p.flags.Given("beta"));
  EXPECT_FALSE(p.flags.Given("kappa"));
  EXPECT_EQ(p.kappa, 0.12);  // untouched default
}

TEST(FlagSet, HelpListsEveryFlagWithItsDefault) {
  Program p;
  std::ostringstream out;
  EXPECT_FALSE(p.Parse({"--beta=5", "-h", "--kappa=0.2"}, out));
  EXPECT_EQ(p.kappa, 0.12);  // nothing after --help is parsed
  const std::string usage = out.str();
  EXPECT_EQ(usage, p.flags.Usage());
  for (const char* line : {"usage: program [flags]", "A test program.", "Physics", "Output",
                           "--beta=X", "(default: 6)", "--kappa=X", "in (0, 0.25) (default: 0.12)",
                           "--max-iterations=N", "in [1, 1000] (default: 100)", "--seed=N", "(default: 7)",
                           "--output=DIR", "(default: out)", "--no-plot ", "--lattice=LXxLYxLZxLT",
                           "(default: 8x8x8x16)", "(default: 0.1,0.2)", "(default: 4)", "--colour=red|blue",
                           "(default: blue)", "(default: unset)", "--help, -h"}) {
    EXPECT_NE(usage.find(line), std::string::npos) << line << "\n" << usage;
  }
  Program q;
  std::ostringstream out2;
  EXPECT_FALSE(q.Parse({"--help"}, out2));
  EXPECT_EQ(out2.str(), usage);
}

TEST(FlagSet, MalformedArgumentsAreErrorsNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"positional"}, "unexpected argument 'positional'"},
      {{"--"}, "unexpected argument"},
      {{"-beta=6"}, "unexpected argument"},
      {{"--unknown=1"}, "unknown flag --unknown"},
      {{"--beta"}, "--beta needs a value"},
      {{"--no-plot=1"}, "--no-plot takes no value"},
      {{"--beta=6.0x"}, "--beta: not a finite number: '6.0x'"},
      {{"--beta=nan"}, "--beta: not a finite number"},
      {{"--beta=1e999"}, "--beta: not a finite number"},
      {{"--kappa=0.25"}, "--kappa = 0.25 is outside (0, 0.25)"},
      {{"--kappa=-1"}, "--kappa = -1 is outside (0, 0.25)"},
      {{"--max-iterations=8abc"}, "--max-iterations: not an integer: '8abc'"},
      {{"--max-iterations=0"}, "--max-iterations = 0 is out of range [1, 1000]"},
      {{"--seed=-1"}, "--seed: not an unsigned 64-bit integer"},
      {{"--seed=18446744073709551616"}, "--seed: not an unsigned 64-bit integer"},
      {{"--output="}, "--output needs a non-empty value"},
      {{"--lattice=8x8x8"}, "--lattice needs 4 integers"},
      {{"--lattice=8x8x7x16"}, "--lattice=8x8x7x16: Lattice: extent Lz = 7 is odd"},
      {{"--masses=0.1,,0.2"}, "--masses: empty item"},
      {{"--masses=-5"}, "--masses: -5 is outside [-4, inf)"},
      {{"--sizes=1"}, "--sizes = 1 is out of range [2, 64]"},
      {{"--colour=green"}, "--colour must be one of red|blue, got 'green'"},
      {{"--custom=bad"}, "--custom: bad"},
      {{"--beta=5", "--beta=6"}, "--beta is given more than once"},
  };
  for (const auto& [args, message] : cases) {
    Program p;
    const std::string error = ErrorOf([&] { p.Parse(args); });
    EXPECT_NE(error.find(message), std::string::npos) << "args " << args[0] << ": got '" << error << "'";
  }
}

TEST(FlagSet, PositionalArgumentsOnlyWhereDeclared) {
  Program p;
  std::vector<std::string> files;
  p.flags.Positional("FILE", &files, 1, "configurations");
  ASSERT_TRUE(p.Parse({"a.cfg", "--beta=5", "b.cfg"}));
  EXPECT_EQ(files, (std::vector<std::string>{"a.cfg", "b.cfg"}));
  Program q;
  std::vector<std::string> none;
  q.flags.Positional("FILE", &none, 1, "configurations");
  EXPECT_NE(ErrorOf([&] { q.Parse({"--beta=5"}); }).find("needs at least 1 FILE"), std::string::npos);
  EXPECT_NE(q.flags.Usage().find("usage: program [flags] FILE..."), std::string::npos);
  Program r;
  std::vector<std::string> one;
  r.flags.Positional("DIR", &one, 1, "a directory", 1);
  EXPECT_NE(ErrorOf([&] { r.Parse({"a", "b"}); }).find("takes at most 1 DIR argument(s), got 2"), std::string::npos);
  EXPECT_NE(r.flags.Usage().find("usage: program [flags] DIR\n"), std::string::npos);
}

TEST(FlagSet, DeclaringAFlagTwiceIsAProgrammingError) {
  FlagSet flags("p", "");
  double x = 0;
  flags.Double("x", &x, "x");
  EXPECT_THROW(flags.Double("x", &x, "x"), std::logic_error);
  EXPECT_THROW(flags.Given("y"), std::logic_error);
}

TEST(RunMain, TurnsAnyExceptionIntoOneLineAndStatusOne) {
  EXPECT_EQ(RunMain("p", [] { return 3; }), 3);
  testing::internal::CaptureStderr();
  EXPECT_EQ(RunMain("prog", []() -> int { throw std::invalid_argument("bad\nflag"); }), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "prog: error: bad flag\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(RunMain("prog", []() -> int { throw std::runtime_error("no device"); }), 1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "prog: error: no device\n");
}

TEST(ParseLattice, ChecksTheLatticeWithoutBuildingIt) {
  EXPECT_EQ(ParseLattice("lattice", "4x4x4x8").volume(), 512);
  EXPECT_NE(ErrorOf([] { ParseLattice("lattice", "4x4x4x7"); }).find("--lattice=4x4x4x7: Lattice: extent Lt = 7"),
            std::string::npos);
  // 512^4 sites pass every extent check but are too many to index: refused before any allocation.
  EXPECT_NE(ErrorOf([] { ParseLattice("lattice", "512x512x512x512"); }).find("too large"), std::string::npos);
}

TEST(SplitList, NonEmptyItems) {
  EXPECT_EQ(SplitList("v", "a,b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_NE(ErrorOf([] { SplitList("v", ""); }).find("--v: empty item"), std::string::npos);
  EXPECT_NE(ErrorOf([] { SplitList("v", "a,"); }).find("--v: empty item"), std::string::npos);
}

TEST(ParseUnsigned64, DigitsOnly) {
  EXPECT_EQ(ParseUnsigned64("seed", "0"), 0u);
  for (const char* bad : {"", "+1", " 1", "1x", "-0", "0x10"}) {
    EXPECT_NE(ErrorOf([&] { ParseUnsigned64("seed", bad); }).find("--seed: not an unsigned"), std::string::npos)
        << bad;
  }
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

// A list of lattices: each parsed and checked as --lattice alone is, in order; the first bad one is named.
TEST(FlagSet, ExtentsListParsesAndChecksEveryLattice) {
  std::vector<Coordinates> lattices{{32, 32, 32, 32}};
  auto parse = [&](std::string arg) {  // a fresh flag set per command line, as a program has
    FlagSet flags{"program", "A test program."};
    flags.ExtentsList("lattice", &lattices, "lattices");
    std::vector<std::string> args{"program", arg};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    std::ostringstream out;
    return flags.Parse(static_cast<int>(argv.size()), argv.data(), out);
  };
  EXPECT_TRUE(parse("--lattice=8x8x8x16,24x24x24x64"));
  EXPECT_EQ(lattices, (std::vector<Coordinates>{{8, 8, 8, 16}, {24, 24, 24, 64}}));
  EXPECT_CONTAINS(ErrorOf([&] { parse("--lattice=8x8x8x16,24x24x24x63"); }), "--lattice=24x24x24x63");
  EXPECT_CONTAINS(ErrorOf([&] { parse("--lattice=8x8x8x16,24x24x24"); }), "--lattice");
  EXPECT_CONTAINS(ErrorOf([&] { parse("--lattice="); }), "--lattice");
  EXPECT_EQ(lattices, (std::vector<Coordinates>{{8, 8, 8, 16}, {24, 24, 24, 64}}));  // refusals change nothing
}

}  // namespace
}  // namespace lqcd::command_line
