// lime_io.h: ILDG and SciDAC gauge configurations in LIME files, read and write.
//
// LIME: a sequence of records, each a 144-byte big-endian header
//     uint32 magic 0x456789AB, uint16 version (1), uint16 flags (bit 15 message begin, bit 14 message end),
//     uint64 data length, char type[128] (NUL-terminated)
// followed by the data, padded with zeros to a multiple of 8 bytes.
// Records used here (others are kept in the metadata and otherwise ignored):
//   - ildg-format: XML with <field>su3gauge</field>, <precision>32|64</precision>, <lx> <ly> <lz> <lt>;
//   - scidac-private-file-xml: <dims>lx ly lz lt</dims> (and <spacetime>4</spacetime>, <volfmt>0</volfmt>);
//   - scidac-private-record-xml: <precision>F|D</precision>, <colors>3</colors>, <typesize>72|144</typesize>,
//     <datacount>4</datacount>;
//   - ildg-binary-data or scidac-binary-data (exactly one): the links, big-endian float32 or float64, site
//     by site in lexicographic order (x fastest), mu = x, y, z, t, 3x3 row-major (re, im);
//   - scidac-checksum: <suma> <sumb> in hex. c_r = CRC-32 (crc32.h) of site r's bytes as stored,
//     suma = XOR_r rotl32(c_r, r mod 29), sumb = XOR_r rotl32(c_r, r mod 31).
// Extents and precision come from ildg-format, else from the SciDAC private XML; where both exist they
// must agree. Checked by the reader: the record structure, the metadata above, the binary length against
// extents and precision (before allocating), the SciDAC checksum when present, every link in SU(3).
// Errors: GaugeFileError. The writer writes all of the records above (SciDAC and ILDG at once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/gauge_file_common.h"

namespace lqcd {

inline constexpr std::uint32_t kLimeMagic = 0x456789ABu;
inline constexpr std::size_t kLimeHeaderBytes = 144;

struct LimeRecord {
  std::string type;
  std::uint16_t version = 1;
  bool message_begin = false, message_end = false;
  std::uint64_t header_offset = 0;  // where the 144-byte header starts
  std::uint64_t data_offset = 0;
  std::uint64_t data_length = 0;  // without the padding
};

// The records of a LIME file; throws GaugeFileError on a bad magic, version, type or length.
std::vector<LimeRecord> ParseLimeRecords(const std::uint8_t* data, std::size_t size, const std::string& source);

struct ScidacChecksum {
  std::uint32_t suma = 0, sumb = 0;
};

// The SciDAC checksum of `volume` consecutive site records of site_bytes bytes each, as stored.
ScidacChecksum ComputeScidacChecksum(const std::uint8_t* data, std::size_t site_bytes, std::size_t volume);

GaugeConfiguration ReadLimeFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                     const GaugeReadOptions& options = {});
GaugeConfiguration ReadLime(const std::string& path, const GaugeReadOptions& options = {});

struct LimeWriteOptions {
  FloatPrecision precision = FloatPrecision::kDouble;
  std::string file_xml = "<?xml version=\"1.0\"?><info>written by lqcd reference/lime_io</info>";
  std::string record_xml = "<?xml version=\"1.0\"?><info>gauge configuration</info>";
  std::string date;  // empty: the current UTC time
  std::string lfn;   // ildg-data-lfn record, written if not empty
};

std::vector<std::uint8_t> WriteLimeToBytes(const GaugeField<double>& u, const LimeWriteOptions& options = {});
void WriteLime(const std::string& path, const GaugeField<double>& u, const LimeWriteOptions& options = {});

// The trimmed text between <tag ...> and </tag> (first occurrence); std::nullopt if there is none.
std::optional<std::string> XmlElementText(const std::string& xml, const std::string& tag);

}  // namespace lqcd
