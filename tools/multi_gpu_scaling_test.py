"""multi_gpu_scaling.py's bookkeeping on made-up benchmark rows: the configurations it runs, the slowest rank
per configuration, and the efficiencies written to the table (strong T_1 / (P T_P), weak T_1 / T_P)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multi_gpu_scaling as s  # noqa: E402


def row(part, lattice, grid, transport, rank, ms, plain_ms, gflops, precision="single", mee_ms=None):
    r = {"part": part, "precision": precision, "lattice": lattice, "grid": grid, "transport": transport,
         "local": "32x32x32x32", "rank": str(rank), "partitioned_ms": str(ms), "unpartitioned_ms": str(plain_ms),
         "partitioned_gflops": str(gflops), "face_bytes": "1000000"}
    if mee_ms is not None:
        r.update({"mee_ms": str(mee_ms), "mee_unpartitioned_ms": str(0.8 * mee_ms), "mee_gflops": str(2 * gflops)})
    return r


def solve_row(part, lattice, grid, ranks, seconds, gflops):
    return {"part": part, "solver": "bicgstab-reliable:half/12:0.1", "kappa": "0.16", "tolerance": "1e-10",
            "lattice": lattice, "grid": grid, "local": "32x32x32x32", "ranks": str(ranks), "status": "converged",
            "iterations": "100", "updates": "4", "true_residual": "1e-11", "seconds": str(seconds),
            "gflops_per_gpu": str(gflops)}


class ScalingTest(unittest.TestCase):
    def test_configurations_respect_the_gpu_count(self):
        two = s.configurations(2, "all")
        self.assertTrue(all(s.model.math.prod(s.grid_tuple(c[3])) <= 2 for c in two))
        four = s.configurations(4, "strong32")
        # one single-GPU baseline, then both transports for each of three multi-GPU grids
        self.assertEqual(len(four), 1 + 2 * 3)
        # the solve is timed with the device transport only
        self.assertEqual([c[5] for c in four], [c[4] == "device" for c in four])

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
        self.assertIn("| - | - | - |", line)  # rows without M_ee columns (older runs)

    def test_mee_and_solve_efficiencies(self):
        rows = [row("weak", "32x32x32x32", "1x1x1x1", "device", 0, 1.0, 1.0, 100, mee_ms=2.0),
                row("weak", "32x32x32x64", "1x1x1x2", "device", 0, 1.1, 1.0, 90, mee_ms=2.5),
                row("weak", "32x32x32x64", "1x1x1x2", "device", 1, 1.25, 1.0, 80, mee_ms=2.4)]
        solves = [solve_row("strong", "32x32x32x64", "1x1x1x1", 1, 2.0, 500),
                  solve_row("strong", "32x32x32x64", "1x1x1x2", 2, 1.25, 400),
                  solve_row("weak", "32x32x32x32", "1x1x1x1", 1, 1.0, 500),
                  solve_row("weak", "32x32x32x64", "1x1x1x2", 2, 1.6, 310)]
        with tempfile.TemporaryDirectory() as d:
            table = s.write_markdown(s.summarise(rows), os.path.join(d, "t.md"), solves)
        # weak M_ee: the slowest rank 2.5 ms against the plain 1.6 ms on one GPU = 64%; GFLOPS per GPU the mean
        # (180 + 160) / 2
        line = [l for l in table.splitlines() if "| 1x1x1x2 |" in l and "| device |" in l][0]
        self.assertIn("| 2500.0 | 170 | 64% |", line)
        # strong solve 2.0 / (2 x 1.25) = 80%; weak solve 1.0 / 1.6 = 62%
        strong = [l for l in table.splitlines() if l.startswith("| strong | 32x32x32x64 | 2 |")][0]
        self.assertTrue(strong.endswith("| 1.250 | 400 | 80% |"), strong)
        weak = [l for l in table.splitlines() if l.startswith("| weak | 32x32x32x64 | 2 |")][0]
        self.assertTrue(weak.endswith("| 1.600 | 310 | 62% |"), weak)
        # rows without the global-sums column (older runs) summed through the host on several ranks
        self.assertIn("| 32x32x32x32 | host | converged |", strong)
        one = [l for l in table.splitlines() if l.startswith("| strong | 32x32x32x64 | 1 |")][0]
        self.assertIn("| none | converged |", one)

    def test_solve_rows_say_how_the_global_sums_were_added(self):
        solves = [solve_row("strong", "32x32x32x64", "1x1x1x1", 1, 2.0, 500),
                  dict(solve_row("strong", "32x32x32x64", "1x1x1x2", 2, 1.25, 400), global_sums="device")]
        with tempfile.TemporaryDirectory() as d:
            table = s.write_markdown({}, os.path.join(d, "t.md"), solves)
        two = [l for l in table.splitlines() if l.startswith("| strong | 32x32x32x64 | 2 |")][0]
        self.assertIn("| device | converged |", two)


    def test_call_timelines_parsed_and_the_slowest_rank_tabulated(self):
        out = "\n".join([
            "multi_gpu_check: something else",
            "csv_timeline,transport,precision,grid,local,rank,interior_done_us,packs_done_us,host_waiting_us,"
            "host_exchange_us,ghosts_ready_us,exterior_done_us",
            "csv_timeline,device,half,1x1x1x2,32x32x32x32,0,37.0,31.0,20.0,5.0,59.0,77.0",
            "csv_timeline,device,half,1x1x1x2,32x32x32x32,1,36.0,30.0,21.0,6.0,61.0,79.5",
            "csv_timeline,nccl,half,1x1x1x2,32x32x32x32,0,37.0,31.0,0.0,0.0,66.0,84.0",
        ])
        timelines = s.parse_csv(out, "csv_timeline,")
        self.assertEqual(len(timelines), 3)
        # A header repeated further down (one per precision, as older builds printed it) is not a row.
        header = out.splitlines()[1]
        self.assertEqual(len(s.parse_csv(out + "\n" + header + "\n" + out.splitlines()[2], "csv_timeline,")), 4)
        slowest = s.slowest_timelines(timelines)
        self.assertEqual(slowest[("device", "half", "1x1x1x2", "32x32x32x32")]["rank"], "1")
        with tempfile.TemporaryDirectory() as d:
            table = s.write_markdown({}, os.path.join(d, "t.md"), (), timelines)
        self.assertIn("| device | half/12 | 1x1x1x2 | 32x32x32x32 | 1 | 36.0 | 30.0 | 21.0 | 6.0 | 61.0 | 79.5 |",
                      table)
        self.assertIn("| nccl | half/12 | 1x1x1x2 | 32x32x32x32 | 0 |", table)
        self.assertLess(table.index("| device |"), table.index("| nccl |"))

if __name__ == "__main__":
    unittest.main()
