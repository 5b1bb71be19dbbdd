"""plot_pion.py renders a PNG from a pion_correlator.csv and rejects files that are not one."""
import math
import os
import tempfile
import unittest

from experiments import plot_pion


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("t,C,C_kappa,C_folded,m_eff_log,m_eff_cosh,m_eff_cosh_folded\n")
        for row in rows:
            f.write(",".join(row) + "\n")


class PlotPionTest(unittest.TestCase):
    def test_writes_a_png(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "pion_correlator.csv")
            lt, m = 8, 0.5
            c = [math.cosh(m * (t - lt / 2)) for t in range(lt)]
            rows = []
            for t in range(lt):
                last = t + 1 == lt
                rows.append([str(t), repr(c[t]), repr(c[t] * 30), repr(c[t]),
                             "" if last else repr(math.log(c[t] / c[t + 1])), "" if last else repr(m),
                             repr(m) if 2 * t < lt else ""])
            write_csv(csv, rows)
            png = os.path.join(d, "out", "pion.png")
            plot_pion.main([csv, png, "--title", "test"])
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_rejects_a_csv_without_the_columns(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            with open(csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "no column 't'"):
                plot_pion.plot(csv, os.path.join(d, "x.png"), "")

    def test_rejects_a_non_positive_correlator(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "pion_correlator.csv")
            write_csv(csv, [["0", "1.0", "2.0", "1.0", "0.1", "0.1", "0.1"], ["1", "-1.0", "-2.0", "-1.0", "", "", ""]])
            with self.assertRaisesRegex(ValueError, "positive"):
                plot_pion.plot(csv, os.path.join(d, "x.png"), "")


if __name__ == "__main__":
    unittest.main()
