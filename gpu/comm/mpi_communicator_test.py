"""mpi_communicator_check under mpirun: 1, 2 and 4 ranks over several grids must pass; bad grids and a grid
whose size is not the rank count must fail on every rank with a clear message, a non-zero status and no hang.
A rank that dies mid-check (--die-rank, by a crash or a silent exit, while the other rank waits for it in a
halo exchange or a sum) must end the whole job within DEAD_RANK_LIMIT_S, non-zero, with the check's line
naming the dying rank and Open MPI's report of it (mpi_communicator.h says which Open MPI defaults this relies
on).

Every run has a timeout (TIMEOUT_S): on expiry mpirun gets SIGTERM, on which it kills its ranks (each rank
runs in a process group of its own, so killing mpirun's group alone would leave them running), then SIGKILL,
and the test fails, so a deadlock never blocks the test suite.
"""
import os
import time
import unittest

from tools import mpi_testing

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_communicator_check")
TIMEOUT_S = 30
# A dead-rank job ends in about 1 s (mpirun notices the death at once); the margin is for loaded machines.
DEAD_RANK_LIMIT_S = 15
LATTICE = "4x4x4x8"


def mpirun(ranks, *flags):
    # On timeout mpirun gets SIGTERM and 10 s to kill its ranks before its process group gets SIGKILL: this
    # test checks that no rank outlives mpirun (assert_dead_rank_ends_job), and the ranks run in process groups
    # of their own, which the group kill alone would miss (tools/mpi_testing.py).
    return mpi_testing.mpirun(ranks, CHECK, flags, TIMEOUT_S, sigterm_grace_s=10)


def running_processes(argv):
    """PIDs of the live processes whose command line is exactly argv (read from /proc; zombies have none)."""
    wanted = "\0".join(argv).encode() + b"\0"
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(os.path.join("/proc", entry, "cmdline"), "rb") as f:
                if f.read() == wanted:
                    pids.append(int(entry))
        except OSError:
            pass  # the process ended while we looked
    return pids


class MpiCommunicatorTest(unittest.TestCase):
    def assert_passes(self, ranks, grid):
        status, out, err = mpirun(ranks, "--grid=" + grid, "--lattice=" + LATTICE)
        self.assertEqual(status, 0, "np %d grid %s:\n%s%s" % (ranks, grid, out, err))
        self.assertIn("OK: %d ranks, grid %s" % (ranks, grid), out)

    def assert_refused_on_every_rank(self, ranks, flags, message):
        status, out, err = mpirun(ranks, *flags)
        self.assertNotEqual(status, 0, out + err)
        for rank in range(ranks):
            self.assertIn("rank %d of %d: error: " % (rank, ranks), err)
        self.assertEqual(err.count(message), ranks, err)

    def test_one_rank(self):
        self.assert_passes(1, "1x1x1x1")

    def test_two_ranks(self):
        self.assert_passes(2, "1x1x1x2")

    def test_four_ranks(self):
        self.assert_passes(4, "1x1x2x2")
        self.assert_passes(4, "2x1x1x2")
        # Four ranks in one direction: forward and backward neighbours differ (with 2 they coincide), so a
        # swapped direction cannot hide.
        self.assert_passes(4, "1x1x1x4")

    def test_grid_size_differs_from_rank_count(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x4", "--lattice=" + LATTICE],
                                          "process grid 1x1x1x4 has 4 ranks, but the job runs 2")

    def test_odd_local_extent(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=4x4x4x6"],
                                          "local extent 3 in direction 3 is odd")

    def test_grid_does_not_divide_lattice(self):
        self.assert_refused_on_every_rank(1, ["--grid=1x1x1x3", "--lattice=" + LATTICE],
                                          "3 ranks do not divide the extent 8 in direction 3")

    def test_die_rank_outside_grid(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=" + LATTICE, "--die-rank=2"],
                                          "--die-rank=2 is not a rank of the process grid 1x1x1x2")

    def assert_dead_rank_ends_job(self, die_in, die_how, open_mpi_report):
        """Rank 1 of 2 stops mid-check; rank 0 is then blocked in an MPI call that needs it."""
        flags = ["--grid=1x1x1x2", "--lattice=" + LATTICE, "--die-rank=1", "--die-in=" + die_in,
                 "--die-how=" + die_how]
        start = time.monotonic()
        status, out, err = mpirun(2, *flags)
        elapsed = time.monotonic() - start
        what = "die-in %s, die-how %s, %.1f s:\n%s%s" % (die_in, die_how, elapsed, out, err)
        self.assertLess(elapsed, DEAD_RANK_LIMIT_S, what)
        self.assertNotEqual(status, 0, what)
        self.assertNotIn("OK:", out, what)
        self.assertIn("mpi_communicator_check: rank 1 of 2: --die-rank: stopping", err, what)
        for line in open_mpi_report:
            self.assertIn(line, out + err, what)
        # The survivor was killed, not merely left behind by mpirun (a short grace for its last moments).
        deadline = time.monotonic() + 5
        while running_processes([CHECK] + flags) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(running_processes([CHECK] + flags), [], "a rank outlived mpirun: " + what)

    def test_crashed_rank_ends_job_during_halo_exchange(self):
        self.assert_dead_rank_ends_job("halo", "abort",
                                       ["mpirun noticed that process rank 1", "exited on signal 6 (Aborted)"])

    def test_exited_rank_ends_job_during_sums(self):
        self.assert_dead_rank_ends_job("sum", "exit",
                                       ["mpirun detected that one or more processes exited with non-zero status",
                                        "Exit code:    1"])


if __name__ == "__main__":
    unittest.main()
