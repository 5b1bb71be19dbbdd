// gauge_file_fuzz_target.cc: see gauge_file_fuzz_target.h.
#include "reference/io/fuzz/gauge_file_fuzz_target.h"

#include <optional>
#include <stdexcept>

#include "reference/io/gauge_io.h"
#include "reference/io/nersc_io.h"

namespace lqcd {
namespace {

std::optional<GaugeConfiguration> TryRead(const std::uint8_t* data, std::size_t size, const GaugeReadOptions& options,
                                          std::string* rejection) {
  try {
    return ReadGaugeConfigurationFromBytes(data, size, "fuzz input", options);
  } catch (const GaugeFileError& e) {
    if (rejection != nullptr) *rejection = e.what();
    return std::nullopt;
  }
}

// What every accepted configuration must satisfy.
void CheckAccepted(const GaugeConfiguration& c) {
  const GaugeFileMetadata& m = c.metadata;
  if (m.extents != c.field.lattice().extents()) throw std::logic_error("accepted input: metadata extents differ");
  if (!(m.max_unitarity_deviation <= m.unitarity_tolerance) ||
      !(m.max_determinant_deviation <= m.unitarity_tolerance)) {
    throw std::logic_error("accepted input: a link beyond the unitarity tolerance");
  }
  try {
    NerscWriteOptions options;
    options.storage = m.stored_rows == 2 ? NerscStorage::kTwoRows : NerscStorage::kThreeRows;
    options.precision = m.precision;
    options.creation_date = "fuzz";
    const std::vector<std::uint8_t> bytes = WriteNerscToBytes(c.field, options);
    const GaugeConfiguration again = ReadNerscFromBytes(bytes.data(), bytes.size(), "fuzz rewrite");
    if (again.field.links() != c.field.links()) {
      throw std::logic_error("accepted input: the NERSC rewrite does not read back bit for bit");
    }
  } catch (const GaugeFileError& e) {
    throw std::logic_error(std::string("accepted input: the NERSC rewrite was rejected: ") + e.what());
  }
}

}  // namespace

FuzzOutcome FuzzGaugeFileInput(const std::uint8_t* data, std::size_t size, std::string* rejection) {
  if (rejection != nullptr) rejection->clear();
  // As a user reads: every check.
  const std::optional<GaugeConfiguration> checked = TryRead(data, size, GaugeReadOptions{}, rejection);
  // With the checksum comparisons off, mutated data also reach the decoding, the SU(3) check and the
  // header values behind the checksums. Whatever the full read accepts, this one accepts identically.
  GaugeReadOptions unchecked_options;
  unchecked_options.verify_checksums = false;
  const std::optional<GaugeConfiguration> unchecked = TryRead(data, size, unchecked_options, nullptr);
  if (checked && !unchecked) throw std::logic_error("accepted with checksums verified, rejected without");
  if (checked && unchecked->field.links() != checked->field.links()) {
    throw std::logic_error("the links differ with and without checksum verification");
  }
  if (unchecked) CheckAccepted(*unchecked);
  return checked ? FuzzOutcome::kAccepted : FuzzOutcome::kRejected;
}

}  // namespace lqcd
