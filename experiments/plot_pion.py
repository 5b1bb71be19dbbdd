"""Plots the pion correlator written by //experiments:pion (pion_correlator.csv) as a PNG.

Left panel: C(t) on a log scale (the m-normalised correlator of S = M^{-1}; the kappa-normalised one is a
constant multiple with the same shape), and the folded C_folded(t) = (C(t) + C(T - t)) / 2. Right panel: the
effective masses at t + 1/2: the cosh form of the folded correlator (filled; it solves
C(t)/C(t+1) = cosh(m (t - T/2)) / cosh(m (t + 1 - T/2))), the cosh form of C itself, and the log form
log C(t)/C(t+1) (open), which is not a mass near the middle of the lattice where the backward-moving
pion matters.

usage: plot_pion.py CSV PNG [--title TITLE]
(run by the pion binary through /usr/bin/python3; also `bazel run //experiments:plot_pion -- CSV PNG`)
"""
import math
import sys

from experiments import plotting

COLUMNS = ("t", "C", "C_folded", "m_eff_log", "m_eff_cosh", "m_eff_cosh_folded")


def points(rows, column):
    """(t + 1/2, value) for the rows where `column` holds a finite number."""
    out = [(r["t"] + 0.5, r[column]) for r in rows if isinstance(r[column], float) and math.isfinite(r[column])]
    return [p[0] for p in out], [p[1] for p in out]


def plot(csv_path, png_path, title):
    rows = plotting.read_csv_with_columns(csv_path, COLUMNS, "a pion_correlator.csv")
    t = [r["t"] for r in rows]
    c = [r["C"] for r in rows]
    folded = [r["C_folded"] for r in rows]
    if any(not isinstance(v, float) or not v > 0 for v in c + folded):
        raise ValueError(f"{csv_path}: C(t) must be positive numbers (it is a sum of squares)")

    fig, (left, right) = plotting.plt.subplots(1, 2, figsize=(10, 4))
    left.semilogy(t, c, "o-", color="C0", markersize=4, label="C(t)")
    half = len(t) // 2
    left.semilogy(t[: half + 1], folded[: half + 1], "x--", color="C3", markersize=5, label="folded")
    left.set_xlabel("t (lattice units, from the source)")
    left.set_ylabel("C(t)  (m-normalised, S = M$^{-1}$)")
    left.set_title("pion correlator")
    left.legend()
    left.grid(True, which="both", alpha=0.3)

    tf, mf = points(rows, "m_eff_cosh_folded")
    tc, mc = points(rows, "m_eff_cosh")
    tl, ml = points(rows, "m_eff_log")
    right.plot(tf, mf, "o", color="C3", label="cosh form, folded C")
    right.plot(tc, mc, "o", color="C1", markerfacecolor="none", label="cosh form, C")
    right.plot(tl, ml, "s", color="C2", markerfacecolor="none", markersize=4, label="log C(t)/C(t+1)")
    if mf:
        right.set_ylim(0, 2.5 * min(mf))
    right.set_xlabel("t + 1/2")
    right.set_ylabel("a m$_{eff}$")
    right.set_title("effective mass")
    right.legend(fontsize=8)
    right.grid(True, alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return plotting.save_figure(fig, png_path, f"lqcd //experiments:pion, data {csv_path.split('/')[-1]}")


def main(argv):
    return plotting.csv_to_png_main(argv, plot, "plot_pion", __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
