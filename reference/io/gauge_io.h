// gauge_io.h: read a gauge configuration in any of the supported formats, detected from the file's
// own first bytes (never from its name):
//   - LIME (ILDG / SciDAC): the LIME magic 0x456789AB, big-endian, at offset 0 (lime_io.h);
//   - MILC v5: the int32 20103 at offset 0 in either byte order (milc_io.h);
//   - NERSC: the text BEGIN_HEADER at offset 0 (nersc_io.h).
// Returns the links in double and the metadata of what was checked (gauge_file_common.h); every malformed
// or unrecognised input throws GaugeFileError naming the source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "reference/io/gauge_file_common.h"

namespace lqcd {

// Throws GaugeFileError if the bytes start like none of the formats.
GaugeFileFormat DetectGaugeFileFormat(const std::uint8_t* data, std::size_t size, const std::string& source);

GaugeConfiguration ReadGaugeConfigurationFromBytes(const std::uint8_t* data, std::size_t size,
                                                   const std::string& source, const GaugeReadOptions& options = {});
GaugeConfiguration ReadGaugeConfiguration(const std::string& path, const GaugeReadOptions& options = {});

}  // namespace lqcd
