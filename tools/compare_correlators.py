#!/usr/bin/env python3
"""compare_correlators.py A.csv B.csv: two pion_correlator.csv files of the main job (experiments/pion) for the
same configuration and action, e.g. one from the GPU and one from the CPU oracle. Passes (exit 0) when, at
every t, |C_A(t) - C_B(t)| <= C_bound_A(t) + C_bound_B(t): each run's C_bound is its derived bound on the
distance from the exact correlator (experiments/correlator_bounds.h), so two correct runs differ by at most
the sum. Prints one line per t and the largest ratio |dC| / bound. Exit 1 on a violation, 2 on bad input
(files of different length, a run without bounds)."""
import csv
import sys


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = read(argv[1]), read(argv[2])
    if len(a) != len(b) or not a:
        print("compare_correlators: the files have %d and %d time slices" % (len(a), len(b)), file=sys.stderr)
        return 2
    if any(r["C_bound"] == "" for r in a + b):
        print("compare_correlators: a run has no C_bound (m <= 0: run pion with --inverse-norm-steps=N)",
              file=sys.stderr)
        return 2
    worst, failed = 0.0, 0
    print("%3s %24s %24s %10s %10s %7s" % ("t", "C_A", "C_B", "|dC|/C", "|dC|", "/bound"))
    for ra, rb in zip(a, b):
        ca, cb = float(ra["C"]), float(rb["C"])
        bound = float(ra["C_bound"]) + float(rb["C_bound"])
        diff = abs(ca - cb)
        ratio = diff / bound
        worst = max(worst, ratio)
        failed += ratio > 1
        print("%3s %24.17g %24.17g %10.2e %10.2e %7.3f" % (ra["t"], ca, cb, diff / ca, diff, ratio))
    print("compare_correlators: largest |dC| / (bound_A + bound_B) = %.3g: %s" % (
        worst, "agree within the bound" if failed == 0 else "%d time slices OUTSIDE the bound" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
