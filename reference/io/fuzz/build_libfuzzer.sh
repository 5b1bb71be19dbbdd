#!/usr/bin/env bash
# build_libfuzzer.sh: compile the libFuzzer target for the configuration-file readers with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (every UB report aborts, so the fuzzer sees it as a crash).
#
#   build_libfuzzer.sh [--placeholder-if-unavailable] OUTPUT FILE...
#
# FILE... are the sources and headers (only the .cc files are compiled; the headers must be present at
# their repository paths under the current directory, as in Bazel's execroot or the repository root).
# Needs clang++ and the fuzzer runtime (Debian 12: apt-get install clang libclang-rt-14-dev). If they are
# missing, the script fails with the reason; with --placeholder-if-unavailable it writes instead a
# two-line script to OUTPUT that prints the reason and exits 77, so that the Bazel test built on it can
# report itself skipped (//reference/io/fuzz:gauge_file_libfuzzer_short_run_test) rather than break the build.
set -euo pipefail

placeholder=0
if [[ "${1:-}" == "--placeholder-if-unavailable" ]]; then placeholder=1; shift; fi
(($# >= 2)) || { echo "usage: $0 [--placeholder-if-unavailable] OUTPUT FILE..." >&2; exit 2; }
output="$1"; shift

sources=()
for file in "$@"; do [[ "$file" == *.cc ]] && sources+=("$file"); done

unavailable() {
  if ((placeholder)); then
    printf '#!/bin/sh\necho "libFuzzer unavailable when this was built: %s" >&2\nexit 77\n' "$1" > "$output"
    chmod +x "$output"
    echo "build_libfuzzer: $1; wrote a placeholder that exits 77" >&2
    exit 0
  fi
  echo "build_libfuzzer: $1" >&2
  exit 1
}

command -v clang++ >/dev/null || unavailable "no clang++ (apt-get install clang libclang-rt-14-dev)"
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n' \
  > "$probe_dir/probe.cc"
clang++ -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cc" -o "$probe_dir/probe" 2> "$probe_dir/log" ||
  unavailable "clang++ cannot link -fsanitize=fuzzer,address,undefined (apt-get install libclang-rt-14-dev): $(head -c 300 "$probe_dir/log")"

# -O1 -g: the sanitizers' recommended setting (usable stack traces, most of the speed).
clang++ -std=c++17 -O1 -g -I. -isystem /usr/include/eigen3 -Wall -Wextra -Wno-sign-compare \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "${sources[@]}" -o "$output"
