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

TINY = ["--lattice=4x4x4x8", "--sweeps=3", "--or=1", "--threads=1", "--kappa=0.12", "--tolerance=1e-9",
        "--backend=cpu"]


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
        two_threads = [a if a != "--threads=1" else "--threads=2" for a in TINY]  # threads: same numbers
        cls.second = run(two_threads + ["--output=" + cls.out, "--no-plot"])

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
            # The column's wall time holds the solver's own time, the transfers (none on the CPU) and the residual
            # check, three disjoint intervals; all are printed with 10 digits.
            parts = float(row["seconds"]) + float(row["transfer_seconds"]) + float(row["check_seconds"])
            self.assertGreaterEqual(float(row["column_seconds"]) * (1 + 1e-9), parts)
            self.assertEqual(float(row["transfer_seconds"]), 0.0)
            self.assertGreater(float(row["check_seconds"]), 0.0)
        # The job's phases (summary.csv, printed with 10 digits): disjoint intervals of the job, the solves and
        # the contraction inside the propagator's.
        summary = {r["key"]: r["value"] for r in read_rows(os.path.join(self.out, "summary.csv"))}
        phase = {k: float(summary[k + "_seconds"]) for k in ("configuration", "propagator", "solve", "contraction")}
        for k, v in phase.items():
            self.assertGreater(v, 0.0, k)
        self.assertGreaterEqual(phase["propagator"] * (1 + 1e-9), phase["solve"] + phase["contraction"])
        self.assertIn("total time: ", text)
        self.assertIn("s; propagator ", text)
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
            third = run(["--config=" + os.path.join(self.out, cached[0]), "--kappa=0.12", "--tolerance=1e-9",
                         "--backend=cpu", "--no-plot", "--output=" + d])
            self.assertEqual(third.returncode, 0, third.stderr)
            self.assertIn("NERSC", third.stdout)
            self.assertEqual(table(self.first.stdout), table(third.stdout))

    def test_clover_trace_convention_and_tadpole_factor_reach_the_solves(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        cached = [n for n in os.listdir(self.out) if n.endswith(".nersc")][0]
        clover = ["--config=" + os.path.join(self.out, cached), "--kappa=0.12", "--tolerance=1e-9", "--backend=cpu",
                  "--no-plot", "--fermion=clover"]
        runs = {
            "traceless": ["--csw=1.0"],
            "with_trace": ["--csw=1.0", "--clover-trace=with-trace"],
            # MILC's clov_c = 0.729 with u0 = 0.9: c_sw = 0.729 / 0.9^3 = 1 up to a few units of 2^-53.
            "milc": ["--csw=0.729", "--clover-u0=0.9", "--clover-trace=with-trace"],
        }
        out, c = {}, {}
        with tempfile.TemporaryDirectory() as d:
            for name, flags in runs.items():
                r = run(clover + flags + ["--output=" + os.path.join(d, name)])
                self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
                out[name] = r.stdout
                c[name] = [float(row["C"]) for row in read_rows(os.path.join(d, name, "pion_correlator.csv"))]
        self.assertIn("field strength traceless, even-odd form", out["traceless"])
        self.assertIn("field strength with-trace (Chroma, MILC)", out["with_trace"])
        self.assertIn("clover coefficient: c_sw = --csw / u0^3 = 0.729 / 0.9^3", out["milc"])
        self.assertNotIn("clover coefficient:", out["with_trace"])
        # Each C(t) is good to about its solves' tolerance, 1e-9 relative times ||M^-1|| ||M|| (a few hundred
        # here): two runs of the same matrix agree to ~1e-6 relative at worst. The trace term changes the
        # matrix by O(F^3) per site, which moves C(t) by far more (a flag that never reached the solves would
        # give the same numbers); c_sw = 1 to rounding gives the same matrix as with_trace.
        for t in range(8):
            self.assertAlmostEqual(c["milc"][t] / c["with_trace"][t], 1.0, delta=1e-6)
        self.assertGreater(max(abs(a / b - 1) for a, b in zip(c["with_trace"], c["traceless"])), 1e-4)

    def test_bad_flags_are_rejected_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never_created")
            cases = [
                (["--kappa=0.12", "--mass=0.1"], "--kappa or --mass"),
                (["--csw=1.0"], "--fermion=clover"),
                (["--clover-form=unit-diagonal"], "--clover-form needs --fermion=clover"),
                (["--clover-trace=with-trace"], "--clover-trace needs --fermion=clover"),
                (["--clover-u0=0.9"], "--clover-u0 needs --fermion=clover"),
                (["--fermion=clover", "--clover-trace=full"],
                 "--clover-trace must be one of traceless|with-trace, got 'full'"),
                (["--fermion=clover", "--clover-u0=0"], "--clover-u0 = 0 is outside (0, inf)"),
                (["--fermion=clover", "--clover-u0=nan"], "--clover-u0: not a finite number"),
                (["--fermion=clover", "--csw=1e300", "--clover-u0=1e-10"],
                 "--csw / --clover-u0^3: MILC clover coefficient: clov_c / u0^3 is not a finite double"),
                (["--bc=PPPX"], "--bc"),
                (["--solver=gmres"], "--solver: solver 'gmres': unknown solver"),
                (["--solver=bicgstab-reliable:half:1e-7"], "delta = 1e-07 must lie in (u_half"),
                (["--solver=bicgstab-reliable:half/12:0.1", "--backend=cpu"],
                 "the cpu backend does not store 12 reals per link"),
                (["--fermion=clover", "--backend=gpu"], "--backend=gpu"),
                (["--verify=device", "--backend=cpu"], "--verify=device needs the GPU backend"),
                (["--rhs-block=12", "--backend=cpu"], "--rhs-block=12: columns are solved as a block only on one GPU"),
                (["--rhs-block=0"], "--rhs-block"),
                (["--rhs-block=13"], "--rhs-block"),
                (["--rhs-block=x"], "--rhs-block"),
                (["--rhs-block=auto"], "--rhs-block"),
                (["--kappa=-1"], "--kappa = -1 is outside (0, inf)"),
                (["--mass=-4"], "--mass = -4 is outside (-4, inf)"),
                (["--tolerance=0"], "--tolerance = 0 is outside (0, 1)"),
                (["--tolerance=1e-10x"], "--tolerance: not a finite number: '1e-10x'"),
                (["--max-iterations=8abc"], "--max-iterations: not an integer: '8abc'"),
                (["--max-iterations=0"], "--max-iterations = 0 is out of range"),
                (["--sweeps=nan"], "--sweeps: not an integer"),
                (["--config=x.nersc", "--lattice=4x4x4x8"], "--lattice sets up the generator; it conflicts with --config"),
                (["--lattice=4x4x4"], "--lattice"),
                (["--lattice=4x4x4x7"], "extent Lt = 7 is odd"),
                (["--source=9,0,0,0"] + TINY[:3], "--source: coordinate 9 is off the lattice 4x4x4x8"),
                (["--backend=tpu"], "--backend must be one of auto|cpu|gpu, got 'tpu'"),
                (["--kappa=0.12", "--kappa=0.13"], "--kappa is given more than once"),
                (["--frobnicate=1"], "unknown flag --frobnicate"),
            ]
            for args, needle in cases:
                r = run(args + ["--output=" + out, "--no-plot"])
                self.assertEqual(r.returncode, 1, args)
                lines = r.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, (args, r.stderr))
                self.assertTrue(lines[0].startswith("pion: error:"), (args, r.stderr))
                self.assertIn(needle, r.stderr, args)
                self.assertNotIn("terminate called", r.stderr, args)
                # Rejected before anything was written, let alone generated.
                self.assertFalse(os.path.exists(out), args)
            r = run(["--config=" + os.path.join(d, "missing.nersc"), "--output=" + out, "--no-plot"])
            self.assertEqual(r.returncode, 1)
            self.assertIn("missing.nersc", r.stderr)

    def test_help_lists_every_flag_with_its_default(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for needle in ("--config=FILE", "--lattice=LXxLYxLZxLT", "(default: 8x8x8x16)", "--kappa=X", "(default: 0.153)",
                       "--solver=SPEC", "(default: bicgstab)", "--tolerance=X", "(default: 1e-10)",
                       "--max-iterations=N", "(default: 10000)", "--backend=auto|cpu|gpu", "(default: auto)",
                       "--verify=auto|host|device", "--rhs-block=N", "(default: 1)", "--output=DIR", "(default: pion_out)", "--no-plot",
                       "--clover-trace=traceless|with-trace", "--clover-u0=X",
                       "32^3x64"):
            self.assertIn(needle, r.stdout)


if __name__ == "__main__":
    unittest.main()
