#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 56's kill -9 storm: shard imports and merges killed at random moments, N times each.
# After every kill: the shards already in place and the cluster project already there are
# byte for byte what they were (nothing replaced half-written), what is at the output's place
# is a whole project (PRAGMA quick_check ok) or nothing, and the next merge of the complete
# shards succeeds and refuses any leftover .partial given to it. Prints the tally.
#
#   killstorm.sh GRADEML GRADEML_TRACEGEN [KILLS=12]
set -euo pipefail
GRADEML=$(readlink -f "$1")
TRACEGEN=$(readlink -f "$2")
KILLS=${3:-12}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/killstorm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
"$TRACEGEN" --out job --ranks 8 --steps 40 > /dev/null
for i in 0 1 2 3; do
  "$GRADEML" import job --project "shard-$i-of-4.grademl" --shard "$i/4" --quiet > /dev/null
done
"$GRADEML" merge cluster.grademl shard-{0..3}-of-4.grademl > /dev/null
sums() { sha256sum shard-*-of-4.grademl cluster.grademl; }
before=$(sums)
check() { # a whole project or nothing at $1
  [ ! -e "$1" ] && return 0
  [ "$("$GRADEML" query "$1" 'PRAGMA quick_check' 2>/dev/null | tail -1)" = ok ]
}
killed=0; finished=0
for round in $(seq 1 "$KILLS"); do
  # A merge over the cluster project, killed after 0-60 ms.
  delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 60) / 1000 }')
  "$GRADEML" merge cluster.grademl shard-{0..3}-of-4.grademl > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); else finished=$((finished + 1)); fi
  wait "$pid" 2>/dev/null || true
  check cluster.grademl || { echo "FAIL: round $round: cluster.grademl is not whole after a killed merge"; exit 1; }
  # A shard import to a new place, killed after 0-200 ms: the shards in place are untouched.
  delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % 200) / 1000 }')
  "$GRADEML" import job --project retry.grademl --shard 1/4 --quiet > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); else finished=$((finished + 1)); fi
  wait "$pid" 2>/dev/null || true
  check retry.grademl || { echo "FAIL: round $round: retry.grademl is not whole after a killed shard import"; exit 1; }
  rm -f retry.grademl
done
# The merge's output was rewritten whole or kept; the shards never changed.
[ "$(sha256sum shard-*-of-4.grademl)" = "$(grep shard- <<<"$before")" ] || { echo "FAIL: a shard changed"; exit 1; }
"$GRADEML" merge cluster.grademl shard-{0..3}-of-4.grademl > /dev/null
check cluster.grademl || { echo "FAIL: the last merge is not whole"; exit 1; }
# A .partial left by a killed shard import is refused by merge, named.
if [ -e retry.grademl.partial ]; then
  if "$GRADEML" merge other.grademl shard-0-of-4.grademl retry.grademl.partial shard-2-of-4.grademl shard-3-of-4.grademl 2> err.txt; then
    echo "FAIL: a .partial merged"; exit 1
  fi
  grep -q "unfinished shard" err.txt || { echo "FAIL: the .partial is not named: $(cat err.txt)"; exit 1; }
fi
echo "kill storm: $killed processes killed, $finished finished first; every shard intact, every output whole"
