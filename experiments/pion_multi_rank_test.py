"""The main job (experiments/pion) on several MPI ranks, against the same job on one process.

Always (no GPU needed: pion refuses these from its flags, before MPI or a GPU): under mpirun -np 2, a --grid
with --backend=cpu, a grid that does not divide the lattice, a rank count other than the grid's, and
--transport=nccl or --global-sums=device with --share-gpu are refused on every rank with one line "pion: rank R of 2: error: ..." and a non-zero status, and nothing is
written.

With a GPU (nvidia-smi lists at least one), on a generated 8^3 x 16 configuration (3 sweeps) at kappa = 0.12
(m > 0, so every run carries its a-priori error bound C_bound, docs/main_job.md):
  - the reference: pion on one process (--backend=gpu);
  - mpirun -np 2 pion --grid=1x1x1x2 --share-gpu --transport=host: generates the configuration again on every
    rank (same seed, so the same field: the plaquette printed must equal the reference's to every digit),
    residuals recomputed on the host, faces staged through host memory;
  - mpirun -np 4 pion --grid=1x1x2x2 --share-gpu: reads the reference's configuration file on every rank
    (--config), residuals recomputed on the devices (the default device transport);
  - mpirun -np 2 pion --grid=1x1x1x2 --share-gpu --transport=device with the mixed, compressed, gauge-fixed
    solver bicgstab-reliable:half/12/gf:0.1;
  - Wilson-clover (--fermion=clover --csw=1.0): the single-process clover job on the reference's
    configuration, and mpirun -np 2 pion --grid=1x1x1x2 --share-gpu with the mixed solver
    bicgstab-reliable:half/12:0.1 (the partitioned clover operators in double and half, the device residual
    through the partitioned GpuClover). Clover has no a-priori ||M^{-1}||, so both runs estimate it
    (--inverse-norm-steps, itself a series of split solves on the multi-rank run) for their bounds.
With two GPUs or more, also mpirun -np 2 with one GPU per rank, where the solvers' global sums are added on the
devices (NCCL, gpu/device_rank_sum.h), with the mixed solver.
A rank killed mid-job (SIGKILL to rank 1 of a 2-rank run once the solves have started, on a 16^3 x 32
configuration so that they take seconds; one GPU per rank when there are two, so that the survivor may be
waiting in a sum on its device): the job must end within KILLED_TIMEOUT_S with a non-zero status and
Open MPI's report naming the killed rank, and no rank of it may be left running (a survivor blocked in a halo
exchange or a global sum must not hang).
Each multi-rank run must converge all 12 solves with true residuals within the tolerance, print its grid,
one line per rank and how the propagator is held (the runs with device residuals keep only each rank's own sites
of it: experiments/distributed_propagator.h), write its files once (rank 0), and its correlator must agree with the reference at every
t within the sum of the two runs' bounds (tools/compare_correlators.py, the GPU bundle's check). Without a
GPU those runs are skipped with a message.

Every run has a timeout: on expiry its whole process group (mpirun and the ranks) is killed and the test fails.
Runs from Bazel (the binaries in the runfiles) or from the GPU bundle (programs/: pion,
compare_correlators.py and mpi_testing.py next to this file).
"""
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    from tools import mpi_testing  # under Bazel (//tools:mpi_testing)
except ImportError:
    sys.path.insert(0, HERE)  # the GPU bundle: tools/gpu_bundle.sh copies mpi_testing.py next to this file
    import mpi_testing


def find(*candidates):
    for c in candidates:
        if os.path.exists(c):
            return c
    return candidates[0]


RUNFILES = os.path.join(os.environ.get("RUNFILES_DIR", ""), "lqcd")
PION = find(os.path.join(HERE, "pion"), os.path.join(RUNFILES, "experiments", "pion"))
COMPARE = find(os.path.join(HERE, "compare_correlators.py"), os.path.join(RUNFILES, "tools", "compare_correlators.py"))

# A refusal happens before any work: seconds. A run: generation (8^3 x 16, 3 sweeps) and 12 solves on
# ranks sharing one GPU, tens of seconds; the limit leaves room for a loaded machine.
REFUSAL_TIMEOUT_S = 60
RUN_TIMEOUT_S = 600
KILLED_TIMEOUT_S = 120
GENERATOR = ["--lattice=8x8x8x16", "--sweeps=3", "--or=1"]
SOLVE = ["--kappa=0.12", "--tolerance=1e-10", "--no-plot", "--threads=2"]


GPUS = mpi_testing.gpu_count()
NO_GPU = "no GPU (nvidia-smi lists none): the multi-rank runs of pion are skipped"


def session_dir_base():
    # Open MPI's session directory goes under this test's own temporary directory: sandboxes with their own PID
    # namespaces would otherwise collide in /tmp/ompi.<host>.<uid>/pid.<pid>. Only this test sets it (the other
    # mpirun tests leave Open MPI's default); kept per test so that none of them changes behaviour.
    return os.environ.get("TEST_TMPDIR", tempfile.gettempdir())


def run(command, timeout_s):
    """Runs `command` (mpirun or not: the single-process reference and the comparison get the same Open MPI
    environment) in its own process group; on timeout sends SIGTERM (mpirun then kills its ranks, which sit in
    process groups of their own), then SIGKILL to the group, and fails."""
    return mpi_testing.run(command, timeout_s, mpi_testing.environment(session_dir_base()), sigterm_grace_s=10)


def mpirun(ranks, flags, timeout_s):
    return run(mpi_testing.mpirun_command(ranks, PION, flags), timeout_s)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary(directory):
    return {row["key"]: row["value"] for row in read_rows(os.path.join(directory, "summary.csv"))}


class Refusals(unittest.TestCase):
    def assert_refused_on_every_rank(self, flags, message):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never_created")
            status, stdout, stderr = mpirun(2, flags + GENERATOR + ["--output=" + out, "--no-plot"],
                                            REFUSAL_TIMEOUT_S)
            self.assertNotEqual(status, 0, stdout + stderr)
            for rank in range(2):
                self.assertIn("pion: rank %d of 2: error: " % rank, stderr)
            self.assertEqual(stderr.count(message), 2, stderr)
            self.assertNotIn("terminate called", stderr)
            self.assertFalse(os.path.exists(out), flags)

    def test_grid_needs_the_gpu_backend(self):
        self.assert_refused_on_every_rank(["--grid=1x1x1x2", "--backend=cpu"],
                                          "--grid=1x1x1x2 splits the lattice over 2 GPUs; it needs --backend=gpu")

    def test_grid_must_divide_the_lattice(self):
        self.assert_refused_on_every_rank(["--grid=1x1x1x3"], "3 ranks do not divide the extent 16 in direction 3")

    def test_nccl_needs_a_gpu_per_rank(self):
        self.assert_refused_on_every_rank(["--grid=1x1x1x2", "--share-gpu", "--transport=nccl"],
                                          "--transport=nccl needs one GPU per rank")
        self.assert_refused_on_every_rank(["--grid=1x1x1x2", "--share-gpu", "--global-sums=device"],
                                          "--global-sums=device needs one GPU per rank")

    def test_rank_count_must_match_the_grid(self):
        self.assert_refused_on_every_rank(["--grid=1x1x2x2"], "process grid 1x1x2x2 has 4 ranks, but the job runs 2")


@unittest.skipIf(GPUS == 0, NO_GPU)
class MultiRank(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.reference = os.path.join(cls.tmp.name, "one_process")
        status, out, err = run([PION, "--backend=gpu", "--output=" + cls.reference] + GENERATOR + SOLVE,
                               RUN_TIMEOUT_S)
        if status != 0:
            raise AssertionError("the single-process reference failed:\n" + out + err)
        print(out)
        cls.config = [os.path.join(cls.reference, f) for f in os.listdir(cls.reference) if f.endswith(".nersc")][0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_agrees(self, name, ranks, grid, flags, reference=None, share_gpu=True):
        reference = reference or self.reference
        out_dir = os.path.join(self.tmp.name, name)
        status, out, err = mpirun(ranks, ["--backend=gpu", "--grid=" + grid, "--output=" + out_dir] +
                                  (["--share-gpu"] if share_gpu else []) + SOLVE + flags, RUN_TIMEOUT_S)
        print(out)
        what = "np %d grid %s %s:\n%s%s" % (ranks, grid, " ".join(flags), out, err)
        self.assertEqual(status, 0, what)
        # Rank 0 reports for all: one report, the grid, and one placement line per rank.
        self.assertEqual(out.count("pion: point-source propagator"), 1, what)
        self.assertIn("grid: %s, %d MPI ranks" % (grid, ranks), out, what)
        for rank in range(ranks):
            self.assertIn("  rank %d on " % rank, out, what)
        # With the residuals recomputed on the devices (the default) every rank keeps only its own sites of the
        # propagator; the host recompute needs the whole of it on every rank.
        held = "the whole propagator" if "--verify=host" in flags else "only its own sites of the propagator"
        self.assertIn("global sums " + ("through the host" if share_gpu else "on the devices (NCCL)"), out, what)
        self.assertIn("every rank holds the whole configuration and " + held, out, what)
        with open(os.path.join(out_dir, "run.log")) as f:
            self.assertEqual(f.read(), out)
        solves = read_rows(os.path.join(out_dir, "solves.csv"))
        self.assertEqual(len(solves), 12)
        for row in solves:
            self.assertEqual(row["status"], "converged", row)
            self.assertLessEqual(float(row["true_residual"]), 1e-10, row)
        mine, theirs = summary(out_dir), summary(reference)
        self.assertEqual(mine["grid"], grid)
        self.assertEqual(mine["ranks"], str(ranks))
        self.assertEqual(mine["plaquette"], theirs["plaquette"], "not the same configuration")
        status, comparison, cerr = run([sys.executable, COMPARE, os.path.join(reference, "pion_correlator.csv"),
                                        os.path.join(out_dir, "pion_correlator.csv")], REFUSAL_TIMEOUT_S)
        print(comparison)
        self.assertEqual(status, 0, what + comparison + cerr)

    def test_two_ranks_generating_the_configuration(self):
        self.assert_agrees("np2", 2, "1x1x1x2", GENERATOR + ["--verify=host", "--transport=host"])

    def test_four_ranks_reading_the_configuration(self):
        self.assert_agrees("np4", 4, "1x1x2x2", ["--config=" + self.config, "--verify=device"])

    def test_mixed_gauge_fixed_solver_device_transport(self):
        self.assert_agrees("np2_mixed", 2, "1x1x1x2", ["--config=" + self.config, "--transport=device",
                                                      "--solver=bicgstab-reliable:half/12/gf:0.1"])

    @unittest.skipIf(GPUS < 2, "fewer than two GPUs: the global sums on the devices need one GPU per rank")
    def test_two_ranks_one_gpu_each_global_sums_on_the_devices(self):
        self.assert_agrees("np2_device_sums", 2, "1x1x1x2", ["--config=" + self.config,
                                                            "--solver=bicgstab-reliable:half/12:0.1"],
                           share_gpu=False)

    def test_clover_two_ranks_against_one_process(self):
        clover = ["--config=" + self.config, "--fermion=clover", "--csw=1.0", "--inverse-norm-steps=3"]
        reference = os.path.join(self.tmp.name, "one_process_clover")
        status, out, err = run([PION, "--backend=gpu", "--output=" + reference] + SOLVE + clover, RUN_TIMEOUT_S)
        print(out)
        self.assertEqual(status, 0, "the single-process clover reference failed:\n" + out + err)
        self.assert_agrees("np2_clover", 2, "1x1x1x2", clover + ["--solver=bicgstab-reliable:half/12:0.1"],
                           reference=reference)

    def test_killed_rank_ends_the_job(self):
        session_base = os.path.join(self.tmp.name, "killed_session")
        os.makedirs(session_base)
        out_dir = os.path.join(self.tmp.name, "np2_killed")
        # With two GPUs, one each: the survivor may then wait inside a global sum on its device (NCCL).
        share = ["--share-gpu"] if GPUS < 2 else []
        command = mpi_testing.mpirun_command(2, PION, ["--backend=gpu", "--grid=1x1x1x2"] + share + [
                                                       "--transport=device", "--lattice=16x16x16x32",
                                                       "--sweeps=1", "--kappa=0.12", "--tolerance=1e-12",
                                                       "--no-plot", "--threads=2", "--output=" + out_dir])
        log_path = os.path.join(self.tmp.name, "np2_killed.log")
        with open(log_path, "w") as log:
            job = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True,
                                   env=mpi_testing.environment(session_base), start_new_session=True)
        try:
            deadline = time.time() + RUN_TIMEOUT_S
            while "solves (" not in read_text(log_path):
                self.assertIsNone(job.poll(), "the job ended before its solves:\n" + read_text(log_path))
                self.assertLess(time.time(), deadline, "no solves within %d s" % RUN_TIMEOUT_S)
                time.sleep(0.05)
            victim = ranks_of_session(session_base).get(1)
            self.assertIsNotNone(victim, "rank 1's process not found")
            os.kill(victim, signal.SIGKILL)
            killed_at = time.time()
            try:
                status = job.wait(timeout=KILLED_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.fail("the job hung %d s after rank 1 was killed:\n%s" % (KILLED_TIMEOUT_S, read_text(log_path)))
            output = read_text(log_path)
            print("killed rank 1; the job ended %.1f s later with status %d" % (time.time() - killed_at, status))
            print(output[-2000:])
            self.assertNotEqual(status, 0, output)
            self.assertIn("rank 1", output[output.index("solves ("):], output)
            self.assertIn("signal 9", output, output)
            self.assertEqual(ranks_of_session(session_base), {}, "ranks left running after the job ended")
        finally:
            if job.poll() is None:
                job.terminate()
                try:
                    job.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(job.pid, signal.SIGKILL)
            for pid in ranks_of_session(session_base).values():
                os.kill(pid, signal.SIGKILL)


def read_text(path):
    with open(path) as f:
        return f.read()


def ranks_of_session(session_base):
    """{rank: pid} of the live processes of the mpirun job whose Open MPI session directory is under
    session_base (environment() puts it in each rank's environment: it names this job alone)."""
    marker = "OMPI_MCA_orte_tmpdir_base=" + session_base
    ranks = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                variables = f.read().decode(errors="replace").split("\0")
            with open("/proc/%s/stat" % entry) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker not in variables or state == "Z":
            continue
        for v in variables:
            if v.startswith("OMPI_COMM_WORLD_RANK="):
                ranks[int(v.split("=", 1)[1])] = int(entry)
    return ranks


if __name__ == "__main__":
    if GPUS == 0:
        print("pion_multi_rank_test: " + NO_GPU + "; the refusals (no GPU needed) still run")
    unittest.main()
