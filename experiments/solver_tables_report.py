"""Markdown tables and a PNG from the CSV of solver_tables_cc (docs/solver_tables.md).

Input (the run's output directory): solves.csv (one row per solve), masses.csv, run_summary.csv
(key,value), spectroscopy.csv (optional). Output: tables.md and solver_tables.png in the same directory, and
figure7.png (time to solution, the paper's Figure 7) when the run has double BiCGstab and reliable-update
BiCGstab at delta = 0.1.

Averages: iteration counts (and times) are averaged first over the sources of each configuration, then
over configurations; the error is the standard error of the configuration means (sources on one
configuration are not independent samples of the gauge ensemble). Only converged solves enter an average;
a cell shows how many of its solves converged when that is not all of them, and "*" when none did (the
paper's "* = did not converge").

The paper's own numbers (Tables 3, 4, 5 of Clark et al.) are kept here as data so that the report can put
relative numbers side by side: iteration excess of each mixed-precision solver over the double-precision
BiCGstab at the heaviest and the lightest mass.
"""
import collections
import csv
import math
import pathlib
import statistics

from experiments import plotting

# ---- The paper's numbers (24^3 x 64 anisotropic, dynamical, 5 configurations; no errors given) ----
PAPER_MASSES = [-0.3980, -0.4005, -0.4030, -0.4055, -0.4080, -0.4105, -0.4130, -0.4155, -0.4180]
PAPER_TABLE3 = {  # m -> (CG, BiCGstab)
    -0.3980: (1392, 460), -0.4005: (1570, 509), -0.4030: (1794, 570), -0.4055: (2079, 666),
    -0.4080: (2698, 785), -0.4105: (3226, 939), -0.4130: (4055, 1193), -0.4155: (5046, 1545),
    -0.4180: (6734, 2078),
}
# Table 4 columns as we read the (garbled in our text copy) header: half (12-number gauge) at eps_in 1e-1,
# 1e-2; single (8-number) at 1e-3, 1e-4, 1e-5; single (12-number) at 1e-5, 1e-6. None = did not converge.
PAPER_TABLE4_COLUMNS = [("half", 1e-1, "12"), ("half", 1e-2, "12"), ("single", 1e-3, "8"), ("single", 1e-4, "8"),
                        ("single", 1e-5, "8"), ("single", 1e-5, "12"), ("single", 1e-6, "12")]
PAPER_TABLE4 = {
    -0.3980: (489, 572, 446, 470, 486, 479, 498), -0.4005: (543, 632, 477, 541, 563, 535, 561),
    -0.4030: (621, 684, 537, 642, 631, 625, 639), -0.4055: (783, 871, 637, 702, 753, 753, 722),
    -0.4080: (938, 1055, 738, 816, 861, 878, 914), -0.4105: (1152, 1314, 902, 1042, 1066, 1013, 1092),
    -0.4130: (1638, 1870, 1174, 1262, 1454, 1341, 1412), -0.4155: (2161, 2581, 1678, 1699, 1795, 1830, 1966),
    -0.4180: (None, None, 2526, 2523, 2723, 2738, 2986),
}
PAPER_TABLE5_COLUMNS = [("half", 1e-1, "12"), ("half", 1e-2, "12"), ("half", 1e-3, "12"), ("single", 1e-1, "8"),
                        ("single", 1e-2, "8"), ("single", 1e-3, "8"), ("single", 1e-2, "12"), ("single", 1e-3, "12")]
PAPER_TABLE5 = {
    -0.3980: (490, 509, 556, 461, 467, 470, 465, 469), -0.4005: (531, 563, 609, 535, 533, 537, 538, 533),
    -0.4030: (634, 706, 737, 610, 605, 616, 580, 583), -0.4055: (700, 735, 772, 688, 676, 686, 682, 694),
    -0.4080: (856, 856, 973, 795, 809, 821, 796, 807), -0.4105: (1060, 1101, 1273, 950, 958, 1008, 951, 990),
    -0.4130: (1354, 1484, 1570, 1176, 1207, 1268, 1197, 1225),
    -0.4155: (1860, 2249, 2146, 1636, 1595, 1668, 1584, 1595),
    -0.4180: (2793, 3483, 3319, 2147, 2369, 2191, 2256, 2159),
}


def read_summary(path):
    """run_summary.csv as a dict of strings (numbers are converted by the caller)."""
    with open(path, newline="") as f:
        return {row["key"]: row["value"] for row in csv.DictReader(f)}


def variant_key(row):
    """(solver, precision, parameter) of a solves.csv row."""
    return (row["solver"], row["precision"], float(row["parameter"]))


def variant_label(key):
    solver, precision, parameter = key
    if solver == "defect-correction":
        return "DC %s eps_in=%g" % (precision, parameter)
    if solver == "reliable-update":
        return "RU %s delta=%g" % (precision, parameter)
    return {"cg": "CG", "bicgstab": "BiCGstab"}.get(solver, solver)


def aggregate(rows, field="iterations"):
    """Groups rows by (variant, mass_index) and averages `field` over converged solves.

    Returns {(variant_key, mass_index): {"mean", "error", "converged", "total", "configs"}} where the mean is
    over configurations of the per-configuration means over sources, and the error is the standard error of
    those configuration means (0 with a single configuration; None when nothing converged).
    """
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(variant_key(r), int(r["mass_index"]))].append(r)
    out = {}
    for key, members in groups.items():
        per_config = collections.defaultdict(list)
        for r in members:
            if r["status"] == "converged":
                per_config[int(r["config"])].append(float(r[field]))
        config_means = [sum(v) / len(v) for v in per_config.values()]
        n = len(config_means)
        converged = sum(1 for r in members if r["status"] == "converged")
        if n == 0:
            out[key] = {"mean": None, "error": None, "converged": 0, "total": len(members), "configs": 0}
            continue
        mean = sum(config_means) / n
        error = math.sqrt(sum((x - mean) ** 2 for x in config_means) / (n * (n - 1))) if n > 1 else 0.0
        out[key] = {"mean": mean, "error": error, "converged": converged, "total": len(members), "configs": n}
    return out


def format_cell(a, digits=0):
    """'123 +- 4', '* (0/6)' when nothing converged, '123 +- 4 (5/6)' when some failed."""
    if a is None:
        return ""
    if a["mean"] is None:
        return "* (0/%d)" % a["total"]
    fmt = "%%.%df" % digits
    text = fmt % a["mean"]
    if a["configs"] > 1:
        text += " &plusmn; " + fmt % a["error"]
    if a["converged"] < a["total"]:
        text += " (%d/%d)" % (a["converged"], a["total"])
    return text


def ordered_variants(rows, solver):
    """The variants of one solver in the paper's column order: half before single, 8-number links before 12
    before full links, then the parameter from large to small."""
    seen = []
    for r in rows:
        k = variant_key(r)
        if k[0] == solver and k not in seen:
            seen.append(k)
    return sorted(seen, key=lambda k: (precision_of(k) != "half", link_reals_of(k), -k[2]))


def precision_of(key):
    """'half' of ('reliable-update', 'half/12', 0.1): the arithmetic without the link storage."""
    return key[1].split("/")[0]


def link_reals_of(key):
    """12 of ('reliable-update', 'half/12', 0.1); 18 (full links) when the label names none."""
    parts = key[1].split("/")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 18


def mass_columns(masses, m):
    """The leading cells of a table row: m, kappa, f = (m - m_c) / (m_s - m_c)."""
    f = masses[m]["mass_fraction"]
    f_text = "" if isinstance(f, str) or f != f else "%.3g" % f
    return ["%.5f" % masses[m]["mass"], "%.5f" % masses[m]["kappa"], f_text]


def excess(a, base):
    """Percentage by which aggregate a exceeds aggregate base (None if either is missing)."""
    if a is None or base is None or a["mean"] is None or base["mean"] is None:
        return None
    return 100.0 * (a["mean"] / base["mean"] - 1.0)


def paired_excess(rows, key, base_key, mass_index, field="iterations"):
    """Excess (%) of variant `key` over `base_key` at one mass, over the (configuration, source) solves where
    BOTH converged (so a hard configuration on which one of them failed does not bias the ratio).

    Returns (percent, pairs used, pairs in all); percent is None when no pair converged in both.
    """
    def solves(k):
        return {(r["config"], r["source"]): r for r in rows
                if variant_key(r) == k and int(r["mass_index"]) == mass_index}
    a, b = solves(key), solves(base_key)
    both = [p for p in a if p in b and a[p]["status"] == "converged" and b[p]["status"] == "converged"]
    if not both:
        return None, 0, len(a)
    num = sum(float(a[p][field]) for p in both)
    den = sum(float(b[p]["iterations"]) for p in both)
    return 100.0 * (num / den - 1.0), len(both), len(a)


def format_excess(result):
    percent, used, total = result
    if percent is None:
        return "*"
    text = "%+.0f" % percent
    return text if used == total else text + " (%d/%d)" % (used, total)


def tables(rows, masses, summary):
    """The markdown text of all tables."""
    it = aggregate(rows, "iterations")
    updates = aggregate(rows, "updates")
    restarts = aggregate(rows, "restarts")
    seconds = aggregate(rows, "seconds")
    mass_order = sorted(masses, key=lambda m: -masses[m]["mass"])  # heaviest first, as the paper
    head = ["m", "kappa", "f"]
    out = []

    cg, bicg = ("cg", "double", 0.0), ("bicgstab", "double", 0.0)
    out.append("### Table 3 analogue: double-precision CG (normal equations of M_ee) and BiCGstab (M_ee)\n\n")
    body = []
    for m in mass_order:
        a, b = it.get((cg, m)), it.get((bicg, m))
        ratio = "" if a is None or b is None or a["mean"] is None or b["mean"] is None else "%.2f" % (a["mean"] / b["mean"])
        body.append(mass_columns(masses, m) + [format_cell(a), format_cell(b), ratio,
                                               format_cell(seconds.get((cg, m)), 2), format_cell(seconds.get((bicg, m)), 2)])
    out.append(plotting.markdown_table(head + ["CG iterations", "BiCGstab iterations", "CG / BiCGstab",
                                               "CG s", "BiCGstab s"], body))
    out.append("\n")

    for solver, title, extra, extra_name in (
            ("defect-correction", "### Table 4 analogue: defect correction (double outer, BiCGstab inner; iterations include restarts)\n\n",
             restarts, "outer corrections"),
            ("reliable-update", "### Table 5 analogue: reliable-update BiCGstab (iterations k + l)\n\n", updates,
             "reliable updates l")):
        variants = ordered_variants(rows, solver)
        if not variants:
            continue
        out.append(title)
        body = [mass_columns(masses, m) + [format_cell(it.get((bicg, m)))] + [format_cell(it.get((v, m))) for v in variants]
                for m in mass_order]
        out.append(plotting.markdown_table(head + ["BiCGstab double"] + [variant_label(v) for v in variants], body))
        out.append("\nNumber of %s (mean over solves):\n\n" % extra_name)
        body = [mass_columns(masses, m) + [format_cell(extra.get((v, m)), 1) for v in variants] for m in mass_order]
        out.append(plotting.markdown_table(head + [variant_label(v) for v in variants], body))
        out.append("\nIteration excess over double BiCGstab on the same solves (configuration and source; "
                   "a count (k/n) says on how many both converged), %:\n\n")
        body = [mass_columns(masses, m) + [format_excess(paired_excess(rows, v, bicg, m)) for v in variants]
                for m in mass_order]
        out.append(plotting.markdown_table(head + [variant_label(v) for v in variants], body))
        if solver == "reliable-update":
            # k + l counts every update as an iteration; at small iteration counts that alone is a visible
            # share, so also show the Krylov iterations k by themselves.
            out.append("\nExcess of the Krylov iterations k alone (without the l updates) over double BiCGstab, "
                       "same solves, %:\n\n")
            body = [mass_columns(masses, m) +
                    [format_excess(paired_excess(rows, v, bicg, m, "krylov_iterations")) for v in variants]
                    for m in mass_order]
            out.append(plotting.markdown_table(head + [variant_label(v) for v in variants], body))
        out.append("\n")

    out.append("### The paper's excess over its double BiCGstab (Tables 3-5), %\n\n")
    body = []
    for name, columns, table in (("Table 4 DC", PAPER_TABLE4_COLUMNS, PAPER_TABLE4),
                                 ("Table 5 RU", PAPER_TABLE5_COLUMNS, PAPER_TABLE5)):
        for i, (precision, parameter, gauge) in enumerate(columns):
            cells = [name, "%s %s, %s=%g" % (precision, gauge, "eps_in" if "DC" in name else "delta", parameter)]
            for m in (PAPER_MASSES[0], PAPER_MASSES[4], PAPER_MASSES[-2], PAPER_MASSES[-1]):
                value = table[m][i]
                cells.append("*" if value is None else "%+.0f" % (100.0 * (value / PAPER_TABLE3[m][1] - 1.0)))
            body.append(cells)
    out.append(plotting.markdown_table(["table", "column", "m = -0.3980 (m_s)", "m = -0.4080", "m = -0.4155",
                                        "m = -0.4180 (m_c)"], body))
    out.append("\n")
    out.append(paper_cell_comparison(rows, masses))
    out.append(figure7_table(rows, masses))
    ratios = ["%.2f" % (PAPER_TABLE3[m][0] / PAPER_TABLE3[m][1]) for m in PAPER_MASSES]
    out.append("\nPaper CG / BiCGstab from m = -0.3980 to -0.4180: %s; BiCGstab lightest / heaviest = %.2f.\n"
               % (", ".join(ratios), PAPER_TABLE3[-0.4180][1] / PAPER_TABLE3[-0.3980][1]))
    return "".join(out)


def figure7_variants(rows):
    """The paper's Figure 7 solvers present in rows: double BiCGstab and reliable-update BiCGstab at delta = 0.1
    with half (12-number links where the run has them) and single (8-number links where it has them)
    inner precision. Returns [(variant_key, label)], the double baseline first; [] without the baseline."""
    present = {variant_key(r) for r in rows}
    base = ("bicgstab", "double", 0.0)
    if base not in present:
        return []
    out = [(base, "BiCGstab double")]
    for candidates in (("half/12", "half"), ("single/8", "single")):
        for precision in candidates:
            key = ("reliable-update", precision, 0.1)
            if key in present:
                out.append((key, "reliable %s, delta = 0.1" % precision))
                break
    return out if len(out) > 1 else []


def median(values):
    """statistics.median, or None for no values."""
    return statistics.median(values) if values else None


def figure7_data(rows, masses):
    """Per mass (heaviest first): the median over configurations of each Figure 7 solver's time to solution
    (seconds of the solve, sources averaged per configuration; converged solves only) and of its speed-up
    over double BiCGstab on the same configurations (both converged). Medians, not means: the first solve of
    each kernel in a process includes its launch-parameter tuning, and one hard configuration can dominate
    a mean near m_c. Returns (variants, [(mass_index, {key: (median seconds, configurations)},
    {key: (median speed-up, configurations)})])."""
    variants = figure7_variants(rows)
    if not variants:
        return [], []
    keys = [k for k, _ in variants]
    per = collections.defaultdict(lambda: collections.defaultdict(list))  # (key, mass) -> config -> seconds
    for r in rows:
        key = variant_key(r)
        if r["status"] == "converged" and key in keys:
            per[(key, int(r["mass_index"]))][int(r["config"])].append(float(r["seconds"]))
    data = []
    for m in sorted(masses, key=lambda m: -masses[m]["mass"]):
        # Per configuration: the mean over its sources.
        seconds = {key: {c: sum(v) / len(v) for c, v in per[(key, m)].items()} for key in keys}
        base_t = seconds[keys[0]]
        times, speedups = {}, {}
        for key in keys:
            t = seconds[key]
            times[key] = (median(list(t.values())), len(t))
            ratios = [base_t[c] / t[c] for c in t if c in base_t and t[c] > 0]
            speedups[key] = (median(ratios), len(ratios))
        data.append((m, times, speedups))
    return variants, data


def figure7_table(rows, masses):
    """Markdown: the Figure 7 analogue as a table (empty string when the run lacks its solvers)."""
    variants, data = figure7_data(rows, masses)
    if not variants:
        return ""
    head = ["m", "kappa", "f"] + ["%s s" % label for _, label in variants] + [
        "speed-up %s" % label for _, label in variants[1:]]
    body = []
    for m, times, speedups in data:
        cells = mass_columns(masses, m)
        for key, _ in variants:
            t, _ = times[key]
            cells.append("*" if t is None else "%.3f" % t)
        for key, _ in variants[1:]:
            x, n = speedups[key]
            cells.append("*" if x is None else "%.2f" % x)
        body.append(cells)
    return ("### Figure 7 analogue: time to solution and speed-up over double BiCGstab\n\n"
            "Median over configurations of the solve's own time (upload of the source and download of the solution "
            "excluded) and of the per-configuration speed-up (configurations where both converged). The paper: "
            "Single 8 an almost constant 3x, Half 12 from 4x at m_s to 3.5x at m_c.\n\n"
            + plotting.markdown_table(head, body) + "\n")


def device_name(summary):
    """'NVIDIA H200' from run_summary's 'device 0: NVIDIA H200, sm_90, ...'; the backend when no device."""
    device = summary.get("device", "")
    if ":" in device:
        return device.split(":", 1)[1].split(",")[0].strip()
    return summary.get("backend", "?")


def plot_figure7(rows, masses, summary, path):
    """The paper's Figure 7: time to solution against m (log y) and the speed-up over double BiCGstab."""
    variants, data = figure7_data(rows, masses)
    if not variants:
        return None
    fig, (left, right) = plotting.plt.subplots(1, 2, figsize=(10, 3.9))
    styles = ["o-", "o-", "^-"]
    colors = ["k", "#b2182b", "#2166ac"]
    for i, (key, label) in enumerate(variants):
        pts = [(masses[m]["mass"], times[key][0]) for m, times, _ in data if times[key][0] is not None]
        if pts:
            left.plot(*zip(*pts), styles[i], color=colors[i], label=label, ms=4, lw=1.2)
        if i > 0:
            pts = [(masses[m]["mass"], sp[key][0]) for m, _, sp in data if sp[key][0] is not None]
            if pts:
                right.plot(*zip(*pts), styles[i], color=colors[i], label=label, ms=4, lw=1.2)
    right.axhspan(3.5, 4.0, color="#f4a582", alpha=0.35, label="paper: Half 12 (3.5-4x)")
    right.axhline(3.0, color="#4393c3", lw=1, ls="--", label="paper: Single 8 (~3x)")
    for ax in (left, right):
        if summary.get("critical_mass"):
            ax.axvline(float(summary["critical_mass"]), color="0.5", lw=0.8, zorder=0)
        ax.set_xlabel("bare mass m  (grey line: m_c)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    left.set_yscale("log")
    left.set_ylabel("time to solution (s, median over configurations)")
    left.set_title("(a) time to |r|/|b| < %s" % summary.get("tolerance", "1e-12"), fontsize=10)
    right.set_ylabel("speed-up over double BiCGstab")
    right.set_ylim(bottom=0)
    right.set_title("(b) speed-up (median over configurations)", fontsize=10)
    fig.suptitle("Figure 7 analogue: quenched %s, beta = %s, on %s" % (
        summary.get("lattice", "?"), summary.get("beta", "?"), device_name(summary)), fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return plotting.save_figure(fig, path, "experiments/solver_tables: solves.csv")


def paper_cell_comparison(rows, masses):
    """Markdown: our iteration excess over double BiCGstab next to the paper's, cell by cell, when the run
    has the paper's nine masses (f = 1, 7/8, ..., 0 against m = -0.3980 ... -0.4180, both from the strange
    to the critical mass in equal steps). Empty otherwise."""
    order = sorted(masses, key=lambda m: -masses[m]["mass"])
    fractions = [masses[m]["mass_fraction"] for m in order]
    if len(order) != 9 or any(isinstance(f, str) or not abs(f - (8 - i) / 8) <= 1e-6 for i, f in enumerate(fractions)):
        return ""
    present = {variant_key(r) for r in rows}
    bicg = ("bicgstab", "double", 0.0)
    out = ["### Cell by cell against the paper\n\n"
           "Each cell: our iteration excess over double BiCGstab (same solves) / the paper's (its Table 4 or 5 "
           "against its Table 3), %; mass i of ours (f = 1 ... 0) against the paper's i-th mass (-0.3980 ... "
           "-0.4180).\n\n"]
    body = []
    it = aggregate(rows, "iterations")
    cg_row = ["Table 3", "CG / BiCGstab"]
    for i, m in enumerate(order):
        a, b = it.get((("cg", "double", 0.0), m)), it.get((bicg, m))
        ours = "" if a is None or b is None or a["mean"] is None or b["mean"] is None else "%.2f" % (a["mean"] / b["mean"])
        paper = PAPER_TABLE3[PAPER_MASSES[i]]
        cg_row.append("%s / %.2f" % (ours or "*", paper[0] / paper[1]))
    body.append(cg_row)
    for name, solver, columns, table in (("Table 4", "defect-correction", PAPER_TABLE4_COLUMNS, PAPER_TABLE4),
                                         ("Table 5", "reliable-update", PAPER_TABLE5_COLUMNS, PAPER_TABLE5)):
        for j, (precision, parameter, gauge) in enumerate(columns):
            key = (solver, "%s/%s" % (precision, gauge), parameter)
            if key not in present:
                continue
            cells = [name, variant_label(key)]
            for i, m in enumerate(order):
                value = table[PAPER_MASSES[i]][j]
                paper = "*" if value is None else "%+.0f" % (100.0 * (value / PAPER_TABLE3[PAPER_MASSES[i]][1] - 1.0))
                cells.append("%s / %s" % (format_excess(paired_excess(rows, key, bicg, m)), paper))
            body.append(cells)
    if len(body) == 1 and not any(k[0] != "cg" and k[0] != "bicgstab" for k in present):
        return ""
    out.append(plotting.markdown_table(["table", "column"] + ["f = %g" % f for f in fractions], body))
    return "".join(out) + "\n"


def critical_mass_section(summary):
    """Markdown lines describing the critical-mass determination (empty if masses were given explicitly)."""
    if summary.get("critical_mass_measured", "0") != "1":
        if "critical_mass" in summary:
            return "m_c = %s and m_s = %s were given on the command line.\n" % (summary["critical_mass"], summary["strange_mass"])
        return "The masses were given explicitly (--masses); no critical mass was determined.\n"
    g = lambda k: float(summary[k])
    lines = [
        "- m_c (pion, m_pi^2 linear in m) = %.4f &plusmn; %.4f (jackknife)" % (g("pion_critical_mass"), g("pion_critical_mass_jackknife")),
        "- m_c (PCAC mass zero) = %.4f &plusmn; %.4f (jackknife)" % (g("pcac_critical_mass"), g("pcac_critical_mass_jackknife")),
        "- fit range: the PCAC zero from the two lightest masses alone differs by %.4f" % g("fit_range_error"),
        "- quoted (the PCAC zero): m_c = %.4f &plusmn; %.4f (jackknife, pion-PCAC difference and fit range in "
        "quadrature), kappa_c = %.5f" % (g("critical_mass"), g("critical_mass_error"), g("kappa_c")),
        "- slope B = %.3f &plusmn; %.3f; m_pi = a m_{s sbar} = %.4f on the pion line gives m_s = %.4f (m_s - m_c = %.4f)"
        % (g("pion_slope"), g("pion_slope_jackknife"), g("strange_pion_mass"), g("strange_mass"),
           g("strange_mass") - g("critical_mass")),
    ]
    masses = summary["spectroscopy_masses"].split()
    mpi = summary["spectroscopy_pion_masses"].split()
    mpi_err = summary["spectroscopy_pion_mass_errors"].split()
    pcac = summary["spectroscopy_pcac_masses"].split()
    pcac_err = summary["spectroscopy_pcac_mass_errors"].split()
    body = [["%.5f" % float(m), "%.5f" % (1 / (2 * (4 + float(m)))), "%.4f &plusmn; %.4f" % (float(a), float(b)),
             "%.4f &plusmn; %.4f" % (float(c), float(d))] for m, a, b, c, d in zip(masses, mpi, mpi_err, pcac, pcac_err)]
    return "\n".join(lines) + "\n\nSpectroscopy masses (plateau t = %s..%s):\n\n" % (
        summary["plateau_first"], summary["plateau_last"]) + plotting.markdown_table(
        ["m", "kappa", "a m_pi", "a m_PCAC"], body)


def plot(rows, masses, summary, path):
    """Iterations versus m, one panel per table; log y; the critical mass as a vertical band."""
    it = aggregate(rows, "iterations")
    fig, axes = plotting.plt.subplots(1, 3, figsize=(11.5, 3.9), sharey=True)  # PNG < 200 KB for docs/
    order = sorted(masses, key=lambda m: masses[m]["mass"])
    x_of = {m: masses[m]["mass"] for m in order}
    bicg = ("bicgstab", "double", 0.0)

    failed_marks = []

    def line(ax, key, style, color, label):
        xs, ys, es = [], [], []
        for m in order:
            a = it.get((key, m))
            if a is None:
                continue
            if a["mean"] is None:  # nothing converged: marked with an x at the top of the panel
                failed_marks.append((ax, x_of[m], color))
                continue
            xs.append(x_of[m])
            ys.append(a["mean"])
            es.append(a["error"])
        if xs:
            ax.errorbar(xs, ys, yerr=es, fmt=style, color=color, label=label, capsize=2, ms=4, lw=1.2)

    half_colors = ["#67001f", "#d6604d", "#f4a582"]
    single_colors = ["#053061", "#2166ac", "#4393c3", "#1b7837", "#5aae61", "#a6dba0"]  # 8-real links first
    panels = [("(a) Table 3: double precision", [(("cg", "double", 0.0), "s-", "0.2", "CG (normal equations)")]),
              ("(b) Table 4: defect correction", []), ("(c) Table 5: reliable updates", [])]
    for i, solver in ((1, "defect-correction"), (2, "reliable-update")):
        h = s = 0
        for v in ordered_variants(rows, solver):
            if precision_of(v) == "half":
                color, h = half_colors[h % len(half_colors)], h + 1
            else:
                color, s = single_colors[s % len(single_colors)], s + 1
            panels[i][1].append((v, "o-" if precision_of(v) == "half" else "^-", color, variant_label(v)))
    for index, (ax, (title, lines)) in enumerate(zip(axes, panels)):
        # Panel (a) shows BiCGstab as one of its two solvers; (b) and (c) show it as the dashed baseline.
        line(ax, bicg, "o-" if index == 0 else "--", "k", "BiCGstab double")
        for key, style, color, label in lines:
            line(ax, key, style, color, label)
        if summary.get("critical_mass"):
            mc = float(summary["critical_mass"])
            err = float(summary.get("critical_mass_error") or 0)
            ax.axvspan(mc - err, mc + err, color="0.88", zorder=0)
            ax.axvline(mc, color="0.5", lw=0.8, zorder=0)
        xs = [x_of[m] for m in order]
        pad = 0.1 * (max(xs) - min(xs)) if len(xs) > 1 else 0.01
        ax.set_xlim(min(xs) - pad, max(xs) + pad)  # the m_c band may be wider than the masses
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("bare mass m  (grey: m_c +- error)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    for ax, x, color in failed_marks:
        ax.plot([x], [ax.get_ylim()[1]], "x", color=color, ms=9, mew=2, clip_on=False)
    axes[0].set_ylabel("iterations to |r|/|b| < %s" % summary.get("tolerance", "1e-12"))
    fig.suptitle("Solver iterations on quenched %s, beta = %s (%s configurations x %s sources)" % (
        summary.get("lattice", "?"), summary.get("beta", "?"), summary.get("configurations", "?"),
        summary.get("sources_per_configuration", "?")), fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))  # leave the bottom strip to the source note
    return plotting.save_figure(fig, path, "experiments/solver_tables: solves.csv")


def load_masses(path):
    return {int(r["mass_index"]): r for r in plotting.read_csv(path)}


def report(out_dir):
    """Writes tables.md and solver_tables.png into out_dir; returns their paths."""
    out_dir = pathlib.Path(out_dir)
    rows = plotting.read_csv(out_dir / "solves.csv")
    if not rows:
        raise ValueError("%s has no solves" % (out_dir / "solves.csv"))
    masses = load_masses(out_dir / "masses.csv")
    summary = read_summary(out_dir / "run_summary.csv")
    failed = [r for r in rows if r["status"] != "converged"]
    text = ["# Solver iterations on quenched configurations (the paper's Tables 3-5)\n\n",
            "Lattice %s, beta = %s, %s configurations (sweeps %s) x %s Gaussian sources; eps = %s on |b - M x| / |b| "
            "of the full system; solvers on the even-odd M_ee; f = (m - m_c) / (m_s - m_c).\n\n" % (
                summary["lattice"], summary["beta"], summary["configurations"], summary["config_sweeps"],
                summary["sources_per_configuration"], summary["tolerance"]),
            "## Critical mass\n\n", critical_mass_section(summary), "\n## Tables\n\n",
            tables(rows, masses, summary),
            "\n## Run\n\n%d solves, %d did not converge; %.0f s inside the solvers (summed over solves.csv). The last "
            "invocation (all of the run unless it resumed an interrupted one): solves %.0f s, total %.0f s on %s "
            "threads (%s; %s); load average at the end %s.\n" % (
                len(rows), len(failed), sum(float(r["seconds"]) for r in rows), float(summary["solve_seconds"]),
                float(summary["total_seconds"]), summary["threads"], summary["machine"],
                summary.get("backend", "?") + (", " + device_name(summary) if summary.get("device") else ""),
                summary.get("load_average_end", "?"))]
    if failed:
        text.append("\nSolves that did not converge:\n\n")
        text.append(plotting.markdown_table(
            ["config", "source", "m", "solver", "status", "iterations", "true residual"],
            [["%d" % r["config"], "%d" % r["source"], "%.5f" % r["mass"], variant_label(variant_key(r)), r["status"],
              "%d" % r["iterations"], "%.2e" % r["true_residual"]] for r in failed]))
    md = out_dir / "tables.md"
    md.write_text("".join(text))
    png = plot(rows, masses, summary, out_dir / "solver_tables.png")
    plot_figure7(rows, masses, summary, out_dir / "figure7.png")
    return md, png


if __name__ == "__main__":
    # python3 -m experiments.solver_tables_report OUT: the report of a run made elsewhere (e.g. by the GPU
    # bundle's run_solver_tables.sh on a machine without matplotlib).
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m experiments.solver_tables_report OUT  (the directory of a solver_tables run)")
    for written in report(sys.argv[1]):
        print("wrote %s" % written)
