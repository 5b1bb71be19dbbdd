"""Runs one notebook top to bottom with nbconvert on the python3 kernel (/usr/bin/python3, Debian's
jupyter-nbconvert and python3-ipykernel) and fails if any cell fails; the notebooks check their own outputs
with asserts. Used by the Bazel tests in experiments/python/BUILD:

    run_notebook.py PATH/TO/lqcd.so PATH/TO/notebook.ipynb
    run_notebook.py --plain [--out=DIR] PATH/TO/lqcd.so PATH/TO/notebook.ipynb

--plain runs the code cells in this interpreter instead, one namespace for the notebook as a kernel would
keep, without Jupyter (the GPU machine's carried Python has none: tools/python_bundle.sh): IPython magics
(`%...` lines) are dropped, matplotlib draws with Agg, and every figure a cell leaves open is saved to DIR
as NOTEBOOK.cellN.figK.png. A failing cell stops the run with its traceback.

The directory of lqcd.so goes first on the kernel's PYTHONPATH. Jupyter, IPython and matplotlib write their
runtime and config files under $TEST_TMPDIR (Bazel's sandbox has no writable HOME), or a fresh temporary
directory outside Bazel. The executed notebook (with outputs) is saved to $TEST_UNDECLARED_OUTPUTS_DIR when
Bazel sets it (Bazel zips it into test.outputs/outputs.zip), else to the scratch directory; the stored
notebook stays without outputs.
"""

import os
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"


def run_plain(module, notebook, out_dir):
    """Executes the notebook's code cells here, in order, in one namespace."""
    import json
    import traceback
    os.environ["MPLBACKEND"] = "Agg"
    sys.path.insert(0, os.path.dirname(module))
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.splitext(os.path.basename(notebook))[0]
    with open(notebook) as f:
        cells = [c for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    namespace = {"__name__": "__main__"}
    start = time.monotonic()
    for number, cell in enumerate(cells, 1):
        source = "".join(cell["source"])
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
        try:
            exec(compile(code, f"{name}.ipynb cell {number}", "exec"), namespace)
        except Exception:
            traceback.print_exc()
            sys.exit(f"run_notebook: FAILED: {name}.ipynb, code cell {number}")
        for k, fig in enumerate(map(plt.figure, plt.get_fignums()), 1):
            fig.savefig(os.path.join(out_dir, f"{name}.cell{number}.fig{k}.png"), dpi=100)
        plt.close("all")
    print(f"run_notebook: {name}.ipynb ran top to bottom (plain, {len(cells)} code cells) in "
          f"{time.monotonic() - start:.1f} s; figures in {out_dir}")


def main():
    args = sys.argv[1:]
    plain = "--plain" in args
    out_dir = next((a.split("=", 1)[1] for a in args if a.startswith("--out=")), None)
    args = [a for a in args if a != "--plain" and not a.startswith("--out=")]
    if len(args) != 2:
        sys.exit("usage: run_notebook.py [--plain [--out=DIR]] LQCD_SO NOTEBOOK")
    module, notebook = (os.path.abspath(a) for a in args)
    if plain:
        for path in (module, notebook):
            if not os.path.isfile(path):
                sys.exit(f"run_notebook: no such file: {path}")
        run_plain(module, notebook, out_dir or tempfile.mkdtemp(prefix="lqcd-notebook-"))
        return
    for path in (module, notebook):
        if not os.path.isfile(path):
            sys.exit(f"run_notebook: no such file: {path}")
    scratch = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp(prefix="lqcd-notebook-")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(module), env.get("PYTHONPATH")]))
    for var, sub in [("HOME", "home"), ("JUPYTER_RUNTIME_DIR", "jupyter-runtime"),
                     ("JUPYTER_CONFIG_DIR", "jupyter-config"), ("JUPYTER_DATA_DIR", "jupyter-data"),
                     ("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "matplotlib")]:
        env[var] = os.path.join(scratch, sub)
        os.makedirs(env[var], exist_ok=True)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"   # quiets ipykernel's debugger warning on stderr
    env.pop("MPLBACKEND", None)                   # the kernel's inline backend
    out_dir = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or scratch
    out_name = os.path.splitext(os.path.basename(notebook))[0] + ".executed"
    command = [PYTHON, "-m", "nbconvert", "--to", "notebook", "--execute",
               "--ExecutePreprocessor.kernel_name=python3", "--ExecutePreprocessor.timeout=120",
               "--output-dir", out_dir, "--output", out_name, notebook]
    start = time.monotonic()
    result = subprocess.run(command, env=env, cwd=scratch)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"run_notebook: FAILED: {os.path.basename(notebook)} (nbconvert exit {result.returncode}; "
                 "the failing cell and its traceback are above)")
    print(f"run_notebook: {os.path.basename(notebook)} ran top to bottom in {seconds:.1f} s; "
          f"executed copy in {os.path.join(out_dir, out_name)}.ipynb")


if __name__ == "__main__":
    main()
