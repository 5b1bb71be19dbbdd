"""Shared helpers for the experiment targets: read the CSV a C++ experiment wrote, and save PNG plots.

Every experiment writes its numbers as CSV first (the source of truth); plots and markdown tables are
made from the CSV, so a figure can be regenerated without rerunning the physics.
"""
import argparse
import csv
import os
import pathlib

import matplotlib

matplotlib.use("Agg")  # headless: no display on the build machines
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)


def read_csv(path):
    """Rows of a CSV file as dicts; numeric fields converted to float where they parse."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            converted = {}
            for key, value in row.items():
                try:
                    converted[key] = float(value)
                except (TypeError, ValueError):
                    converted[key] = value
            rows.append(converted)
    return rows


def read_csv_with_columns(path, columns, what):
    """read_csv, and ValueError unless there is at least one row and every name in `columns` is a column
    (`what` names the expected file in the message, e.g. "a pion_correlator.csv")."""
    rows = read_csv(path)
    if not rows:
        raise ValueError(f"{path}: no rows")
    for name in columns:
        if name not in rows[0]:
            raise ValueError(f"{path}: no column '{name}' (is this {what}?)")
    return rows


def save_figure(fig, path, source_note):
    """Saves `fig` as a PNG with a small footer naming where the data came from."""
    fig.text(0.01, 0.005, source_note, fontsize=6, color="0.4", ha="left", va="bottom")
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return path


def markdown_table(header, rows):
    """A GitHub-flavoured markdown table from a header list and rows of cells."""
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_markdown(text, path):
    """The markdown `text` to `path` (a user path, see user_path), or to stdout when `path` is empty."""
    if path:
        pathlib.Path(user_path(path)).write_text(text)
    else:
        print(text)


def user_path(path):
    """Relative paths are relative to where `bazel run` was started (it runs the program in the runfiles)."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY")
    return path if os.path.isabs(path) or not base else os.path.join(base, path)


def csv_to_png_main(argv, plot, name, description):
    """The command line of a plot made from one CSV file: `name CSV PNG [--title T]` calls plot(csv, png, title)
    with user paths and prints where the figure went."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("csv")
    parser.add_argument("png")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    path = plot(user_path(args.csv), user_path(args.png), args.title)
    print(f"{name}: wrote {path}")
    return 0
