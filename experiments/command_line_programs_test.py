"""The command line of experiments/quenched_validation: --help lists every flag; unknown flags, malformed or
out-of-range numbers and unknown checks are each refused with status 1 and one line
"quenched_validation: error: ..." naming the flag (tools/command_line_testing.py). Only --help and error paths
run (the validation itself takes minutes to hours)."""
import unittest

from tools.command_line_testing import ProgramTestCase

VALIDATION = "experiments/quenched_validation"


class QuenchedValidationTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(VALIDATION, ["--only=all|strong|weak|b57|b60", "--scale=X", "--seed=N", "--threads=N",
                                      "--output=DIR"])

    def test_errors(self):
        self.assert_common_errors(VALIDATION, flag_with_number="--scale")
        self.assert_common_errors(VALIDATION, flag_with_number="--seed")
        self.assert_common_errors(VALIDATION, flag_with_number="--threads")
        self.assert_error(VALIDATION, ["--scale=0"], "--scale")
        self.assert_error(VALIDATION, ["--scale=-0.5"], "--scale")
        self.assert_error(VALIDATION, ["--scale=0.5", "--scale=1"], "--scale", "more than once")
        self.assert_error(VALIDATION, ["--seed=-1"], "--seed")
        self.assert_error(VALIDATION, ["--seed=18446744073709551616"], "--seed")
        self.assert_error(VALIDATION, ["--threads=-1"], "--threads")
        self.assert_error(VALIDATION, ["--only=b58"], "--only")
        self.assert_error(VALIDATION, ["--only=strong,weak"], "--only")
        self.assert_error(VALIDATION, ["--output="], "--output")
        self.assert_error(VALIDATION, ["strong"], "strong")


if __name__ == "__main__":
    unittest.main()
