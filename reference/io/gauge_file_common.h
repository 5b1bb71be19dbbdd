// gauge_file_common.h: what the configuration-file readers and writers (NERSC, ILDG/SciDAC LIME, MILC)
// share: the error type, byte order and precision, the link coding, the checks every reader makes, and
// the metadata a reader returns beside the field.
//
// Conventions (docs/configuration_formats.md):
//   - Every file stores, site by site in lexicographic order (x fastest, t slowest), the four links
//     U_mu(n), mu = x, y, z, t, each a row-major 3x3 complex matrix of (re, im) pairs; "two-row" storage
//     keeps rows 0 and 1 only and the reader completes row 2 = conj(row0 x row1) (su3.h ThirdRow), in
//     double. Values are converted to double exactly (float32 -> double is exact).
//   - Every malformed input throws GaugeFileError, whose message starts with the source (the path, or the
//     name given to a ...FromBytes call) and names the field, the expected and the found value.
//   - Sizes are checked against the bytes actually present BEFORE anything proportional to a header value
//     is allocated.
//   - Links must be in SU(3): max |(U U^dag - 1)_ij| and |det U - 1| at most kUnitarityUlps * u, with u the
//     unit roundoff of the STORED precision (derivation in docs/configuration_formats.md), unless
//     GaugeReadOptions::unitarity_tolerance overrides it.
// Aliasing: the decode/encode helpers read one buffer and write another; they must not overlap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/gauge_field.h"
#include "reference/lattice.h"

namespace lqcd {

// A malformed, truncated, corrupted or unsupported configuration file (or one that cannot be opened).
class GaugeFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws GaugeFileError("<source>: <message>").
[[noreturn]] void ThrowGaugeFileError(const std::string& source, const std::string& message);

enum class ByteOrder { kBigEndian, kLittleEndian };
enum class FloatPrecision { kSingle, kDouble };
enum class GaugeFileFormat { kNersc, kLime, kMilc };

const char* ToString(ByteOrder order);           // "big-endian" / "little-endian"
const char* ToString(FloatPrecision precision);  // "float32" / "float64"
const char* ToString(GaugeFileFormat format);    // "NERSC" / "LIME (ILDG/SciDAC)" / "MILC v5"

inline int BytesPerReal(FloatPrecision p) { return p == FloatPrecision::kSingle ? 4 : 8; }
// Unit roundoff of the stored precision: 2^-24 for float32, 2^-53 for float64.
inline double UnitRoundoff(FloatPrecision p) { return p == FloatPrecision::kSingle ? 0x1.0p-24 : 0x1.0p-53; }

// Unitarity tolerance in units of the stored precision's unit roundoff (docs/configuration_formats.md,
// "What every reader checks": storage rounding 2u plus the writer's own reunitarisation, at most ~44u).
inline constexpr double kUnitarityUlps = 64;

struct GaugeReadOptions {
  // Accepted max |(U U^dag - 1)_ij| and |det U - 1| per link. <= 0: kUnitarityUlps * u(stored precision).
  double unitarity_tolerance = 0;
  // false skips the comparison of stored and computed checksums (NERSC CHECKSUM, MILC sum29/sum31,
  // SciDAC suma/sumb); every other check still runs. Only for the fuzzer (to reach the code behind the
  // checksums) and for inspecting damaged files; the metadata then lists no verified checksums.
  bool verify_checksums = true;
};

double UnitarityTolerance(FloatPrecision stored, const GaugeReadOptions& options);

// Fixed-width integers and reals in a given byte order (no alignment needed).
std::uint32_t LoadU32(const std::uint8_t* p, ByteOrder order);
std::uint64_t LoadU64(const std::uint8_t* p, ByteOrder order);
void StoreU32(std::uint32_t value, ByteOrder order, std::uint8_t* p);
void StoreU64(std::uint64_t value, ByteOrder order, std::uint8_t* p);
double LoadReal(const std::uint8_t* p, FloatPrecision precision, ByteOrder order);
// Stores value rounded to the precision (round to nearest for float32).
void StoreReal(double value, FloatPrecision precision, ByteOrder order, std::uint8_t* p);

// One link in file layout: `rows` (2 or 3) rows of 3 complex (re, im) numbers.
inline std::size_t StoredLinkBytes(int rows, FloatPrecision precision) {
  return static_cast<std::size_t>(rows) * 3 * 2 * BytesPerReal(precision);
}
ColorMatrix<double> DecodeLink(const std::uint8_t* p, int rows, FloatPrecision precision, ByteOrder order);
void EncodeLink(const ColorMatrix<double>& link, int rows, FloatPrecision precision, ByteOrder order, std::uint8_t* p);

// Whole files. ReadFileBytes throws GaugeFileError if the file cannot be opened or read.
std::vector<std::uint8_t> ReadFileBytes(const std::string& path);
void WriteFileBytes(const std::string& path, const std::vector<std::uint8_t>& bytes);

// The lattice of a header's extents. names[mu] is the header field of extent mu (e.g. "DIMENSION_1") for
// the message. Rejects extents that are not positive, odd (the oracle's Lattice splits even/odd) or above
// Lattice::kMaxExtent. Call it only after CheckByteCount: it allocates the neighbour tables.
Lattice LatticeFromHeader(const std::string& source, const std::array<std::int64_t, kDims>& extents,
                          const std::array<std::string, kDims>& names);
// Validates extents as LatticeFromHeader does, without allocating; returns the volume.
std::uint64_t VolumeFromHeader(const std::string& source, const std::array<std::int64_t, kDims>& extents,
                               const std::array<std::string, kDims>& names);

// Throws unless found == expected: "<what>: expected <expected> bytes, found <found>".
void CheckByteCount(const std::string& source, const std::string& what, std::uint64_t expected, std::uint64_t found);

// A checksum that a file stored and the reader recomputed (equal, or the reader would have thrown).
struct VerifiedChecksum {
  std::string name;  // e.g. "CHECKSUM", "sum29", "suma"
  std::uint32_t value = 0;
};

// A header value the reader recomputed from the links and found within tolerance.
struct VerifiedValue {
  std::string name;    // e.g. "PLAQUETTE"
  std::string stored;  // as written in the file
  double computed = 0;
  double tolerance = 0;
};

// What a reader found out about the file besides the links.
struct GaugeFileMetadata {
  GaugeFileFormat format = GaugeFileFormat::kNersc;
  std::string source;
  FloatPrecision precision = FloatPrecision::kDouble;
  ByteOrder byte_order = ByteOrder::kBigEndian;
  int stored_rows = 3;  // 2 for NERSC 4D_SU3_GAUGE, else 3
  Coordinates extents{};
  // The header as found: NERSC "KEY = value" lines; MILC's fields; one entry per LIME record (type ->
  // XML text, or "<N bytes>" for binary data). In file order.
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<VerifiedChecksum> checksums;
  std::vector<VerifiedValue> values;
  double max_unitarity_deviation = 0;    // max over links of max |(U U^dag - 1)_ij|
  double max_determinant_deviation = 0;  // max over links of |det U - 1|
  double unitarity_tolerance = 0;

  // The header entry with this key; throws std::out_of_range if absent.
  const std::string& HeaderValue(const std::string& key) const;
  // The verified checksum of this name; throws std::out_of_range if absent.
  std::uint32_t Checksum(const std::string& name) const;
  // Several lines: format, precision, lattice, every verified checksum and value, unitarity.
  std::string Describe() const;
};

// A configuration read from a file: the links in double and what was checked.
struct GaugeConfiguration {
  GaugeField<double> field;
  GaugeFileMetadata metadata;
};

// Checks that every link is finite and in SU(3) within `tolerance`; records the maxima in *metadata.
// Throws naming the first failing link by coordinates, site index and direction.
void CheckLinksAreSU3(const std::string& source, const GaugeField<double>& u, double tolerance,
                      GaugeFileMetadata* metadata);

// Half a unit in the last printed digit of a decimal number ("0.0382422893" -> 5e-11, "1.5e-3" -> 5e-5).
double PrintedResolution(const std::string& text);

// Compares a header value (text) with the value recomputed from the links, averaged over n_terms terms
// each of magnitude <= 1: tolerance = PrintedResolution(text) + 8 u(stored) + 2 n_terms 2^-53
// (docs/configuration_formats.md). Appends it to metadata->values, or throws.
void CheckHeaderValue(const std::string& source, const std::string& name, const std::string& text, double computed,
                      FloatPrecision stored, double n_terms, GaugeFileMetadata* metadata);

// Strict number parsing of header text: the whole (trimmed) text must be the number. Throw GaugeFileError
// naming `field` otherwise.
std::int64_t ParseHeaderInteger(const std::string& source, const std::string& field, const std::string& text);
double ParseHeaderReal(const std::string& source, const std::string& field, const std::string& text);
std::uint32_t ParseHeaderHex32(const std::string& source, const std::string& field, const std::string& text);

std::string Hex32(std::uint32_t value);  // 8 lowercase hex digits, no prefix
std::string Trim(const std::string& text);
// Printable rendering of arbitrary bytes for messages: printable ASCII kept, others as \xNN, cut at max.
std::string Printable(const std::string& bytes, std::size_t max_length = 64);

}  // namespace lqcd
