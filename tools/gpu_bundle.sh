#!/usr/bin/env bash
# gpu_bundle.sh: build every GPU test and benchmark here (targets tagged "gpu") and copy the binaries into
# gpu_bundle/ (ignored by git), with run_tests.sh and run_benchmarks.sh that run them on a GPU machine
# without Bazel. The binaries link the CUDA runtime statically: they need only the NVIDIA driver there.
#
#   tools/gpu_bundle.sh                 # here
#   gpu_bundle/run_tests.sh             # there; exits non-zero if any test fails (or none ran)
#   gpu_bundle/run_benchmarks.sh [out]  # there; writes each benchmark's output to out/ (default: .)
set -euo pipefail
cd "$(dirname "$0")/.."

tests=$(bazel query --output=label 'attr(tags, "\bgpu\b", tests(//...))' 2>/dev/null)
benchmarks=$(bazel query --output=label 'attr(tags, "\bbenchmark\b", attr(tags, "\bgpu\b", kind("cc_binary", //...)))' 2>/dev/null)
[[ -n "$tests" ]] || { echo "gpu_bundle: no targets tagged gpu" >&2; exit 1; }
# shellcheck disable=SC2086
bazel build $tests $benchmarks

rm -rf gpu_bundle
mkdir -p gpu_bundle/tests gpu_bundle/benchmarks
binary_path() { local label=${1#//}; echo "bazel-bin/${label%%:*}/${label#*:}"; }
for t in $tests; do cp "$(binary_path "$t")" gpu_bundle/tests/; done
for b in $benchmarks; do cp "$(binary_path "$b")" gpu_bundle/benchmarks/; done
git rev-parse --short HEAD >gpu_bundle/COMMIT 2>/dev/null || echo unknown >gpu_bundle/COMMIT

cat >gpu_bundle/run_tests.sh <<'RUN'
#!/usr/bin/env bash
# Runs every bundled GPU test; prints each result and a closing 'N passed, M failed' line.
cd "$(dirname "$0")"
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
out=${1:-.}; mkdir -p "$out"
cd "$(dirname "$0")"
status=0
for b in benchmarks/*; do
  echo "=== $b"
  "$b" | tee "$out/$(basename "$b").txt" || status=1
done
exit $status
RUN
chmod +x gpu_bundle/run_tests.sh gpu_bundle/run_benchmarks.sh
echo "gpu_bundle: $(ls gpu_bundle/tests | wc -l) tests, $(ls gpu_bundle/benchmarks | wc -l) benchmarks, $(du -sh gpu_bundle | cut -f1)"
