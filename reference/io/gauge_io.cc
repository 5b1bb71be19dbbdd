// gauge_io.cc: format detection and dispatch (see gauge_io.h).
#include "reference/io/gauge_io.h"

#include <cstdio>
#include <cstring>

#include "reference/io/lime_io.h"
#include "reference/io/milc_io.h"
#include "reference/io/nersc_io.h"

namespace lqcd {

GaugeFileFormat DetectGaugeFileFormat(const std::uint8_t* data, std::size_t size, const std::string& source) {
  if (size >= 4 && LoadU32(data, ByteOrder::kBigEndian) == kLimeMagic) return GaugeFileFormat::kLime;
  if (size >= 4 && (LoadU32(data, ByteOrder::kBigEndian) == static_cast<std::uint32_t>(kMilcMagic) ||
                    LoadU32(data, ByteOrder::kLittleEndian) == static_cast<std::uint32_t>(kMilcMagic))) {
    return GaugeFileFormat::kMilc;
  }
  const char kNerscStart[] = "BEGIN_HEADER";
  if (size >= sizeof kNerscStart - 1 && std::memcmp(data, kNerscStart, sizeof kNerscStart - 1) == 0) {
    return GaugeFileFormat::kNersc;
  }
  std::string first;
  for (std::size_t i = 0; i < size && i < 8; ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, "%02x", data[i]);
    first += (i ? " " : "") + std::string(hex);
  }
  ThrowGaugeFileError(source, "not a gauge configuration in a known format: the first bytes (" +
                                  (size == 0 ? std::string("the file is empty") : first) +
                                  ") are neither the LIME magic 45 67 89 ab, the MILC v5 magic 20103 (either byte "
                                  "order), nor the NERSC text BEGIN_HEADER");
}

GaugeConfiguration ReadGaugeConfigurationFromBytes(const std::uint8_t* data, std::size_t size,
                                                   const std::string& source, const GaugeReadOptions& options) {
  switch (DetectGaugeFileFormat(data, size, source)) {
    case GaugeFileFormat::kLime:
      return ReadLimeFromBytes(data, size, source, options);
    case GaugeFileFormat::kMilc:
      return ReadMilcFromBytes(data, size, source, options);
    case GaugeFileFormat::kNersc:
      return ReadNerscFromBytes(data, size, source, options);
  }
  ThrowGaugeFileError(source, "internal error: unknown format");
}

GaugeConfiguration ReadGaugeConfiguration(const std::string& path, const GaugeReadOptions& options) {
  const std::vector<std::uint8_t> bytes = ReadFileBytes(path);
  return ReadGaugeConfigurationFromBytes(bytes.data(), bytes.size(), path, options);
}

}  // namespace lqcd
