"""plot_dslash_accuracy.py renders Figure 6 from a dslash_accuracy.csv and rejects files that are not one."""
import os
import tempfile
import unittest

from experiments import plot_dslash_accuracy


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for row in rows:
            f.write(",".join(repr(v) for v in row) + "\n")


class PlotDslashAccuracyTest(unittest.TestCase):
    def test_writes_a_png(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "dslash_accuracy.csv")
            eps = [10.0 ** (k / 10) for k in range(-170, 1)]
            # A CDF per variant: everything deviates by less than its scale.
            rows = [[e, 1.0 if e < 1e-15 else 0.0, 1.0 if e < 1e-6 else 0.25 if e < 1e-5 else 0.0] for e in eps]
            write_csv(csv, ["eps", "double_12", "single_8"], rows)
            png = os.path.join(d, "out", "accuracy.png")
            plot_dslash_accuracy.main([csv, png, "--title", "test"])
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_rejects_a_csv_without_eps(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            write_csv(csv, ["a", "double_12"], [[1.0, 0.5]])
            with self.assertRaisesRegex(ValueError, "no column 'eps'"):
                plot_dslash_accuracy.plot(csv, os.path.join(d, "x.png"), "")

    def test_rejects_a_delta_that_grows(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "bad.csv")
            write_csv(csv, ["eps", "half_8"], [[1e-3, 0.1], [1e-2, 0.2]])
            with self.assertRaisesRegex(ValueError, "grows with eps"):
                plot_dslash_accuracy.plot(csv, os.path.join(d, "x.png"), "")


if __name__ == "__main__":
    unittest.main()
