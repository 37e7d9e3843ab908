#!/usr/bin/env bash
# Growth benchmark (issue 34): import, open, paint and analyse at growing size and rank count,
# so each can be seen to stay flat or grow no faster than linearly. Traces are generated at
# benchmark time by grademl-tracegen into WORK (default: a temporary folder, removed at the end).
#   size:  one rank of BASE_MB, 4x and 12x that (default BASE_MB 256: 256 MB, 1 GB, 3 GB)
#   ranks: 1, 64, 256 and 1,024 ranks sharing RANK_TOTAL_MB (default 1024)
# Each row: import wall time and peak RSS (`grademl import`, headline metrics included, and
# their own time as the import prints it), the studio's open (`bench_open --child`: first
# complete paint and peak RSS at 1366x768), pan/zoom paint (median and worst of 40 frames),
# and `grademl analyze` (wall time, peak RSS). Ratios are against the first row of each table.
#
# Usage: tests/bench/run_growth_bench.sh [BUILD_DIR] [BASE_MB] [RANK_TOTAL_MB] [WORK]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build/release}"
base_mb="${2:-256}"
rank_total="${3:-1024}"
work="${4:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
gen="$build/tests/bench/grademl-tracegen"
cli="$build/app/grademl"
open="$build/tests/bench/bench_open"

timed() { # OUT_PREFIX CMD... : runs CMD, keeps its output in OUT_PREFIX.out, prints "wall peakMB"
  local prefix="$1"; shift
  /usr/bin/time -f '%e %M' -o "$prefix.time" "$@" > "$prefix.out" 2>&1
  awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$prefix.time"
}

row() { # LABEL DIR
  local label="$1" dir="$2" p="$work/$1.grademl"
  rm -f "$p" "$p-wal" "$p-shm"
  read -r iw im < <(timed "$work/$label-import" "$cli" import "$dir" --project "$p")
  local metrics
  metrics="$(sed -n 's/^headline metrics of .* computed in \([0-9.]*\) s$/\1/p' "$work/$label-import.out")"
  local o
  o="$("$open" --child "$p" paged 1366 768 2>/dev/null | tail -1)"
  read -r aw am < <(timed "$work/$label-analyze" "$cli" analyze "$p")
  # bench_open --child: load open peak pan_med pan_worst complete_med complete_worst end_mb slices
  set -- $o
  printf '%-14s %9s %8s %9s %10s %8s %10s %10s %10s %9s %11s\n' "$label" "$9" "$iw" "$im" "${metrics:-?}" \
    "$2" "$3" "$4" "$5" "$aw" "$am"
}

header() {
  printf '%-14s %9s %8s %9s %10s %8s %10s %10s %10s %9s %11s\n' case slices "import s" "import MB" \
    "metrics s" "open ms" "open MB" "pan med ms" "pan max ms" "analyze s" "analyze MB"
}

echo "== size (1 rank)"
header
for f in 1 4 12; do
  d="$work/size-$f"
  [ -d "$d" ] || "$gen" --out "$d" --ranks 1 --target-mb $((base_mb * f)) > /dev/null
  row "size-${f}x" "$d"
done

echo "== ranks (${rank_total} MB in all)"
header
for r in 1 64 256 1024; do
  d="$work/ranks-$r"
  [ -d "$d" ] || "$gen" --out "$d" --ranks "$r" --target-mb $((rank_total / r > 0 ? rank_total / r : 1)) > /dev/null
  row "ranks-$r" "$d"
done
