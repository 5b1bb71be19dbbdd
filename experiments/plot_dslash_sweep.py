"""Plots the paper's Figures 2-5 from the CSV written by //gpu:dslash_sweep_benchmark and writes its tables.

For each operator (M_ee, the paper's figures, and the single Dslash) one PNG with a row of panels per padding
(unpadded, padded) and a column per precision (double, single, half): GFLOPS against the temporal extent T, one
curve per reconstruction (18 / 12 / 8 reals per link), solid without and dashed with temporal gauge fixing (GF).
A third PNG shows padded / unpadded M_ee GFLOPS against T, which answers whether partition camping still
matters. The markdown (to --markdown, or stdout) has the M_ee and Dslash tables at a few T and the padding ratios.

usage: plot_dslash_sweep.py CSV OUTDIR [--markdown PATH] [--table-t 16,32,64,128]
(also `bazel run //experiments:plot_dslash_sweep -- CSV OUTDIR`)
"""
import argparse
import pathlib
import statistics
import sys

from experiments import plotting

COLUMNS = ("T", "padded", "operator", "precision", "reconstruct", "gauge_fixed", "gflops", "model_gbs",
           "roofline_fraction", "copy_gbs")
PRECISIONS = ("double", "single", "half")
RECONSTRUCTIONS = (18.0, 12.0, 8.0)
COLOURS = {18.0: "C0", 12.0: "C1", 8.0: "C3"}
OPERATORS = {"mee": "M_ee (even-odd Wilson matrix-vector)", "dslash": "Dslash (one parity)"}


def load(csv_path):
    rows = plotting.read_csv_with_columns(csv_path, COLUMNS, "a dslash_sweep.csv")
    for r in rows:
        if r["operator"] not in OPERATORS or r["precision"] not in PRECISIONS:
            raise ValueError(f"{csv_path}: unknown operator or precision in row {r}")
        if not isinstance(r["gflops"], float) or not r["gflops"] > 0:
            raise ValueError(f"{csv_path}: GFLOPS must be positive numbers, got {r['gflops']!r}")
    return rows


def series(rows, operator, padded, precision, reconstruct, gauge_fixed):
    """(T, row) pairs of one curve, sorted by T."""
    picked = [r for r in rows if r["operator"] == operator and r["padded"] == padded and r["precision"] == precision
              and r["reconstruct"] == reconstruct and r["gauge_fixed"] == gauge_fixed]
    return sorted(((r["T"], r) for r in picked), key=lambda p: p[0])


def shrink_png(path):
    """Re-saves a PNG with a 256-colour palette (line plots lose nothing visible; the file shrinks ~3x)."""
    from PIL import Image  # Pillow comes with matplotlib

    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)
    return path


def plot_operator(rows, operator, png_path, source):
    fig, axes = plotting.plt.subplots(2, 3, figsize=(13, 7.5), sharex=True)
    for i, padded in enumerate((0.0, 1.0)):
        for j, precision in enumerate(PRECISIONS):
            ax = axes[i][j]
            for reconstruct in RECONSTRUCTIONS:
                for gauge_fixed in (0.0, 1.0):
                    s = series(rows, operator, padded, precision, reconstruct, gauge_fixed)
                    if not s:
                        continue
                    ax.plot([p[0] for p in s], [p[1]["gflops"] for p in s], color=COLOURS[reconstruct],
                            linestyle="--" if gauge_fixed else "-", marker="o" if gauge_fixed else "s",
                            markersize=3, label=f"{int(reconstruct)}{' GF' if gauge_fixed else ''}")
            ax.set_title(f"{precision}, {'padded' if padded else 'unpadded'}", fontsize=10)
            ax.grid(True, alpha=0.3)
            ax.set_ylim(bottom=0)
            if j == 0:
                ax.set_ylabel("GFLOPS (1320 flops/site/Dslash)")
            if i == 1:
                ax.set_xlabel("temporal extent T (spatial 24$^3$)")
            if i == 0 and j == 0:
                ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.suptitle(OPERATORS[operator], fontsize=11)
    fig.tight_layout()
    return shrink_png(plotting.save_figure(fig, png_path, source))


def padding_ratios(rows, operator):
    """{(precision, reconstruct, gauge_fixed): [(T, padded GFLOPS / unpadded GFLOPS)]}"""
    out = {}
    for precision in PRECISIONS:
        for reconstruct in RECONSTRUCTIONS:
            for gauge_fixed in (0.0, 1.0):
                plain = dict(series(rows, operator, 0.0, precision, reconstruct, gauge_fixed))
                padded = dict(series(rows, operator, 1.0, precision, reconstruct, gauge_fixed))
                common = sorted(set(plain) & set(padded))
                if common:
                    out[(precision, reconstruct, gauge_fixed)] = [
                        (t, padded[t]["gflops"] / plain[t]["gflops"]) for t in common]
    return out


def plot_padding(rows, png_path, source):
    ratios = padding_ratios(rows, "mee")
    fig, axes = plotting.plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
    for j, precision in enumerate(PRECISIONS):
        ax = axes[j]
        for (p, reconstruct, gauge_fixed), pts in ratios.items():
            if p != precision:
                continue
            ax.plot([t for t, _ in pts], [r for _, r in pts], color=COLOURS[reconstruct],
                    linestyle="--" if gauge_fixed else "-", marker="o" if gauge_fixed else "s", markersize=3,
                    label=f"{int(reconstruct)}{' GF' if gauge_fixed else ''}")
        ax.axhline(1.0, color="0.3", linewidth=0.8)
        ax.set_title(f"{precision}: padded / unpadded M_ee GFLOPS", fontsize=10)
        ax.set_xlabel("temporal extent T (spatial 24$^3$)")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("speed ratio (> 1: padding helps)")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return shrink_png(plotting.save_figure(fig, png_path, source))


def cell(row):
    return f"{row['gflops']:.0f} ({100 * row['roofline_fraction']:.0f}%)"


def markdown(rows, table_t):
    present = sorted({r["T"] for r in rows})
    chosen = [t for t in table_t if t in present] or present[-4:]
    copy = sorted({r["copy_gbs"] for r in rows})
    lines = [f"Copy-kernel roofline of the run: {', '.join(f'{c:.0f}' for c in copy)} GB/s.\n"]
    for operator in ("mee", "dslash"):
        for padded in (0.0, 1.0):
            lines.append(f"\n{OPERATORS[operator]}, {'padded' if padded else 'unpadded'}: GFLOPS (roofline %) at "
                         f"spatial 24^3\n\n")
            header = ["variant"] + [f"T={int(t)}" for t in chosen]
            body = []
            for precision in PRECISIONS:
                for reconstruct in RECONSTRUCTIONS:
                    for gauge_fixed in (0.0, 1.0):
                        s = dict(series(rows, operator, padded, precision, reconstruct, gauge_fixed))
                        if s:
                            body.append([f"{precision}/{int(reconstruct)}{'/gf' if gauge_fixed else ''}"] +
                                        [cell(s[t]) if t in s else "" for t in chosen])
            lines.append(plotting.markdown_table(header, body))
    ratios = padding_ratios(rows, "mee")
    if ratios:
        lines.append("\nPadding, M_ee: padded / unpadded GFLOPS over all T, per variant\n\n")
        body = []
        for (precision, reconstruct, gauge_fixed), pts in ratios.items():
            values = [r for _, r in pts]
            worst_t, worst = min(pts, key=lambda p: p[1])
            best_t, best = max(pts, key=lambda p: p[1])
            body.append([f"{precision}/{int(reconstruct)}{'/gf' if gauge_fixed else ''}", f"{min(values):.3f}",
                         f"{statistics.median(values):.3f}", f"{max(values):.3f}",
                         f"{int(worst_t)} / {int(best_t)}"])
        lines.append(plotting.markdown_table(["variant", "min", "median", "max", "T of min / max"], body))
    return "".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("outdir")
    parser.add_argument("--markdown", default="")
    parser.add_argument("--table-t", default="16,32,64,128")
    args = parser.parse_args(argv)
    rows = load(args.csv)
    out = pathlib.Path(args.outdir)
    source = f"lqcd //gpu:dslash_sweep_benchmark, data {args.csv.split('/')[-1]}"
    written = [plot_operator(rows, "mee", out / "dslash_sweep_mee.png", source),
               plot_operator(rows, "dslash", out / "dslash_sweep_dslash.png", source),
               plot_padding(rows, out / "dslash_sweep_padding.png", source)]
    text = markdown(rows, [float(t) for t in args.table_t.split(",")])
    if args.markdown:
        pathlib.Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.markdown).write_text(text)
    else:
        print(text)
    for path in written:
        print(f"plot_dslash_sweep: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
