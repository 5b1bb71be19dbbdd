"""Runs one notebook top to bottom with nbconvert on the python3 kernel (/usr/bin/python3, Debian's
jupyter-nbconvert and python3-ipykernel) and fails if any cell fails; the notebooks check their own outputs
with asserts. Used by the Bazel tests in experiments/python/BUILD:

    run_notebook.py PATH/TO/lqcd.so PATH/TO/notebook.ipynb

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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: run_notebook.py LQCD_SO NOTEBOOK")
    module, notebook = (os.path.abspath(a) for a in sys.argv[1:])
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
