"""compare_correlators.py: passes within the summed bounds, fails outside them, refuses runs without bounds."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_correlators.py")


def write(directory, name, rows):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("t,C,C_bound,C_kappa,C_folded,m_eff_log,m_eff_cosh,m_eff_cosh_folded\n")
        for t, (c, bound) in enumerate(rows):
            f.write("%d,%r,%s,0,0,,,\n" % (t, c, "" if bound is None else repr(bound)))
    return path


def run(a, b):
    return subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True)


class CompareCorrelatorsTest(unittest.TestCase):
    def test_within_outside_and_without_bounds(self):
        with tempfile.TemporaryDirectory() as d:
            a = write(d, "a.csv", [(1.0, 1e-9), (0.5, 1e-9)])
            inside = write(d, "b.csv", [(1.0 + 1.9e-9, 1e-9), (0.5, 1e-9)])
            outside = write(d, "c.csv", [(1.0, 1e-9), (0.5 + 2.1e-9, 1e-9)])
            unbounded = write(d, "d.csv", [(1.0, None), (0.5, None)])
            short = write(d, "e.csv", [(1.0, 1e-9)])
            r = run(a, inside)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("agree within the bound", r.stdout)
            r = run(a, outside)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("1 time slices OUTSIDE the bound", r.stdout)
            self.assertEqual(run(a, unbounded).returncode, 2)
            self.assertEqual(run(a, short).returncode, 2)


if __name__ == "__main__":
    unittest.main()
