#!/usr/bin/env bash
# libfuzzer_short_run_test.sh: the short libFuzzer run of `bazel test //...` (issue: the readers are fuzzed
# with a short run in the tests). It runs the real libFuzzer build of gauge_file_fuzzer.cc (clang, ASan,
# UBSan; built by build_libfuzzer.sh through the genrule :build_gauge_file_libfuzzer) for a fixed number of
# executions with a fixed seed, on a fresh corpus: the synthetic seeds (write_fuzz_seeds) and, where
# ../shared is present, the sample configuration files (copied into the test's temporary directory, never
# into the repository). The test passes when libFuzzer exits 0: no crash, no sanitizer report, no
# exception other than GaugeFileError, no broken invariant of FuzzGaugeFileInput, no leak, no input over
# the time or memory limit. A finding fails the test and leaves the reproducer in the test's undeclared
# outputs (bazel-testlogs/reference/io/fuzz/gauge_file_libfuzzer_short_run_test/test.outputs/); replay it
# with `bazel run //reference/io/fuzz:gauge_file_fuzzer_replay -- FILE`.
#
# Arguments: FUZZER SEED_WRITER [FILE...] (FILE: the @shared_gauge_data files, its STATUS among them).
# Where the fuzzer could not be built (no clang++ or no libclang-rt-14-dev when Bazel built it; the
# placeholder exits 77) the test reports itself skipped with the reason, in the test XML.
set -uo pipefail

fuzzer="$1"; seed_writer="$2"; shift 2
runs="${LQCD_FUZZ_RUNS:-20000}"
work="${TEST_TMPDIR:-$(mktemp -d)}/libfuzzer"
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$work}/"
mkdir -p "$work/corpus"

write_skipped_xml() {
  [[ -n "${XML_OUTPUT_FILE:-}" ]] || return 0
  local reason="${1//&/&amp;}"; reason="${reason//</&lt;}"; reason="${reason//>/&gt;}"; reason="${reason//\"/&quot;}"
  cat > "$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" errors="0">
  <testsuite name="GaugeFileLibFuzzer" tests="1" failures="0" errors="0" skipped="1">
    <testcase name="ShortRun" classname="GaugeFileLibFuzzer" result="skipped"><skipped message="$reason"/></testcase>
  </testsuite>
</testsuites>
XML
}

"$fuzzer" -help=1 > "$work/probe.log" 2>&1
if (($? == 77)); then
  reason="$(cat "$work/probe.log")"
  echo "SKIPPED: $reason"
  write_skipped_xml "$reason"
  exit 0
fi

"$seed_writer" "$work/corpus" || { echo "FAILED: write_fuzz_seeds"; exit 1; }
samples=0
for file in "$@"; do
  case "$(basename "$file")" in
    STATUS) echo "sample files: $(cat "$file")" ;;
    *.info | README.md | LICENSE* | .keep) ;;
    *) cp -L "$file" "$work/corpus/" && samples=$((samples + 1)) ;;
  esac
done
echo "corpus: $(ls "$work/corpus" | wc -l) files ($samples sample files)"

# -seed and -runs fix the sequence of inputs (one process, no -jobs); -timeout and -rss_limit_mb turn a
# hang or a memory blow-up into a failure; -max_len covers the largest sample file (8^4 in double, 1.2 MB).
# -max_total_time only caps a pathologically slow machine; reaching it is reported below.
"$fuzzer" -seed=20261125 -runs="$runs" -max_total_time=240 -timeout=10 -rss_limit_mb=2048 -max_len=1300000 \
  -print_final_stats=1 -artifact_prefix="$artifacts" "$work/corpus" > "$work/fuzz.log" 2>&1
status=$?
grep -E "^(INFO: Seed|INFO: *[0-9]+ files found|#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|Done [0-9]+ runs)" "$work/fuzz.log"
executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
if ((status != 0)); then
  echo "FAILED: libFuzzer exited with $status; its log:"
  tail -60 "$work/fuzz.log"
  ls -l "$artifacts" 2>/dev/null
  exit 1
fi
if [[ -z "$executed" ]] || ((executed < runs)); then
  echo "FAILED: libFuzzer stopped after ${executed:-no} executions of $runs (time cap reached?)"
  exit 1
fi
echo "PASSED: $executed executions, no finding"
