"""The command line of heatbath_benchmark: --help lists every flag with its default; unknown flags, malformed or
out-of-range numbers, odd, malformed or too large lattices and the old positional form are each refused with
status 1 and one line "<program>: error: ..." naming the flag (tools/command_line_testing.py). Only --help and
error paths run: seconds."""
import unittest

from tools.command_line_testing import ProgramTestCase, run

HEATBATH = "reference/ensemble/heatbath_benchmark"


class HeatbathBenchmarkTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(HEATBATH, ["--lattice=LXxLYxLZxLT", "--beta=X", "--sweeps=N"])
        usage = run(HEATBATH, ["--help"]).stdout
        self.assertIn("(default: 8x8x8x16)", usage)
        self.assertIn("(default: 10)", usage)

    def test_errors(self):
        self.assert_common_errors(HEATBATH, flag_with_number="--beta", positive_flag="--sweeps")
        self.assert_common_errors(HEATBATH, flag_with_number="--sweeps")
        self.assert_error(HEATBATH, ["--beta=-1"], "--beta")
        self.assert_error(HEATBATH, ["--lattice=8x8x8x7"], "--lattice", "odd")
        self.assert_error(HEATBATH, ["--lattice=8x8x8"], "--lattice")
        self.assert_error(HEATBATH, ["--lattice=8x8x8x16x2"], "--lattice")
        self.assert_error(HEATBATH, ["--lattice=8abcx8x8x8"], "--lattice")
        self.assert_error(HEATBATH, ["--lattice=1024x8x8x8"], "--lattice")
        self.assert_error(HEATBATH, ["--lattice=512x512x512x512"], "--lattice", "too large")
        self.assert_error(HEATBATH, ["8", "16"], "'8'")  # the old positional form


if __name__ == "__main__":
    unittest.main()
