"""Plots the block solver's time to solution per right-hand side against the block size n from the CSVs written by
//gpu:block_solver_benchmark --csv=FILE, and writes their markdown table.

One PNG with two panels: seconds per column against n for the lockstep block (solid) and for the same n systems
solved one after another (dashed), and the block's speed-up per column against n; one series per solver spec and
action (and per lattice, kappa, links or device where the CSVs differ in them). The markdown (to --markdown, or
stdout) has one row per series and n: seconds per column both ways, the speed-up, the block's mean iterations
(reliable updates) and the largest true residual. Several CSVs (one per run: Wilson, clover, another GPU) go into
one plot and one table.

usage: plot_block_solver.py CSV [CSV ...] PNG [--markdown PATH]
(also `bazel run //experiments:plot_block_solver -- CSV... PNG`)
"""
import argparse
import sys

from experiments import plotting

COLUMNS = ("lattice", "links", "fermion", "kappa", "csw", "clover_form", "solver", "rhs",
           "separate_seconds_per_column", "block_seconds_per_column", "speedup_per_column",
           "block_mean_iterations", "block_mean_reliable_updates", "all_converged", "max_true_residual", "device")

# What tells two series apart, in the order labels name them; the solver spec is always named.
SERIES_FIELDS = ("solver", "action", "lattice", "kappa", "links", "device")


def action_of(row):
    """The fermion action of a row as a reader writes it: "Wilson" or "clover c_sw=1" (with its even-odd form when
    it is not the default Schur complement)."""
    if row["fermion"] == "wilson":
        return "Wilson"
    text = f"clover c_sw={row['csw']:g}"
    return text if row["clover_form"] == "complement" else f"{text}, {row['clover_form']}"


def check_row(path, number, row):
    """ValueError naming the file and row unless `row` is a row the benchmark could have written."""
    def bad(what):
        raise ValueError(f"{path}: row {number}: {what} (is this a block_solver_benchmark CSV?)")

    if None in row:
        bad("more fields than the header")
    if any(value is None for value in row.values()):
        bad("fewer fields than the header")
    if row["fermion"] not in ("wilson", "clover"):
        bad(f"fermion {row['fermion']!r} is neither wilson nor clover")
    if row["fermion"] == "clover" and not isinstance(row["csw"], float):
        bad(f"a clover row with csw {row['csw']!r}")
    n = row["rhs"]
    if not (isinstance(n, float) and n >= 1 and n == int(n)):
        bad(f"rhs = {n!r} is not a block size")
    for name in ("kappa", "separate_seconds_per_column", "block_seconds_per_column", "speedup_per_column"):
        if not (isinstance(row[name], float) and row[name] > 0):
            bad(f"{name} = {row[name]!r} is not a positive number")
    for name in ("block_mean_iterations", "block_mean_reliable_updates", "max_true_residual"):
        if not (isinstance(row[name], float) and row[name] >= 0):
            bad(f"{name} = {row[name]!r} is not a number >= 0")
    if row["all_converged"] not in (0.0, 1.0):
        bad(f"all_converged = {row['all_converged']!r} is not 0 or 1")


def load(csv_paths):
    """The rows of every CSV, checked, each with its "action" and its block size as an int; ValueError for a file
    that is not a block_solver_benchmark CSV or for two rows of the same series and n."""
    rows, seen = [], {}
    for path in csv_paths:
        for number, row in enumerate(plotting.read_csv_with_columns(path, COLUMNS, "a block_solver_benchmark CSV"),
                                     start=2):  # line 1 is the header
            check_row(path, number, row)
            row["rhs"] = int(row["rhs"])
            row["action"] = action_of(row)
            key = (series_key(row), row["rhs"])
            if key in seen:
                raise ValueError(f"{path}: row {number}: n = {row['rhs']} of {row['solver']}, {row['action']} "
                                 f"is also {seen[key]}; give each measurement once")
            seen[key] = f"{path} row {number}"
            rows.append(row)
    return rows


def series_key(row):
    return tuple(row[f] for f in SERIES_FIELDS)


def naming(rows):
    """The fields that differ between rows (the solver always among them), and the text of those that do not."""
    varying = [f for f in SERIES_FIELDS if f == "solver" or len({r[f] for r in rows}) > 1]
    # The links file or the device, where the other fields already tell the series apart (a file per lattice), adds
    # only length to every label.
    for f in ("device", "links"):
        others = [g for g in varying if g != f]
        if f in varying and len({tuple(r[g] for g in others) for r in rows}) == len({series_key(r) for r in rows}):
            varying.remove(f)
    fixed = [f for f in SERIES_FIELDS if f not in varying and len({r[f] for r in rows}) == 1]
    return varying, ", ".join(f"{f} {rows[0][f]}" if f in ("kappa", "links") else str(rows[0][f]) for f in fixed)


def label(row, varying):
    return ", ".join(f"kappa {row[f]:g}" if f == "kappa" else str(row[f]) for f in varying)


def series(rows):
    """(first row, rows sorted by n) per series, in the order the series first appear."""
    groups = {}
    for r in rows:
        groups.setdefault(series_key(r), []).append(r)
    return [(pts[0], sorted(pts, key=lambda r: r["rhs"])) for pts in groups.values()]


def plot(rows, png_path, source):
    varying, fixed = naming(rows)
    fig, (time_ax, speed_ax) = plotting.plt.subplots(1, 2, figsize=(12, 4.8))
    for i, (first, pts) in enumerate(series(rows)):
        n = [r["rhs"] for r in pts]
        colour = f"C{i % 10}"
        name = label(first, varying)
        time_ax.plot(n, [r["block_seconds_per_column"] for r in pts], "o-", color=colour, markersize=4, label=name)
        time_ax.plot(n, [r["separate_seconds_per_column"] for r in pts], "s--", color=colour, markersize=4,
                     markerfacecolor="none")
        speed_ax.plot(n, [r["speedup_per_column"] for r in pts], "o-", color=colour, markersize=4, label=name)
    # Proxies so the legend says which line style is which way of solving.
    time_ax.plot([], [], "o-", color="0.3", label="block (lockstep)")
    time_ax.plot([], [], "s--", color="0.3", markerfacecolor="none", label="separate (one after another)")
    speed_ax.axhline(1, color="0.5", linewidth=0.8, linestyle=":")
    ns = sorted({r["rhs"] for r in rows})
    for ax in (time_ax, speed_ax):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns])
        ax.minorticks_off()  # only the measured n are labelled
        ax.set_xlabel("right-hand sides n")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    time_ax.set_ylim(bottom=0)
    time_ax.set_ylabel("seconds per column (time to solution / n)")
    time_ax.set_title(f"block solver: {fixed}" if fixed else "block solver", fontsize=9)
    speed_ax.set_ylabel("speed-up per column (separate / block)")
    speed_ax.set_title("block over separate solves", fontsize=9)
    return plotting.save_figure(fig, png_path, source)


def iterations_cell(row):
    """The block's mean iterations, with its mean reliable updates in parentheses where the spec makes any."""
    text = f"{row['block_mean_iterations']:.0f}"
    updates = row["block_mean_reliable_updates"]
    return f"{text} ({updates:.3g})" if updates > 0 else text


def markdown(rows):
    varying, fixed = naming(rows)
    table = []
    for first, pts in series(rows):
        for r in pts:
            table.append([label(first, varying), r["rhs"], f"{r['separate_seconds_per_column']:.3f}",
                          f"{r['block_seconds_per_column']:.3f}", f"{r['speedup_per_column']:.2f}",
                          iterations_cell(r), f"{r['max_true_residual']:.1e}",
                          "yes" if r["all_converged"] == 1 else "**no**"])
    header = [" / ".join(varying), "n", "separate, s per column", "block, s per column", "speed-up per column",
              "mean iterations (reliable updates)", "max true residual", "all converged"]
    title = f"Block solver, {fixed}" if fixed else "Block solver"
    return f"{title}: time to solution per column\n\n" + plotting.markdown_table(header, table)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="block_solver_benchmark --csv files")
    parser.add_argument("png", help="the plot to write (ends in .png)")
    parser.add_argument("--markdown", default="", help="write the table here instead of to stdout")
    args = parser.parse_args(argv)
    # A forgotten PNG argument would otherwise make the last CSV the plot and overwrite it.
    if not args.png.lower().endswith(".png"):
        parser.error(f"the last argument is the PNG to write and must end in .png, got {args.png!r}")
    rows = load([plotting.user_path(p) for p in args.csv])
    sources = ", ".join(p.split("/")[-1] for p in args.csv)
    path = plot(rows, plotting.user_path(args.png), f"lqcd //gpu:block_solver_benchmark, data {sources}")
    text = markdown(rows)
    plotting.write_markdown(text, args.markdown)
    print(f"plot_block_solver: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
