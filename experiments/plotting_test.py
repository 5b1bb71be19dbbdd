"""The Python toolchain runs on Debian's interpreter and can render a PNG with matplotlib;
the CSV reader and the markdown table helper do what they say."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

from experiments import plotting


class PlottingTest(unittest.TestCase):
    def test_runs_on_debian_python_with_matplotlib(self):
        self.assertEqual(os.path.realpath(sys.executable), os.path.realpath("/usr/bin/python3"))
        import matplotlib  # noqa: F401  (the import itself is the check)

    def test_renders_a_png(self):
        with tempfile.TemporaryDirectory() as d:
            fig, ax = plotting.plt.subplots()
            ax.semilogy([1, 2, 3], [1e-1, 1e-2, 1e-3])
            path = plotting.save_figure(fig, os.path.join(d, "sub", "t.png"), "test")
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_reads_csv_numbers(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.csv")
            with open(path, "w") as f:
                f.write("name,value\nalpha,1.5e-3\nbeta,n/a\n")
            rows = plotting.read_csv(path)
            self.assertEqual(rows[0], {"name": "alpha", "value": 1.5e-3})
            self.assertEqual(rows[1]["value"], "n/a")

    def test_user_paths_follow_bazel_run(self):
        old = os.environ.get("BUILD_WORKING_DIRECTORY")
        try:
            os.environ["BUILD_WORKING_DIRECTORY"] = "/home/user/work"
            self.assertEqual(plotting.user_path("out/a.png"), "/home/user/work/out/a.png")
            self.assertEqual(plotting.user_path("/tmp/a.png"), "/tmp/a.png")
            del os.environ["BUILD_WORKING_DIRECTORY"]
            self.assertEqual(plotting.user_path("out/a.png"), "out/a.png")
        finally:
            if old is not None:
                os.environ["BUILD_WORKING_DIRECTORY"] = old

    def test_write_markdown_to_a_file_or_stdout(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.md")
            plotting.write_markdown("| a |\n", path)
            with open(path) as f:
                self.assertEqual(f.read(), "| a |\n")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            plotting.write_markdown("| b |", "")
        self.assertEqual(out.getvalue(), "| b |\n")

    def test_markdown_table(self):
        self.assertEqual(plotting.markdown_table(["a", "b"], [[1, 2]]), "| a | b |\n|---|---|\n| 1 | 2 |\n")


if __name__ == "__main__":
    unittest.main()
