"""The report's arithmetic: averages over sources then configurations, standard errors over configurations,
failed solves excluded and counted, cell formatting, and the tables and plot from a small hand-made run."""
import math
import os
import tempfile
import unittest

from experiments import solver_tables_report as report


def row(config, source, mass_index, iterations, status="converged", solver="bicgstab", precision="double",
        parameter=0.0, **extra):
    r = {"config": float(config), "source": float(source), "mass_index": float(mass_index), "solver": solver,
         "precision": precision, "parameter": parameter, "iterations": float(iterations), "status": status,
         "updates": 0.0, "restarts": 0.0, "seconds": 1.0, "krylov_iterations": float(iterations)}
    r.update(extra)
    return r


class AggregateTest(unittest.TestCase):
    def test_mean_over_sources_then_configurations(self):
        # Config 0: sources 100, 110 -> 105. Config 1: 120, 140 -> 130. Config 2: 90 -> 90 (one source).
        rows = [row(0, 0, 0, 100), row(0, 1, 0, 110), row(1, 0, 0, 120), row(1, 1, 0, 140), row(2, 0, 0, 90)]
        a = report.aggregate(rows)[(("bicgstab", "double", 0.0), 0)]
        means = [105.0, 130.0, 90.0]
        mean = sum(means) / 3
        self.assertAlmostEqual(a["mean"], mean, places=12)  # not the mean of the 5 solves (112)
        se = math.sqrt(sum((m - mean) ** 2 for m in means) / (3 * 2))
        self.assertAlmostEqual(a["error"], se, places=12)
        self.assertEqual((a["converged"], a["total"], a["configs"]), (5, 5, 3))

    def test_failed_solves_are_excluded_and_counted(self):
        rows = [row(0, 0, 0, 100), row(0, 1, 0, 5000, status="max-iterations"), row(1, 0, 0, 120),
                row(1, 1, 0, 9, status="stagnation")]
        a = report.aggregate(rows)[(("bicgstab", "double", 0.0), 0)]
        self.assertAlmostEqual(a["mean"], 110.0)
        self.assertAlmostEqual(a["error"], 10.0)  # configuration means 100 and 120: sqrt(200 / 2) / ... = 10
        self.assertEqual((a["converged"], a["total"]), (2, 4))
        self.assertEqual(report.format_cell(a), "110 &plusmn; 10 (2/4)")

    def test_nothing_converged_is_a_star(self):
        rows = [row(0, 0, 1, 5000, status="stagnation", solver="defect-correction", precision="half", parameter=0.1)]
        a = report.aggregate(rows)[(("defect-correction", "half", 0.1), 1)]
        self.assertIsNone(a["mean"])
        self.assertEqual(report.format_cell(a), "* (0/1)")

    def test_single_configuration_has_no_error_shown(self):
        a = report.aggregate([row(0, 0, 0, 100), row(0, 1, 0, 104)])[(("bicgstab", "double", 0.0), 0)]
        self.assertEqual(a["error"], 0.0)
        self.assertEqual(report.format_cell(a), "102")

    def test_groups_are_separated_by_variant_and_mass(self):
        rows = [row(0, 0, 0, 100), row(0, 0, 1, 200), row(0, 0, 0, 300, solver="reliable-update", precision="half",
                                                         parameter=0.1)]
        agg = report.aggregate(rows)
        self.assertEqual(len(agg), 3)
        self.assertEqual(agg[(("bicgstab", "double", 0.0), 1)]["mean"], 200.0)

    def test_paired_excess_uses_only_solves_where_both_converged(self):
        # Config 0 is hard: the variant fails there. Averages over different subsets would compare the
        # variant's easy configuration (110) with the baseline's mean over both (150): -27%. Paired: 110 / 100.
        rows = [row(0, 0, 0, 200), row(1, 0, 0, 100),
                row(0, 0, 0, 2000, status="stagnation", solver="reliable-update", precision="half", parameter=0.1),
                row(1, 0, 0, 110, solver="reliable-update", precision="half", parameter=0.1)]
        percent, used, total = report.paired_excess(rows, ("reliable-update", "half", 0.1), ("bicgstab", "double", 0.0), 0)
        self.assertAlmostEqual(percent, 10.0)
        self.assertEqual((used, total), (1, 2))
        self.assertEqual(report.format_excess((percent, used, total)), "+10 (1/2)")
        self.assertEqual(report.format_excess((None, 0, 2)), "*")

    def test_excess(self):
        base = {"mean": 100.0}
        self.assertAlmostEqual(report.excess({"mean": 115.0}, base), 15.0)
        self.assertIsNone(report.excess({"mean": None}, base))


class TablesTest(unittest.TestCase):
    def test_tables_and_plot_from_a_small_run(self):
        masses = {0: {"mass": -0.9, "kappa": 1 / (2 * 3.1), "mass_fraction": 1.0},
                  1: {"mass": -1.0, "kappa": 1 / 6.0, "mass_fraction": 0.0}}
        rows = []
        for m, base in ((0, 100), (1, 150)):
            for c in range(2):  # configurations differ by 2 iterations: means base + 1, standard error 1
                rows.append(row(c, 0, m, 3 * base + 2 * c, solver="cg"))
                rows.append(row(c, 0, m, base + 2 * c))
                rows.append(row(c, 0, m, base + 20 + 2 * c, solver="defect-correction", precision="half",
                                parameter=0.1, restarts=12.0))
                rows.append(row(c, 0, m, base + 10 + 2 * c, solver="reliable-update", precision="single",
                                parameter=0.1, updates=11.0, krylov_iterations=float(base - 1 + 2 * c)))
        summary = {"lattice": "4x4x4x4", "beta": "5.7", "configurations": "2", "sources_per_configuration": "1",
                   "tolerance": "1e-12", "critical_mass": "-1.0", "critical_mass_error": "0.01"}
        text = report.tables(rows, masses, summary)
        # Heavy mass: CG 301 +- 1, BiCGstab 101 +- 1, ratio 301 / 101 = 2.98.
        self.assertIn("| -0.90000 | 0.16129 | 1 | 301 &plusmn; 1 | 101 &plusmn; 1 | 2.98 |", text)
        # DC excess 121 / 101 - 1 = +19.8%; RU k + l excess 111 / 101 - 1 = +9.9%; RU k alone 100 / 101 - 1 = -1.0%.
        self.assertIn("| -0.90000 | 0.16129 | 1 | +20 |", text)
        self.assertIn("| -0.90000 | 0.16129 | 1 | +10 |", text)
        self.assertIn("| -0.90000 | 0.16129 | 1 | -1 |", text)
        self.assertIn("| -0.90000 | 0.16129 | 1 | 12.0 &plusmn; 0.0 |", text)  # outer corrections
        with tempfile.TemporaryDirectory() as d:
            path = report.plot(rows, masses, summary, os.path.join(d, "p.png"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_column_order_is_the_papers(self):
        rows = [row(0, 0, 0, 1, solver="reliable-update", precision=p, parameter=d)
                for p, d in (("single/12", 0.01), ("single/8", 0.001), ("half/12", 0.01), ("single/8", 0.1),
                             ("half/12", 0.1), ("single", 0.1))]
        self.assertEqual([(k[1], k[2]) for k in report.ordered_variants(rows, "reliable-update")],
                         [("half/12", 0.1), ("half/12", 0.01), ("single/8", 0.1), ("single/8", 0.001),
                          ("single/12", 0.01), ("single", 0.1)])

    def test_figure7_medians_and_paired_speedups(self):
        # Three configurations; the double solve breaks down on configuration 2, which then enters the
        # variant's median time but not its speed-up. Configuration 0's half solve is slow (tuning): the
        # median ignores it.
        masses = {0: {"mass": -0.9, "kappa": 1 / 6.2, "mass_fraction": 1.0}}
        half = dict(solver="reliable-update", precision="half/12", parameter=0.1)
        rows = [row(0, 0, 0, 100, seconds=3.0), row(1, 0, 0, 100, seconds=3.2),
                row(2, 0, 0, 900, status="breakdown", seconds=9.0),
                row(0, 0, 0, 110, seconds=2.0, **half), row(1, 0, 0, 110, seconds=1.0, **half),
                row(2, 0, 0, 110, seconds=1.1, **half)]
        variants, data = report.figure7_data(rows, masses)
        self.assertEqual([k for k, _ in variants], [("bicgstab", "double", 0.0), ("reliable-update", "half/12", 0.1)])
        (m, times, speedups), = data
        self.assertEqual(times[("bicgstab", "double", 0.0)], (3.1, 2))  # median of 3.0 and 3.2
        self.assertEqual(times[("reliable-update", "half/12", 0.1)], (1.1, 3))
        self.assertEqual(speedups[("reliable-update", "half/12", 0.1)], (0.5 * (1.5 + 3.2), 2))
        self.assertIn("| -0.90000 | 0.16129 | 1 | 3.100 | 1.100 | 2.35 |", report.figure7_table(rows, masses))
        with tempfile.TemporaryDirectory() as d:
            path = report.plot_figure7(rows, masses, {"device": "device 0: NVIDIA H200, sm_90"}, os.path.join(d, "f.png"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(report.figure7_data([row(0, 0, 0, 100)], masses), ([], []))  # no mixed solver: no figure

    def test_cell_by_cell_comparison_needs_the_papers_nine_masses(self):
        masses = {i: {"mass": -0.8 - 0.01 * i, "kappa": 0.16, "mass_fraction": (8 - i) / 8} for i in range(9)}
        rows = []
        for i in range(9):
            rows += [row(0, 0, i, 100), row(0, 0, i, 300, solver="cg"),
                     row(0, 0, i, 110, solver="reliable-update", precision="single/8", parameter=0.1)]
        text = report.paper_cell_comparison(rows, masses)
        # Ours CG / BiCGstab 3.00 next to the paper's 1392 / 460 = 3.03 at the heaviest mass; single/8 delta 0.1
        # +10% next to the paper's 461 / 460 - 1 = +0% there and 2147 / 2078 - 1 = +3% at m_c.
        self.assertIn("| Table 3 | CG / BiCGstab | 3.00 / 3.03 |", text)
        self.assertIn("| Table 5 | RU single/8 delta=0.1 | +10 / +0 |", text)
        self.assertTrue(text.rstrip().endswith("+10 / +3 |"))
        del masses[8]
        self.assertEqual(report.paper_cell_comparison(rows, masses), "")

    def test_paper_numbers_are_complete(self):
        for m in report.PAPER_MASSES:
            self.assertEqual(len(report.PAPER_TABLE3[m]), 2)
            self.assertEqual(len(report.PAPER_TABLE4[m]), len(report.PAPER_TABLE4_COLUMNS))
            self.assertEqual(len(report.PAPER_TABLE5[m]), len(report.PAPER_TABLE5_COLUMNS))
        # The paper's summary: BiCGstab needs about a third of CG's iterations.
        ratios = [report.PAPER_TABLE3[m][0] / report.PAPER_TABLE3[m][1] for m in report.PAPER_MASSES]
        self.assertTrue(all(2.7 < r < 3.5 for r in ratios))


if __name__ == "__main__":
    unittest.main()
