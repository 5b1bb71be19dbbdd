"""The command line of block_wilson_benchmark: --help lists every flag; unknown flags, malformed or out-of-range
numbers, odd lattice sizes and old flag spellings are each refused with status 1 and one line
"<program>: error: ..." naming the flag (tools/command_line_testing.py). Only --help and error paths run: seconds."""
import unittest

from tools.command_line_testing import ProgramTestCase

BLOCK_WILSON = "solvers/block_wilson_benchmark"


class BlockWilsonBenchmarkTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(BLOCK_WILSON, ["--size=N", "--min-seconds=X", "--blocks=N,..."])

    def test_errors(self):
        self.assert_common_errors(BLOCK_WILSON, flag_with_number="--size")
        self.assert_common_errors(BLOCK_WILSON, flag_with_number="--min-seconds")
        self.assert_common_errors(BLOCK_WILSON, flag_with_number="--blocks", positive_flag="--blocks")
        self.assert_error(BLOCK_WILSON, ["--size=7"], "--size", "odd")
        self.assert_error(BLOCK_WILSON, ["--size=1000"], "--size")
        self.assert_error(BLOCK_WILSON, ["--min-seconds=inf"], "--min-seconds")
        self.assert_error(BLOCK_WILSON, ["--blocks=1,2,x"], "--blocks")
        self.assert_error(BLOCK_WILSON, ["--min_seconds=1"], "--min_seconds")


if __name__ == "__main__":
    unittest.main()
