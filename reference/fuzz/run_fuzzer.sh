#!/usr/bin/env bash
# run_fuzzer.sh: build the libFuzzer target for the configuration-file readers with clang (ASan + UBSan)
# and run it on a corpus made from the sample files and the synthetic seeds.
#
#   reference/fuzz/run_fuzzer.sh [SECONDS] [WORK_DIRECTORY]
#
# SECONDS (default 300) is the libFuzzer -max_total_time. WORK_DIRECTORY (default /tmp/lqcd_gauge_fuzz)
# receives the binaries, corpus/ (seeds plus what libFuzzer adds) and crash-*/leak-* reproducers; it is
# outside the repository on purpose (the sample files must not be copied into the project).
# Needs clang and libclang-rt-14-dev (Debian 12: `apt-get install clang libclang-rt-14-dev`).
# Reproduce a crash with any compiler: bazel run //reference/fuzz:gauge_file_fuzzer_replay -- FILE.
set -euo pipefail

seconds="${1:-300}"
work="${2:-/tmp/lqcd_gauge_fuzz}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

command -v clang++ >/dev/null || { echo "run_fuzzer: no clang++ (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
mkdir -p "$work/corpus" "$work/artifacts"

library_sources=(reference/crc32.cc reference/gauge_file_common.cc reference/nersc_io.cc reference/lime_io.cc
                 reference/milc_io.cc reference/gauge_io.cc reference/lattice.cc)
flags=(-std=c++17 -O1 -g -I. -isystem /usr/include/eigen3 -Wall -Wextra -Wno-sign-compare)

echo "run_fuzzer: building with $(clang++ --version | head -1)"
reference/fuzz/build_libfuzzer.sh "$work/gauge_file_fuzzer" "${library_sources[@]}" \
  reference/fuzz/gauge_file_fuzz_target.cc reference/fuzz/gauge_file_fuzzer.cc
clang++ "${flags[@]}" -O2 "${library_sources[@]}" reference/gauge_io_testing.cc reference/fuzz/fuzz_seeds.cc \
  reference/fuzz/write_fuzz_seeds.cc -o "$work/write_fuzz_seeds"

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
