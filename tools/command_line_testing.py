"""What every command-line test of the project's programs checks (reference/cli/command_line.h's contract), for the
*/command_line_programs_test.py tests: --help exits 0 and lists every flag; a bad command line exits with status
1 and exactly one line on stderr, "<program>: error: ...", naming the flag, before the program prints or
computes anything; nothing ever dies with "terminate called" or a signal. Only error paths and --help are run,
so the tests take seconds and need no GPU."""
import os
import subprocess
import unittest


def binary(path):
    """The runfiles path of the Bazel-built program `path` ("gpu/dslash_accuracy")."""
    for root in (os.environ.get("TEST_SRCDIR"), os.environ.get("RUNFILES_DIR")):
        if root:
            candidate = os.path.join(root, "lqcd", path)
            if os.path.exists(candidate):
                return candidate
    return os.path.join("bazel-bin", path)


def run(path, args, cwd=None):
    return subprocess.run([binary(path)] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60, cwd=cwd)


class ProgramTestCase(unittest.TestCase):
    def assert_no_crash(self, result):
        text = result.stdout + result.stderr
        self.assertNotIn("terminate called", text)
        self.assertNotIn("Aborted", text)
        self.assertGreaterEqual(result.returncode, 0, "killed by signal %d" % -result.returncode)

    def assert_help(self, path, flags):
        """--help (and -h) exit 0 and print the usage with every flag in `flags` and a default for each."""
        program = os.path.basename(path)
        for option in ("--help", "-h"):
            result = run(path, [option])
            self.assert_no_crash(result)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")
            self.assertTrue(result.stdout.startswith("usage: " + program + " [flags]"), result.stdout[:200])
            for flag in flags:
                self.assertIn("  " + flag, result.stdout, "%s --help does not list %s" % (program, flag))
        # --help is honoured wherever it stands, and nothing after it is parsed.
        result = run(path, ["--help", "--no-such-flag=1"])
        self.assertEqual(result.returncode, 0, result.stderr)

    def assert_error(self, path, args, *needles):
        """`args` is refused: status 1, no output on stdout (nothing ran), exactly one line on stderr starting
        with "<program>: error:" and containing each of `needles` (the flag's name, the offending text)."""
        program = os.path.basename(path)
        result = run(path, args)
        what = "%s %s" % (program, " ".join(args))
        self.assert_no_crash(result)
        self.assertEqual(result.returncode, 1, "%s: status %d, stderr %r" % (what, result.returncode, result.stderr))
        self.assertEqual(result.stdout, "", "%s printed to stdout before refusing" % what)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, "%s: stderr is not one line: %r" % (what, result.stderr))
        self.assertTrue(lines[0].startswith(program + ": error: "), "%s: %r" % (what, lines[0]))
        for needle in needles:
            self.assertIn(needle, lines[0], "%s: %r does not name %r" % (what, lines[0], needle))
        return lines[0]

    def assert_common_errors(self, path, flag_with_number=None, positive_flag=None):
        """The errors every program must refuse the same way: an unknown flag (with and without a value); for
        `flag_with_number`, malformed numbers and a missing value; for `positive_flag` (an integer >= 1), 0, -1
        and the flag given twice."""
        self.assert_error(path, ["--no-such-flag=1"], "--no-such-flag")
        self.assert_error(path, ["--no-such-flag"], "--no-such-flag")
        if flag_with_number:
            for bad in ("8abc", "nan", "", " 8", "1e400"):
                self.assert_error(path, ["%s=%s" % (flag_with_number, bad)], flag_with_number)
            self.assert_error(path, [flag_with_number], flag_with_number)  # no value
        if positive_flag:
            self.assert_error(path, ["%s=0" % positive_flag], positive_flag)
            self.assert_error(path, ["%s=-1" % positive_flag], positive_flag)
            self.assert_error(path, ["%s=2" % positive_flag, "%s=2" % positive_flag], positive_flag, "more than once")
