"""multi_gpu_check under mpirun.

Always (no GPU needed: the program refuses these before it looks for one): a grid that does not divide the
lattice, an odd local extent, a grid whose size is not the rank count, an unknown --transport, an unknown
--global-sums, --global-sums=device or --transport=nccl with --share-gpu and a benchmark flag without --benchmark each fail on
every rank with a clear message and a non-zero status.

With a GPU (nvidia-smi lists at least one): mpirun -np 1, 2 and 4 with --share-gpu over the grids 1x1x1x1,
1x1x1x2, 1x1x2x2 and 2x1x1x2 on 8x8x8x8, 2x1x1x2 on 4x4x4x8 (local extent 2: every site on both faces of
x and t), and 1x1x1x2 and 1x1x2x2 with --transport=device (CUDA IPC copies between the ranks), must print every check's OK line and exit 0; and one rank more than there are GPUs, without
--share-gpu, must be refused on every rank. With two GPUs or more: 2 ranks (and 4 with four GPUs) one GPU
each, with the device and the NCCL transports, where the solvers' global sums are also added on the devices
(NCCL) and must give the bits of the host's sums (check c. says so). Without a GPU those runs are skipped with a message.

Every run has a timeout: on expiry the whole process group (mpirun and its ranks) is killed and the test
fails, so a deadlock never blocks the test suite.

With a GPU, also --benchmark on one rank (the scaling tables' baseline) and on two ranks sharing it, on
8x8x8x8: the csv lines the scaling script reads, each header once.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    from tools import mpi_testing  # under Bazel (//tools:mpi_testing)
except ImportError:
    sys.path.insert(0, HERE)  # the GPU bundle: tools/gpu_bundle.sh copies mpi_testing.py next to this file
    import mpi_testing

CHECK = os.path.join(HERE, "multi_gpu_check")
# A refusal happens before any GPU work: seconds.
REFUSAL_TIMEOUT_S = 60
# A full check on 8x8x8x8 with 4 ranks sharing one GPU: 144 Dslash variants, 36 M_pp cases (tuning each kernel
# variant once per rank) and six solves with a host-staged halo exchange per Dslash; about a minute on one
# H100 before the clover checks (60 clover Dslash variants, one clover solve) were added, not yet timed with
# them. The limit leaves room for a loaded machine.
CHECK_TIMEOUT_S = 600
LATTICE = "8x8x8x8"
CHECK_LINES = ["a. Dslash: OK", "b. M_pp: OK", "c. solves: OK", "d. clover Dslash: OK", "e. clover solve: OK"]


GPUS = mpi_testing.gpu_count()
NO_GPU = "no GPU (nvidia-smi lists none): the multi-GPU runs are skipped"


def mpirun(ranks, flags, timeout_s):
    # On timeout mpirun gets a SIGTERM first, so that it kills its ranks (Open MPI puts each rank in a
    # process group of its own: killing mpirun's group alone would leave them running), then SIGKILL.
    return mpi_testing.mpirun(ranks, CHECK, flags, timeout_s, sigterm_grace_s=10)


class Refusals(unittest.TestCase):
    def assert_refused_on_every_rank(self, ranks, flags, message):
        status, out, err = mpirun(ranks, flags, REFUSAL_TIMEOUT_S)
        self.assertNotEqual(status, 0, out + err)
        for rank in range(ranks):
            self.assertIn("multi_gpu_check: rank %d of %d: error: " % (rank, ranks), err)
        self.assertEqual(err.count(message), ranks, err)

    def test_grid_does_not_divide_lattice(self):
        self.assert_refused_on_every_rank(1, ["--grid=1x1x1x3", "--lattice=" + LATTICE],
                                          "3 ranks do not divide the extent 8 in direction 3")

    def test_odd_local_extent(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=8x8x8x6"],
                                          "local extent 3 in direction 3 is odd")

    def test_grid_size_differs_from_rank_count(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x2x2", "--lattice=" + LATTICE],
                                          "process grid 1x1x2x2 has 4 ranks, but the job runs 2")

    def test_unknown_transport(self):
        self.assert_refused_on_every_rank(1, ["--transport=nvlink"], "--transport: halo transport 'nvlink'")

    def test_benchmark_flags_need_benchmark(self):
        self.assert_refused_on_every_rank(1, ["--repetitions=5"], "--repetitions needs --benchmark")

    def test_unknown_global_sums(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=4x4x4x8", "--global-sums=nccl"],
                                          "--global-sums: 'nccl' is not host or device")

    def test_nccl_transport_needs_a_gpu_per_rank(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=4x4x4x8", "--share-gpu",
                                              "--transport=nccl"], "--transport=nccl needs one GPU per rank")

    def test_device_sums_need_a_gpu_per_rank(self):
        self.assert_refused_on_every_rank(2, ["--grid=1x1x1x2", "--lattice=4x4x4x8", "--share-gpu",
                                              "--global-sums=device"], "needs one GPU per rank")

    @unittest.skipIf(GPUS == 0, NO_GPU)
    def test_more_ranks_than_gpus_needs_share_gpu(self):
        ranks = GPUS + 1
        self.assert_refused_on_every_rank(ranks, ["--grid=1x1x1x%d" % ranks, "--lattice=4x4x4x%d" % (2 * ranks)],
                                          "pass --share-gpu")


@unittest.skipIf(GPUS == 0, NO_GPU)
class Checks(unittest.TestCase):
    def assert_passes(self, ranks, grid, lattice=LATTICE, transport="host", share_gpu=True):
        status, out, err = mpirun(ranks, ["--grid=" + grid, "--lattice=" + lattice, "--transport=" + transport] +
                                  (["--share-gpu"] if share_gpu else []), CHECK_TIMEOUT_S)
        print(out)  # the OK lines, iteration counts and true residuals, in the test log
        what = "np %d grid %s lattice %s transport %s:\n%s%s" % (ranks, grid, lattice, transport, out, err)
        self.assertEqual(status, 0, what)
        for line in CHECK_LINES:
            self.assertIn(line, out, what)
        self.assertIn("multi_gpu_check: OK: %d ranks, grid %s" % (ranks, grid), out, what)
        return out

    def test_one_rank(self):
        self.assert_passes(1, "1x1x1x1")

    def test_two_ranks(self):
        self.assert_passes(2, "1x1x1x2")

    def test_four_ranks(self):
        self.assert_passes(4, "1x1x2x2")
        self.assert_passes(4, "2x1x1x2")

    def test_local_extent_two(self):
        self.assert_passes(4, "2x1x1x2", "4x4x4x8")

    def test_device_transport(self):
        self.assert_passes(2, "1x1x1x2", transport="device")
        self.assert_passes(4, "1x1x2x2", transport="device")

    def test_benchmark_on_one_and_two_ranks(self):
        # The scaling tables' one-GPU baseline (grid 1x1x1x1: nothing partitioned, so no call timeline) and a
        # partitioned run: an operator row per rank, a timeline row per rank where a direction is cut, each
        # header once, and the solve row.
        for ranks, grid in ((1, "1x1x1x1"), (2, "1x1x1x2")):
            status, out, err = mpirun(ranks, ["--grid=" + grid, "--lattice=" + LATTICE, "--share-gpu", "--benchmark",
                                              "--transport=device",
                                              "--precisions=half", "--reconstruct=12", "--repetitions=3",
                                              "--solver=bicgstab-reliable:half/12:0.1", "--kappa=0.12",
                                              "--tolerance=1e-8", "--solve-repetitions=1"], CHECK_TIMEOUT_S)
            what = "np %d grid %s:\n%s%s" % (ranks, grid, out, err)
            self.assertEqual(status, 0, what)
            lines = out.splitlines()
            self.assertEqual(sum(l.startswith("csv,transport,") for l in lines), 1, what)
            self.assertEqual(sum(l.startswith("csv,device,half,12," + grid + ",") for l in lines), ranks, what)
            self.assertEqual(sum(l.startswith("csv_timeline,transport,") for l in lines), 1, what)
            self.assertEqual(sum(l.startswith("csv_timeline,device,half," + grid + ",") for l in lines),
                             ranks if ranks > 1 else 0, what)
            self.assertEqual(sum(l.startswith("csv_solve,device,") and ",converged," in l for l in lines), 1, what)

    @unittest.skipIf(GPUS < 2, "fewer than two GPUs: the global sums on the devices need one GPU per rank")
    def test_global_sums_on_the_devices(self):
        for ranks, grid in ((2, "1x1x1x2"), (4, "1x1x2x2")):
            if ranks > GPUS:
                continue
            for transport in ("device", "nccl"):
                out = self.assert_passes(ranks, grid, transport=transport, share_gpu=False)
                self.assertIn("global sums on the devices: the same bits", out)


if __name__ == "__main__":
    if GPUS == 0:
        print("multi_gpu_check_test: " + NO_GPU + "; the refusals (no GPU needed) still run")
    unittest.main()
