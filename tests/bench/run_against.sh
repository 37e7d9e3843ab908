#!/usr/bin/env bash
# One build against another in the same minutes (issue 74): each round runs the base, then the
# head, on the same inputs, and prints one line per measurement.
#  - bench_import --threads 1 on each FILE given (import MB/s, peak RSS);
#  - generated rank folders (node-sized device lists; RANKS, default "256 1024 4096"), each
#    imported with `grademl import DIR --project P --quiet` on the default threads and then
#    `grademl analyze P --json`, both under /usr/bin/time (seconds, peak KB).
# A build folder is one with app/grademl and tests/bench/bench_import (an older commit can be
# built with `cmake --build build/release --target grademl bench_import`). The folders are
# generated at benchmark time by the head's grademl-tracegen into a temporary folder, removed
# at the end.
# Usage: tests/bench/run_against.sh BASE_BUILD HEAD_BUILD [ROUNDS] [FILE...]
#        RANKS="256 1024" tests/bench/run_against.sh ...
set -euo pipefail
base=${1:?base build folder}
head=${2:?head build folder}
rounds=${3:-2}
shift $(($# < 3 ? $# : 3))
ranks=${RANKS:-256 1024 4096}
for b in "$base" "$head"; do
    for tool in app/grademl tests/bench/bench_import; do
        [ -x "$b/$tool" ] || { echo "run_against.sh: $b/$tool is missing" >&2; exit 2; }
    done
done
[ -x "$head/tests/bench/grademl-tracegen" ] || {
    echo "run_against.sh: $head/tests/bench/grademl-tracegen is missing" >&2
    exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $ranks; do
    "$head/tests/bench/grademl-tracegen" --out "$work/g$r" --ranks "$r" --steps 2 --layers 2 \
        > /dev/null
done
for round in $(seq 1 "$rounds"); do
    for f in "$@"; do
        for side in base head; do
            b=$base
            [ $side = head ] && b=$head
            line=$("$b/tests/bench/bench_import" --threads 1 "$f" 2>&1 | grep "events/s" | head -1)
            echo "round $round $side $(basename "$f"): $(echo "$line" |
                awk '{print $4, "s,", $6, "MB/s,"}') $(echo "$line" | grep -o 'peak RSS *[0-9.]* MiB')"
        done
    done
    for r in $ranks; do
        for side in base head; do
            b=$base
            [ $side = head ] && b=$head
            rm -f "$work/p.grademl"*
            /usr/bin/time -f "round $round $side import $r ranks: %e s, %M KB" \
                "$b/app/grademl" import "$work/g$r" --project "$work/p.grademl" --quiet 2>&1 |
                tail -1
            /usr/bin/time -f "round $round $side analyze $r ranks: %e s, %M KB" \
                "$b/app/grademl" analyze "$work/p.grademl" --json 2>&1 > /dev/null | tail -1
        done
    done
done
