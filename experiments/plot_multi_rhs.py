"""Plots the multi-RHS Dslash measurements (paper 003's multi-RHS table) from the CSV written by
//gpu:multi_rhs_dslash_benchmark --csv=FILE, and writes their markdown tables.

One PNG with a row of two panels per lattice: microseconds per right-hand side against the number of right-hand
sides n, one curve per variant (with QUDA's multi-RHS Dslash at 32^4, 12 reals, measured on the same kind of
H100, as open markers where the lattice is 32x32x32x32), and the fraction of the n-RHS minimum-bytes roofline
against n. The markdown (to --markdown, or stdout) has, per lattice, microseconds per right-hand side (roofline
%) for every variant and n.

usage: plot_multi_rhs.py CSV PNG [--markdown PATH]
(also `bazel run //experiments:plot_multi_rhs -- CSV PNG`)
"""
import argparse
import sys

from experiments import plotting

COLUMNS = ("lattice", "variant", "rhs", "single_us", "best_us", "roofline_fraction", "speedup", "copy_gbs")

# QUDA's multi-RHS Wilson Dslash (--nsrc, develop of 2024-10) on an H100 at 32^4 with 12 reals: microseconds per
# right-hand side for n = 1, 2, 4, 8, 16 (the figures the multi-RHS issue quotes); and its multi-RHS clover Dslash
# A^{-1} D, which the benchmark's --operator=clover rows ("/clover": T^{-1} D) compare with.
QUDA_32 = {
    "single/12": {1: 119.5, 2: 86.6, 4: 71.1, 8: 68.2, 16: 67.5},
    "half/12": {1: 69.5, 2: 59.3, 4: 56.4, 8: 55.2, 16: 54.8},
    "single/12/clover": {1: 167.0, 2: 128.0, 4: 117.7, 8: 115.5, 16: 114.4},
    "half/12/clover": {1: 94.4, 2: 78.4, 4: 75.5, 8: 74.4, 16: 73.7},
}


def load(csv_path):
    rows = plotting.read_csv_with_columns(csv_path, COLUMNS, "a multi_rhs_dslash_benchmark CSV")
    for r in rows:
        if not (isinstance(r["rhs"], float) and r["rhs"] >= 1 and isinstance(r["best_us"], float) and r["best_us"] > 0):
            raise ValueError(f"{csv_path}: a row with rhs = {r['rhs']!r}, best_us = {r['best_us']!r}")
    return rows


def lattices(rows):
    return list(dict.fromkeys(r["lattice"] for r in rows))


def variants(rows):
    return list(dict.fromkeys(r["variant"] for r in rows))


def plot(rows, png_path, source):
    lats = lattices(rows)
    fig, axes = plotting.plt.subplots(len(lats), 2, figsize=(12, 4.5 * len(lats)), squeeze=False)
    for (time_ax, roof_ax), lattice in zip(axes, lats):
        mine = [r for r in rows if r["lattice"] == lattice]
        for i, variant in enumerate(variants(mine)):
            pts = sorted((r for r in mine if r["variant"] == variant), key=lambda r: r["rhs"])
            n = [r["rhs"] for r in pts]
            colour = f"C{i % 10}"
            time_ax.plot(n, [r["best_us"] for r in pts], "o-", color=colour, markersize=4, label=variant)
            roof_ax.plot(n, [100 * r["roofline_fraction"] for r in pts], "o-", color=colour, markersize=4,
                         label=variant)
            if lattice == "32x32x32x32" and variant in QUDA_32:
                q = QUDA_32[variant]
                time_ax.plot(list(q), list(q.values()), "s", color=colour, markerfacecolor="none", markersize=7,
                             label=f"{variant}, QUDA")
        time_ax.set_xscale("log", base=2)
        time_ax.set_yscale("log")
        time_ax.set_xlabel("right-hand sides n")
        time_ax.set_ylabel("microseconds per right-hand side")
        time_ax.set_title(f"multi-RHS Dslash, {lattice}")
        time_ax.legend(fontsize=6, ncol=2)
        time_ax.grid(True, which="both", alpha=0.3)
        roof_ax.set_xscale("log", base=2)
        roof_ax.set_ylim(0, 100)
        roof_ax.set_xlabel("right-hand sides n")
        roof_ax.set_ylabel("% of the n-RHS minimum-bytes roofline")
        roof_ax.set_title(f"copy bandwidth {mine[0]['copy_gbs']:.0f} GB/s")
        roof_ax.grid(True, alpha=0.3)
    return plotting.save_figure(fig, png_path, source)


def markdown(rows):
    out = []
    for lattice in lattices(rows):
        mine = [r for r in rows if r["lattice"] == lattice]
        ns = sorted({int(r["rhs"]) for r in mine})
        table = []
        for variant in variants(mine):
            cells = {int(r["rhs"]): r for r in mine if r["variant"] == variant}
            table.append([variant] + [f"{cells[n]['best_us']:.1f} ({100 * cells[n]['roofline_fraction']:.0f}%)"
                                      if n in cells else "" for n in ns])
        out.append(f"{lattice}: microseconds per right-hand side (% of the n-RHS roofline)\n\n")
        out.append(plotting.markdown_table(["variant"] + [f"n = {n}" for n in ns], table))
        out.append("\n")
    return "".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--markdown", default="")
    args = parser.parse_args(argv)
    rows = load(plotting.user_path(args.csv))
    path = plot(rows, plotting.user_path(args.png), f"lqcd //gpu:multi_rhs_dslash_benchmark, data {args.csv.split('/')[-1]}")
    text = markdown(rows)
    plotting.write_markdown(text, args.markdown)
    print(f"plot_multi_rhs: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
