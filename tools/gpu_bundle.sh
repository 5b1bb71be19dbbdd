#!/usr/bin/env bash
# gpu_bundle.sh: build every GPU test and benchmark here (targets tagged "gpu") and the main job's programs
# (experiments/pion, solver_tables_cc, generate_quenched, gpu/multi_gpu_check, experiments/staggered_pbp,
# experiments/multi_mass), and copy the binaries into gpu_bundle/ (ignored by git), with
# run_tests.sh, run_benchmarks.sh and run_main_job.sh that run them on a GPU machine without Bazel. The binaries link the CUDA runtime statically: they need only the NVIDIA driver there.
# Each kernel binary carries the fatbinary of the kernels it links (up to ~50 MB), stripped and packed into one
# solid xz archive with a window longer than a binary. The whole bundle (every test and benchmark tagged gpu, and
# the programs above) packs to more than the device tool's 64 MiB carry: name the binaries a run needs (their
# target names) and only those are built and packed, e.g.
#   tools/gpu_bundle.sh multi_rhs_clover_dslash_test multi_rhs_dslash_benchmark pion
# (about 5 MB per kernel binary). The run scripts unpack it on first use and run what is there.
#
#   tools/gpu_bundle.sh [NAME...]       # here
#   gpu_bundle/run_tests.sh             # there; exits non-zero if any test fails (or none ran)
#   gpu_bundle/run_benchmarks.sh [out]  # there; writes each benchmark's output to out/ (default: .)
#   gpu_bundle/run_multi_gpu.sh         # there; the multi-rank checks and the main job under mpirun (1, 2, 4 ranks)
#   gpu_bundle/run_main_job.sh OUT [generator flags] [-- solve flags]   # there; the main job on the GPU,
#                                       # then the same configuration on the CPU oracle, correlators compared
#   gpu_bundle/run_solver_tables.sh OUT # there; the paper's Tables 3-5 and Figure 7 at 24^3 x 64 (resumable)
#   gpu_bundle/run_multi_gpu_scaling.sh OUT [GPUS]  # there; docs/multi_gpu.md's scaling tables and the main job
#                                       # at 48^3 x 96 on 1 and GPUS GPUs
#   gpu_bundle/run_multi_mass.sh OUT [SPEC...]      # there; paper 002's multi-mass study at 24^4 (docs/multi_mass.md)
set -euo pipefail
cd "$(dirname "$0")/.."

tests=$(bazel query --output=label 'kind("cc_test", attr(tags, "\bgpu\b", tests(//...)))' 2>/dev/null)
benchmarks=$(bazel query --output=label 'attr(tags, "\bbenchmark\b", attr(tags, "\bgpu\b", kind("cc_binary", //...)))' 2>/dev/null)
programs="//experiments:pion //experiments:solver_tables_cc //experiments:generate_quenched //gpu:multi_gpu_check //experiments:staggered_pbp
  //experiments:multi_mass"
[[ -n "$tests" ]] || { echo "gpu_bundle: no targets tagged gpu" >&2; exit 1; }
if (( $# )); then  # keep only the named binaries (target names); an unknown name is an error, not a silent gap
  all=" $(echo $tests $benchmarks $programs) "
  for name in "$@"; do
    [[ "$all" == *":$name "* ]] || { echo "gpu_bundle: no GPU test, benchmark or program named '$name'" >&2; exit 2; }
  done
  keep() {  # keep LABELS NAME...: the labels whose target name is one of the names
    local list=$1 label
    shift
    for label in $list; do if [[ " $* " == *" ${label##*:} "* ]]; then echo "$label"; fi; done
  }
  tests=$(keep "$tests" "$@"); benchmarks=$(keep "$benchmarks" "$@"); programs=$(keep "$programs" "$@")
fi
# shellcheck disable=SC2086
bazel build $tests $benchmarks $programs

rm -rf gpu_bundle
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p gpu_bundle "$stage/tests" "$stage/benchmarks" "$stage/programs"
binary_path() { local label=${1#//}; echo "bazel-bin/${label%%:*}/${label#*:}"; }
for t in $tests; do cp "$(binary_path "$t")" "$stage/tests/"; done
for b in $benchmarks; do cp "$(binary_path "$b")" "$stage/benchmarks/"; done
for p in $programs; do cp "$(binary_path "$p")" "$stage/programs/"; done
# The multi-rank tests find their binaries, compare_correlators.py and their helpers (mpi_testing.py) next to
# themselves.
cp tools/compare_correlators.py tools/mpi_testing.py gpu/multi_gpu_check_test.py experiments/pion_multi_rank_test.py \
  tools/multi_gpu_model.py tools/multi_gpu_scaling.py "$stage/programs/"
chmod -R u+w "$stage"
find "$stage"/tests "$stage"/benchmarks "$stage"/programs -type f ! -name '*.py' -exec strip --strip-unneeded {} +
git rev-parse --short HEAD >"$stage/COMMIT" 2>/dev/null || echo unknown >"$stage/COMMIT"
if ! git diff --quiet HEAD 2>/dev/null; then echo "+uncommitted changes" >>"$stage/COMMIT"; fi
cp "$stage/COMMIT" gpu_bundle/COMMIT
# One thread and a 256 MiB dictionary: every binary carries the same ~34 MB of kernels, and only a window
# longer than a binary lets xz store them once (about 9 MB in all instead of ~70 MB with the default window).
tar -C "$stage" -cf - tests benchmarks programs COMMIT | xz -T1 --lzma2=preset=6,dict=256MiB >gpu_bundle/binaries.tar.xz

# Both run scripts unpack the archive next to themselves once.
cat >gpu_bundle/unpack.sh <<'RUN'
cd "$(dirname "${BASH_SOURCE[0]}")"
if [[ ! -d tests || binaries.tar.xz -nt tests ]]; then
  rm -rf tests benchmarks programs
  tar -xJf binaries.tar.xz || { echo "cannot unpack binaries.tar.xz" >&2; exit 1; }
fi
RUN

cat >gpu_bundle/run_tests.sh <<'RUN'
#!/usr/bin/env bash
# Runs every bundled GPU test; prints each result and a closing 'N passed, M failed' line.
cd "$(dirname "$0")"
source ./unpack.sh
passed=0; failed=0; failed_names=()
echo "bundle of commit $(cat COMMIT), on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
for t in tests/*; do
  echo "=== $t"
  if "$t" --gtest_brief=0; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$t"); fi
done
((failed == 0)) || echo "failed: ${failed_names[*]}"
echo "gpu bundle: $passed passed, $failed failed"
((failed == 0 && passed > 0))
RUN
cat >gpu_bundle/run_benchmarks.sh <<'RUN'
#!/usr/bin/env bash
# Runs every bundled benchmark with its defaults; output to stdout and to OUT/<name>.txt.
out=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
cd "$(dirname "$0")"
source ./unpack.sh
status=0
for b in benchmarks/*; do
  echo "=== $b"
  "$b" | tee "$out/$(basename "$b").txt" || status=1
done
exit $status
RUN
cat >gpu_bundle/run_main_job.sh <<'RUN'
#!/usr/bin/env bash
# run_main_job.sh OUT [generator flags] [-- solve flags] [--- cpu]
# The main job (programs/pion) on the GPU: generates (or reuses, from OUT/gpu) the configuration and solves the
# propagator there. With a trailing "--- cpu" it then solves the same configuration with the same solve
# flags on the CPU oracle (OUT/cpu) and compares the two correlators against their summed derived bounds
# (compare_correlators.py; needs bounds: m > 0, or --inverse-norm-steps=N among the solve flags).
# Generator flags: --lattice, --beta, --seed, --sweeps, --or, --threads. Solve flags: everything else.
set -uo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
shift
cd "$(dirname "$0")"
source ./unpack.sh
generator=() solve=() cpu=0 part=generator
for a in "$@"; do
  case "$a" in
    --) part=solve ;;
    ---) part=tail ;;
    *) if [[ $part == generator ]]; then generator+=("$a"); elif [[ $part == solve ]]; then solve+=("$a");
       elif [[ $a == cpu ]]; then cpu=1; else echo "run_main_job: unexpected '$a' after ---" >&2; exit 2; fi ;;
  esac
done
echo "bundle of commit $(cat COMMIT), on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
programs/pion --backend=gpu --no-plot --output="$out/gpu" "${generator[@]}" "${solve[@]}" || exit $?
((cpu)) || exit 0
config=$(ls "$out"/gpu/quenched_*.nersc | head -1)
# The CPU run takes the GPU run's ||M^{-1}|| (a property of the matrix) instead of estimating it again, and
# the same solver with 18-real links (the CPU stores no compressed links; they represent the same matrix).
norm=$(awk -F, '$1 == "inverse_norm" { print $2 }' "$out/gpu/summary.csv")
cpu_solve=()
for a in "${solve[@]}"; do
  [[ $a == --inverse-norm-steps=* ]] && continue
  [[ $a == --solver=* ]] && a=$(sed -E 's#/(12|8)(/|:|$)#\2#' <<<"$a")
  cpu_solve+=("$a")
done
[[ -n $norm && $norm != 0 ]] && cpu_solve+=("--inverse-norm=$norm")
programs/pion --backend=cpu --no-plot --output="$out/cpu" --config="$config" "${cpu_solve[@]}" || exit $?
python3 programs/compare_correlators.py "$out/gpu/pion_correlator.csv" "$out/cpu/pion_correlator.csv"
RUN
cat >gpu_bundle/run_multi_gpu.sh <<'RUN'
#!/usr/bin/env bash
# run_multi_gpu.sh [unittest args]: the multi-rank checks (programs/multi_gpu_check under mpirun: 1, 2 and 4
# ranks over several grids, both halo transports, the refusals), as `bazel test //gpu:multi_gpu_check_test`,
# then the main job on 2 and 4 ranks against one process (`bazel test //experiments:pion_multi_rank_test`).
# The benchmark by hand: mpirun -np N programs/multi_gpu_check --grid=... --lattice=... --benchmark; the
# scaling tables: python3 programs/multi_gpu_scaling.py --binary=programs/multi_gpu_check --out=DIR --gpus=N
cd "$(dirname "$0")"
source ./unpack.sh
# The multi-rank runs use NCCL (the solvers' global sums on the devices): NVLink multicast stays off unless the
# caller chose otherwise (on shared machines it can take the node's GPUs out of service).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
echo "bundle of commit $(cat COMMIT), on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
mpirun --version | head -1
status=0
python3 programs/multi_gpu_check_test.py "$@" || status=1
python3 programs/pion_multi_rank_test.py "$@" || status=1
exit $status
RUN
cat >gpu_bundle/run_multi_gpu_scaling.sh <<'RUN'
#!/usr/bin/env bash
# run_multi_gpu_scaling.sh OUT [GPUS]: the scaling tables of docs/multi_gpu.md on GPUS GPUs of this node (default:
# every GPU nvidia-smi lists): Dslash, M_ee and the reliable half/12 solve, strong at 32^3 x 64 and 64^3 x 128 and
# weak at 32^4 per GPU (programs/multi_gpu_scaling.py); then the main job at 48^3 x 96 (one heatbath sweep, kappa
# 0.12, the reliable half/12 solver to 1e-10) on one GPU and on GPUS ranks cutting t, the same configuration.
# Everything under mpirun runs with --bind-to none (Open MPI binds one or two ranks to a single core otherwise).
set -uo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
gpus=${2:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
cd "$(dirname "$0")"
source ./unpack.sh
# The multi-rank runs use NCCL (the solvers' global sums on the devices): NVLink multicast stays off unless the
# caller chose otherwise (on shared machines it can take the node's GPUs out of service).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
echo "bundle of commit $(cat COMMIT), on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ), $gpus GPUs"
export OMPI_MCA_btl=self,vader
root=(); [[ $(id -u) == 0 ]] && root=(--allow-run-as-root)
for part in strong32 weak strong64; do
  python3 programs/multi_gpu_scaling.py --binary=programs/multi_gpu_check --out="$out/scaling" --gpus="$gpus" \
    --part=$part
done
# The one-GPU run generates the configuration; the GPUS-rank run reads it (--lattice would conflict with --config).
solve=(--backend=gpu --kappa=0.12 --tolerance=1e-10 --no-plot --solver=bicgstab-reliable:half/12:0.1)
work=$(mktemp -d)  # the 48^3 x 96 configuration (about 6 GB) stays out of OUT
programs/pion "${solve[@]}" --lattice=48x48x48x96 --sweeps=1 --or=0 --output="$work/pion_1" >"$out/pion_1.log" 2>&1
config=$(ls "$work"/pion_1/quenched_*.nersc | head -1)
mpirun --bind-to none "${root[@]}" -np "$gpus" programs/pion "${solve[@]}" --grid=1x1x1x"$gpus" --config="$config" \
  --output="$work/pion_$gpus" >"$out/pion_$gpus.log" 2>&1
for d in "$work"/pion_*; do mkdir -p "$out/$(basename "$d")"; cp "$d"/*.csv "$out/$(basename "$d")/" 2>/dev/null; done
rm -rf "$work"
tail -n 5 "$out/pion_1.log" "$out/pion_$gpus.log"
RUN
cat >gpu_bundle/run_solver_tables.sh <<'RUN'
#!/usr/bin/env bash
# run_solver_tables.sh OUT [solver_tables flags]
# The paper's Tables 3-5 and Figure 7 at its scale (docs/solver_tables.md): quenched 24^3 x 64 at beta = 5.85
# generated on the GPU and cached in OUT/ensemble, the critical mass, the paper's GPU columns at nine masses
# from m_s to m_c on five configurations, eps = 1e-12. About 19 minutes on one H200. Interrupted (or stopped
# with a time limit), the same command resumes from OUT/solves.journal. A flag given here replaces the preset
# one of the same name (e.g. --configs=10). The report (tables.md, the PNGs) is made where Python has
# matplotlib: python3 -m experiments.solver_tables_report OUT, from the source tree.
set -uo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
shift
cd "$(dirname "$0")"
source ./unpack.sh
preset=(--backend=gpu --lattice=24x24x24x64 --beta=5.85 --start=cold --therm=200 --sep=20 --or=4 --configs=5
        --sources=1 --mass-fractions=1,0.875,0.75,0.625,0.5,0.375,0.25,0.125,0 --pion-targets=0.5,0.375,0.25
        --solvers=paper-gpu --max-iterations=15000)
flags=()
for p in "${preset[@]}"; do
  given=0
  for a in "$@"; do [[ "$a" == "${p%%=*}="* ]] && given=1; done
  (( given )) || flags+=("$p")
done
programs/solver_tables_cc --out="$out" "${flags[@]}" "$@"
RUN

cat >gpu_bundle/run_multi_mass.sh <<'RUN'
#!/usr/bin/env bash
# run_multi_mass.sh OUT [SPEC...]
# Paper 002's multi-mass study at its scale (docs/multi_mass.md): a quenched 24^4 ensemble at beta = 6.0 generated
# on the GPU (cold start, 200 thermalisation sweeps, three configurations 20 sweeps apart; cached in
# OUT/tables/ensemble), its critical mass from solver_tables_cc's spectroscopy (pion masses 0.5, 0.375, 0.25 in
# lattice units on the three configurations; --stop-after=1 stops after the masses are known; m_c is kept in
# OUT/critical_mass), then multi_mass on the first configuration, both of 002's mass sets moved by
# m_c - (-0.8173), once per single-mass solver SPEC (default: reliable-update BiCGstab with a single and a half
# inner operator) into OUT/<SPEC with : and / as _>.
set -uo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
shift
specs=("$@")
(( ${#specs[@]} )) || specs=(bicgstab-reliable:single:0.1 bicgstab-reliable:half/12:0.1)
cd "$(dirname "$0")"
source ./unpack.sh
if [[ ! -s "$out/critical_mass" ]]; then
  programs/solver_tables_cc --out="$out/tables" --backend=gpu --lattice=24x24x24x24 --beta=6.0 --start=cold --therm=200 \
    --sep=20 --or=4 --configs=3 --sources=1 --mass-fractions=0 --pion-targets=0.5,0.375,0.25 --solvers=bicgstab \
    --stop-after=1
  # masses.csv: mass_index,mass,kappa,mass_fraction,m_minus_mc; the row of fraction 0 is m_c itself.
  awk -F, 'NR > 1 && $4 + 0 == 0 { printf "%.10f\n", $2 - $5 }' "$out/tables/masses.csv" >"$out/critical_mass"
fi
mc=$(cat "$out/critical_mass")
[[ -n "$mc" ]] || { echo "run_multi_mass.sh: no critical mass in $out/tables/masses.csv" >&2; exit 1; }
config=$(ls "$out"/tables/ensemble/*/config_*.nersc | sort -V | head -1)
echo "run_multi_mass.sh: m_c = $mc, configuration $config"
status=0
for spec in "${specs[@]}"; do
  programs/multi_mass --backend=gpu --no-plot --config="$config" --critical-mass="$mc" --solver="$spec" \
    --output="$out/${spec//[:\/]/_}" || status=1
done
exit $status
RUN
chmod +x gpu_bundle/run_tests.sh gpu_bundle/run_benchmarks.sh gpu_bundle/run_main_job.sh gpu_bundle/run_multi_gpu.sh \
  gpu_bundle/run_solver_tables.sh gpu_bundle/run_multi_gpu_scaling.sh gpu_bundle/run_multi_mass.sh
echo "gpu_bundle: $(echo "$tests" | wc -w) tests, $(echo "$benchmarks" | wc -w) benchmarks, $(echo "$programs" | wc -w) programs, $(du -sh gpu_bundle | cut -f1)"
