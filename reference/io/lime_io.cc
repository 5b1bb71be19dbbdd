// lime_io.cc: ILDG / SciDAC LIME gauge configurations (see lime_io.h).
#include "reference/io/lime_io.h"

#include <ctime>
#include <sstream>

#include "reference/io/crc32.h"

namespace lqcd {
namespace {

constexpr std::uint16_t kMessageBeginFlag = 0x8000, kMessageEndFlag = 0x4000;
constexpr std::size_t kTypeBytes = 128;

std::uint32_t RotateLeft(std::uint32_t w, unsigned n) { return n == 0 ? w : (w << n) | (w >> (32 - n)); }
std::uint64_t PaddedLength(std::uint64_t length) { return (length + 7) / 8 * 8; }
bool IsBinaryDataType(const std::string& type) { return type == "ildg-binary-data" || type == "scidac-binary-data"; }

std::string RecordText(const std::uint8_t* data, const LimeRecord& r) {
  std::string text(reinterpret_cast<const char*>(data + r.data_offset), static_cast<std::size_t>(r.data_length));
  while (!text.empty() && text.back() == '\0') text.pop_back();  // writers include the C string's NUL
  return text;
}

std::string CurrentUtcDate() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y UTC", &utc);
  return text;
}

// The integer content of <tag> in a record, required or optional.
std::optional<std::int64_t> OptionalXmlInteger(const std::string& source, const std::string& record,
                                               const std::string& xml, const std::string& tag) {
  const auto text = XmlElementText(xml, tag);
  if (!text) return std::nullopt;
  return ParseHeaderInteger(source, record + " <" + tag + ">", *text);
}
std::int64_t RequiredXmlInteger(const std::string& source, const std::string& record, const std::string& xml,
                                const std::string& tag) {
  const auto value = OptionalXmlInteger(source, record, xml, tag);
  if (!value) ThrowGaugeFileError(source, record + ": required element <" + tag + "> is missing");
  return *value;
}

std::string ExtentsText(const std::array<std::int64_t, kDims>& e) {
  return std::to_string(e[0]) + "x" + std::to_string(e[1]) + "x" + std::to_string(e[2]) + "x" + std::to_string(e[3]);
}

}  // namespace

std::optional<std::string> XmlElementText(const std::string& xml, const std::string& tag) {
  const std::string open = "<" + tag;
  std::size_t at = 0;
  while ((at = xml.find(open, at)) != std::string::npos) {
    const std::size_t after = at + open.size();
    if (after < xml.size() && (xml[after] == '>' || xml[after] == ' ' || xml[after] == '/' || xml[after] == '\t' ||
                               xml[after] == '\n' || xml[after] == '\r')) {
      const std::size_t close_bracket = xml.find('>', after);
      if (close_bracket == std::string::npos) return std::nullopt;
      if (xml[close_bracket - 1] == '/') return std::string();  // <tag/>
      const std::size_t end = xml.find("</" + tag + ">", close_bracket + 1);
      if (end == std::string::npos) return std::nullopt;
      return Trim(xml.substr(close_bracket + 1, end - close_bracket - 1));
    }
    at = after;
  }
  return std::nullopt;
}

std::vector<LimeRecord> ParseLimeRecords(const std::uint8_t* data, std::size_t size, const std::string& source) {
  std::vector<LimeRecord> records;
  std::uint64_t offset = 0;
  while (offset < size) {
    const std::string where = "LIME record " + std::to_string(records.size()) + " at offset " + std::to_string(offset);
    if (size - offset < kLimeHeaderBytes) {
      ThrowGaugeFileError(source, where + ": only " + std::to_string(size - offset) +
                                      " bytes left, fewer than a 144-byte record header (file truncated?)");
    }
    const std::uint8_t* h = data + offset;
    const std::uint32_t magic = LoadU32(h, ByteOrder::kBigEndian);
    if (magic != kLimeMagic) {
      ThrowGaugeFileError(source, where + ": magic 0x" + Hex32(magic) + ", expected 0x456789ab");
    }
    LimeRecord r;
    r.version = static_cast<std::uint16_t>((h[4] << 8) | h[5]);
    const std::uint16_t flags = static_cast<std::uint16_t>((h[6] << 8) | h[7]);
    if (r.version != 1)
      ThrowGaugeFileError(source, where + ": LIME version " + std::to_string(r.version) + ", expected 1");
    r.message_begin = (flags & kMessageBeginFlag) != 0;
    r.message_end = (flags & kMessageEndFlag) != 0;
    r.data_length = LoadU64(h + 8, ByteOrder::kBigEndian);
    const char* type = reinterpret_cast<const char*>(h + 16);
    std::size_t type_length = 0;
    while (type_length < kTypeBytes && type[type_length] != '\0') ++type_length;
    r.type.assign(type, type_length);
    if (type_length == kTypeBytes || type_length == 0) {
      ThrowGaugeFileError(source, where + ": the record type is " +
                                      std::string(type_length == 0 ? "empty" : "not NUL-terminated in 128 bytes"));
    }
    for (char c : r.type) {
      if (c <= 0x20 || c >= 0x7f) {
        ThrowGaugeFileError(source, where + ": the record type '" + Printable(r.type) + "' is not printable ASCII");
      }
    }
    r.header_offset = offset;
    r.data_offset = offset + kLimeHeaderBytes;
    const std::uint64_t left = size - r.data_offset;
    if (r.data_length > left) {
      ThrowGaugeFileError(source, where + " ('" + r.type + "'): declares " + std::to_string(r.data_length) +
                                      " data bytes but only " + std::to_string(left) + " remain (file truncated?)");
    }
    if (PaddedLength(r.data_length) > left) {
      ThrowGaugeFileError(source, where + " ('" + r.type + "'): the padding to 8 bytes after its " +
                                      std::to_string(r.data_length) + " data bytes is missing (file truncated?)");
    }
    offset = r.data_offset + PaddedLength(r.data_length);
    records.push_back(std::move(r));
  }
  if (records.empty()) ThrowGaugeFileError(source, "LIME: the file is empty");
  return records;
}

ScidacChecksum ComputeScidacChecksum(const std::uint8_t* data, std::size_t site_bytes, std::size_t volume) {
  ScidacChecksum sum;
  for (std::size_t r = 0; r < volume; ++r) {
    const std::uint32_t crc = Crc32(data + r * site_bytes, site_bytes);
    sum.suma ^= RotateLeft(crc, static_cast<unsigned>(r % 29));
    sum.sumb ^= RotateLeft(crc, static_cast<unsigned>(r % 31));
  }
  return sum;
}

GaugeConfiguration ReadLimeFromBytes(const std::uint8_t* data, std::size_t size, const std::string& source,
                                     const GaugeReadOptions& options) {
  const std::vector<LimeRecord> records = ParseLimeRecords(data, size, source);
  GaugeFileMetadata meta;
  meta.format = GaugeFileFormat::kLime;
  meta.source = source;
  meta.byte_order = ByteOrder::kBigEndian;
  meta.stored_rows = 3;

  // Which records matter: exactly one binary record; the metadata records before it; the checksum after.
  const LimeRecord* binary = nullptr;
  const LimeRecord *ildg_format = nullptr, *private_file = nullptr, *private_record = nullptr, *checksum = nullptr;
  for (const LimeRecord& r : records) {
    if (IsBinaryDataType(r.type)) {
      meta.header.emplace_back(r.type, "<" + std::to_string(r.data_length) + " bytes>");
      if (binary != nullptr) {
        ThrowGaugeFileError(source, "LIME: more than one binary data record ('" + binary->type + "' at offset " +
                                        std::to_string(binary->header_offset) + ", '" + r.type + "' at offset " +
                                        std::to_string(r.header_offset) + "); one configuration per file is read");
      }
      binary = &r;
      continue;
    }
    meta.header.emplace_back(r.type, Printable(RecordText(data, r), 4096));
    auto once = [&](const LimeRecord*& slot) {
      if (slot != nullptr) {
        ThrowGaugeFileError(source, "LIME: record '" + r.type + "' appears twice (offsets " +
                                        std::to_string(slot->header_offset) + " and " +
                                        std::to_string(r.header_offset) + ")");
      }
      slot = &r;
    };
    if (r.type == "ildg-format") once(ildg_format);
    if (r.type == "scidac-private-file-xml") once(private_file);
    if (r.type == "scidac-private-record-xml" && binary == nullptr) private_record = &r;  // the binary's own
    if (r.type == "scidac-checksum" && binary != nullptr) once(checksum);
  }
  if (binary == nullptr) {
    ThrowGaugeFileError(source, "LIME: no ildg-binary-data or scidac-binary-data record among " +
                                    std::to_string(records.size()) + " records");
  }

  // Extents and precision from ildg-format and the SciDAC private XML; where both exist they must agree.
  std::optional<std::array<std::int64_t, kDims>> extents;
  std::optional<FloatPrecision> precision;
  std::string extents_from, precision_from;
  if (ildg_format != nullptr) {
    const std::string xml = RecordText(data, *ildg_format);
    const auto field = XmlElementText(xml, "field");
    if (field && *field != "su3gauge") {
      ThrowGaugeFileError(source, "ildg-format: <field> is '" + Printable(*field) + "', expected su3gauge");
    }
    const std::int64_t bits = RequiredXmlInteger(source, "ildg-format", xml, "precision");
    if (bits != 32 && bits != 64) {
      ThrowGaugeFileError(source, "ildg-format: <precision> is " + std::to_string(bits) + ", expected 32 or 64");
    }
    precision = bits == 32 ? FloatPrecision::kSingle : FloatPrecision::kDouble;
    precision_from = "ildg-format";
    std::array<std::int64_t, kDims> e{};
    const char* tags[kDims] = {"lx", "ly", "lz", "lt"};
    for (int mu = 0; mu < kDims; ++mu) e[mu] = RequiredXmlInteger(source, "ildg-format", xml, tags[mu]);
    extents = e;
    extents_from = "ildg-format";
  }
  if (private_file != nullptr) {
    const std::string xml = RecordText(data, *private_file);
    const auto spacetime = OptionalXmlInteger(source, "scidac-private-file-xml", xml, "spacetime");
    if (spacetime && *spacetime != kDims) {
      ThrowGaugeFileError(source,
                          "scidac-private-file-xml: <spacetime> is " + std::to_string(*spacetime) + ", expected 4");
    }
    const auto volfmt = OptionalXmlInteger(source, "scidac-private-file-xml", xml, "volfmt");
    if (volfmt && *volfmt != 0) {
      ThrowGaugeFileError(source, "scidac-private-file-xml: <volfmt> is " + std::to_string(*volfmt) +
                                      ", only 0 (single file) is supported");
    }
    if (const auto dims = XmlElementText(xml, "dims")) {
      std::istringstream in(*dims);
      std::array<std::int64_t, kDims> e{};
      std::string word, extra;
      for (int mu = 0; mu < kDims; ++mu) {
        if (!(in >> word)) {
          ThrowGaugeFileError(source,
                              "scidac-private-file-xml: <dims> '" + Printable(*dims) + "' does not hold 4 extents");
        }
        e[mu] = ParseHeaderInteger(source, "scidac-private-file-xml <dims>", word);
      }
      if (in >> extra) {
        ThrowGaugeFileError(source,
                            "scidac-private-file-xml: <dims> '" + Printable(*dims) + "' holds more than 4 extents");
      }
      if (extents && *extents != e) {
        ThrowGaugeFileError(source, "scidac-private-file-xml: <dims> " + ExtentsText(e) +
                                        " disagrees with ildg-format " + ExtentsText(*extents));
      }
      extents = e;
      if (extents_from.empty()) extents_from = "scidac-private-file-xml";
    }
  }
  if (private_record != nullptr) {
    const std::string xml = RecordText(data, *private_record);
    const std::string name = "scidac-private-record-xml";
    if (const auto p = XmlElementText(xml, "precision")) {
      if (*p != "F" && *p != "D") {
        ThrowGaugeFileError(source, name + ": <precision> is '" + Printable(*p) + "', expected F or D");
      }
      const FloatPrecision q = *p == "F" ? FloatPrecision::kSingle : FloatPrecision::kDouble;
      if (precision && *precision != q) {
        ThrowGaugeFileError(source,
                            name + ": <precision> " + *p + " disagrees with ildg-format's " + ToString(*precision));
      }
      precision = q;
      if (precision_from.empty()) precision_from = name;
    }
    const auto colors = OptionalXmlInteger(source, name, xml, "colors");
    if (colors && *colors != 3) {
      ThrowGaugeFileError(source, name + ": <colors> is " + std::to_string(*colors) + ", expected 3");
    }
    const auto datacount = OptionalXmlInteger(source, name, xml, "datacount");
    if (datacount && *datacount != kDims) {
      ThrowGaugeFileError(source,
                          name + ": <datacount> is " + std::to_string(*datacount) + ", expected 4 (links per site)");
    }
    const auto typesize = OptionalXmlInteger(source, name, xml, "typesize");
    if (typesize && precision && *typesize != 18 * BytesPerReal(*precision)) {
      ThrowGaugeFileError(source, name + ": <typesize> is " + std::to_string(*typesize) + ", expected " +
                                      std::to_string(18 * BytesPerReal(*precision)) + " for a 3x3 " +
                                      ToString(*precision) + " matrix");
    }
  }
  if (!extents) {
    ThrowGaugeFileError(source,
                        "LIME: no lattice extents (neither an ildg-format record nor "
                        "scidac-private-file-xml <dims>)");
  }
  if (!precision) {
    ThrowGaugeFileError(source,
                        "LIME: no precision (neither ildg-format <precision> nor "
                        "scidac-private-record-xml <precision>)");
  }
  meta.precision = *precision;
  std::array<std::string, kDims> names;
  const char* tags[kDims] = {"lx", "ly", "lz", "lt"};
  for (int mu = 0; mu < kDims; ++mu) names[mu] = extents_from + " " + tags[mu];
  const std::uint64_t volume = VolumeFromHeader(source, *extents, names);
  const std::size_t site_bytes = kDims * StoredLinkBytes(3, *precision);
  CheckByteCount(source,
                 "LIME '" + binary->type + "' for " + ExtentsText(*extents) + " (" + extents_from + ") in " +
                     ToString(*precision) + " (" + precision_from + ")",
                 volume * site_bytes, binary->data_length);
  const std::uint8_t* payload = data + binary->data_offset;

  if (checksum != nullptr) {
    const std::string xml = RecordText(data, *checksum);
    const auto a = XmlElementText(xml, "suma"), b = XmlElementText(xml, "sumb");
    if (!a || !b) ThrowGaugeFileError(source, "scidac-checksum: <suma> or <sumb> is missing");
    const ScidacChecksum stored{ParseHeaderHex32(source, "scidac-checksum <suma>", *a),
                                ParseHeaderHex32(source, "scidac-checksum <sumb>", *b)};
    const ScidacChecksum computed = ComputeScidacChecksum(payload, site_bytes, volume);
    if (options.verify_checksums && (computed.suma != stored.suma || computed.sumb != stored.sumb)) {
      ThrowGaugeFileError(source, "scidac-checksum: suma sumb = " + Hex32(stored.suma) + " " + Hex32(stored.sumb) +
                                      " but the data give " + Hex32(computed.suma) + " " + Hex32(computed.sumb) +
                                      " (CRC-32 per site): data corrupted or checksum wrong");
    }
    if (options.verify_checksums) {
      meta.checksums.push_back({"suma", computed.suma});
      meta.checksums.push_back({"sumb", computed.sumb});
    }
  }

  GaugeConfiguration config{GaugeField<double>(LatticeFromHeader(source, *extents, names)), GaugeFileMetadata{}};
  meta.extents = config.field.lattice().extents();
  const std::size_t link_bytes = StoredLinkBytes(3, *precision);
  for (std::size_t i = 0; i < config.field.links().size(); ++i) {
    config.field.links()[i] = DecodeLink(payload + i * link_bytes, 3, *precision, ByteOrder::kBigEndian);
  }
  CheckLinksAreSU3(source, config.field, UnitarityTolerance(*precision, options), &meta);
  config.metadata = std::move(meta);
  return config;
}

GaugeConfiguration ReadLime(const std::string& path, const GaugeReadOptions& options) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  return ReadLimeFromBytes(bytes.data(), bytes.size(), path, options);
}

namespace {

void AppendRecord(std::vector<std::uint8_t>* out, const std::string& type, const std::uint8_t* data, std::size_t length,
                  bool message_begin, bool message_end) {
  std::uint8_t header[kLimeHeaderBytes] = {};
  StoreU32(kLimeMagic, ByteOrder::kBigEndian, header);
  header[5] = 1;  // version 1, big-endian uint16
  const std::uint16_t flags = (message_begin ? kMessageBeginFlag : 0) | (message_end ? kMessageEndFlag : 0);
  header[6] = static_cast<std::uint8_t>(flags >> 8);
  header[7] = static_cast<std::uint8_t>(flags);
  StoreU64(length, ByteOrder::kBigEndian, header + 8);
  std::copy(type.begin(), type.end(), header + 16);
  out->insert(out->end(), header, header + kLimeHeaderBytes);
  out->insert(out->end(), data, data + length);
  out->resize(out->size() + (PaddedLength(length) - length), 0);
}

void AppendTextRecord(std::vector<std::uint8_t>* out, const std::string& type, const std::string& text,
                      bool message_begin, bool message_end) {
  // With the terminating NUL, as the C writers do.
  AppendRecord(out, type, reinterpret_cast<const std::uint8_t*>(text.c_str()), text.size() + 1, message_begin,
               message_end);
}

}  // namespace

std::vector<std::uint8_t> WriteLimeToBytes(const GaugeField<double>& u, const LimeWriteOptions& options) {
  const Lattice& lat = u.lattice();
  const FloatPrecision precision = options.precision;
  const std::size_t link_bytes = StoredLinkBytes(3, precision);
  std::vector<std::uint8_t> payload(link_bytes * u.links().size());
  GaugeField<double> stored(lat);  // what the reader will see
  for (std::size_t i = 0; i < u.links().size(); ++i) {
    EncodeLink(u.links()[i], 3, precision, ByteOrder::kBigEndian, payload.data() + i * link_bytes);
    stored.links()[i] = DecodeLink(payload.data() + i * link_bytes, 3, precision, ByteOrder::kBigEndian);
  }
  GaugeFileMetadata check;
  try {
    CheckLinksAreSU3("WriteLime", stored, UnitarityTolerance(precision, {}), &check);
  } catch (const GaugeFileError& e) {
    throw GaugeFileError(std::string(e.what()) + " (as stored in " + ToString(precision) +
                         "); refusing to write a file the reader would reject: reunitarize first");
  }
  const ScidacChecksum sum = ComputeScidacChecksum(payload.data(), kDims * link_bytes, lat.volume());
  const std::string dims = std::to_string(lat.extent(0)) + " " + std::to_string(lat.extent(1)) + " " +
                           std::to_string(lat.extent(2)) + " " + std::to_string(lat.extent(3));
  const bool single = precision == FloatPrecision::kSingle;
  const std::string xml_head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

  std::vector<std::uint8_t> out;
  AppendTextRecord(&out, "scidac-private-file-xml",
                   xml_head + "<scidacFile><version>1.1</version><spacetime>4</spacetime><dims>" + dims +
                       "</dims><volfmt>0</volfmt></scidacFile>",
                   true, false);
  AppendTextRecord(&out, "scidac-file-xml", options.file_xml, false, true);
  AppendTextRecord(
      &out, "scidac-private-record-xml",
      xml_head + "<scidacRecord><version>1.1</version><date>" +
          (options.date.empty() ? CurrentUtcDate() : options.date) + "</date><recordtype>0</recordtype><datatype>" +
          (single ? "QDP_F3_ColorMatrix" : "QDP_D3_ColorMatrix") + "</datatype><precision>" + (single ? "F" : "D") +
          "</precision><colors>3</colors><spins>1</spins><typesize>" + std::to_string(18 * BytesPerReal(precision)) +
          "</typesize><datacount>4</datacount></scidacRecord>",
      true, false);
  AppendTextRecord(&out, "scidac-record-xml", options.record_xml, false, false);
  AppendTextRecord(&out, "ildg-format",
                   xml_head + "<ildgFormat><version>1.0</version><field>su3gauge</field><precision>" +
                       (single ? "32" : "64") + "</precision><lx>" + std::to_string(lat.extent(0)) + "</lx><ly>" +
                       std::to_string(lat.extent(1)) + "</ly><lz>" + std::to_string(lat.extent(2)) + "</lz><lt>" +
                       std::to_string(lat.extent(3)) + "</lt></ildgFormat>",
                   false, false);
  if (!options.lfn.empty()) AppendTextRecord(&out, "ildg-data-lfn", options.lfn, false, false);
  AppendRecord(&out, "ildg-binary-data", payload.data(), payload.size(), false, false);
  AppendTextRecord(&out, "scidac-checksum",
                   xml_head + "<scidacChecksum><version>1.0</version><suma>" + Hex32(sum.suma) + "</suma><sumb>" +
                       Hex32(sum.sumb) + "</sumb></scidacChecksum>",
                   false, true);
  return out;
}

void WriteLime(const std::string& path, const GaugeField<double>& u, const LimeWriteOptions& options) {
  WriteFileBytes(path, WriteLimeToBytes(u, options));
}

}  // namespace lqcd
