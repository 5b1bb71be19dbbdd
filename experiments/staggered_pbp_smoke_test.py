"""The staggered_pbp binary end to end on a tiny lattice (4^4, a few sweeps): it prints the machine and the
parameters, writes pbp.csv with the documented columns, every Z2-noise estimate lies within 5 standard errors
of the exact value from the sparse LU (for naive and HISQ links), and bad flags are refused with one line
naming the flag. Seconds."""
import csv
import os
import subprocess
import tempfile
import unittest

BINARY = os.path.join(os.environ.get("RUNFILES_DIR", "."), "lqcd", "experiments", "staggered_pbp")
if not os.path.exists(BINARY):
    BINARY = os.path.join("experiments", "staggered_pbp")

TINY = ["--lattice=4x4x4x4", "--sweeps=5", "--or=1", "--vectors=16", "--masses=0.05,0.2", "--tolerance=1e-10",
        "--exact=yes"]
COLUMNS = ["mass", "links", "vectors", "estimate", "standard_error", "cg_iterations", "max_full_residual",
           "all_converged", "exact", "exact_error_bound", "deviation_sigma"]


def run(args):
    return subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=120)


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


class StaggeredPbpSmokeTest(unittest.TestCase):
    def check_run(self, links):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            r = run(TINY + ["--links=" + links, "--output=" + out])
            self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
            for needle in ("machine:", "lattice: 4x4x4x4", "plaquette <Re Tr U_p>/3", "links: " + links,
                           "noise: 16 Z2 vectors per mass", "tolerance 1.0e-10", "exact: yes", "dev/sigma",
                           "total time"):
                self.assertIn(needle, r.stdout)
            self.assertEqual(r.stderr, "")
            columns, rows = read_rows(os.path.join(out, "pbp.csv"))
        self.assertEqual(columns, COLUMNS)
        self.assertEqual([float(row["mass"]) for row in rows], [0.05, 0.2])
        for row in rows:
            self.assertEqual(row["links"], links)
            self.assertEqual(int(row["vectors"]), 16)
            self.assertEqual(row["all_converged"], "1")
            self.assertGreater(int(row["cg_iterations"]), 0)
            est, se, exact = float(row["estimate"]), float(row["standard_error"]), float(row["exact"])
            self.assertGreater(se, 0)
            self.assertGreater(exact, 0)  # 2m (4m^2 - D^2)^-1 is positive definite: pbp > 0 for m > 0
            # The estimator is unbiased with this standard error: 5 sigma is a ~6e-7 false-failure chance
            # (Gaussian), and the solves' error (tolerance 1e-10) and the LU's bound are far below sigma.
            self.assertLess(abs(est - exact), 5 * se, row)
            self.assertLess(float(row["exact_error_bound"]), 1e-3 * se)
            self.assertAlmostEqual(float(row["deviation_sigma"]), (est - exact) / se, delta=1e-9)
        return rows

    def test_hisq_estimates_agree_with_exact(self):
        self.check_run("hisq")

    def test_naive_estimates_agree_with_exact(self):
        self.check_run("naive")

    def test_exact_no_leaves_exact_columns_empty(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            r = run(["--lattice=4x4x4x4", "--sweeps=2", "--vectors=2", "--masses=0.3", "--links=asqtad",
                     "--exact=no", "--output=" + out])
            self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
            columns, rows = read_rows(os.path.join(out, "pbp.csv"))
            self.assertEqual(columns, COLUMNS)
            self.assertEqual(len(rows), 1)
            self.assertEqual((rows[0]["exact"], rows[0]["exact_error_bound"], rows[0]["deviation_sigma"]),
                             ("", "", ""))

    def test_bad_flags_are_refused_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never_created")
            cases = [
                (["--links=wilson"], "--links must be one of naive|asqtad|hisq, got 'wilson'"),
                (["--masses=0.1,-0.2"], "--masses"),
                (["--masses=0"], "--masses"),
                (["--masses=0.1,,0.2"], "--masses"),
                (["--vectors=1"], "--vectors"),
                (["--vectors=abc"], "--vectors: not an integer"),
                (["--tolerance=0"], "--tolerance = 0 is outside (0, 1)"),
                (["--tolerance=nan"], "--tolerance: not a finite number"),
                (["--exact=maybe"], "--exact must be one of auto|yes|no, got 'maybe'"),
                (["--exact=yes", "--lattice=8x8x8x16"], "--exact=yes"),
                (["--seed=-1"], "--seed"),
                (["--u0=0.9"], "--u0 needs --links=asqtad"),
                (["--links=hisq", "--lattice=2x4x4x4"], "--lattice"),
                (["--lattice=4x4x4x7"], "--lattice"),
                (["--config=x.nersc", "--beta=5.7"], "--beta sets up the generator; it conflicts with --config"),
                (["--vectors=4", "--vectors=8"], "--vectors is given more than once"),
                (["--frobnicate=1"], "unknown flag --frobnicate"),
            ]
            for args, needle in cases:
                r = run(args + ["--output=" + out])
                self.assertEqual(r.returncode, 1, (args, r.stdout, r.stderr))
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, (args, r.stderr))
                self.assertTrue(lines[0].startswith("staggered_pbp: error:"), (args, r.stderr))
                self.assertIn(needle, r.stderr, args)
                self.assertNotIn("terminate called", r.stderr, args)
                self.assertFalse(os.path.exists(out), args)
            r = run(["--config=" + os.path.join(d, "missing.nersc"), "--output=" + out])
            self.assertEqual(r.returncode, 1)
            self.assertIn("missing.nersc", r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)

    def test_help_lists_the_flags_with_defaults(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for needle in ("--links=naive|asqtad|hisq", "(default: hisq)", "--masses=", "--vectors=N", "(default: 32)",
                       "--seed=", "--tolerance=X", "--exact=auto|yes|no", "(default: auto)", "--output=DIR",
                       "(default: pbp_out)", "--config=FILE"):
            self.assertIn(needle, r.stdout)


if __name__ == "__main__":
    unittest.main()
