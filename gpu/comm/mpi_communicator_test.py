"""mpi_communicator_check under mpirun: 1, 2 and 4 ranks over several grids must pass; bad grids and a grid
whose size is not the rank count must fail on every rank with a clear message, a non-zero status and no hang.

Every run has a timeout (TIMEOUT_S): on expiry the whole process group (mpirun and its ranks) is killed and
the test fails, so a deadlock never blocks the test suite.
"""
import os
import signal
import subprocess
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_communicator_check")
TIMEOUT_S = 30
LATTICE = "4x4x4x8"


def mpirun(ranks, *flags):
    command = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")  # test containers often run as root; Open MPI refuses otherwise
    command += [CHECK] + list(flags)
    # Shared memory and loopback only: the test is about one host, and no network probing slows start-up.
    env = dict(os.environ, OMPI_MCA_btl="self,vader", OMPI_MCA_rmaps_base_oversubscribe="1")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError("timed out after %d s (hang?): %s\n%s%s" % (TIMEOUT_S, " ".join(command), out, err))
    return process.returncode, out, err


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


if __name__ == "__main__":
    unittest.main()
