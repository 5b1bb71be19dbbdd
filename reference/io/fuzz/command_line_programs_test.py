"""The command lines of the fuzzing tools, gauge_file_fuzzer_replay and write_fuzz_seeds: --help; unknown flags and
missing or extra positional arguments are each refused with status 1 and one line "<program>: error: ..."
(tools/command_line_testing.py). Both are also run end to end on the synthetic 2x2x2x2 seeds (milliseconds)."""
import os
import tempfile
import unittest

from tools.command_line_testing import ProgramTestCase, run

REPLAY = "reference/io/fuzz/gauge_file_fuzzer_replay"
SEEDS = "reference/io/fuzz/write_fuzz_seeds"


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
