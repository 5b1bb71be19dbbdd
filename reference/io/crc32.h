// crc32.h: the CRC-32 of zlib / IEEE 802.3 (what SciDAC checksums use per site).
//
// Computes: the cyclic redundancy check with generator polynomial 0x04C11DB7 in its bit-reflected form
// 0xEDB88320, initial value and final XOR 0xFFFFFFFF, input and output reflected ("CRC-32", check value
// Crc32("123456789") = 0xCBF43926). Table-driven, one byte at a time (256-entry table built once).
// Incremental: Crc32(b, n2, Crc32(a, n1)) == Crc32(a ++ b, n1 + n2), as zlib's crc32(crc, buf, len).
// No aliasing concerns: the input is only read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lqcd {

// CRC-32 of `size` bytes at `data`, continuing from the CRC `previous` of the bytes before them
// (0 for the start of a message).
std::uint32_t Crc32(const std::uint8_t* data, std::size_t size, std::uint32_t previous = 0);

}  // namespace lqcd
