// tune_cache_test: the tuner's cache file (tune_cache.h) without a GPU: lines written by
// FormatTuneCacheLine read back exactly; every malformed line is skipped and counted, never half-used;
// later lines win; bad keys and results are refused when writing.
#include "gpu/tune_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace lqcd::gpu {
namespace {

ParsedTuneCache Parse(const std::string& text) {
  std::istringstream in(text);
  return ParseTuneCache(in);
}

TEST(TuneCache, WrittenLinesReadBackExactly) {
  const std::string key = "wilson_dslash half/12/gf V=16x16x16x32 @NVIDIA H100 80GB HBM3";
  const TuneResult r{256, 65.123456789012345};
  const std::string text = FormatTuneCacheLine(key, r) + FormatTuneCacheLine("blas Axpy<float> @other", {32, 0.0});
  const ParsedTuneCache parsed = Parse(text);
  EXPECT_EQ(parsed.skipped_lines, 0);
  ASSERT_EQ(parsed.entries.size(), 2u);
  EXPECT_EQ(parsed.entries.at(key).block, 256);
  EXPECT_EQ(parsed.entries.at(key).microseconds, r.microseconds);  // %.17g round-trips a double
  EXPECT_EQ(parsed.entries.at("blas Axpy<float> @other").block, 32);
}

TEST(TuneCache, LaterLinesWinAndEmptyLinesAreIgnored) {
  const ParsedTuneCache parsed = Parse("k\t64\t1.5\n\nk\t128\t1.25\n");
  EXPECT_EQ(parsed.skipped_lines, 0);
  EXPECT_EQ(parsed.entries.at("k").block, 128);
  EXPECT_EQ(parsed.entries.at("k").microseconds, 1.25);
}

TEST(TuneCache, MalformedLinesAreSkippedAndCounted) {
  const char* bad[] = {
      "k\t64",               // two fields (a truncated last line)
      "k\t64\t1.5\textra",   // four fields
      "k 64 1.5",            // spaces, not tabs
      "\t64\t1.5",           // empty key
      "k\t\t1.5",            // empty block
      "k\t64x\t1.5",         // trailing junk in the block
      "k\t0\t1.5",           // block not positive
      "k\t-32\t1.5",         // negative block
      "k\t48\t1.5",          // not a multiple of 32
      "k\t99999999999\t1.5",  // absurdly large
      "k\t64\t",             // empty time
      "k\t64\tfast",         // not a number
      "k\t64\t-1",           // negative time
      "k\t64\tnan",          // not finite
      "k\t64\tinf",
      "k\t64\t1.5\r",        // CRLF line ending
  };
  std::string text = "good\t96\t2.0\n";
  for (const char* line : bad) text += std::string(line) + "\n";
  text += "k\t64\t1";  // a valid last line without a newline
  const ParsedTuneCache parsed = Parse(text);
  EXPECT_EQ(parsed.skipped_lines, static_cast<int>(std::size(bad)));
  ASSERT_EQ(parsed.entries.size(), 2u);
  EXPECT_EQ(parsed.entries.at("good").block, 96);
  EXPECT_EQ(parsed.entries.at("k").block, 64);  // only the valid line defined k
  EXPECT_EQ(parsed.entries.at("k").microseconds, 1.0);
}

TEST(TuneCache, BinaryGarbageIsSkipped) {
  std::string garbage;
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>((i * 37) % 256);
  const ParsedTuneCache parsed = Parse(garbage);
  EXPECT_TRUE(parsed.entries.empty());
  EXPECT_GT(parsed.skipped_lines, 0);
}

TEST(TuneCache, WritingRefusesWhatReadingWouldSkip) {
  EXPECT_THROW(FormatTuneCacheLine("a\tb", {64, 1}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("a\nb", {64, 1}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("", {64, 1}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("k", {48, 1}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("k", {0, 1}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("k", {64, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  EXPECT_THROW(FormatTuneCacheLine("k", {64, -2}), std::invalid_argument);
}

}  // namespace
}  // namespace lqcd::gpu
