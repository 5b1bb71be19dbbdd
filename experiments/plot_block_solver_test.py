"""plot_block_solver.py renders the block solver PNG and markdown table from block_solver_benchmark CSVs (the cells
from the right rows, one series per spec and action, several files merged), and rejects files that are not such
CSVs."""
import contextlib
import io
import os
import tempfile
import unittest

from experiments import plot_block_solver

HEADER = ("lattice,links,fermion,kappa,csw,clover_form,solver,tolerance,rhs,separate_seconds_per_column,"
          "block_seconds_per_column,speedup_per_column,separate_mean_iterations,block_mean_iterations,"
          "separate_mean_reliable_updates,block_mean_reliable_updates,all_converged,max_true_residual,device")


def row(fermion, solver, n, separate, block, iterations, updates, converged=1, csw="", form=""):
    return (f"24x24x24x48,/data/cfg 3.lime,{fermion},0.155,{csw},{form},{solver},1e-10,{n},{separate},{block},"
            f"{separate / block},{iterations},{iterations},{updates},{updates},{converged},8.5e-11,NVIDIA H100\n")


def write_wilson(path):
    """Two specs at n = 1, 4, 12: double/18 gaining 1.3x at n = 12, reliable half/12 with reliable updates."""
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for n, block in ((1, 0.372), (4, 0.266), (12, 0.262)):
            f.write(row("wilson", "bicgstab:double/18", n, 0.341, block, 290, 0))
        for n, block in ((1, 0.112), (4, 0.102), (12, 0.1)):
            f.write(row("wilson", "bicgstab-reliable:half/12:0.1", n, 0.106, block, 307, 11.5))


def write_clover(path, converged=1):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for n, block in ((1, 0.5), (12, 0.4)):
            f.write(row("clover", "bicgstab:double/18", n, 0.5, block, 310, 0, converged, csw=1, form="complement"))


def run_main(args):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        plot_block_solver.main(args)
    return out.getvalue()


class PlotBlockSolverTest(unittest.TestCase):
    def test_writes_png_and_table_for_one_csv(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "wilson.csv")
            write_wilson(csv)
            png, md = os.path.join(d, "block.png"), os.path.join(d, "block.md")
            run_main([csv, png, "--markdown", md])
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(md) as f:
                text = f.read()
            # What every row shares is named once, above the table; the spec names each series.
            self.assertIn("Block solver, Wilson, 24x24x24x48, kappa 0.155, links /data/cfg 3.lime, NVIDIA H100", text)
            self.assertIn("| solver | n | separate, s per column |", text)
            self.assertIn("| bicgstab:double/18 | 12 | 0.341 | 0.262 | 1.30 | 290 | 8.5e-11 | yes |", text)
            self.assertIn("| bicgstab:double/18 | 1 | 0.341 | 0.372 | 0.92 | 290 | 8.5e-11 | yes |", text)
            self.assertIn("| bicgstab-reliable:half/12:0.1 | 4 | 0.106 | 0.102 | 1.04 | 307 (11.5) | 8.5e-11 | yes |",
                          text)
            self.assertEqual(text.count("| bicgstab"), 6)  # one row per (spec, n)

    def test_merges_csvs_and_names_the_action(self):
        with tempfile.TemporaryDirectory() as d:
            wilson, clover = os.path.join(d, "wilson.csv"), os.path.join(d, "clover.csv")
            write_wilson(wilson)
            write_clover(clover, converged=0)
            png = os.path.join(d, "block.png")
            text = run_main([wilson, clover, png])  # the table goes to stdout without --markdown
            self.assertTrue(os.path.getsize(png) > 0)
            self.assertIn("| solver / action | n |", text)
            self.assertIn("| bicgstab:double/18, Wilson | 12 | 0.341 | 0.262 | 1.30 |", text)
            self.assertIn("| bicgstab:double/18, clover c_sw=1 | 12 | 0.500 | 0.400 | 1.25 | 310 | 8.5e-11 | **no** |",
                          text)
            self.assertIn("plot_block_solver: wrote " + png, text)

    def test_rejects_a_csv_without_the_columns(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "other.csv")
            with open(csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(ValueError, "no column 'lattice'.*block_solver_benchmark CSV"):
                plot_block_solver.load([csv])

    def test_rejects_malformed_rows(self):
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "bad.csv")
            good = row("wilson", "bicgstab:double/18", 4, 0.3, 0.2, 290, 0)
            for bad, message in ((good.replace(",wilson,", ",staggered,"), "row 2: fermion 'staggered'"),
                                 (good.replace(",1e-10,4,", ",1e-10,2.5,"), "row 2: rhs = 2.5"),
                                 (good.replace(",0.3,0.2,", ",0.3,-1,"), "row 2: block_seconds_per_column = -1"),
                                 (good.replace(",1,8.5e-11,", ",2,8.5e-11,"), "row 2: all_converged = 2"),
                                 (good.replace(",NVIDIA", ",0,NVIDIA"), "row 2: more fields than the header"),
                                 (good.replace(",NVIDIA H100", ""), "row 2: fewer fields than the header"),
                                 (row("clover", "bicgstab:double/18", 4, 0.3, 0.2, 290, 0), "row 2: a clover row"),
                                 (good + good, "row 3: n = 4 of bicgstab:double/18, Wilson is also .* row 2")):
                with open(csv, "w") as f:
                    f.write(HEADER + "\n" + bad)
                with self.assertRaisesRegex(ValueError, message):
                    plot_block_solver.load([csv])

    def test_refuses_a_png_that_is_not_one(self):
        with tempfile.TemporaryDirectory() as d:
            first, second = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
            write_wilson(first)
            write_clover(second)
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
                plot_block_solver.main([first, second])  # the PNG forgotten: b.csv must survive
            self.assertIn("must end in .png", err.getvalue())
            with open(second) as f:
                self.assertTrue(f.read().startswith(HEADER))


if __name__ == "__main__":
    unittest.main()
