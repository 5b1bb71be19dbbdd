"""`bazel run //experiments:solver_tables -- --out=DIR [options]`: the paper's Tables 3-5 on quenched
configurations (docs/solver_tables.md).

Runs the C++ computation (solver_tables_cc, which writes the CSV files; every option is passed on to it,
`--help` lists them) and then the report (experiments/solver_tables_report.py: tables.md and
solver_tables.png in DIR). A relative DIR is taken from the directory `bazel run` was started in.
"""
import os
import subprocess
import sys
import time

from experiments import solver_tables_report


def computation_binary():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "solver_tables_cc")]
    if "RUNFILES_DIR" in os.environ:
        candidates.append(os.path.join(os.environ["RUNFILES_DIR"], "lqcd", "experiments", "solver_tables_cc"))
    for c in candidates:
        if os.path.exists(c):
            return c
    raise FileNotFoundError("solver_tables_cc not found next to %s (run through bazel)" % __file__)


def main(argv):
    start = time.time()
    user_dir = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    args, out = [], None
    for a in argv:
        if a.startswith("--out="):
            out = os.path.join(user_dir, a[len("--out="):])  # an absolute path stays as it is
            a = "--out=" + out
        args.append(a)
    rc = subprocess.call([computation_binary()] + args)
    if rc != 0 or out is None or "--help" in argv or "-h" in argv:
        return rc
    md, png = solver_tables_report.report(out)
    print("solver_tables: wrote %s and %s; %.0f s in all (computation and report)" % (md, png, time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
