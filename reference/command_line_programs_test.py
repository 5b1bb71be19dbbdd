"""The command line of the CPU oracle's program, wilson_benchmark: --help lists every flag; unknown flags, malformed
or out-of-range numbers, odd lattice sizes and old flag spellings are each refused with status 1 and one line
"<program>: error: ..." naming the flag (tools/command_line_testing.py). Only --help and error paths run: seconds."""
import unittest

from tools.command_line_testing import ProgramTestCase

WILSON = "reference/wilson_benchmark"


class WilsonBenchmarkTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(WILSON, ["--sizes=L,...", "--min-seconds=X", "--no-direct"])

    def test_errors(self):
        self.assert_common_errors(WILSON, flag_with_number="--min-seconds")
        self.assert_common_errors(WILSON, flag_with_number="--sizes")
        self.assert_error(WILSON, ["--min-seconds=-1"], "--min-seconds")
        self.assert_error(WILSON, ["--sizes=9"], "--sizes", "odd")
        self.assert_error(WILSON, ["--sizes=8,9"], "--sizes", "odd")
        self.assert_error(WILSON, ["--sizes=0"], "--sizes")
        self.assert_error(WILSON, ["--sizes=1000"], "--sizes")
        self.assert_error(WILSON, ["--sizes=8,,12"], "--sizes")
        self.assert_error(WILSON, ["--no-direct=1"], "--no-direct")
        self.assert_error(WILSON, ["--min_seconds=1"], "--min_seconds")  # old spellings are gone
        self.assert_error(WILSON, ["--no_direct"], "--no_direct")


if __name__ == "__main__":
    unittest.main()
