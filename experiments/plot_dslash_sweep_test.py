"""plot_dslash_sweep.py renders the three sweep PNGs and the markdown tables from a dslash_sweep.csv, with the
padding ratios computed from the right rows, and rejects files that are not one."""
import os
import tempfile
import unittest

from experiments import plot_dslash_sweep

HEADER = ("T,padded,pad_sites,operator,precision,reconstruct,gauge_fixed,microseconds,gflops,model_bytes_per_site,"
          "model_gbs,minimum_bytes_per_site,roofline_fraction,copy_gbs")


def gflops(t, padded, operator, precision, reconstruct, gf):
    # Made-up but distinct numbers; padding doubles single/12 at T = 64 only.
    base = {"double": 1000, "single": 2000, "half": 4000}[precision] + 10 * reconstruct + 5 * gf + t
    if operator == "mee":
        base *= 0.9
    if padded and precision == "single" and reconstruct == 12 and t == 64:
        base *= 2
    return base


def write_sweep(path):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for t in (16, 32, 64):
            for padded in (0, 1):
                for operator in ("dslash", "mee"):
                    for precision in ("double", "single", "half"):
                        for reconstruct in (18, 12, 8):
                            for gf in (0, 1):
                                g = gflops(t, padded, operator, precision, reconstruct, gf)
                                f.write(f"{t},{padded},0,{operator},{precision},{reconstruct},{gf},10,{g},1000,"
                                        f"2000,900,0.5,2800\n")


class PlotDslashSweepTest(unittest.TestCase):
    def test_writes_pngs_and_tables(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "dslash_sweep.csv")
            write_sweep(csv)
            md = os.path.join(d, "tables.md")
            plot_dslash_sweep.main([csv, os.path.join(d, "img"), "--markdown", md, "--table-t", "16,64"])
            for name in ("dslash_sweep_mee.png", "dslash_sweep_dslash.png", "dslash_sweep_padding.png"):
                with open(os.path.join(d, "img", name), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)
            with open(md) as f:
                text = f.read()
            # M_ee single/12 unpadded: 0.9 * (2000 + 120 + T) = 1922.4 at T = 16 and 1965.6 at T = 64.
            self.assertIn("| single/12 | 1922 (50%) | 1966 (50%) |", text)
            # The padding ratio of single/12 (no gf) is 1, 1 and 2 at T = 16, 32, 64.
            self.assertIn("| single/12 | 1.000 | 1.000 | 2.000 | 16 / 64 |", text)
            self.assertIn("Copy-kernel roofline of the run: 2800 GB/s", text)

    def test_rejects_a_csv_without_the_columns(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            with open(csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "no column 'T'"):
                plot_dslash_sweep.load(csv)


if __name__ == "__main__":
    unittest.main()
