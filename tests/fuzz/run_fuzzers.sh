#!/usr/bin/env bash
# Runs every libFuzzer target of the asan preset for SECONDS each, on seed corpora generated
# now (grademl-fuzz-seeds), and fails on the first finding. Prints each target's executions
# per second and coverage (libFuzzer's cov/ft counters) from its last status line.
# Usage: tests/fuzz/run_fuzzers.sh [BUILD_DIR=build/asan] [SECONDS=25]
# SPDX-License-Identifier: GPL-3.0-or-later
set -uo pipefail
build=${1:-build/asan}
seconds=${2:-25}
dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/tests/fuzz/grademl-fuzz-seeds" "$work/seeds" || exit 1
# Two targets at a time (or FUZZ_JOBS): each still runs for SECONDS on one core, and a CI
# machine's two cores finish the list in half the time.
jobs=${FUZZ_JOBS:-$(nproc)}
targets=(chrometrace nvidiasmi dmon dcgmi top samples executiontrace chakra xplane nsys slicechunk simjson plan notes follow shardmeta calibration gate shapes)

fuzz_one() { # TARGET: runs it, writing its exit code to TARGET.rc beside its log
  local target=$1
  mkdir -p "$work/corpus/$target" "$work/findings/$target"
  # -rss_limit_mb bounds memory per input; -timeout makes a hang a finding; the ASan/UBSan
  # reports abort the run (asan preset: -fno-sanitize-recover).
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$work/findings/$target/" \
    "$work/corpus/$target" "$work/seeds/$target" > "$work/$target.log" 2>&1
  echo $? > "$work/$target.rc"
}

running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

status=0
passed=0
failed=0
printf '%-16s %10s %8s %8s %8s %s\n' target runs exec/s cov ft result
for target in "${targets[@]}"; do
  log="$work/$target.log"
  rc=$(cat "$work/$target.rc" 2>/dev/null || echo 1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  if [ "$rc" -eq 0 ]; then
    result=ok; passed=$((passed + 1))
  else
    result="FINDING (exit $rc)"; status=1; failed=$((failed + 1))
  fi
  printf '%-16s %10s %8s %8s %8s %s\n' "$target" "${runs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$result"
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==|#[0-9]+ 0x' "$log" | head -40
    for f in "$work/findings/$target"/*; do
      [ -f "$f" ] && { echo "reproducer ($(stat -c %s "$f") bytes, base64):"; head -c 4096 "$f" | base64 | head -20; }
    done
  fi
done
echo "fuzzers: $passed passed, $failed failed"
exit $status
