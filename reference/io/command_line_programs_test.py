"""The command line of gauge_file_info: --help; unknown flags, flags it does not take and a missing FILE are each
refused with status 1 and one line "<program>: error: ..." naming the flag (tools/command_line_testing.py); a file
that does not exist is reported as rejected, not as an error. Only --help and error paths run: seconds."""
import unittest

from tools.command_line_testing import ProgramTestCase, run

GAUGE_FILE_INFO = "reference/io/gauge_file_info"


class GaugeFileInfoTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(GAUGE_FILE_INFO, [])
        self.assertIn("FILE...", run(GAUGE_FILE_INFO, ["--help"]).stdout)

    def test_errors(self):
        self.assert_common_errors(GAUGE_FILE_INFO)
        self.assert_error(GAUGE_FILE_INFO, [], "FILE")
        self.assert_error(GAUGE_FILE_INFO, ["--lattice=4x4x4x4", "x.nersc"], "--lattice")

    def test_a_missing_file_is_rejected_not_an_error(self):
        result = run(GAUGE_FILE_INFO, ["/nonexistent/config.nersc"])
        self.assert_no_crash(result)
        self.assertEqual(result.returncode, 1)
        self.assertIn("gauge_file_info: 1 file(s)", result.stdout)
        self.assertIn("REJECTED: /nonexistent/config.nersc", result.stdout)


if __name__ == "__main__":
    unittest.main()
