// gauge_file_common.cc: shared pieces of the configuration-file readers and writers (see the header).
#include "reference/io/gauge_file_common.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "reference/su3.h"

namespace lqcd {

void ThrowGaugeFileError(const std::string& source, const std::string& message) {
  throw GaugeFileError(source + ": " + message);
}

const char* ToString(ByteOrder order) { return order == ByteOrder::kBigEndian ? "big-endian" : "little-endian"; }
const char* ToString(FloatPrecision precision) { return precision == FloatPrecision::kSingle ? "float32" : "float64"; }
const char* ToString(GaugeFileFormat format) {
  switch (format) {
    case GaugeFileFormat::kNersc:
      return "NERSC";
    case GaugeFileFormat::kLime:
      return "LIME (ILDG/SciDAC)";
    case GaugeFileFormat::kMilc:
      return "MILC v5";
  }
  return "?";
}

double UnitarityTolerance(FloatPrecision stored, const GaugeReadOptions& options) {
  return options.unitarity_tolerance > 0 ? options.unitarity_tolerance : kUnitarityUlps * UnitRoundoff(stored);
}

std::uint32_t LoadU32(const std::uint8_t* p, ByteOrder order) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const int shift = order == ByteOrder::kBigEndian ? 8 * (3 - i) : 8 * i;
    v |= static_cast<std::uint32_t>(p[i]) << shift;
  }
  return v;
}

std::uint64_t LoadU64(const std::uint8_t* p, ByteOrder order) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const int shift = order == ByteOrder::kBigEndian ? 8 * (7 - i) : 8 * i;
    v |= static_cast<std::uint64_t>(p[i]) << shift;
  }
  return v;
}

void StoreU32(std::uint32_t value, ByteOrder order, std::uint8_t* p) {
  for (int i = 0; i < 4; ++i) {
    const int shift = order == ByteOrder::kBigEndian ? 8 * (3 - i) : 8 * i;
    p[i] = static_cast<std::uint8_t>(value >> shift);
  }
}

void StoreU64(std::uint64_t value, ByteOrder order, std::uint8_t* p) {
  for (int i = 0; i < 8; ++i) {
    const int shift = order == ByteOrder::kBigEndian ? 8 * (7 - i) : 8 * i;
    p[i] = static_cast<std::uint8_t>(value >> shift);
  }
}

double LoadReal(const std::uint8_t* p, FloatPrecision precision, ByteOrder order) {
  if (precision == FloatPrecision::kSingle) {
    const std::uint32_t bits = LoadU32(p, order);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  const std::uint64_t bits = LoadU64(p, order);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

void StoreReal(double value, FloatPrecision precision, ByteOrder order, std::uint8_t* p) {
  if (precision == FloatPrecision::kSingle) {
    const float rounded = static_cast<float>(value);
    std::uint32_t bits;
    std::memcpy(&bits, &rounded, sizeof bits);
    StoreU32(bits, order, p);
  } else {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    StoreU64(bits, order, p);
  }
}

ColorMatrix<double> DecodeLink(const std::uint8_t* p, int rows, FloatPrecision precision, ByteOrder order) {
  const int b = BytesPerReal(precision);
  ColorMatrix<double> u;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < 3; ++j) {
      const std::uint8_t* q = p + (2 * (3 * i + j)) * b;
      u(i, j) = Complex<double>(LoadReal(q, precision, order), LoadReal(q + b, precision, order));
    }
  }
  if (rows == 2) u.row(2) = ThirdRow<double>(u.row(0), u.row(1));
  return u;
}

void EncodeLink(const ColorMatrix<double>& link, int rows, FloatPrecision precision, ByteOrder order, std::uint8_t* p) {
  const int b = BytesPerReal(precision);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::uint8_t* q = p + (2 * (3 * i + j)) * b;
      StoreReal(link(i, j).real(), precision, order, q);
      StoreReal(link(i, j).imag(), precision, order, q + b);
    }
  }
}

std::vector<std::uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) ThrowGaugeFileError(path, std::string("cannot open for reading: ") + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) ThrowGaugeFileError(path, "cannot determine the file size (not a regular file?)");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    ThrowGaugeFileError(path,
                        "read error after " + std::to_string(in.gcount()) + " of " + std::to_string(size) + " bytes");
  }
  return bytes;
}

void WriteFileBytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) ThrowGaugeFileError(path, std::string("cannot open for writing: ") + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) ThrowGaugeFileError(path, "write error (disk full?)");
}

std::uint64_t VolumeFromHeader(const std::string& source, const std::array<std::int64_t, kDims>& extents,
                               const std::array<std::string, kDims>& names) {
  std::uint64_t volume = 1;
  for (int mu = 0; mu < kDims; ++mu) {
    const std::int64_t l = extents[mu];
    const std::string field = names[mu] + " = " + std::to_string(l);
    if (l <= 0) ThrowGaugeFileError(source, field + ": a lattice extent must be positive");
    if (l > Lattice::kMaxExtent) {
      ThrowGaugeFileError(source,
                          field + " exceeds the largest extent accepted, " + std::to_string(Lattice::kMaxExtent));
    }
    if (l % 2 != 0) {
      ThrowGaugeFileError(source, field + " is odd; the oracle's Lattice needs even extents (even-odd split)");
    }
    volume *= static_cast<std::uint64_t>(l);  // <= 512^4 = 2^36: no overflow
  }
  return volume;
}

Lattice LatticeFromHeader(const std::string& source, const std::array<std::int64_t, kDims>& extents,
                          const std::array<std::string, kDims>& names) {
  VolumeFromHeader(source, extents, names);
  try {
    return Lattice(static_cast<int>(extents[0]), static_cast<int>(extents[1]), static_cast<int>(extents[2]),
                   static_cast<int>(extents[3]));
  } catch (const std::invalid_argument& e) {
    ThrowGaugeFileError(source, e.what());
  }
}

void CheckByteCount(const std::string& source, const std::string& what, std::uint64_t expected, std::uint64_t found) {
  if (expected != found) {
    ThrowGaugeFileError(source,
                        what + ": expected " + std::to_string(expected) + " bytes, found " + std::to_string(found));
  }
}

const std::string& GaugeFileMetadata::HeaderValue(const std::string& key) const {
  for (const auto& entry : header) {
    if (entry.first == key) return entry.second;
  }
  throw std::out_of_range("no header entry " + key + " in " + source);
}

std::uint32_t GaugeFileMetadata::Checksum(const std::string& name) const {
  for (const auto& c : checksums) {
    if (c.name == name) return c.value;
  }
  throw std::out_of_range("no verified checksum " + name + " for " + source);
}

std::string GaugeFileMetadata::Describe() const {
  std::ostringstream out;
  out << source << ": " << ToString(format) << ", " << ToString(precision) << " " << ToString(byte_order)
      << (stored_rows == 2 ? ", two rows stored" : "") << ", lattice " << extents[0] << "x" << extents[1] << "x"
      << extents[2] << "x" << extents[3] << "\n";
  for (const auto& c : checksums) out << "  checksum " << c.name << " = " << Hex32(c.value) << ": verified\n";
  for (const auto& v : values) {
    char line[256];
    std::snprintf(line, sizeof line, "  %s = %s, computed %.16g (tolerance %.2g): verified\n", v.name.c_str(),
                  v.stored.c_str(), v.computed, v.tolerance);
    out << line;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "  links in SU(3): max |U U^dag - 1| = %.3g, max |det U - 1| = %.3g (tolerance %.3g)\n",
                max_unitarity_deviation, max_determinant_deviation, unitarity_tolerance);
  out << line;
  return out.str();
}

void CheckLinksAreSU3(const std::string& source, const GaugeField<double>& u, double tolerance,
                      GaugeFileMetadata* metadata) {
  static const char* kAxis = "xyzt";
  const Lattice& lat = u.lattice();
  // On every thread: the largest deviations of the links that pass, and the first link (in site, then mu
  // order) that fails. Maxima and the minimum index do not depend on the order, so neither the numbers nor the
  // link named in the error depend on the threads.
  double max_unitarity = 0, max_det = 0;
  std::int64_t first_failure = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for schedule(static) reduction(max : max_unitarity, max_det) reduction(min : first_failure)
  for (int site = 0; site < lat.volume(); ++site) {
    for (int mu = 0; mu < kDims; ++mu) {
      const ColorMatrix<double>& link = u.Link(site, mu);
      const double unitarity = UnitarityDeviation(link);
      const double det = DeterminantDeviation(link);
      // Negated comparisons: NaN and infinities fail them.
      if (!(unitarity <= tolerance) || !(det <= tolerance)) {
        first_failure = std::min(first_failure, static_cast<std::int64_t>(kDims) * site + mu);
        continue;
      }
      if (unitarity > max_unitarity) max_unitarity = unitarity;
      if (det > max_det) max_det = det;
    }
  }
  if (first_failure != std::numeric_limits<std::int64_t>::max()) {
    const int site = static_cast<int>(first_failure / kDims), mu = static_cast<int>(first_failure % kDims);
    const Coordinates n = lat.Coords(site);
    char message[400];
    std::snprintf(message, sizeof message,
                  "link U_%c(x=%d,y=%d,z=%d,t=%d) (site %d, mu = %d) is not in SU(3): max |(U U^dag - 1)_ij| = "
                  "%.3g, |det U - 1| = %.3g, tolerance %.3g",
                  kAxis[mu], n[0], n[1], n[2], n[3], site, mu, UnitarityDeviation(u.Link(site, mu)),
                  DeterminantDeviation(u.Link(site, mu)), tolerance);
    ThrowGaugeFileError(source, message);
  }
  metadata->max_unitarity_deviation = max_unitarity;
  metadata->max_determinant_deviation = max_det;
  metadata->unitarity_tolerance = tolerance;
}

double PrintedResolution(const std::string& text) {
  const std::string t = Trim(text);
  int decimals = 0;  // digits after the decimal point
  const std::size_t point = t.find('.');
  const std::size_t exponent_at = t.find_first_of("eE");
  if (point != std::string::npos) {
    const std::size_t end = exponent_at == std::string::npos ? t.size() : exponent_at;
    if (end > point) decimals = static_cast<int>(end - point - 1);
  }
  long exponent = 0;
  if (exponent_at != std::string::npos) exponent = std::strtol(t.c_str() + exponent_at + 1, nullptr, 10);
  if (exponent > 400) exponent = 400;
  if (exponent < -400) exponent = -400;
  return 0.5 * std::pow(10.0, static_cast<double>(exponent - decimals));
}

void CheckHeaderValue(const std::string& source, const std::string& name, const std::string& text, double computed,
                      FloatPrecision stored, double n_terms, GaugeFileMetadata* metadata) {
  const double stored_value = ParseHeaderReal(source, name, text);
  // Printing, the links' rounding to the stored precision if the writer measured them before (a
  // plaquette is linear in each of its 4 links, <= u each; two-row storage doubles that: 8u), and the
  // two codes' summation of n_terms terms of size <= 1 in double, each within n u (docs/configuration_formats.md).
  const double tolerance = PrintedResolution(text) + 8 * UnitRoundoff(stored) + 2 * n_terms * 0x1.0p-53;
  if (!(std::abs(stored_value - computed) <= tolerance)) {
    char message[300];
    std::snprintf(message, sizeof message,
                  "header %s = %s but the links give %.12g (difference %.3g exceeds the tolerance %.3g)", name.c_str(),
                  Trim(text).c_str(), computed, std::abs(stored_value - computed), tolerance);
    ThrowGaugeFileError(source, message);
  }
  metadata->values.push_back({name, Trim(text), computed, tolerance});
}

std::string Trim(const std::string& text) {
  const char* kSpace = " \t\r\n";
  const std::size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string::npos) return "";
  const std::size_t end = text.find_last_not_of(kSpace);
  return text.substr(begin, end - begin + 1);
}

std::string Printable(const std::string& bytes, std::size_t max_length) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max_length; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (bytes.size() > max_length) out += "...";
  return out;
}

std::int64_t ParseHeaderInteger(const std::string& source, const std::string& field, const std::string& text) {
  const std::string t = Trim(text);
  bool ok = !t.empty() && t.size() <= 18;  // 18 digits cannot overflow int64
  for (std::size_t i = 0; ok && i < t.size(); ++i) {
    ok = (t[i] >= '0' && t[i] <= '9') || (i == 0 && (t[i] == '-' || t[i] == '+') && t.size() > 1);
  }
  if (!ok) ThrowGaugeFileError(source, field + " = '" + Printable(t) + "' is not an integer");
  return std::strtoll(t.c_str(), nullptr, 10);
}

double ParseHeaderReal(const std::string& source, const std::string& field, const std::string& text) {
  const std::string t = Trim(text);
  char* end = nullptr;
  errno = 0;
  const double value = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
  // strtod also reads "nan", "inf" and hex floats; a header number is a finite decimal.
  const bool decimal = t.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (t.empty() || end != t.c_str() + t.size() || !decimal || !std::isfinite(value) || errno == ERANGE) {
    ThrowGaugeFileError(source, field + " = '" + Printable(t) + "' is not a finite decimal number");
  }
  return value;
}

std::uint32_t ParseHeaderHex32(const std::string& source, const std::string& field, const std::string& text) {
  const std::string t = Trim(text);
  const bool ok = !t.empty() && t.size() <= 8 && t.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!ok) ThrowGaugeFileError(source, field + " = '" + Printable(t) + "' is not a 32-bit hexadecimal number");
  return static_cast<std::uint32_t>(std::strtoul(t.c_str(), nullptr, 16));
}

std::string Hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", value);
  return text;
}

}  // namespace lqcd
