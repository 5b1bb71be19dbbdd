"""Plots the paper's Figure 6 from the CSV written by //gpu:dslash_accuracy: Delta(eps), the fraction of output
components of M_ee whose absolute deviation from the CPU double-precision oracle is >= eps, one curve per kernel
variant (colour: precision; line style: 18 / 12 / 8 reals per link).

Left panel: log eps against Delta (linear), the cumulative picture. Right panel: the same on log-log axes, where
the tail -- the largest deviations, the onset read from the right -- is visible. Dotted verticals mark one ulp of
1 in each storage precision (2^-52, 2^-23, and half's level 1/32767). One row of two panels per operator whose
columns the CSV holds: Wilson M_ee (columns double_18 ...) and the clover Schur complement S_ee (columns
clover_double_18 ..., from --operator=clover or both); a CSV with only one of them gives one row.

usage: plot_dslash_accuracy.py CSV PNG [--title TITLE]
(also `bazel run //experiments:plot_dslash_accuracy -- CSV PNG`)
"""
import argparse
import math
import re
import sys

from experiments import plotting

VARIANT = re.compile(r"^(clover_)?(double|single|half)_(18|12|8)$")
OPERATORS = {None: r"Wilson $M_{ee}$", "clover_": r"Wilson-clover $S_{ee}$"}
COLOURS = {"double": "C0", "single": "C1", "half": "C2"}
STYLES = {"18": ":", "12": "-", "8": "--"}
ULP = {"double": 2.0**-52, "single": 2.0**-23, "half": 1.0 / 32767}


def variants(rows, csv_path):
    """The variant columns of the CSV, checked: Delta in [0, 1] and non-increasing in eps (it is a CDF)."""
    if not rows or "eps" not in rows[0]:
        raise ValueError(f"{csv_path}: no column 'eps' (is this a dslash_accuracy.csv?)")
    names = [k for k in rows[0] if VARIANT.match(k)]
    if not names:
        raise ValueError(f"{csv_path}: no variant columns like double_12 or clover_double_12")
    eps = [r["eps"] for r in rows]
    if any(not isinstance(e, float) or not e > 0 for e in eps) or eps != sorted(eps):
        raise ValueError(f"{csv_path}: eps must be positive and increasing")
    for n in names:
        delta = [r[n] for r in rows]
        if any(not isinstance(d, float) or not 0 <= d <= 1 for d in delta):
            raise ValueError(f"{csv_path}: column {n} holds values outside [0, 1]")
        if any(b > a for a, b in zip(delta, delta[1:])):
            raise ValueError(f"{csv_path}: column {n} grows with eps; Delta(eps) cannot")
    return names


def plot(csv_path, png_path, title):
    rows = plotting.read_csv(csv_path)
    names = variants(rows, csv_path)
    eps = [r["eps"] for r in rows]
    groups = [g for g in OPERATORS if any(VARIANT.match(n).group(1) == g for n in names)]
    fig, axes = plotting.plt.subplots(len(groups), 2, figsize=(11, 4.2 * len(groups)), squeeze=False)
    for (left, right), group in zip(axes, groups):
        for n in names:
            operator, precision, reconstruct = VARIANT.match(n).groups()
            if operator != group:
                continue
            delta = [r[n] for r in rows]
            style = dict(color=COLOURS[precision], linestyle=STYLES[reconstruct], linewidth=1.4,
                         label=f"{precision} {reconstruct}")
            left.semilogx(eps, delta, **style)
            positive = [(e, d) for e, d in zip(eps, delta) if d > 0]
            if positive:
                right.loglog([p[0] for p in positive], [p[1] for p in positive], **style)
        for axis in (left, right):
            for precision, ulp in ULP.items():
                axis.axvline(ulp, color=COLOURS[precision], linestyle=":", linewidth=0.8, alpha=0.6)
            axis.set_xlabel(r"$\epsilon$ (absolute deviation from the CPU double oracle)")
            axis.grid(True, which="major", alpha=0.3)
            axis.set_xlim(min(eps), max(eps))
        left.set_ylabel(r"$\Delta(\epsilon)$ = fraction with |GPU - CPU| $\geq \epsilon$")
        left.set_ylim(-0.02, 1.02)
        left.legend(fontsize=7, ncol=3, loc="center")
        left.set_title(OPERATORS[group], fontsize=9)
        right.set_ylabel(r"$\Delta(\epsilon)$ (log)")
        right.set_title(OPERATORS[group] + ": tail (dotted verticals: one ulp of 1)", fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = plotting.save_figure(fig, png_path, f"lqcd //gpu:dslash_accuracy, data {csv_path.split('/')[-1]}")
    from PIL import Image  # Pillow comes with matplotlib; a 256-colour palette keeps line plots small

    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)
    return path


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    path = plot(args.csv, args.png, args.title)
    print(f"plot_dslash_accuracy: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
