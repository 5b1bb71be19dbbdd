"""multi_gpu_scaling.py's bookkeeping on made-up benchmark rows: the configurations it runs, the slowest rank
per configuration, and the efficiencies written to the table (strong T_1 / (P T_P), weak T_1 / T_P)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multi_gpu_scaling as s  # noqa: E402


def row(part, lattice, grid, transport, rank, ms, plain_ms, gflops, precision="single"):
    return {"part": part, "precision": precision, "lattice": lattice, "grid": grid, "transport": transport,
            "local": "32x32x32x32", "rank": str(rank), "partitioned_ms": str(ms), "unpartitioned_ms": str(plain_ms),
            "partitioned_gflops": str(gflops), "face_bytes": "1000000"}


class ScalingTest(unittest.TestCase):
    def test_configurations_respect_the_gpu_count(self):
        two = s.configurations(2, "all")
        self.assertTrue(all(s.model.math.prod(s.grid_tuple(c[3])) <= 2 for c in two))
        four = s.configurations(4, "strong32")
        # one single-GPU baseline, then both transports for each of three multi-GPU grids
        self.assertEqual(len(four), 1 + 2 * 3)

    def test_slowest_rank_and_efficiencies(self):
        rows = [row("strong", "32x32x32x64", "1x1x1x1", "device", 0, 1.0, 1.0, 100),
                row("strong", "32x32x32x64", "1x1x1x2", "device", 0, 0.5, 0.4, 90),
                row("strong", "32x32x32x64", "1x1x1x2", "device", 1, 0.625, 0.4, 80)]
        summary = s.summarise(rows)
        two = summary[("strong", "single", "32x32x32x64", "1x1x1x2", "device")]
        self.assertEqual(two["ms"], 0.625)  # the slowest rank
        self.assertEqual(two["gflops_per_gpu"], 85)
        with tempfile.TemporaryDirectory() as d:
            table = s.write_markdown(summary, os.path.join(d, "t.md"))
        # strong efficiency 1.0 / (2 x 0.625) = 80%; the partitioned call at 0.4 / 0.625 = 64% of the plain kernel
        line = [l for l in table.splitlines() if "| 1x1x1x2 |" in l][0]
        self.assertIn("| 80% |", line)
        self.assertIn("| 64% |", line)


if __name__ == "__main__":
    unittest.main()
