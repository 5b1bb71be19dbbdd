// gauge_file_fuzz_target.h: the one entry point the fuzzer and its regression test feed bytes to.
//
// FuzzGaugeFileInput(data, size) runs format detection and the matching reader on arbitrary bytes
// (reference/io/gauge_io.h), twice: as a user reads (every check), and with GaugeReadOptions::
// verify_checksums = false, so that mutated data get past the checksums into the decoding, the SU(3)
// check and the header-value checks. It returns:
//   - kRejected if the full read threw GaugeFileError (the only acceptable way to refuse an input);
//   - kAccepted if it returned a configuration.
// Either way it checks what must hold: whatever the full read accepts, the unchecked read accepts with
// the same links; and every accepted configuration has the metadata's extents, every link within the
// unitarity tolerance, and written as NERSC (the rows and precision it was read in) reads back bit for bit.
// Anything else -- another exception type, or std::logic_error for a broken invariant -- escapes: in the
// libFuzzer build that aborts and is reported as a crash, in the regression test it fails the test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lqcd {

enum class FuzzOutcome { kAccepted, kRejected };

// The GaugeFileError message of the last rejected input (for statistics); empty after an accepted one.
FuzzOutcome FuzzGaugeFileInput(const std::uint8_t* data, std::size_t size, std::string* rejection = nullptr);

}  // namespace lqcd
