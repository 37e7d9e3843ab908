#!/usr/bin/env bash
# Compares two commits on the same machine in one run, so a regression shows before it lands
# (issue 34). Each commit is built (release preset, ccache when present) in a git worktree
# under WORK, then every command runs with each build alternately, REPEAT times; the script
# prints each run's wall time and peak RSS, the medians, and NEW/BASE ratios (below 1: faster
# or smaller). A command names the build with {build}, e.g. '{build}/app/grademl analyze P.grademl'
# (generate its inputs once with either build first; projects of a newer schema cannot be
# opened by an older build). Each command's output goes to WORK/out-<rev>-<n>.txt.
#
# --target T builds only that target and what it needs (repeatable; e.g. grademl, bench_open):
# minutes less per commit than the whole tree with its tests.
#
# Usage: tests/bench/compare_commits.sh BASE_REV NEW_REV [--repeat N] [--work DIR] [--target T]... -- CMD [CMD...]
#   tests/bench/compare_commits.sh HEAD~3 HEAD --target bench_timeline -- '{build}/tests/bench/bench_timeline --slices 3000000'
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
[ $# -ge 4 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
base="$1"; new="$2"; shift 2
repeat=3
work="${TMPDIR:-/tmp}/grademl-compare"
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --target) targets+=(--target "$2"); shift 2 ;;
    *) echo "compare_commits.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = "--" ] || { echo "compare_commits.sh: expected -- before the commands" >&2; exit 2; }
shift
mkdir -p "$work"
# Paths relative to this folder hash the same in every worktree: ccache hits across commits.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$work}" CCACHE_NOHASHDIR=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

build() { # REV -> the build folder of that commit (built if needed)
  local rev sha tree
  rev="$1"
  sha="$(git -C "$root" rev-parse --verify "$rev^{commit}")"
  tree="$work/tree-${sha:0:12}"
  if [ ! -d "$tree" ]; then
    git -C "$root" worktree add --detach -f "$tree" "$sha" >/dev/null
  fi
  (cd "$tree" && cmake --preset release "${launcher[@]}" >/dev/null && cmake --build --preset release "${targets[@]}" >/dev/null) >&2
  echo "$tree/build/release"
}

echo "building $base and $new (worktrees under $work)" >&2
base_build="$(build "$base")"
new_build="$(build "$new")"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

n=0
for cmd in "$@"; do
  n=$((n + 1))
  echo "== $cmd"
  : > "$work/times-base"; : > "$work/times-new"; : > "$work/rss-base"; : > "$work/rss-new"
  for i in $(seq 1 "$repeat"); do
    for side in base new; do
      b="$base_build"; rev="$base"
      [ "$side" = new ] && { b="$new_build"; rev="$new"; }
      c="${cmd//\{build\}/$b}"
      out="$work/out-$side-$n.txt"
      /usr/bin/time -f '%e %M' -o "$work/time" bash -c "$c" > "$out" 2>&1 || {
        echo "  $side ($rev): the command failed; its output is in $out" >&2; exit 1; }
      read -r wall rss < "$work/time"
      echo "$wall" >> "$work/times-$side"
      echo "$rss" >> "$work/rss-$side"
      awk -v i="$i" -v s="$side" -v r="$rev" -v w="$wall" -v m="$rss" \
        'BEGIN { printf "  run %d %-4s (%s): %6.2f s, peak %7.1f MB\n", i, s, r, w, m / 1024 }'
    done
  done
  bw="$(median < "$work/times-base")"; nw="$(median < "$work/times-new")"
  br="$(median < "$work/rss-base")"; nr="$(median < "$work/rss-new")"
  awk -v bw="$bw" -v nw="$nw" -v br="$br" -v nr="$nr" 'BEGIN {
    printf "  median: base %.2f s %.1f MB, new %.2f s %.1f MB; new/base: time %.2f, memory %.2f\n",
           bw, br / 1024, nw, nr / 1024, (bw > 0 ? nw / bw : 0), (br > 0 ? nr / br : 0) }'
  echo "  last outputs: $work/out-base-$n.txt, $work/out-new-$n.txt"
done
