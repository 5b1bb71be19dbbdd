// nersc_io.cc: NERSC gauge configuration reader and writer (see nersc_io.h).
#include "reference/io/nersc_io.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>

#include "reference/plaquette.h"

namespace lqcd {
namespace {

struct FloatingPointName {
  const char* name;
  FloatPrecision precision;
  ByteOrder order;
};

// The spellings in use. A bare IEEE32 / IEEE64 is the historical big-endian default.
constexpr FloatingPointName kFloatingPointNames[] = {
    {"IEEE32BIG", FloatPrecision::kSingle, ByteOrder::kBigEndian},
    {"IEEE32LITTLE", FloatPrecision::kSingle, ByteOrder::kLittleEndian},
    {"IEEE64BIG", FloatPrecision::kDouble, ByteOrder::kBigEndian},
    {"IEEE64LITTLE", FloatPrecision::kDouble, ByteOrder::kLittleEndian},
    {"IEEE32", FloatPrecision::kSingle, ByteOrder::kBigEndian},
    {"IEEE64", FloatPrecision::kDouble, ByteOrder::kBigEndian},
};

const char* kDimensionKeys[kDims] = {"DIMENSION_1", "DIMENSION_2", "DIMENSION_3", "DIMENSION_4"};
const char* kBoundaryKeys[kDims] = {"BOUNDARY_1", "BOUNDARY_2", "BOUNDARY_3", "BOUNDARY_4"};

int RowsOf(NerscStorage storage) { return storage == NerscStorage::kTwoRows ? 2 : 3; }
const char* DatatypeOf(NerscStorage storage) {
  return storage == NerscStorage::kTwoRows ? "4D_SU3_GAUGE" : "4D_SU3_GAUGE_3x3";
}
const char* FloatingPointOf(FloatPrecision precision, ByteOrder order) {
  for (const auto& f : kFloatingPointNames) {
    if (f.precision == precision && f.order == order) return f.name;
  }
  return "?";
}

// Sum mod 2^32 of the stored reals as 32-bit words; a float64 contributes its high and low halves, so
// the sum does not depend on the byte order the words were written in.
// Addition mod 2^32 is associative and commutative, so the threads' partial sums give the same result in any
// order.
std::uint32_t StoredWordSum(const std::uint8_t* data, std::size_t n_reals, FloatPrecision precision, ByteOrder order) {
  std::uint32_t sum = 0;
  const std::int64_t n = static_cast<std::int64_t>(n_reals);
  if (precision == FloatPrecision::kSingle) {
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) sum += LoadU32(data + 4 * i, order);
  } else {
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint64_t bits = LoadU64(data + 8 * i, order);
      sum += static_cast<std::uint32_t>(bits) + static_cast<std::uint32_t>(bits >> 32);
    }
  }
  return sum;
}

std::string ExtentsText(const std::array<std::int64_t, kDims>& e) {
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]) + "x" + std::to_string(e[3]);
}

std::string CurrentUtcDate() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y UTC", &utc);
  return text;
}

void CheckHeaderText(const std::string& key, const std::string& value) {
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      throw std::invalid_argument("WriteNersc: " + key + " must be printable ASCII on one line, got '" +
                                  Printable(value) + "'");
    }
  }
}

}  // namespace

GaugeConfiguration ReadNerscFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                      const GaugeReadOptions& options) {
  // 1. The header: BEGIN_HEADER ... END_HEADER, within the first kMaxNerscHeaderBytes bytes.
  const std::string head(reinterpret_cast<const char*>(data), std::min(size, kMaxNerscHeaderBytes));
  const std::string kBegin = "BEGIN_HEADER";
  if (head.compare(0, kBegin.size(), kBegin) != 0) {
    ThrowGaugeFileError(source, "NERSC: the file does not start with BEGIN_HEADER (found '" +
                                    Printable(head.substr(0, kBegin.size())) + "')");
  }
  const std::size_t end_at = head.find("\nEND_HEADER");
  if (end_at == std::string::npos) {
    ThrowGaugeFileError(source,
                        "NERSC header: no END_HEADER line within the first " + std::to_string(head.size()) + " bytes");
  }
  const std::size_t newline = head.find('\n', end_at + 1);
  if (newline == std::string::npos || Trim(head.substr(end_at + 1, newline - end_at - 1)) != "END_HEADER") {
    ThrowGaugeFileError(source, "NERSC header: END_HEADER must be alone on its line, followed by a newline");
  }
  const std::size_t data_offset = newline + 1;
  for (std::size_t i = 0; i < end_at; ++i) {
    const unsigned char c = static_cast<unsigned char>(head[i]);
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c >= 0x7f) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", c);
      ThrowGaugeFileError(
          source, std::string("NERSC header: byte ") + byte + " at offset " + std::to_string(i) + " is not text");
    }
  }

  GaugeFileMetadata meta;
  meta.format = GaugeFileFormat::kNersc;
  meta.source = source;
  std::map<std::string, std::string> keys;
  std::map<std::string, int> line_of;
  {
    const std::size_t first_newline = head.find('\n');
    if (Trim(head.substr(0, first_newline)) != kBegin) {
      ThrowGaugeFileError(source, "NERSC header: BEGIN_HEADER must be alone on the first line");
    }
    std::size_t pos = first_newline + 1;
    int line_number = 2;
    while (pos <= end_at) {
      const std::size_t eol = head.find('\n', pos);
      const std::string line = Trim(head.substr(pos, eol - pos));
      pos = eol + 1;
      if (!line.empty()) {
        const std::size_t eq = line.find('=');
        const std::string key = eq == std::string::npos ? "" : Trim(line.substr(0, eq));
        if (key.empty()) {
          ThrowGaugeFileError(source, "NERSC header line " + std::to_string(line_number) + " '" + Printable(line) +
                                          "' is not KEY = value");
        }
        const std::string value = Trim(line.substr(eq + 1));
        if (keys.count(key)) {
          ThrowGaugeFileError(source, "NERSC header: " + key + " appears twice (lines " + std::to_string(line_of[key]) +
                                          " and " + std::to_string(line_number) + ")");
        }
        keys[key] = value;
        line_of[key] = line_number;
        meta.header.emplace_back(key, value);
      }
      ++line_number;
    }
  }
  auto required = [&](const std::string& key) -> const std::string& {
    const auto it = keys.find(key);
    if (it == keys.end()) ThrowGaugeFileError(source, "NERSC header: required key " + key + " is missing");
    return it->second;
  };

  // 2. What the header says about the data.
  const std::string& datatype = required("DATATYPE");
  NerscStorage storage;
  if (datatype == "4D_SU3_GAUGE") {
    storage = NerscStorage::kTwoRows;
  } else if (datatype == "4D_SU3_GAUGE_3x3") {
    storage = NerscStorage::kThreeRows;
  } else {
    ThrowGaugeFileError(source, "NERSC header: DATATYPE = '" + Printable(datatype) +
                                    "' is neither 4D_SU3_GAUGE (two rows stored) nor 4D_SU3_GAUGE_3x3");
  }
  const std::string& floating_point = required("FLOATING_POINT");
  const FloatingPointName* fp = nullptr;
  for (const auto& f : kFloatingPointNames) {
    if (floating_point == f.name) fp = &f;
  }
  if (fp == nullptr) {
    ThrowGaugeFileError(source, "NERSC header: FLOATING_POINT = '" + Printable(floating_point) +
                                    "' is none of IEEE32BIG, IEEE32LITTLE, IEEE64BIG, IEEE64LITTLE, IEEE32, IEEE64");
  }
  std::array<std::int64_t, kDims> extents{};
  std::array<std::string, kDims> names;
  for (int mu = 0; mu < kDims; ++mu) {
    names[mu] = kDimensionKeys[mu];
    extents[mu] =
        ParseHeaderInteger(source, std::string("NERSC header: ") + kDimensionKeys[mu], required(kDimensionKeys[mu]));
  }
  const std::uint64_t volume = VolumeFromHeader(source + ": NERSC header", extents, names);
  for (int mu = 0; mu < kDims; ++mu) {
    const auto it = keys.find(kBoundaryKeys[mu]);
    if (it != keys.end() && it->second != "PERIODIC" && it->second != "ANTIPERIODIC") {
      ThrowGaugeFileError(source, std::string("NERSC header: ") + kBoundaryKeys[mu] + " = '" + Printable(it->second) +
                                      "' is neither PERIODIC nor ANTIPERIODIC");
    }
  }
  const std::uint32_t stored_checksum = ParseHeaderHex32(source, "NERSC header: CHECKSUM", required("CHECKSUM"));
  const std::string& plaquette_text = required("PLAQUETTE");
  const std::string& link_trace_text = required("LINK_TRACE");
  ParseHeaderReal(source, "NERSC header: PLAQUETTE", plaquette_text);
  ParseHeaderReal(source, "NERSC header: LINK_TRACE", link_trace_text);

  // 3. The data size, before anything is allocated.
  const int rows = RowsOf(storage);
  const std::uint64_t reals = volume * kDims * rows * 6;
  CheckByteCount(source,
                 "NERSC data after the " + std::to_string(data_offset) + "-byte header (" + ExtentsText(extents) +
                     ", " + datatype + ", " + fp->name + ")",
                 reals * BytesPerReal(fp->precision), size - data_offset);
  const std::uint8_t* payload = data + data_offset;

  // 4. CHECKSUM, cheap, before decoding.
  const std::uint32_t computed_checksum = StoredWordSum(payload, reals, fp->precision, fp->order);
  if (options.verify_checksums && computed_checksum != stored_checksum) {
    ThrowGaugeFileError(source, "NERSC header: CHECKSUM = " + Hex32(stored_checksum) + " but the data sum to " +
                                    Hex32(computed_checksum) +
                                    " (sum mod 2^32 of the stored 32-bit words): data corrupted or header wrong");
  }
  if (options.verify_checksums) meta.checksums.push_back({"CHECKSUM", computed_checksum});

  // 5. The links, their unitarity, and the gauge-invariant header values.
  meta.precision = fp->precision;
  meta.byte_order = fp->order;
  meta.stored_rows = rows;
  GaugeConfiguration config{GaugeField<double>(LatticeFromHeader(source, extents, names)), GaugeFileMetadata{}};
  GaugeField<double>& u = config.field;
  meta.extents = u.lattice().extents();
  const std::size_t link_bytes = StoredLinkBytes(rows, fp->precision);
  const std::int64_t links = static_cast<std::int64_t>(u.links().size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < links; ++i) {
    u.links()[i] = DecodeLink(payload + i * link_bytes, rows, fp->precision, fp->order);
  }
  CheckLinksAreSU3(source, u, UnitarityTolerance(fp->precision, options), &meta);
  const double v = static_cast<double>(volume);
  CheckHeaderValue(source, "PLAQUETTE", plaquette_text, MeasurePlaquette(u).total, fp->precision, 6 * v, &meta);
  CheckHeaderValue(source, "LINK_TRACE", link_trace_text, LinkTrace(u), fp->precision, 4 * v, &meta);
  config.metadata = std::move(meta);
  return config;
}

GaugeConfiguration ReadNersc(const std::string& path, const GaugeReadOptions& options) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  return ReadNerscFromBytes(bytes.data(), bytes.size(), path, options);
}

std::uint32_t NerscChecksum(const GaugeField<double>& u, NerscStorage storage, FloatPrecision precision) {
  const int rows = RowsOf(storage);
  const std::size_t link_bytes = StoredLinkBytes(rows, precision);
  std::vector<std::uint8_t> stored(link_bytes);
  std::uint32_t sum = 0;
  for (const auto& link : u.links()) {
    EncodeLink(link, rows, precision, ByteOrder::kBigEndian, stored.data());
    sum += StoredWordSum(stored.data(), rows * 6, precision, ByteOrder::kBigEndian);
  }
  return sum;
}

std::vector<std::uint8_t> WriteNerscToBytes(const GaugeField<double>& u, const NerscWriteOptions& options) {
  for (const auto& [key, value] : {std::pair<const char*, const std::string&>{"ENSEMBLE_ID", options.ensemble_id},
                                   {"ENSEMBLE_LABEL", options.ensemble_label},
                                   {"CREATOR", options.creator},
                                   {"CREATION_DATE", options.creation_date}}) {
    CheckHeaderText(key, value);
  }
  const int rows = RowsOf(options.storage);
  const std::size_t link_bytes = StoredLinkBytes(rows, options.precision);
  std::vector<std::uint8_t> payload(link_bytes * u.links().size());
  // What the reader will see: the links rounded to the stored precision, row 2 rebuilt for two rows.
  GaugeField<double> stored(u.lattice());
  for (std::size_t i = 0; i < u.links().size(); ++i) {
    EncodeLink(u.links()[i], rows, options.precision, options.byte_order, payload.data() + i * link_bytes);
    stored.links()[i] = DecodeLink(payload.data() + i * link_bytes, rows, options.precision, options.byte_order);
  }
  GaugeFileMetadata check;
  try {
    CheckLinksAreSU3("WriteNersc", stored, UnitarityTolerance(options.precision, {}), &check);
  } catch (const GaugeFileError& e) {
    throw GaugeFileError(std::string(e.what()) + " (as stored in " + ToString(options.precision) +
                         "); refusing to write a file the reader would reject: reunitarize first");
  }
  const std::uint32_t checksum =
      StoredWordSum(payload.data(), u.links().size() * rows * 6, options.precision, options.byte_order);
  char number[64];
  std::string header = "BEGIN_HEADER\nHDR_VERSION = 1.0\n";
  header += std::string("DATATYPE = ") + DatatypeOf(options.storage) + "\nSTORAGE_FORMAT = 1.0\n";
  for (int mu = 0; mu < kDims; ++mu) {
    header += std::string(kDimensionKeys[mu]) + " = " + std::to_string(u.lattice().extent(mu)) + "\n";
  }
  // 15 decimals: the reader's tolerance includes half a unit of the last printed digit.
  std::snprintf(number, sizeof number, "%.15f", LinkTrace(stored));
  header += std::string("LINK_TRACE = ") + number + "\n";
  std::snprintf(number, sizeof number, "%.15f", MeasurePlaquette(stored).total);
  header += std::string("PLAQUETTE = ") + number + "\n";
  for (int mu = 0; mu < kDims; ++mu) header += std::string(kBoundaryKeys[mu]) + " = PERIODIC\n";
  header += "CHECKSUM = " + Hex32(checksum) + "\n";
  header += "ENSEMBLE_ID = " + options.ensemble_id + "\nENSEMBLE_LABEL = " + options.ensemble_label + "\n";
  header += "SEQUENCE_NUMBER = " + std::to_string(options.sequence_number) + "\n";
  header += "CREATOR = " + options.creator + "\n";
  header += "CREATION_DATE = " + (options.creation_date.empty() ? CurrentUtcDate() : options.creation_date) + "\n";
  header += std::string("FLOATING_POINT = ") + FloatingPointOf(options.precision, options.byte_order) + "\n";
  header += "END_HEADER\n";
  std::vector<std::uint8_t> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

void WriteNersc(const std::string& path, const GaugeField<double>& u, const NerscWriteOptions& options) {
  WriteFileBytes(path, WriteNerscToBytes(u, options));
}

}  // namespace lqcd
