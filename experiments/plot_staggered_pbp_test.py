"""plot_staggered_pbp.py renders a PNG from a pbp_running.csv (with and without exact values) and rejects files
that are not one."""
import os
import tempfile
import unittest

from experiments import plot_staggered_pbp


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("mass,vectors,estimate,standard_error,exact\n")
        for row in rows:
            f.write(",".join(row) + "\n")


class PlotStaggeredPbpTest(unittest.TestCase):
    def test_writes_a_png(self):
        for exact in ("0.5", ""):
            with tempfile.TemporaryDirectory() as d:
                csv = os.path.join(d, "pbp_running.csv")
                rows = [[m, str(n), repr(0.5 + 0.1 / n), repr(0.2 / n ** 0.5), exact]
                        for m in ("0.05", "0.1") for n in range(2, 17)]
                write_csv(csv, rows)
                png = os.path.join(d, "out", "pbp_running.png")
                plot_staggered_pbp.main([csv, png, "--title", "test"])
                with open(png, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_rejects_a_csv_without_the_columns(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            with open(csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "no column 'mass'"):
                plot_staggered_pbp.plot(csv, os.path.join(d, "x.png"), "")


if __name__ == "__main__":
    unittest.main()
