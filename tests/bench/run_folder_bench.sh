#!/usr/bin/env bash
# Folder import on every core (issue 34): a generated job of RANKS files (SIZE_MB in all) imported
# on one thread, then on one per core (and on THREADS if given), in the same run; prints each
# bench_import line and the speed-up. Traces are generated at benchmark time into a temporary
# folder, removed at the end.
# Usage: tests/bench/run_folder_bench.sh [BUILD_DIR] [SIZE_MB] [RANKS] [THREADS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
size_mb="${2:-1024}"
ranks="${3:-16}"
threads="${4:-$(nproc)}"
rounds="${5:-3}"
bench="$build/tests/bench/bench_import"
gen="$build/tests/bench/grademl-tracegen"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$gen" --out "$work/job" --ranks "$ranks" --target-mb $((size_mb / ranks > 0 ? size_mb / ranks : 1)) > /dev/null
sync # the generator's dirty pages are its cost, not the import's
echo "== ${ranks} files, $(du -sm "$work/job" | cut -f1) MB, $(nproc) cores"
secs() { sed -n 's/.* \([0-9.]*\) s .*MB\/s.*/\1/p' "$1" | head -1; }
ratios=()
for round in $(seq 1 "$rounds"); do
  "$bench" --label "1 thread" --threads 1 --project "$work/one.grademl" "$work/job" | tee "$work/one.txt"
  rm -f "$work"/one.grademl*
  "$bench" --label "$threads threads" --threads "$threads" --project "$work/all.grademl" "$work/job" | tee "$work/all.txt"
  rm -f "$work"/all.grademl*
  line="$(awk -v a="$(secs "$work/one.txt")" -v b="$(secs "$work/all.txt")" \
    'BEGIN { printf "%.2f %.2f %.2f", a / b, a, b }')"
  ratios+=("$line")
  read -r r a b <<< "$line"
  echo "round $round: speed-up on $threads threads: ${r}x ($a s -> $b s)"
done
median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }')"
read -r r a b <<< "$median"
echo "speed-up on $threads threads, median of $rounds rounds: ${r}x ($a s -> $b s)"
