#!/usr/bin/env bash
# python_bundle.sh: the `lqcd` Python module with the Python it was built for, for the GPU machine.
#
#   tools/python_bundle.sh                  # here: builds //experiments/python:lqcd.so, writes python_bundle/
#   python_bundle/run_python.sh [OUT]       # there: the Python tests (GPU ones included) and every notebook
#
# The GPU machine's python3 is 3.12 and has no Bazel; the module is built here against Debian's Python 3.11, and
# a CPython extension only loads into the minor version it was compiled for. So the bundle carries that
# Python: Debian's /usr/bin/python3.11, its standard library (without tests, Tk, IDLE, the static libpython),
# the Debian packages the tests and notebooks import (numpy, pytest and its dependencies, matplotlib and its
# dependencies), every shared library they link that is not part of the C/C++ runtime (found with ldd: BLAS,
# libgfortran, Pillow's image libraries, ...), the stripped module, its tests, the notebooks and their runner.
# run_python.sh unpacks it under /tmp (never into the machine's own directories) and runs it with PYTHONHOME,
# PYTHONPATH and LD_LIBRARY_PATH pointing there. xz keeps it near 50 MB; carry `python_bundle` alone (the
# device tool carries at most 64 MiB per call).
set -euo pipefail
cd "$(dirname "$0")/.."

bazel build //experiments/python:lqcd.so

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
home="$stage/python"
site="$home/lib/python3/dist-packages"  # where Debian's site.py looks under PYTHONHOME
mkdir -p "$home/bin" "$home/libs" "$home/lqcd/notebooks" "$site"

cp /usr/bin/python3.11 "$home/bin/python3"
tar -C /usr/lib -cf - --exclude=__pycache__ --exclude='python3.11/test' --exclude='python3.11/idlelib' \
  --exclude='python3.11/tkinter' --exclude='python3.11/turtledemo' --exclude='python3.11/ensurepip' \
  --exclude='python3.11/lib2to3' --exclude='python3.11/config-3.11-x86_64-linux-gnu' \
  --exclude='python3.11/site-packages' --exclude='python3.11/dist-packages' \
  --exclude='lib-dynload/_tkinter*' --exclude='lib-dynload/_test*' --exclude='lib-dynload/_xx*' \
  --exclude='lib-dynload/xxlimited*' --exclude='lib-dynload/_ctypes_test*' --exclude='lib-dynload/_dbm*' \
  --exclude='lib-dynload/_gdbm*' --exclude='lib-dynload/_curses*' --exclude='lib-dynload/_sqlite3*' \
  --exclude='lib-dynload/_ssl*' --exclude='lib-dynload/_hashlib*' --exclude='lib-dynload/nis*' python3.11 |
  tar -C "$home/lib" -xf -

packages="numpy _pytest pytest pluggy iniconfig packaging attr attrs py.py matplotlib mpl_toolkits PIL kiwisolver
  cycler.py dateutil pyparsing contourpy six.py"
for p in $packages; do
  # Pillow's Tk, FreeType and WebP plugins pull in X11, HarfBuzz and GLib; matplotlib's PNG output needs none.
  tar -C /usr/lib/python3/dist-packages -cf - --exclude=__pycache__ --exclude=tests --exclude='_imagingtk*' \
    --exclude='_imagingft*' --exclude='_webp*' "$p" | tar -C "$site" -xf -
done
# Debian keeps matplotlib's data (fonts, the default style) in /usr/share; matplotlib looks next to itself first.
cp -rL /usr/share/matplotlib/mpl-data "$site/matplotlib/mpl-data"
# ... and reads its default rc file from /etc/matplotlibrc; run_python.sh points MATPLOTLIBRC at this copy.
mkdir -p "$home/etc" && cp /etc/matplotlibrc "$home/etc/matplotlibrc"

cp experiments/python/lqcd_test.py experiments/python/lqcd_gpu_test.py experiments/python/readme_example_test.py \
  docs/notebooks/run_notebook.py README.md "$home/lqcd/"
cp docs/notebooks/*.ipynb "$home/lqcd/notebooks/"
cp bazel-bin/experiments/python/lqcd.so "$home/lqcd/lqcd.so"
chmod -R u+w "$home"
strip --strip-unneeded "$home/lqcd/lqcd.so"

# Shared libraries: everything the binaries link beyond the C and C++ runtimes that any Linux machine has.
base='^(linux-vdso|libc|libm|libdl|libpthread|librt|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
find "$home" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$home/bin/python3" \) -print0 |
  xargs -0 ldd 2>/dev/null | awk '/=> \// {print $1, $3}' | sort -u | while read -r name path; do
  [[ $name =~ $base ]] || cp -L "$path" "$home/libs/$name"
done

rm -rf python_bundle
mkdir -p python_bundle
git rev-parse --short HEAD >"$home/COMMIT" 2>/dev/null || echo unknown >"$home/COMMIT"
if ! git diff --quiet HEAD 2>/dev/null; then echo "+uncommitted changes" >>"$home/COMMIT"; fi
# A 256 MiB window: the module's kernels repeat each other across precisions and variants.
tar -C "$stage" -cf - python | xz -T2 --lzma2=preset=6,dict=256MiB >python_bundle/python.tar.xz

cat >python_bundle/run_python.sh <<'RUN'
#!/usr/bin/env bash
# run_python.sh [OUT]: the lqcd module's Python tests and notebooks on this machine with the carried Python 3.11
# (tools/python_bundle.sh). Unpacks to $LQCD_PYTHON_HOME (default /tmp/lqcd-python) once; the notebooks run in
# plain mode (no Jupyter there) and their figures go to OUT (default: a temporary directory). Exit status 0
# when every test and notebook passed.
here=$(cd "$(dirname "$0")" && pwd)
home=${LQCD_PYTHON_HOME:-/tmp/lqcd-python}
if [[ ! -x $home/python/bin/python3 || $here/python.tar.xz -nt $home/python/bin/python3 ]]; then
  rm -rf "$home" && mkdir -p "$home" && tar -C "$home" -xJf "$here/python.tar.xz" || { echo "cannot unpack" >&2; exit 1; }
fi
py=$home/python
out=${1:-$(mktemp -d)}
mkdir -p "$out"
export PYTHONHOME=$py PYTHONPATH=$py/lqcd LD_LIBRARY_PATH=$py/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 MPLBACKEND=Agg MPLCONFIGDIR=$out/.matplotlib
export MATPLOTLIBRC=$py/etc/matplotlibrc
echo "python bundle of commit $(cat "$py/COMMIT"), on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
"$py/bin/python3" -c 'import sys, numpy, lqcd; print("python", sys.version.split()[0], "numpy", numpy.__version__); print(lqcd.gpu.device() if lqcd.gpu.available() else "no GPU: " + lqcd.gpu.unavailable_reason())'
status=0
start=$SECONDS
"$py/bin/python3" -m pytest -q -p no:cacheprovider -rs "$py/lqcd/lqcd_gpu_test.py" "$py/lqcd/lqcd_test.py" || status=1
echo "pytest: $((SECONDS - start)) s"
start=$SECONDS
"$py/bin/python3" "$py/lqcd/readme_example_test.py" || status=1   # the README's example, on the GPU here
echo "readme example: $((SECONDS - start)) s"
for notebook in "$py"/lqcd/notebooks/*.ipynb; do
  "$py/bin/python3" "$py/lqcd/run_notebook.py" --plain --out="$out" "$py/lqcd/lqcd.so" "$notebook" || status=1
done
((status == 0)) && echo "python bundle: all passed" || echo "python bundle: FAILED"
exit $status
RUN
chmod +x python_bundle/run_python.sh
echo "python_bundle: $(du -sh python_bundle | cut -f1)"
