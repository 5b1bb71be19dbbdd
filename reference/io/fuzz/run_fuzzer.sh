#!/usr/bin/env bash
# run_fuzzer.sh: build the libFuzzer target for the configuration-file readers with clang (ASan + UBSan)
# and run it on a corpus made from the sample files and the synthetic seeds.
#
#   reference/io/fuzz/run_fuzzer.sh [SECONDS] [WORK_DIRECTORY]
#
# SECONDS (default 300) is the libFuzzer -max_total_time. WORK_DIRECTORY (default /tmp/lqcd_gauge_fuzz)
# receives the binaries, corpus/ (seeds plus what libFuzzer adds) and crash-*/leak-* reproducers; it is
# outside the repository on purpose (the sample files must not be copied into the project).
# The fuzzer is the one `bazel test` runs briefly: Bazel builds it (genrule :build_gauge_file_libfuzzer,
# build_libfuzzer.sh) together with the seed writer. Needs clang and libclang-rt-14-dev (tools/setup.sh).
# Reproduce a crash with any compiler: bazel run //reference/io/fuzz:gauge_file_fuzzer_replay -- FILE.
set -euo pipefail

seconds="${1:-300}"
work="${2:-/tmp/lqcd_gauge_fuzz}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"

mkdir -p "$work/corpus" "$work/artifacts"
bazel build //reference/io/fuzz:build_gauge_file_libfuzzer //reference/io/fuzz:write_fuzz_seeds
install -m 755 bazel-bin/reference/io/fuzz/gauge_file_libfuzzer "$work/gauge_file_fuzzer"
install -m 755 bazel-bin/reference/io/fuzz/write_fuzz_seeds "$work/write_fuzz_seeds"
# Where clang++ or its fuzzer runtime is missing, Bazel built a placeholder that says why and exits 77.
"$work/gauge_file_fuzzer" -help=1 >/dev/null || exit 1

"$work/write_fuzz_seeds" "$work/corpus"
samples="$root/../shared/data/gauge"
if [[ -d "$samples" ]]; then
  for f in "$samples"/lat.sample.* "$samples"/*.lime "$samples"/*.cfg; do
    [[ "$f" == *.info ]] || cp -f "$f" "$work/corpus/"
  done
  echo "run_fuzzer: corpus has the synthetic seeds and the sample files of $samples"
else
  echo "run_fuzzer: no $samples; corpus has the synthetic seeds only"
fi

echo "run_fuzzer: fuzzing for ${seconds}s, corpus $work/corpus, reproducers in $work/artifacts"
"$work/gauge_file_fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=1300000 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"
