"""End to end on a 4^4 lattice: solver_tables_cc generates one quenched configuration, caches it, solves
one Gaussian source at two given masses with every solver of the paper's Tables 3-5, and writes CSV that
the report turns into tables and a PNG.

Checks: the CSV is well formed (header, one row per solve, every variant at every mass), every solve
converged with a true residual (recomputed in double by the program) <= eps = 1e-12, the iteration
bookkeeping of each method (k + l for reliable updates, restarts for defect correction), a rerun reads the
cached configuration and reproduces every iteration count, a run stopped part way (--stop-after) resumes from
its journal to the same rows, and bad options exit with status 1 and one line naming the option, before any
work."""
import csv
import os
import subprocess
import tempfile
import unittest

from experiments import solver_tables_report

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "solver_tables_cc")
TINY = ["--lattice=4x4x4x4", "--configs=1", "--sources=1", "--masses=-0.5,-0.7", "--therm=5", "--sep=2",
        "--threads=2", "--solvers=paper", "--backend=cpu"]
EXPECTED_COLUMNS = ["config", "config_sweep", "source", "source_seed", "mass_index", "mass", "kappa", "mass_fraction",
                    "m_minus_mc", "table", "solver", "precision", "parameter_name", "parameter", "iterations",
                    "krylov_iterations", "updates", "restarts", "operator_applications",
                    "low_precision_applications", "true_residual", "iterated_residual", "seconds", "gflops", "status",
                    "reason", "spec", "backend"]


def run(args):
    return subprocess.run([BINARY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


class TinyRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.first = run(TINY + ["--out=" + cls.dir])
        with open(os.path.join(cls.dir, "solves.csv"), newline="") as f:
            cls.rows = list(csv.DictReader(f))
        cls.header = cls.rows[0].keys() if cls.rows else []

    def test_runs_and_prints_what_it_ran_on(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        self.assertIn("machine:", self.first.stdout)
        self.assertIn("lattice = 4x4x4x4", self.first.stdout)

    def test_csv_is_well_formed(self):
        self.assertEqual(list(self.header), EXPECTED_COLUMNS)
        # All 14 of the paper's columns (--solvers=paper: 2 + 6 + 6) x 2 masses x 1 configuration x 1 source.
        self.assertEqual(len(self.rows), 28)
        seen = {(r["solver"], r["precision"], r["parameter"], r["mass"]) for r in self.rows}
        self.assertEqual(len(seen), 28)
        self.assertEqual({r["mass"] for r in self.rows}, {"-0.5", "-0.7"})
        self.assertEqual({r["table"] for r in self.rows}, {"3", "4", "5"})
        self.assertEqual({r["backend"] for r in self.rows}, {"cpu"})
        self.assertIn("bicgstab-reliable:half:0.001", {r["spec"] for r in self.rows})

    def test_every_solve_converged_to_eps(self):
        for r in self.rows:
            label = "%s %s %s at m = %s" % (r["solver"], r["precision"], r["parameter"], r["mass"])
            self.assertEqual(r["status"], "converged", label + ": " + r["reason"])
            self.assertLessEqual(float(r["true_residual"]), 1e-12, label)
            self.assertGreater(int(r["iterations"]), 0, label)

    def test_iteration_bookkeeping(self):
        for r in self.rows:
            k, l, total = int(r["krylov_iterations"]), int(r["updates"]), int(r["iterations"])
            if r["solver"] == "reliable-update":
                self.assertEqual(total, k + l)  # the paper's k + l
                self.assertGreater(l, 0)
                self.assertGreater(int(r["low_precision_applications"]), 0)
            elif r["solver"] == "defect-correction":
                self.assertEqual(total, k)  # all inner iterations of all restarts
                self.assertGreaterEqual(int(r["restarts"]), 1)
            else:
                self.assertEqual(int(r["low_precision_applications"]), 0)

    def test_rerun_reads_the_cache_and_reproduces_the_counts(self):
        second_dir = os.path.join(self.dir, "again")
        os.makedirs(second_dir)
        os.symlink(os.path.join(self.dir, "ensemble"), os.path.join(second_dir, "ensemble"))
        second = run(TINY + ["--out=" + second_dir])
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn("reading 1 cached configurations", second.stdout)
        with open(os.path.join(second_dir, "solves.csv"), newline="") as f:
            again = list(csv.DictReader(f))
        self.assertEqual([r["iterations"] for r in again], [r["iterations"] for r in self.rows])
        self.assertEqual([r["true_residual"] for r in again], [r["true_residual"] for r in self.rows])

    def test_an_interrupted_run_resumes_where_it_stopped(self):
        resumed_dir = os.path.join(self.dir, "resumed")
        os.makedirs(resumed_dir)
        os.symlink(os.path.join(self.dir, "ensemble"), os.path.join(resumed_dir, "ensemble"))
        stopped = run(TINY + ["--out=" + resumed_dir, "--stop-after=5"])
        self.assertEqual(stopped.returncode, 3, stopped.stderr)
        self.assertIn("stopped after", stopped.stdout)
        self.assertFalse(os.path.exists(os.path.join(resumed_dir, "solves.csv")))
        self.assertTrue(os.path.exists(os.path.join(resumed_dir, "solves.journal")))
        resumed = run(TINY + ["--out=" + resumed_dir])
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        done_before = int(resumed.stdout.split("journal: resumed ")[1].split()[0])
        self.assertGreaterEqual(done_before, 5)  # with 2 threads, a sixth solve may have finished too
        self.assertIn("%d solves to do" % (28 - done_before), resumed.stdout)
        self.assertFalse(os.path.exists(os.path.join(resumed_dir, "solves.journal")))  # complete: removed
        with open(os.path.join(resumed_dir, "solves.csv"), newline="") as f:
            again = list(csv.DictReader(f))
        # The same rows in the same order as the uninterrupted run, timings apart.
        timing = ("seconds", "gflops")
        strip = lambda rows: [{k: v for k, v in r.items() if k not in timing} for r in rows]
        self.assertEqual(strip(again), strip(self.rows))
        # A journal of other options is not resumed.
        other = run(TINY + ["--out=" + resumed_dir, "--stop-after=1", "--tolerance=1e-11"])
        self.assertEqual(other.returncode, 3, other.stderr)
        changed = run(TINY + ["--out=" + resumed_dir])
        self.assertEqual(changed.returncode, 0, changed.stderr)
        self.assertIn("journal: discarded a journal of another run", changed.stdout)

    def test_report_writes_tables_and_png(self):
        md, png = solver_tables_report.report(self.dir)
        text = open(md).read()
        self.assertIn("Table 3 analogue", text)
        self.assertIn("Table 5 analogue", text)
        self.assertIn("no critical mass was determined", text)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_bad_options_exit_1_naming_the_problem_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never_created")
            for args, message in ((["--lattice=4x4x4x4"], "--out=DIR is required"),
                                  (["--lattice=5x4x4x4"], "extent Lx = 5 is odd"),
                                  (["--solvers=bicgstab-reliable:half:1e-6"], "delta"),
                                  (["--solvers=bicgstab-dc:double:0.1"], "needs a single or half inner operator"),
                                  (["--solvers=bicgstab,,cg"], "--solvers: empty item"),
                                  (["--solvers=bicgstab-reliable:half/12:0.1", "--backend=cpu"],
                                   "the cpu backend does not store 12 reals per link"),
                                  (["--solvers=paper-gpu", "--backend=cpu"],
                                   "the cpu backend does not store 12 reals per link"),
                                  (["--verify=device", "--backend=cpu"], "--verify=device needs the GPU backend"),
                                  (["--critical-mass=-1"], "--critical-mass and --strange-mass go together"),
                                  (["--critical-mass=-1", "--strange-mass=-1.5"], "--strange-mass must exceed"),
                                  (["--masses=-0.5", "--critical-mass=-1", "--strange-mass=-0.5"],
                                   "either --masses or --critical-mass"),
                                  (["--pion-targets=0.5"], "at least two values"),
                                  (["--tolerance=0"], "--tolerance = 0 is outside (0, 1)"),
                                  (["--max-iterations=20x"], "--max-iterations: not an integer"),
                                  (["--threads=-1"], "--threads = -1 is out of range"),
                                  (["--masses=nan"], "--masses: not a finite number"),
                                  (["--frobnicate=1"], "unknown flag --frobnicate")):
                result = run(args if message.startswith("--out") else args + ["--out=" + out])
                self.assertEqual(result.returncode, 1, args)
                lines = result.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, (args, result.stderr))
                self.assertTrue(lines[0].startswith("solver_tables_cc: error:"), result.stderr)
                self.assertIn(message, result.stderr, args)
                self.assertFalse(os.path.exists(out), args)

    def test_help_lists_every_flag_with_its_default(self):
        result = run(["--help"])
        self.assertEqual(result.returncode, 0)
        for needle in ("--out=DIR", "--lattice=LXxLYxLZxLT", "(default: 6x6x6x12)", "--solvers=SPEC,...",
                       "--tolerance=X", "(default: 1e-12)", "--max-iterations=N", "(default: 2000)",
                       "--backend=auto|cpu|gpu", "--mass-fractions=X,...", "--critical-mass=X", "paper-gpu",
                       "--stop-after=N"):
            self.assertIn(needle, result.stdout)


if __name__ == "__main__":
    unittest.main()
