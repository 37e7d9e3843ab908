#!/usr/bin/env bash
# Recorder overhead: a CPU-bound job (a shell counting loop, one core) run alone and under
# `grademl record` at --interval, alternately, REPEAT times each. Prints each run's wall time,
# the median ratio recorded/alone (the job's slowdown), and the recorder's own cost from each
# grademl.json: its CPU as a % of one core, its peak RSS and its proportional set size (PSS:
# shared libraries counted by share). Also a long idle recording (`sleep`), where the
# recorder's per-sample cost dominates its start-up.
# Usage: tests/bench/run_record_bench.sh [BUILD_DIR] [LOOP_COUNT] [REPEAT] [INTERVAL]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
count="${2:-3000000}"
repeat="${3:-5}"
interval="${4:-100ms}"
grademl="$build/app/grademl"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
job=(sh -c "i=0; while [ \$i -lt $count ]; do i=\$((i+1)); done")

now() { date +%s.%N; }
overhead() { # the recorder's figures from a grademl.json
  python3 - "$1" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["recorder"]["overhead"]
print("recorder %.2f%% of one core, peak RSS %.1f MiB, PSS %.1f MiB, %d samples"
      % (o["cpu_percent_of_one_core"], o["peak_rss_mib"], o.get("pss_mib", -1), o["samples"]))
PY
}

alone=() recorded=()
for k in $(seq 1 "$repeat"); do
  t0=$(now); "${job[@]}"; t1=$(now)
  alone+=("$(awk "BEGIN {print $t1 - $t0}")")
  t0=$(now); "$grademl" record --out "$work/r$k" --interval "$interval" -- "${job[@]}" 2>/dev/null; t1=$(now)
  recorded+=("$(awk "BEGIN {print $t1 - $t0}")")
  echo "run $k: alone ${alone[-1]} s, recorded ${recorded[-1]} s; $(overhead "$work/r$k/grademl.json")"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ma=$(median "${alone[@]}") mr=$(median "${recorded[@]}")
echo "median: alone $ma s, recorded $mr s, ratio $(awk "BEGIN {printf \"%.4f\", $mr / $ma}")"
"$grademl" record --out "$work/idle" --interval "$interval" -- sleep 20 2>/dev/null
echo "idle 20 s: $(overhead "$work/idle/grademl.json")"
