// nersc_io.h: NERSC ("Gauge Connection") gauge configuration files, read and write.
//
// Layout: an ASCII header
//     BEGIN_HEADER
//     KEY = value            (one per line; DATATYPE, DIMENSION_1..4, CHECKSUM, PLAQUETTE, LINK_TRACE,
//     ...                     FLOATING_POINT, BOUNDARY_1..4, ENSEMBLE_ID, ...)
//     END_HEADER
// then binary links, site by site in lexicographic order (x fastest), mu = x, y, z, t, each link
// row-major (re, im):
//   - DATATYPE 4D_SU3_GAUGE_3x3: all three rows; 4D_SU3_GAUGE: rows 0 and 1, row 2 = conj(row0 x row1);
//   - FLOATING_POINT IEEE32BIG / IEEE32LITTLE / IEEE64BIG / IEEE64LITTLE (IEEE32 and IEEE64 mean big-endian).
// Checked by the reader (docs/configuration_formats.md): the header syntax and every required key, the
// extents against the data size (before allocating), CHECKSUM = sum mod 2^32 of the stored values as
// 32-bit words (a float64 counts as its two 32-bit halves), every link in SU(3), and PLAQUETTE
// (<Re Tr U_p>/3) and LINK_TRACE (<Re Tr U>/3) against the values recomputed from the links.
// Errors: GaugeFileError (gauge_file_common.h). The writer writes all of these keys, computed from the
// links as they will be read back (after rounding to the stored precision), and refuses links that the
// reader would reject.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/io/gauge_file_common.h"

namespace lqcd {

enum class NerscStorage { kTwoRows, kThreeRows };  // DATATYPE 4D_SU3_GAUGE / 4D_SU3_GAUGE_3x3

// The header is looked for in the first kMaxNerscHeaderBytes bytes only.
inline constexpr std::size_t kMaxNerscHeaderBytes = 1 << 16;

GaugeConfiguration ReadNerscFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                      const GaugeReadOptions& options = {});
GaugeConfiguration ReadNersc(const std::string& path, const GaugeReadOptions& options = {});

struct NerscWriteOptions {
  NerscStorage storage = NerscStorage::kThreeRows;
  FloatPrecision precision = FloatPrecision::kDouble;
  ByteOrder byte_order = ByteOrder::kBigEndian;
  std::string ensemble_id = "unspecified";
  std::string ensemble_label = "unspecified";
  int sequence_number = 0;
  std::string creator = "lqcd reference/nersc_io";
  std::string creation_date;  // empty: the current UTC time
};

std::vector<std::uint8_t> WriteNerscToBytes(const GaugeField<double>& u, const NerscWriteOptions& options = {});
void WriteNersc(const std::string& path, const GaugeField<double>& u, const NerscWriteOptions& options = {});

// The NERSC CHECKSUM of a field as it would be stored: sum mod 2^32 of the 32-bit words of the stored
// values (rows 0..1 or 0..2, rounded to the precision). Independent of byte order.
std::uint32_t NerscChecksum(const GaugeField<double>& u, NerscStorage storage, FloatPrecision precision);

}  // namespace lqcd
