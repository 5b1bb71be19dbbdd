// milc_io.h: MILC version-5 binary gauge configuration files (read; a writer for tests and conversions).
//
// Layout (all 32-bit words in the writer's byte order):
//     int32 magic = 20103      the byte order is whichever of big/little-endian reads 20103
//     int32 dims[4]            nx, ny, nz, nt
//     char  time_stamp[64]
//     int32 order              0: sites in natural (lexicographic, x fastest) order;
//                              1: a site list of V int32 (x + nx (y + ny (z + nz t))) follows the header
//                                 and gives the site of each record in file order
//     uint32 sum29, sum31      checksums of the data
// 96 bytes in all; then per site 4 links mu = x, y, z, t of 3x3 float32 complex, row-major (288 bytes).
// Checksums over the data's 32-bit words w_k in file order, k = 0 .. 72V - 1 (values in the file's byte
// order): sum29 = XOR_k rotl32(w_k, k mod 29), sum31 = XOR_k rotl32(w_k, k mod 31).
// Checked by the reader: magic, extents against the file size (before allocating), order and the site
// list (a permutation), both checksums, every link in SU(3). Errors: GaugeFileError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/io/gauge_file_common.h"

namespace lqcd {

inline constexpr std::int32_t kMilcMagic = 20103;
inline constexpr std::size_t kMilcHeaderBytes = 96;

struct MilcChecksums {
  std::uint32_t sum29 = 0, sum31 = 0;
};

// The checksums of n_words 32-bit words at `data`, read in the given byte order.
MilcChecksums ComputeMilcChecksums(const std::uint8_t* data, std::size_t n_words, ByteOrder order);

GaugeConfiguration ReadMilcFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                     const GaugeReadOptions& options = {});
GaugeConfiguration ReadMilc(const std::string& path, const GaugeReadOptions& options = {});

// A MILC v5 file in float32; time_stamp is cut to 63 characters. site_of_record empty: natural order
// (order = 0). Otherwise it must be a permutation of 0 .. V-1 (else std::invalid_argument): record r holds
// site site_of_record[r], and the list is written after the header (order = 1).
std::vector<std::uint8_t> WriteMilcToBytes(const GaugeField<double>& u, ByteOrder order, const std::string& time_stamp,
                                           const std::vector<std::uint32_t>& site_of_record = {});

}  // namespace lqcd
