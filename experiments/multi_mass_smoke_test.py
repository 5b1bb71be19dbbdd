"""The multi_mass binary end to end on a tiny lattice (4^3 x 8, 6 sweeps) on the CPU oracle: it writes
figure6.csv, table3.csv, multi_mass.md and figure6.png; every strategy of both mass sets is recorded with the
zero-guess baseline; the guesses save iterations (gain < 1: the zero guess solves each mass from scratch, and
at these well-conditioned masses every extrapolation starts closer); BiCGstab-M converges; bad flags are
refused with one line naming the flag. The study itself (24^4, 002's masses) is minutes on a GPU, never a
test. The masses are moved away from the critical mass (--critical-mass=-0.4) so that the tiny solves are
fast and well conditioned."""
import csv
import os
import subprocess
import tempfile
import unittest

BINARY = os.path.join(os.environ.get("RUNFILES_DIR", "."), "lqcd", "experiments", "multi_mass")
if not os.path.exists(BINARY):
    BINARY = os.path.join("experiments", "multi_mass")

TINY = ["--lattice=4x4x4x8", "--therm=5", "--backend=cpu", "--orders=0,1,2", "--critical-mass=-0.4"]


def run(args):
    return subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=300)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class MultiMassSmokeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "out")
        cls.result = run(TINY + ["--output=" + cls.out])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_writes_every_file(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        for name in ("figure6.csv", "table3.csv", "multi_mass.md", "figure6.png"):
            self.assertTrue(os.path.getsize(os.path.join(self.out, name)) > 0, name)

    def test_figure6_rows_and_gains(self):
        rows = read_rows(os.path.join(self.out, "figure6.csv"))
        for mass_set in ("wide", "narrow"):
            mine = [r for r in rows if r["set"] == mass_set]
            strategies = [(r["strategy"], int(r["order"])) for r in mine]
            self.assertEqual(strategies, [("zero", -1), ("polynomial", 0), ("polynomial", 1), ("polynomial", 2),
                                          ("polynomial", -1), ("minimal-residual", -1)])
            baseline = int(mine[0]["total_iterations"])
            for r in mine:
                self.assertEqual(int(r["baseline_iterations"]), baseline)
                self.assertAlmostEqual(float(r["gain"]), int(r["total_iterations"]) / baseline, places=12)
                if r["strategy"] != "zero":
                    self.assertLess(float(r["gain"]), 1.0, r)

    def test_table3_compares_both_solvers(self):
        rows = read_rows(os.path.join(self.out, "table3.csv"))
        self.assertEqual([(r["set"], r["solver"]) for r in rows],
                         [("wide", "single-mass"), ("wide", "multi-shift"), ("narrow", "single-mass"),
                          ("narrow", "multi-shift")])
        for r in rows:
            self.assertGreater(int(r["total_iterations"]), 0)
            self.assertGreater(float(r["total_seconds"]), 0)
        self.assertNotIn("NOT ALL CONVERGED", self.result.stdout)

    def test_bad_flags_are_refused(self):
        for args, needle in ((["--sets=medium"], "--sets"), (["--orders=9"], "--orders"),
                             (["--solver=gmres"], "--solver"), (["--config=x.nersc", "--lattice=4x4x4x8"], "--config"),
                             (["--critical-mass=-4.5"], "--critical-mass"), (["--tolerance=0"], "--tolerance")):
            r = run(args + ["--output=" + os.path.join(self.tmp.name, "never"), "--no-plot"])
            self.assertEqual(r.returncode, 1, args)
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, (args, r.stderr))
            self.assertTrue(lines[0].startswith("multi_mass: error:"), (args, r.stderr))
            self.assertIn(needle, r.stderr, args)
            self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "never")), args)


if __name__ == "__main__":
    unittest.main()
