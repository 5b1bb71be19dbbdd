"""The staggered_pbp binary end to end on a tiny lattice (4^4, a few sweeps): it prints the machine and the
parameters, writes pbp.csv with the documented columns, pbp.md, pbp_running.csv, pbp_blocks.csv (one row per block,
adding up to pbp.csv's vectors and iterations; --progress prints the same blocks) and the plot, every Z2-noise
estimate of pbp and of the disconnected susceptibility lies within 5 standard errors of the exact value from the
sparse LU (for naive and HISQ links), --block=N gives the same numbers as --block=1, and bad flags are refused
with one line naming the flag. Seconds."""
import csv
import os
import shutil
import subprocess
import tempfile
import unittest

BINARY = os.path.join(os.environ.get("RUNFILES_DIR", "."), "lqcd", "experiments", "staggered_pbp")
if not os.path.exists(BINARY):
    BINARY = os.path.join("experiments", "staggered_pbp")

TINY = ["--lattice=4x4x4x4", "--sweeps=5", "--or=1", "--vectors=16", "--masses=0.05,0.2", "--tolerance=1e-10",
        "--exact=yes"]
COLUMNS = ["mass", "links", "vectors", "estimate", "standard_error", "cg_iterations", "max_full_residual",
           "all_converged", "exact", "exact_error_bound", "deviation_sigma", "block", "chi_disc", "chi_disc_error",
           "exact_chi_disc", "chi_disc_deviation_sigma"]
RUNNING_COLUMNS = ["mass", "vectors", "estimate", "standard_error", "exact"]
BLOCK_COLUMNS = ["mass", "block_index", "first_vector", "vectors", "cg_iterations", "max_full_residual", "seconds"]


def run(args):
    return subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=120)


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


class StaggeredPbpSmokeTest(unittest.TestCase):
    def check_run(self, links, extra=()):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            r = run(TINY + ["--links=" + links, "--output=" + out] + list(extra))
            self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
            for needle in ("machine:", "lattice: 4x4x4x4", "plaquette <Re Tr U_p>/3", "links: " + links,
                           "noise: 16 Z2 vectors per mass", "tolerance 1.0e-10", "exact: yes", "dev/sigma",
                           "disconnected susceptibility", "pbp_running.png", "total time"):
                self.assertIn(needle, r.stdout)
            self.assertEqual(r.stderr, "")
            columns, rows = read_rows(os.path.join(out, "pbp.csv"))
            running_columns, running = read_rows(os.path.join(out, "pbp_running.csv"))
            block_columns, blocks = read_rows(os.path.join(out, "pbp_blocks.csv"))
            with open(os.path.join(out, "pbp.md")) as f:
                markdown = f.read()
            with open(os.path.join(out, "pbp_running.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(running_columns, RUNNING_COLUMNS)
        self.assertEqual(block_columns, BLOCK_COLUMNS)
        block = int(rows[0]["block"])
        self.assertEqual(len(blocks), 2 * -(-16 // block))  # ceil(16 / block) per mass
        printed = [line for line in r.stdout.splitlines() if line.startswith("  block ")]
        self.assertEqual(len(printed), len(blocks) if "--progress" in extra else 0)
        self.assertEqual(len(running), 2 * 15)  # n = 2..16 per mass
        self.assertIn("| mass | links | vectors | pbp estimate |", markdown)
        self.assertEqual(markdown.count("| " + links + " |"), 2)
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
            # The blocks partition the vectors in order and add up to the mass's iterations and largest residual.
            mine = [b for b in blocks if float(b["mass"]) == float(row["mass"])]
            self.assertEqual([int(b["block_index"]) for b in mine], list(range(len(mine))))
            self.assertEqual([int(b["first_vector"]) for b in mine], list(range(0, 16, block)))
            self.assertEqual(sum(int(b["vectors"]) for b in mine), 16)
            self.assertEqual(sum(int(b["cg_iterations"]) for b in mine), int(row["cg_iterations"]))
            self.assertEqual(max(float(b["max_full_residual"]) for b in mine), float(row["max_full_residual"]))
            self.assertTrue(all(float(b["seconds"]) >= 0 for b in mine))
            # The last running estimate is the full one.
            last = [x for x in running if float(x["mass"]) == float(row["mass"])][-1]
            self.assertEqual(int(last["vectors"]), 16)
            self.assertAlmostEqual(float(last["estimate"]), est, delta=1e-12 * abs(est))
            self.assertAlmostEqual(float(last["exact"]), exact, delta=1e-12 * abs(exact))
            # The pair estimator of (Re tr M^-1)^2 / V is unbiased; 5 jackknife errors (solvers/staggered_pbp_test
            # derives k = 5 for it); the exact value is V pbp_exact^2 (V = 256).
            chi, chi_se, chi_exact = (float(row["chi_disc"]), float(row["chi_disc_error"]),
                                      float(row["exact_chi_disc"]))
            self.assertGreater(chi_se, 0)
            self.assertAlmostEqual(chi_exact, 256 * exact * exact, delta=1e-12 * chi_exact)
            self.assertLess(abs(chi - chi_exact), 5 * chi_se, row)
            self.assertAlmostEqual(float(row["chi_disc_deviation_sigma"]), (chi - chi_exact) / chi_se, delta=1e-9)
        return rows

    def test_hisq_estimates_agree_with_exact(self):
        self.check_run("hisq")

    def test_naive_estimates_agree_with_exact(self):
        self.check_run("naive")

    def test_block_gives_the_same_numbers(self):
        one = self.check_run("naive")
        four = self.check_run("naive", ["--block=5", "--progress"])
        for a, b in zip(one, four):
            self.assertEqual((a["block"], b["block"]), ("1", "5"))
            for key in ("estimate", "standard_error", "cg_iterations", "chi_disc", "chi_disc_error"):
                self.assertEqual(a[key], b[key], key)

    def test_exact_no_leaves_exact_columns_empty(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            r = run(["--lattice=4x4x4x4", "--sweeps=2", "--vectors=3", "--masses=0.3", "--links=asqtad",
                     "--exact=no", "--no-plot", "--output=" + out])
            self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
            columns, rows = read_rows(os.path.join(out, "pbp.csv"))
            self.assertEqual(columns, COLUMNS)
            self.assertEqual(len(rows), 1)
            self.assertEqual((rows[0]["exact"], rows[0]["exact_error_bound"], rows[0]["deviation_sigma"],
                              rows[0]["exact_chi_disc"], rows[0]["chi_disc_deviation_sigma"]), ("", "", "", "", ""))
            self.assertNotEqual(rows[0]["chi_disc"], "")
            self.assertFalse(os.path.exists(os.path.join(out, "pbp_running.png")))

    def test_bad_flags_are_refused_before_any_work(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never_created")
            cases = [
                (["--links=wilson"], "--links must be one of naive|asqtad|hisq, got 'wilson'"),
                (["--masses=0.1,-0.2"], "--masses"),
                (["--masses=0"], "--masses"),
                (["--masses=0.1,,0.2"], "--masses"),
                (["--vectors=1"], "--vectors"),
                (["--vectors=2"], "--vectors"),
                (["--block=0"], "--block"),
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
                (["--backend=tpu"], "--backend must be one of cpu|gpu|auto, got 'tpu'"),
                (["--solver=cg-reliable:single:0.1"], "--solver=cg-reliable:single:0.1 needs --backend=gpu"),
                (["--solver=bicgstab"], "CG (cg, cg-reliable) only"),
                (["--solver=cg-reliable:half:0.1"], "--solver=cg-reliable:half:0.1 needs --backend=gpu"),
                (["--solver=cg-reliable:half:0.1", "--backend=auto"], "has no half colour vectors"),
                (["--solver=cg-reliable:half/12:0.1", "--backend=gpu"], "the fat links keep 18 reals"),
                (["--solver=cg-reliable:half:1e-6", "--backend=gpu"], "must lie in (u_half"),
                (["--solver=cg-reliable:half:0.1", "--backend=gpu", "--long-links=13"],
                 "--long-links=13 cannot be combined with --solver=cg-reliable:half:0.1"),
                (["--solver=cg-reliable:single"], "needs its parameter"),
                (["--long-links=13"], "--long-links=13 needs --backend=gpu"),
                (["--long-links=13", "--backend=gpu", "--links=naive"], "--long-links=13 needs long links"),
                (["--long-links=9"], "--long-links=9 needs --backend=gpu"),
                (["--long-links=12"], "--long-links must be one of 18|13|9, got '12'"),
                (["--verify=device"], "--verify=device needs the GPU backend"),
                (["--verify=maybe"], "--verify must be one of auto|host|device, got 'maybe'"),
                (["--smearing=gpu"], "--smearing=gpu needs --backend=gpu"),
                (["--smearing=gpu", "--backend=auto"], "--smearing=gpu needs --backend=gpu"),
                (["--smearing=tpu"], "--smearing must be one of auto|host|gpu, got 'tpu'"),
            ]
            if shutil.which("nvidia-smi") is None:  # no GPU here: the GPU backend is refused before any work
                cases.append((["--backend=gpu"], "--backend=gpu, but there is no usable GPU"))
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
                       "--seed=", "--block=N", "(default: 1)", "--no-plot", "--tolerance=X", "--exact=auto|yes|no", "(default: auto)", "--output=DIR",
                       "(default: pbp_out)", "--config=FILE"):
            self.assertIn(needle, r.stdout)


if __name__ == "__main__":
    unittest.main()
