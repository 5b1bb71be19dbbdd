"""The command lines of the CPU programs of reference/ (and of solvers/block_wilson_benchmark and the fuzzing tools
of reference/fuzz): --help lists every flag; unknown flags, malformed or out-of-range numbers, odd lattices and
extra or missing positional arguments are each refused with status 1 and one line "<program>: error: ..." naming
the flag (tools/command_line_testing.py). Only --help and error paths run, except the fuzzing tools, which are
also run end to end on the synthetic 2x2x2x2 seeds (milliseconds)."""
import os
import tempfile
import unittest

from tools.command_line_testing import ProgramTestCase, run

GAUGE_FILE_INFO = "reference/gauge_file_info"
HEATBATH = "reference/heatbath_benchmark"
WILSON = "reference/wilson_benchmark"
BLOCK_WILSON = "solvers/block_wilson_benchmark"
REPLAY = "reference/fuzz/gauge_file_fuzzer_replay"
SEEDS = "reference/fuzz/write_fuzz_seeds"


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


class FuzzToolsTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(REPLAY, [])
        self.assert_help(SEEDS, [])
        self.assertIn("OUTPUT_DIRECTORY", run(SEEDS, ["--help"]).stdout)

    def test_errors(self):
        self.assert_common_errors(REPLAY)
        self.assert_common_errors(SEEDS)
        self.assert_error(REPLAY, [], "FILE")
        self.assert_error(SEEDS, [], "OUTPUT_DIRECTORY")
        self.assert_error(SEEDS, ["a", "b"], "at most 1 OUTPUT_DIRECTORY", "got 2")
        self.assert_error(SEEDS, ["/nonexistent/directory"], "/nonexistent/directory")

    def test_seeds_are_written_and_replayed(self):
        # The invocations of run_fuzzer.sh and libfuzzer_short_run_test.sh: write_fuzz_seeds DIR, replay FILE...
        with tempfile.TemporaryDirectory() as directory:
            written = run(SEEDS, [directory])
            self.assert_no_crash(written)
            self.assertEqual(written.returncode, 0, written.stderr)
            self.assertIn("write_fuzz_seeds: wrote", written.stdout)
            files = sorted(os.path.join(directory, name) for name in os.listdir(directory))
            self.assertGreater(len(files), 3)
            replayed = run(REPLAY, files)
            self.assert_no_crash(replayed)
            self.assertEqual(replayed.returncode, 0, replayed.stdout + replayed.stderr)
            self.assertIn("replaying %d file(s)" % len(files), replayed.stdout)
            self.assertEqual(replayed.stdout.count("accepted") + replayed.stdout.count("rejected"), len(files))
            self.assertNotIn("BUG", replayed.stdout)


if __name__ == "__main__":
    unittest.main()
