// gauge_file_fuzz_regression_test: a short, deterministic stand-in for the libFuzzer run that works
// with plain g++. It feeds the fuzz entry point (gauge_file_fuzz_target.h)
//   - the corpus: the synthetic seeds (always) and the sample files of ../shared/data/gauge (if present),
//     every one of which must be accepted;
//   - a few hand-made edge cases (TrickyInputs below; the libFuzzer runs found no crash in the readers,
//     see docs/configuration_formats.md, so there are no fuzzer reproducers to keep yet);
//   - a few thousand Philox-driven mutations of the corpus (bit flips, byte writes, truncation,
//     insertion, deletion, "interesting" integers, digit edits in the text headers, copied chunks),
// and asserts that every input is either accepted (with the entry point's invariants) or rejected with
// a GaugeFileError: no other exception, no crash (a crash fails the test binary).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "reference/io/fuzz/fuzz_seeds.h"
#include "reference/io/fuzz/gauge_file_fuzz_target.h"
#include "reference/io/gauge_io_testing.h"
#include "reference/random.h"

namespace lqcd {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::vector<FuzzSeed> Corpus() {
  std::vector<FuzzSeed> corpus = SyntheticFuzzSeeds();
  for (const char* name : {"lat.sample.l4444", "lat.sample.l4444.ildg", "lat.sample.l4448", "lat.sample.l4448.scidac",
                           "lat.sample.l8888", "weak_field.lime", "t_nersc.cfg"}) {
    const std::string path = SampleGaugeFile(name);
    if (!path.empty()) corpus.push_back({name, ReadFileBytes(path)});
  }
  return corpus;
}

// Runs one input; returns "" if it was handled properly, else what escaped.
std::string Escaped(const Bytes& input, FuzzOutcome* outcome, std::string* rejection) {
  try {
    *outcome = FuzzGaugeFileInput(input.data(), input.size(), rejection);
    return "";
  } catch (const std::exception& e) {
    return std::string("exception escaped: ") + e.what();
  } catch (...) {
    return "non-standard exception escaped";
  }
}

TEST(GaugeFileFuzzRegressionTest, EveryCorpusFileIsAccepted) {
  const std::vector<FuzzSeed> corpus = Corpus();
  std::printf("corpus: %zu files (%s)\n", corpus.size(),
              SampleGaugeFile("README.md").empty() ? "synthetic only; sample files absent" : "synthetic + samples");
  for (const FuzzSeed& seed : corpus) {
    FuzzOutcome outcome = FuzzOutcome::kRejected;
    std::string rejection;
    EXPECT_EQ(Escaped(seed.bytes, &outcome, &rejection), "") << seed.name;
    EXPECT_EQ(outcome, FuzzOutcome::kAccepted) << seed.name << ": " << rejection;
  }
}

// Hand-made edge cases at the limits of the parsers; each must be rejected cleanly. Add any reproducer a
// fuzzer run finds here (as bytes), so it stays fixed.
struct TrickyInput {
  const char* what;
  Bytes bytes;
};

std::vector<TrickyInput> TrickyInputs() {
  const std::string nersc_dims_overflow =
      "BEGIN_HEADER\nDATATYPE = 4D_SU3_GAUGE\nFLOATING_POINT = IEEE32BIG\nDIMENSION_1 = 999999999999999999\n"
      "DIMENSION_2 = 2\nDIMENSION_3 = 2\nDIMENSION_4 = 2\nCHECKSUM = 0\nPLAQUETTE = 1\nLINK_TRACE = 1\nEND_HEADER\n";
  const std::string nersc_no_newline = "BEGIN_HEADER\nEND_HEADER";
  return {
      {"NERSC extent near the int64 limit", Bytes(nersc_dims_overflow.begin(), nersc_dims_overflow.end())},
      {"NERSC END_HEADER at the end of the input", Bytes(nersc_no_newline.begin(), nersc_no_newline.end())},
      {"LIME magic alone", {0x45, 0x67, 0x89, 0xab}},
      {"MILC magic alone", {0x87, 0x4e, 0x00, 0x00}},
  };
}

TEST(GaugeFileFuzzRegressionTest, KnownTrickyInputsAreRejectedCleanly) {
  for (const TrickyInput& input : TrickyInputs()) {
    FuzzOutcome outcome = FuzzOutcome::kAccepted;
    std::string rejection;
    EXPECT_EQ(Escaped(input.bytes, &outcome, &rejection), "") << input.what;
    EXPECT_EQ(outcome, FuzzOutcome::kRejected) << input.what;
    EXPECT_NE(rejection.find("fuzz input: "), std::string::npos) << input.what << ": " << rejection;
  }
}

// One mutation of `input` chosen by the random stream.
void Mutate(Bytes* input, RandomStream* rng) {
  Bytes& b = *input;
  auto position = [&](std::size_t limit) -> std::size_t {
    // Half of the edits land in the first 1 KiB, where the headers are.
    const std::size_t span = (rng->NextWord() & 1) ? std::min<std::size_t>(limit, 1024) : limit;
    return span == 0 ? 0 : rng->NextWord() % span;
  };
  static const std::uint32_t kInteresting[] = {0,          1,          2,          3,          4,       8,
                                               16,         20103,      512,        513,        65536,   0x7fffffff,
                                               0x80000000, 0xffffffff, 0x456789ab, 0xfffffffe, 1u << 20};
  switch (rng->NextWord() % 8) {
    case 0:  // flip a bit
      if (!b.empty()) b[position(b.size())] ^= static_cast<std::uint8_t>(1u << (rng->NextWord() % 8));
      break;
    case 1:  // write a random byte
      if (!b.empty()) b[position(b.size())] = static_cast<std::uint8_t>(rng->NextWord());
      break;
    case 2:  // truncate
      b.resize(b.empty() ? 0 : rng->NextWord() % b.size());
      break;
    case 3: {  // insert 1..16 random bytes
      const std::size_t at = position(b.size() + 1), n = 1 + rng->NextWord() % 16;
      Bytes extra(n);
      for (auto& x : extra) x = static_cast<std::uint8_t>(rng->NextWord());
      b.insert(b.begin() + at, extra.begin(), extra.end());
      break;
    }
    case 4: {  // erase 1..64 bytes
      if (b.empty()) break;
      const std::size_t at = position(b.size()), n = std::min<std::size_t>(1 + rng->NextWord() % 64, b.size() - at);
      b.erase(b.begin() + at, b.begin() + at + n);
      break;
    }
    case 5: {  // an interesting 32- or 64-bit integer, either byte order, often aligned
      const bool wide = rng->NextWord() & 1;
      const std::size_t width = wide ? 8 : 4;
      if (b.size() < width) break;
      std::size_t at = position(b.size() - width + 1);
      if (rng->NextWord() & 1) at -= at % width;
      const ByteOrder order = (rng->NextWord() & 1) ? ByteOrder::kBigEndian : ByteOrder::kLittleEndian;
      const std::uint32_t value = kInteresting[rng->NextWord() % (sizeof kInteresting / sizeof kInteresting[0])];
      if (wide) {
        const std::uint64_t v = (rng->NextWord() & 1) ? (std::uint64_t{value} << 32) | value : std::uint64_t{value};
        StoreU64(v, order, b.data() + at);
      } else {
        StoreU32(value, order, b.data() + at);
      }
      break;
    }
    case 6: {  // edit a digit of a text header (NERSC header, LIME XML)
      std::vector<std::size_t> digits;
      for (std::size_t i = 0; i < std::min<std::size_t>(b.size(), 4096); ++i) {
        if (b[i] >= '0' && b[i] <= '9') digits.push_back(i);
      }
      if (digits.empty()) break;
      const std::size_t at = digits[rng->NextWord() % digits.size()];
      static const char kReplacements[] = "0123456789-.e ";
      b[at] = static_cast<std::uint8_t>(kReplacements[rng->NextWord() % (sizeof kReplacements - 1)]);
      break;
    }
    default: {  // copy a chunk over another place
      if (b.size() < 2) break;
      const std::size_t from = rng->NextWord() % b.size(), to = position(b.size());
      const std::size_t n = std::min({std::size_t{1} + rng->NextWord() % 256, b.size() - from, b.size() - to});
      std::copy(b.begin() + from, b.begin() + from + n, b.begin() + to);
      break;
    }
  }
}

// A coarse class of a rejection message, for the statistics printed by the test.
std::string Category(const std::string& message) {
  static const char* kClasses[][2] = {
      {"not a gauge configuration", "unknown format"},
      {"CHECKSUM = ", "NERSC CHECKSUM mismatch"},
      {"MILC checksums", "MILC sum29/sum31 mismatch"},
      {"scidac-checksum: suma", "SciDAC checksum mismatch"},
      {"not in SU(3)", "link not in SU(3)"},
      {"header PLAQUETTE", "PLAQUETTE mismatch"},
      {"header LINK_TRACE", "LINK_TRACE mismatch"},
      {"bytes, found", "size does not match the header"},
      {"remain (file truncated?)", "LIME record longer than the file"},
      {"padding", "LIME padding missing"},
      {"fewer than a 144-byte", "LIME record header truncated"},
      {": magic 0x", "LIME magic"},
      {"MILC: magic", "MILC magic"},
      {"extent", "bad lattice extent"},
      {"NERSC header", "other NERSC header error"},
      {"ildg-format", "ildg-format XML"},
      {"scidac", "SciDAC XML"},
      {"LIME", "other LIME error"},
      {"MILC", "other MILC error"},
  };
  for (const auto& c : kClasses) {
    if (message.find(c[0]) != std::string::npos) return c[1];
  }
  return "other";
}

TEST(GaugeFileFuzzRegressionTest, DeterministicMutationsAreAcceptedOrRejectedWithGaugeFileError) {
  const std::vector<FuzzSeed> corpus = Corpus();
  constexpr int kMutations = 4000;
  constexpr std::uint64_t kSeed = 0x5EED2026;
  int accepted = 0, rejected = 0, escaped = 0;
  std::map<std::string, int> reasons;  // rejection messages by their first words, for the log
  for (int m = 0; m < kMutations; ++m) {
    RandomStream rng(kSeed, static_cast<std::uint64_t>(m));
    Bytes input = corpus[rng.NextWord() % corpus.size()].bytes;
    const int edits = 1 + static_cast<int>(rng.NextWord() % 3);
    for (int e = 0; e < edits; ++e) Mutate(&input, &rng);
    FuzzOutcome outcome = FuzzOutcome::kRejected;
    std::string rejection;
    const std::string escape = Escaped(input, &outcome, &rejection);
    if (!escape.empty()) {
      ++escaped;
      ADD_FAILURE() << "mutation " << m << " (" << input.size() << " bytes): " << escape;
      continue;
    }
    if (outcome == FuzzOutcome::kAccepted) {
      ++accepted;
    } else {
      ++rejected;
      EXPECT_EQ(rejection.rfind("fuzz input: ", 0), 0u) << "mutation " << m << ": " << rejection;
      ++reasons[Category(rejection)];
    }
  }
  std::printf("%d mutations of %zu corpus files: %d accepted, %d rejected with GaugeFileError, %d escaped\n",
              kMutations, corpus.size(), accepted, rejected, escaped);
  for (const auto& [reason, count] : reasons) std::printf("  %5d x %s\n", count, reason.c_str());
  EXPECT_EQ(escaped, 0);
  // Most mutations break a checksum, a size or a header: if nearly all were accepted, the checks would
  // not be running. Some are accepted (edits in unchecked text such as a time stamp or an XML comment).
  EXPECT_GT(rejected, kMutations * 3 / 4);
}

}  // namespace
}  // namespace lqcd
