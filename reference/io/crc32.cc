// crc32.cc: table-driven reflected CRC-32 (see crc32.h).
#include "reference/io/crc32.h"

#include <array>

namespace lqcd {
namespace {

constexpr std::uint32_t kReflectedPolynomial = 0xEDB88320u;

// table[b] is the CRC register after shifting the byte b through a zero register, 8 bit steps.
std::array<std::uint32_t, 256> MakeTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t reg = byte;
    for (int bit = 0; bit < 8; ++bit) reg = (reg & 1u) ? (reg >> 1) ^ kReflectedPolynomial : reg >> 1;
    table[byte] = reg;
  }
  return table;
}

}  // namespace

std::uint32_t Crc32(const std::uint8_t* data, std::size_t size, std::uint32_t previous) {
  static const std::array<std::uint32_t, 256> table = MakeTable();
  // The register holds the complement of the CRC between calls, so undo the final XOR of `previous`.
  std::uint32_t reg = ~previous;
  for (std::size_t i = 0; i < size; ++i) reg = table[(reg ^ data[i]) & 0xFFu] ^ (reg >> 8);
  return ~reg;
}

}  // namespace lqcd
