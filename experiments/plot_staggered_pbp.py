"""Plots the running chiral-condensate estimate written by //experiments:staggered_pbp (pbp_running.csv).

One panel per mass: the Z2-noise estimate of pbp = (1/V) Re tr M^-1 from the first n noise vectors against n,
with its standard error as a band, and the exact value (sparse LU) as a horizontal line where the CSV has it.

usage: plot_staggered_pbp.py CSV PNG [--title TITLE]
(run by the staggered_pbp binary through /usr/bin/python3;
 also `bazel run //experiments:plot_staggered_pbp -- CSV PNG`)
"""
import sys

from experiments import plotting

COLUMNS = ("mass", "vectors", "estimate", "standard_error", "exact")


def plot(csv_path, png_path, title):
    rows = plotting.read_csv_with_columns(csv_path, COLUMNS, "a pbp_running.csv")
    masses = []
    for r in rows:
        if not isinstance(r["mass"], float):
            raise ValueError(f"{csv_path}: mass must be a number, got {r['mass']!r}")
        if r["mass"] not in masses:
            masses.append(r["mass"])
    fig, axes = plotting.plt.subplots(1, len(masses), figsize=(4 * len(masses), 3.6), squeeze=False)
    for ax, mass in zip(axes[0], masses):
        sel = [r for r in rows if r["mass"] == mass]
        n = [r["vectors"] for r in sel]
        est = [r["estimate"] for r in sel]
        err = [r["standard_error"] for r in sel]
        ax.plot(n, est, "-", color="C0", label="estimate (first n vectors)")
        ax.fill_between(n, [e - s for e, s in zip(est, err)], [e + s for e, s in zip(est, err)], color="C0",
                        alpha=0.25, label="+- 1 standard error")
        exact = [r["exact"] for r in sel if isinstance(r["exact"], float)]
        if exact:
            ax.axhline(exact[0], color="C3", linestyle="--", label="exact (sparse LU)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("noise vectors n")
        ax.set_ylabel("pbp = (1/V) Re tr M$^{-1}$")
        ax.set_title(f"m = {mass:g}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return plotting.save_figure(fig, png_path, f"lqcd //experiments:staggered_pbp, data {csv_path.split('/')[-1]}")


def main(argv):
    return plotting.csv_to_png_main(argv, plot, "plot_staggered_pbp", __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
