"""The pion binary end to end on a tiny lattice (4^3 x 8, 3 sweeps): it writes its files, records every
solve, reuses the cached configuration bit for bit, reads a configuration given by --config, and rejects
bad flags with a message naming the flag. Not the main job itself (that is minutes, never a test)."""
import csv
import os
import subprocess
import tempfile
import unittest

BINARY = os.path.join(os.environ.get("RUNFILES_DIR", "."), "lqcd", "experiments", "pion")
if not os.path.exists(BINARY):
    BINARY = os.path.join("experiments", "pion")

TINY = ["--lattice=4x4x4x8", "--sweeps=3", "--or=1", "--threads=1", "--kappa=0.12", "--tol=1e-9"]


def run(args):
    return subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=300)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class PionSmokeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "out")
        cls.first = run(TINY + ["--output=" + cls.out])
        with open(os.path.join(cls.out, "run.log")) as f:
            cls.first_log = f.read()
        cls.second = run(TINY + ["--output=" + cls.out, "--no-plot", "--threads=2"])  # threads: same numbers

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_first_run_generates_and_writes_everything(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr + self.first.stdout)
        text = self.first.stdout
        for needle in ("configuration: generating", "lattice: 4x4x4x8", "plaquette <Re Tr U_p>/3",
                       "normalisation: the propagator is S = M^{-1}", "C_kappa(t) = C(t) / (4 kappa^2)",
                       "kappa = 0.12", "fermion boundary (x,y,z,t) = PPPA", "pion correlator (zero momentum",
                       "machine:", "total time"):
            self.assertIn(needle, text)
        for name in ("pion_correlator.csv", "solves.csv", "run.log", "pion.png"):
            self.assertTrue(os.path.exists(os.path.join(self.out, name)), name)
        with open(os.path.join(self.out, "pion.png"), "rb") as f:
            self.assertEqual(f.read(4), b"\x89PNG")
        solves = read_rows(os.path.join(self.out, "solves.csv"))
        self.assertEqual(len(solves), 12)
        for row in solves:
            self.assertEqual(row["status"], "converged")
            self.assertLessEqual(float(row["true_residual"]), 1e-9)
            self.assertGreater(int(row["iterations"]), 0)
        corr = read_rows(os.path.join(self.out, "pion_correlator.csv"))
        self.assertEqual([int(r["t"]) for r in corr], list(range(8)))
        kappa = 0.12
        for r in corr:
            c, ck = float(r["C"]), float(r["C_kappa"])
            self.assertGreater(c, 0)
            # C_kappa = C / (4 kappa^2): one division and two products, a few units of 2^-53 apart.
            self.assertAlmostEqual(ck / (c / (4 * kappa * kappa)), 1.0, delta=1e-15)
        for t, r in enumerate(corr):
            # C_folded = (C(t) + C(T - t)) / 2: one addition and an exact halving, printed with 17 digits.
            mirror = float(corr[(8 - t) % 8]["C"])
            self.assertAlmostEqual(float(r["C_folded"]), (float(r["C"]) + mirror) / 2,
                                   delta=4e-16 * (float(r["C"]) + mirror))
        self.assertEqual(corr[-1]["m_eff_cosh"], "")  # no mass at the last t
        self.assertNotEqual(corr[3]["m_eff_cosh_folded"], "")
        self.assertEqual(corr[4]["m_eff_cosh_folded"], "")  # folded masses stop at the midpoint
        self.assertEqual(self.first_log, self.first.stdout)  # run.log holds exactly what was printed

    def test_second_run_reuses_the_cached_configuration_bit_for_bit(self):
        self.assertEqual(self.second.returncode, 0, self.second.stderr)
        self.assertIn("configuration: reusing", self.second.stdout)
        self.assertNotIn("configuration: generating", self.second.stdout)
        cached = [n for n in os.listdir(self.out) if n.endswith(".nersc")]
        self.assertEqual(len(cached), 1)
        # Same configuration, same deterministic solver (on 2 threads now): the printed correlator is identical.
        def table(text):
            return text[text.index("pion correlator (zero momentum"):text.index("wrote")]
        self.assertEqual(table(self.first.stdout), table(self.second.stdout))
        # --config reads the same file (format detected from its bytes) and gives the same correlator.
        with tempfile.TemporaryDirectory() as d:
            third = run(["--config=" + os.path.join(self.out, cached[0]), "--kappa=0.12", "--tol=1e-9",
                         "--no-plot", "--output=" + d])
            self.assertEqual(third.returncode, 0, third.stderr)
            self.assertIn("NERSC", third.stdout)
            self.assertEqual(table(self.first.stdout), table(third.stdout))

    def test_bad_flags_are_rejected_with_a_message(self):
        with tempfile.TemporaryDirectory() as d:
            cases = [
                (["--kappa=0.12", "--mass=0.1"], "--kappa or --mass"),
                (["--csw=1.0"], "--fermion=clover"),
                (["--bc=PPPX"], "--bc"),
                (["--solver=gmres"], "--solver"),
                (["--config=" + os.path.join(d, "missing.nersc")], "missing.nersc"),
                (["--lattice=4x4x4"], "--lattice"),
                (["--source=9,0,0,0"] + TINY[:3], "--source"),
                (["--frobnicate=1"], "unknown option --frobnicate"),
            ]
            for args, needle in cases:
                r = run(args + ["--output=" + d, "--no-plot"])
                self.assertEqual(r.returncode, 1, args)
                self.assertIn("pion: error:", r.stderr, args)
                self.assertIn(needle, r.stderr, args)


if __name__ == "__main__":
    unittest.main()
