#!/usr/bin/env python3
"""Strong and weak scaling of the partitioned Wilson Dslash over the GPUs of one node, with the model's prediction.

Runs multi_gpu_check --benchmark (gpu/multi_gpu_check.cc) under mpirun, one rank per GPU, for each configuration
below, collects its CSV lines and writes scaling.csv and scaling.md (the tables of docs/multi_gpu.md):

  strong  the global lattice fixed (32x32x32x64 in every precision; 64x64x64x128 in single), 1, 2 and 4 GPUs,
          grids T only and Z x T, both halo transports (device: CUDA IPC peer copies; host: staged through pinned
          host memory and MPI);
  weak    32^4 per GPU: 32^4 on 1 GPU, 32^3x64 on 2 (grid 1x1x1x2), 32x32x64x64 on 4 (1x1x2x2) and 32^3x128 on 4
          (1x1x1x4), device transport.

Per configuration: the slowest rank's time per Dslash call and per M_ee application, GFLOPS per GPU (1320 flops
per output site for the Dslash, 2 x 1320 + 48 for M_ee, V/2 output sites), the efficiency against the plain
kernels on one GPU (strong: T_1 / (P T_P); weak: T_1 / T_P), the partitioned call against the unpartitioned kernel on the same local lattice
(what the exchange and the exterior launch cost), and the model's predicted Dslash efficiency
(tools/multi_gpu_model.py; NVLink or PCIe host staging). The device-transport runs also time a whole solve
(SOLVER at SOLVE_KAPPA to SOLVE_TOLERANCE on the same global random links: the single-GPU production operators on
one GPU, the partitioned ones with global sums on several): iterations, the slowest rank's seconds, Gflop/s per
GPU and the efficiency. And where one partitioned call's time goes (the csv_timeline lines: interior done, packs
done, the host's wait and exchange, ghosts ready, exterior done, medians from the call's start), the slowest rank
per configuration (scaling_timeline.csv). Measures and prints; asserts nothing.

  python3 multi_gpu_scaling.py --binary=programs/multi_gpu_check --out=DIR [--gpus=4] [--repetitions=30]
      [--part=strong32|strong64|weak|all]
  python3 multi_gpu_scaling.py --from-csv DIR/scaling_weak.csv DIR/scaling_solve_weak.csv \
      DIR/scaling_timeline_weak.csv                                                   # tables from saved runs
"""
import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multi_gpu_model as model  # noqa: E402

RUN_TIMEOUT_S = 300
SOLVER = "bicgstab-reliable:half/12:0.1"
# Haar-random links: the hopping term's rightmost eigenvalue is about 3.98 (measured on 6^4), so kappa_c is
# about 0.251; at 0.235 the gap 1 - 0.235 x 3.98 = 0.065 makes a solve of a few hundred matrix-vector products.
SOLVE_KAPPA = 0.235
SOLVE_TOLERANCE = 1e-10
SOLVE_REPETITIONS = {"32x32x32x64": 3, "64x64x64x128": 1}  # timed solves after the tuning solve (default 3)


def grid_tuple(text):
    return tuple(int(v) for v in text.split("x"))


def configurations(gpus, part):
    """(part, precisions, lattice, grid, transport, solve) for every run; solve: time SOLVER too."""
    runs = []
    if part in ("strong32", "all"):
        for grid in ["1x1x1x1", "1x1x1x2", "1x1x1x4", "1x1x2x2"]:
            ranks = model.math.prod(grid_tuple(grid))
            if ranks > gpus:
                continue
            for transport in (["device"] if ranks == 1 else ["device", "host"]):
                runs.append(("strong", "double,single,half", "32x32x32x64", grid, transport, transport == "device"))
    if part in ("strong64", "all"):
        for grid in ["1x1x1x1", "1x1x1x2", "1x1x1x4", "1x1x2x2"]:
            if model.math.prod(grid_tuple(grid)) <= gpus:
                runs.append(("strong", "single", "64x64x64x128", grid, "device", True))
    if part in ("weak", "all"):
        for lattice, grid in [("32x32x32x32", "1x1x1x1"), ("32x32x32x64", "1x1x1x2"), ("32x32x64x64", "1x1x2x2"),
                              ("32x32x32x128", "1x1x1x4")]:
            if model.math.prod(grid_tuple(grid)) <= gpus:
                runs.append(("weak", "single,half", lattice, grid, "device", True))
    return runs


def run(binary, ranks, precisions, lattice, grid, transport, solve, repetitions, log):
    """The operator rows, the solve rows and the call timelines (csv, csv_solve and csv_timeline lines) of one
    mpirun."""
    # --bind-to none: with one or two ranks Open MPI binds each to a single core, and the host work of a run
    # (filling a 64^3 x 128 random gauge field, the uploads) then takes minutes on that core.
    command = ["mpirun", "--bind-to", "none", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += [binary, "--benchmark", "--grid=" + grid, "--lattice=" + lattice, "--transport=" + transport,
                "--precisions=" + precisions, "--reconstruct=12", "--repetitions=%d" % repetitions]
    if solve:
        command += ["--solver=" + SOLVER, "--kappa=%g" % SOLVE_KAPPA, "--tolerance=%g" % SOLVE_TOLERANCE,
                    "--solve-repetitions=%d" % SOLVE_REPETITIONS.get(lattice, 3)]
    log.write("$ " + " ".join(command) + "\n")
    log.flush()
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        log.write("timed out after %d s\n%s\n" % (RUN_TIMEOUT_S, e.output or ""))
        return [], [], []
    log.write(done.stdout)
    if done.returncode != 0:
        log.write("exit status %d\n" % done.returncode)
        return [], [], []
    return (parse_csv(done.stdout, "csv,"), parse_csv(done.stdout, "csv_solve,"),
            parse_csv(done.stdout, "csv_timeline,"))


def parse_csv(text, prefix):
    """The rows of the lines starting with prefix, the first of them the header (a repeated header is skipped:
    older multi_gpu_check builds printed the timeline header once per precision)."""
    rows = []
    header = None
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        fields = line[len(prefix):].split(",")
        if header is None:
            header = fields
            continue
        if fields == header:
            continue
        rows.append(dict(zip(header, fields)))
    return rows


def summarise(rows):
    """One entry per (part, precision, lattice, grid, transport): the slowest rank and the mean rates."""
    groups = {}
    for r in rows:
        key = (r["part"], r["precision"], r["lattice"], r["grid"], r["transport"])
        groups.setdefault(key, []).append(r)
    out = {}
    for key, rs in groups.items():
        out[key] = {
            "ranks": len(rs),
            "local": rs[0]["local"],
            "ms": max(float(r["partitioned_ms"]) for r in rs),
            "plain_ms": max(float(r["unpartitioned_ms"]) for r in rs),
            "gflops_per_gpu": sum(float(r["partitioned_gflops"]) for r in rs) / len(rs),
            "face_mb": float(rs[0]["face_bytes"]) / 1e6,
        }
        if rs[0].get("mee_ms"):
            out[key]["mee_ms"] = max(float(r["mee_ms"]) for r in rs)
            out[key]["mee_plain_ms"] = max(float(r["mee_unpartitioned_ms"]) for r in rs)
            out[key]["mee_gflops_per_gpu"] = sum(float(r["mee_gflops"]) for r in rs) / len(rs)
    return out


def predicted_us(lattice, grid, precision, transport):
    extents = grid_tuple(lattice)
    g = grid_tuple(grid)
    link = "nvlink" if transport == "device" else "pcie-staged"
    return model.predict(extents, g, precision, link)[2]


def efficiency(part, ranks, base_ms, ms):
    """Strong: T_1 / (P T_P); weak: T_1 / T_P."""
    if base_ms is None:
        return float("nan")
    return base_ms / (ranks * ms) if part == "strong" else base_ms / ms


def base_key(part, precision, lattice):
    return (part, precision, lattice if part == "strong" else "32x32x32x32", "1x1x1x1", "device")


TIMELINE_POINTS = ("interior_done_us", "packs_done_us", "host_waiting_us", "host_exchange_us", "ghosts_ready_us",
                   "exterior_done_us")


def slowest_timelines(timelines):
    """Per (transport, precision, grid, local): the timeline of the rank whose exterior ends last (the call's end)."""
    out = {}
    for t in timelines:
        key = (t["transport"], t["precision"], t["grid"], t["local"])
        if key not in out or float(t["exterior_done_us"]) > float(out[key]["exterior_done_us"]):
            out[key] = t
    return out


def write_markdown(summary, path, solves=(), timelines=()):
    lines = []
    for part in ("strong", "weak"):
        # by precision, lattice (strong scaling), GPU count, grid, transport (device first)
        entries = sorted(((k, v) for k, v in summary.items() if k[0] == part),
                         key=lambda kv: (kv[0][1], kv[0][2] if part == "strong" else "", kv[1]["ranks"], kv[0][3],
                                         kv[0][4] != "device"))
        if not entries:
            continue
        title = ("Strong scaling (global lattice fixed)" if part == "strong" else "Weak scaling (32^4 per GPU)")
        lines += ["### " + title, "",
                  "| precision | lattice | GPUs | grid | local | transport | us per call | GFLOPS per GPU | "
                  "efficiency | model | vs unpartitioned | face MB | M_ee us | M_ee GFLOPS per GPU | M_ee efficiency |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for (p, precision, lattice, grid, transport), v in entries:
            # against the plain kernels on one GPU (on one rank the partitioned call has nothing to exchange)
            base = summary.get(base_key(part, precision, lattice))
            eff = efficiency(part, v["ranks"], base["plain_ms"] if base else None, v["ms"])
            if part == "strong":
                pred = predicted_us(lattice, "1x1x1x1", precision, transport) / (
                    v["ranks"] * predicted_us(lattice, grid, precision, transport))
            else:
                pred = predicted_us("32x32x32x32", "1x1x1x1", precision, transport) / predicted_us(
                    lattice, grid, precision, transport)
            if "mee_ms" in v:
                mee_eff = efficiency(part, v["ranks"], base.get("mee_plain_ms") if base else None, v["mee_ms"])
                mee = "%.1f | %.0f | %.0f%%" % (1e3 * v["mee_ms"], v["mee_gflops_per_gpu"], 100 * mee_eff)
            else:
                mee = "- | - | -"
            lines.append("| %s/12 | %s | %d | %s | %s | %s | %.1f | %.0f | %.0f%% | %.0f%% | %.0f%% | %.2f | %s |" % (
                precision, lattice, v["ranks"], grid, v["local"], transport, 1e3 * v["ms"], v["gflops_per_gpu"],
                100 * eff, 100 * pred, 100 * v["plain_ms"] / v["ms"], v["face_mb"], mee))
        lines.append("")
    if solves:
        lines += ["### Solves (%s, kappa %s, tolerance %s, one global random gauge field per lattice)" % (
                      solves[0]["solver"], solves[0]["kappa"], solves[0]["tolerance"]), "",
                  "| part | lattice | GPUs | grid | local | global sums | status | iterations | updates | seconds | "
                  "Gflop/s per GPU | efficiency |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        ordered = sorted(solves, key=lambda r: (r["part"], r["lattice"] if r["part"] == "strong" else "",
                                                int(r["ranks"]), r["grid"]))
        for r in ordered:
            ranks = int(r["ranks"])
            base = [b for b in solves if b["part"] == r["part"] and b["grid"] == "1x1x1x1" and
                    (r["part"] == "weak" or b["lattice"] == r["lattice"])]
            eff = efficiency(r["part"], ranks, float(base[0]["seconds"]) if base else None, float(r["seconds"]))
            # global sums: "device" or "host"; rows of runs before the column existed summed through the host
            sums = r.get("global_sums") or ("host" if ranks > 1 else "none")
            lines.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %.3f | %.0f | %.0f%% |" % (
                r["part"], r["lattice"], ranks, r["grid"], r["local"], sums, r["status"], r["iterations"], r["updates"],
                float(r["seconds"]), float(r["gflops_per_gpu"]), 100 * eff))
        lines.append("")
    if timelines:
        lines += ["### Where one partitioned call's time goes (the slowest rank; medians, us from the call's start)",
                  "",
                  "| transport | precision | grid | local | rank | interior done | packs done | host waiting | "
                  "host exchange | ghosts ready | exterior done |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        slowest = slowest_timelines(timelines)

        def order(key):  # device transport first, then precision, GPU count, grid
            return key[0] != "device", key[1], model.math.prod(grid_tuple(key[2])), key[2]

        for key in sorted(slowest, key=order):
            t = slowest[key]
            lines.append("| %s | %s/12 | %s | %s | %s | %s |" % (
                t["transport"], t["precision"], t["grid"], t["local"], t["rank"],
                " | ".join("%.1f" % float(t[p]) for p in TIMELINE_POINTS)))
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary")
    parser.add_argument("--out")
    parser.add_argument("--from-csv", nargs="*", default=[],
                        help="print the tables of saved scaling CSV files (scaling_*, scaling_solve_*, "
                             "scaling_timeline_*)")
    parser.add_argument("--gpus", type=int, default=4)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--part", default="all", choices=["strong32", "strong64", "weak", "all"])
    args = parser.parse_args()
    if args.from_csv:
        rows, solves, timelines = [], [], []
        for path in args.from_csv:
            with open(path) as f:
                got = list(csv.DictReader(f))
            name = os.path.basename(path)
            (solves if "solve" in name else timelines if "timeline" in name else rows).extend(got)
        print(write_markdown(summarise(rows), os.devnull, solves, timelines))
        return 0
    if not args.binary or not args.out:
        parser.error("--binary and --out are needed to run (or --from-csv to tabulate)")
    os.makedirs(args.out, exist_ok=True)
    rows, solves, timelines = [], [], []
    with open(os.path.join(args.out, "scaling_%s.log" % args.part), "w") as log:
        for part, precisions, lattice, grid, transport, solve in configurations(args.gpus, args.part):
            ranks = model.math.prod(grid_tuple(grid))
            got, got_solves, got_timelines = run(args.binary, ranks, precisions, lattice, grid, transport, solve,
                                                 args.repetitions, log)
            for r in got + got_solves + got_timelines:
                r["part"] = part
            rows += got
            solves += got_solves
            timelines += got_timelines
            print("%s %s %s %s: %d rows, %d solves" % (part, lattice, grid, transport, len(got), len(got_solves)),
                  flush=True)
    if not rows:
        print("multi_gpu_scaling: no measurements", file=sys.stderr)
        return 1
    for name, table in (("scaling_%s.csv", rows), ("scaling_solve_%s.csv", solves),
                        ("scaling_timeline_%s.csv", timelines)):
        if not table:
            continue
        fields = ["part"] + [k for k in table[0] if k != "part"]
        with open(os.path.join(args.out, name % args.part), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(table)
    print(write_markdown(summarise(rows), os.path.join(args.out, "scaling_%s.md" % args.part), solves, timelines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
