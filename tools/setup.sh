#!/usr/bin/env bash
# setup.sh: install exactly the Debian packages this project builds with, and check the CUDA toolkit.
# Idempotent: packages already present are not touched. Says what it did; on failure says why and exits 1.
set -uo pipefail

PACKAGES=(
  bazel-bootstrap     # Bazel 4.2.3, the build system
  bazel-rules-java    # @rules_java, which Bazel's own tools need (local_repository in WORKSPACE)
  bazel-platforms     # @platforms, likewise
  libeigen3-dev       # Eigen 3.4: the CPU oracle's 3x3 / 4x4 / sparse linear algebra
  libgtest-dev        # GoogleTest 1.12: every test
  python3-matplotlib  # plots of the experiments
  python3-numpy
  python3-dev         # Python 3.11 C API headers (@python3) and
  pybind11-dev        #   pybind11 (@pybind11): the Python module //experiments/python:lqcd.so
  python3-pytest      # its tests (//experiments/python:lqcd_test)
  jupyter-nbconvert   # the teaching notebooks run top to bottom in the tests (docs/notebooks/,
  python3-ipykernel   #   //experiments/python:*_notebook_test) on the python3 kernel
  clang               # clang 14 and its fuzzer/sanitizer runtimes: the short libFuzzer run in the tests
  libclang-rt-14-dev  #   (//reference/io/fuzz:gauge_file_libfuzzer_short_run_test)
  libopenmpi-dev      # Open MPI 4.1: the multi-rank communicator (gpu/comm) and its tests
  openmpi-bin         #   mpirun, which those tests start
)

say() { echo "setup: $*"; }
die() { echo "setup: FAILED: $*" >&2; exit 1; }

missing=()
for pkg in "${PACKAGES[@]}"; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    :
  else
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  say "all ${#PACKAGES[@]} Debian packages already installed"
else
  say "installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/tmp/lqcd-setup-apt.log 2>&1 ||
    die "apt-get update failed (see /tmp/lqcd-setup-apt.log): $(tail -2 /tmp/lqcd-setup-apt.log)"
  $SUDO apt-get install -y -qq "${missing[@]}" >>/tmp/lqcd-setup-apt.log 2>&1 ||
    die "apt-get install ${missing[*]} failed (see /tmp/lqcd-setup-apt.log): $(tail -2 /tmp/lqcd-setup-apt.log)"
  say "installed ${missing[*]}"
fi

# The CUDA toolkit is not a Debian package here: it must already be at $CUDA_HOME or /usr/local/cuda.
CUDA_ROOT="${CUDA_HOME:-/usr/local/cuda}"
[[ -x "$CUDA_ROOT/bin/nvcc" ]] ||
  die "no nvcc at $CUDA_ROOT/bin/nvcc: install the CUDA toolkit (13.0) there or set CUDA_HOME"
[[ -f "$CUDA_ROOT/lib64/libcudart_static.a" ]] || die "no static CUDA runtime at $CUDA_ROOT/lib64/libcudart_static.a"
say "CUDA toolkit: $("$CUDA_ROOT/bin/nvcc" --version | tail -1) at $CUDA_ROOT"

/usr/bin/python3 -c "import matplotlib, numpy, pytest, nbconvert, ipykernel" 2>/dev/null ||
  die "/usr/bin/python3 cannot import matplotlib, numpy, pytest, nbconvert and ipykernel"
say "bazel $(bazel --version 2>/dev/null | awk '{print $2}'), eigen $(dpkg-query -W -f='${Version}' libeigen3-dev), gtest $(dpkg-query -W -f='${Version}' libgtest-dev): ready"
