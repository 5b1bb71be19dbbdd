"""plot_multi_rhs.py renders the multi-RHS PNG and markdown tables from a multi_rhs_dslash_benchmark CSV (the
cells from the right rows), and rejects files that are not one."""
import os
import tempfile
import unittest

from experiments import plot_multi_rhs

HEADER = ("lattice,variant,precision,reconstruct,gauge_fixed,rhs,single_us,m1_us,m2_us,m4_us,best_us,gflops_per_rhs,"
          "minimum_bytes_per_site_per_rhs,roofline_fraction,speedup,copy_gbs")


def write_csv(path):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for lattice in ("32x32x32x32", "24x24x24x64"):
            for variant, base in (("single/12", 120.0), ("half/12", 70.0)):
                for n in (1, 2, 4, 8):
                    best = base / (1 + 0.1 * n) + (1 if lattice.startswith("24") else 0)
                    f.write(f"{lattice},{variant},{variant.split('/')[0]},12,0,{n},{base},{best},-1,-1,{best},1000,"
                            f"300,{0.1 * n},{base / best},2858\n")


class PlotMultiRhsTest(unittest.TestCase):
    def test_writes_png_and_tables(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "multi_rhs.csv")
            write_csv(csv)
            png, md = os.path.join(d, "multi_rhs.png"), os.path.join(d, "multi_rhs.md")
            plot_multi_rhs.main([csv, png, "--markdown", md])
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(md) as f:
                text = f.read()
            # single/12 at 32^4: 120 / (1 + 0.1 n) = 109.1, 100.0, 85.7, 66.7 us; roofline 10, 20, 40, 80%.
            self.assertIn("| single/12 | 109.1 (10%) | 100.0 (20%) | 85.7 (40%) | 66.7 (80%) |", text)
            # 24^3x64 one microsecond more.
            self.assertIn("| single/12 | 110.1 (10%) | 101.0 (20%) | 86.7 (40%) | 67.7 (80%) |", text)
            self.assertIn("24x24x24x64: microseconds per right-hand side", text)

    def test_rejects_a_csv_without_the_columns(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            with open(csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "no column 'lattice'"):
                plot_multi_rhs.load(csv)


if __name__ == "__main__":
    unittest.main()
