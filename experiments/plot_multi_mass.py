"""Plots paper 002's Figure 6 from the figure6.csv that //experiments:multi_mass writes: the gain (total
iterations / the zero-guess baseline, 002's Eq. 26) of the single-mass solver's initial guesses against the
polynomial extrapolation order, one panel per mass set (wide, narrow), with the highest-order extrapolation and
the solution-space minimisation as horizontal lines. Below 1: the guesses saved iterations.

usage: plot_multi_mass.py CSV PNG [--title TITLE]
"""
import sys

from experiments import plotting

COLUMNS = ("set", "strategy", "order", "total_iterations", "baseline_iterations", "gain")


def plot(csv_path, png_path, title):
    rows = plotting.read_csv_with_columns(csv_path, COLUMNS, "a multi_mass figure6.csv")
    sets = [s for s in ("wide", "narrow") if any(r["set"] == s for r in rows)]
    if not sets:
        raise ValueError(f"{csv_path}: no 'wide' or 'narrow' rows")
    fig, axes = plotting.plt.subplots(1, len(sets), figsize=(5 * len(sets), 4), squeeze=False)
    for ax, name in zip(axes[0], sets):
        mine = [r for r in rows if r["set"] == name]
        poly = sorted((r for r in mine if r["strategy"] == "polynomial" and r["order"] >= 0), key=lambda r: r["order"])
        if poly:
            ax.plot([r["order"] for r in poly], [r["gain"] for r in poly], "o-", color="C0",
                    label="polynomial extrapolation")
        for strategy, order, style, label in (("polynomial", -1, "--", "highest order"),
                                              ("minimal-residual", -1, ":", "solution-space minimisation")):
            hit = [r for r in mine if r["strategy"] == strategy and r["order"] == order]
            if hit:
                ax.axhline(hit[0]["gain"], linestyle=style, color="C1" if strategy != "polynomial" else "C2",
                           label=f"{label} ({hit[0]['gain']:.3f})")
        ax.axhline(1.0, color="0.6", linewidth=0.8)
        ax.set_xlabel("polynomial order")
        ax.set_ylabel("gain = iterations / zero-guess iterations")
        ax.set_title(f"{name} mass set" + (f" - {title}" if title else ""))
        ax.set_ylim(0, 1.1)
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    return plotting.save_figure(fig, png_path, f"data: {csv_path}")


if __name__ == "__main__":
    sys.exit(plotting.csv_to_png_main(sys.argv[1:], plot, "plot_multi_mass",
                                      "paper 002's Figure 6 from multi_mass's figure6.csv"))
