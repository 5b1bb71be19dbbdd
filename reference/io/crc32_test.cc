// crc32_test: the CRC-32 against its published check values, and its incremental form.
#include "reference/io/crc32.h"

#include <gtest/gtest.h>

#include <string>

namespace lqcd {
namespace {

std::uint32_t Crc32Of(const std::string& s, std::uint32_t previous = 0) {
  return Crc32(reinterpret_cast<const std::uint8_t*>(s.data()), s.size(), previous);
}

// The standard check value of CRC-32 (the catalogue of parametrised CRC algorithms, "CRC-32/ISO-HDLC").
TEST(Crc32Test, MatchesTheStandardCheckValue) { EXPECT_EQ(Crc32Of("123456789"), 0xCBF43926u); }

// Further published values: the empty message, and zlib's crc32 of the pangram.
TEST(Crc32Test, MatchesKnownValues) {
  EXPECT_EQ(Crc32Of(""), 0u);
  EXPECT_EQ(Crc32Of("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  EXPECT_EQ(Crc32Of("a"), 0xE8B7BE43u);
}

TEST(Crc32Test, IncrementalEqualsOneShot) {
  const std::string message = "lattice QCD on GPUs, mixed precision";
  for (std::size_t split = 0; split <= message.size(); ++split) {
    EXPECT_EQ(Crc32Of(message.substr(split), Crc32Of(message.substr(0, split))), Crc32Of(message)) << split;
  }
}

TEST(Crc32Test, DetectsEverySingleBitFlip) {
  std::string message = "123456789";
  const std::uint32_t clean = Crc32Of(message);
  for (std::size_t i = 0; i < message.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      message[i] ^= static_cast<char>(1 << bit);
      EXPECT_NE(Crc32Of(message), clean) << "byte " << i << " bit " << bit;
      message[i] ^= static_cast<char>(1 << bit);
    }
  }
}

}  // namespace
}  // namespace lqcd
