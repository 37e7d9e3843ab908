#!/usr/bin/env bash
# Every CLI command's output on the shared traces, one file per command, so that a change meant
# to move code and change nothing can show it did not (issue 53): run it with the build before
# and the build after into two folders, then `diff -r` them.
#
# Each trace family of ../shared/traces is imported into a project of its own, and a generated
# 8-rank job is imported in two shards and merged. The read-only commands then run on every run
# of every project; commands that write (note, simulate, align --offset) run on a copy. Figures
# are exported as SVG and PNG and kept as files. Wall times printed by import and merge ("in
# 0.49 s") are the only thing masked.
#
# Imports run with --jobs 1, so slice ids are the same at every run. Projects of a newer
# schema cannot be opened by an older build: each build imports its own.
#
# Usage: tests/tools/cli_outputs.sh BUILD_DIR OUT_DIR [TRACES_DIR]
#   tests/tools/cli_outputs.sh /tmp/base-build /tmp/out-base && \
#   tests/tools/cli_outputs.sh build/release /tmp/out-head && diff -r /tmp/out-base /tmp/out-head
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build="$(cd "$1" && pwd)"
out="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
traces="${3:-$root/../shared/traces}"
[ -d "$traces" ] || { echo "cli_outputs.sh: no traces at $traces" >&2; exit 2; }
traces="$(cd "$traces" && pwd)"
G="$build/app/grademl"
gen="$build/tests/bench/grademl-tracegen"
[ -x "$G" ] || { echo "cli_outputs.sh: no grademl in $build/app" >&2; exit 2; }
export QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 TZ=UTC

rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# Projects live at the same path for every build, since outputs name them.
work="${TMPDIR:-/tmp}/grademl-cli-outputs"
rm -rf "$work"
mkdir -p "$work"
mkdir -p "$work/fig"
cd "$work" || exit 2

mask() { sed -E 's/ in [0-9]+\.[0-9]+ s\b/ in T s/g; s/computed in [0-9]+\.[0-9]+ s/computed in T s/g'; }
# run NAME CMD...: stdout, stderr and the exit status of one command, in OUT/NAME
run() {
  local name="$1"; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "exit $?" >>"$out/$name.out"
  sed -i '/XDG_RUNTIME_DIR/d' "$out/$name.err"
  # Wall times ("headline metrics of 3 runs computed in 0.01 s") are not outputs.
  sed -i -E 's/computed in [0-9]+\.[0-9]+ s/computed in T s/g' "$out/$name.err"
}
safe() { echo "$1" | tr '/ :' '___'; }

runs_of() { # the run names of a project, one per line
  "$G" query "$1" "SELECT name FROM run ORDER BY id" 2>/dev/null | tail -n +2 | sed 's/^"//; s/"$//'
}

project_commands() { # PROJECT TAG
  local p="$1" tag="$2" r s first="" second=""
  run "$tag.info" "$G" info "$p"
  run "$tag.info-json" "$G" info "$p" --json
  run "$tag.runs" "$G" runs "$p"
  run "$tag.runs-json" "$G" runs "$p" --json
  run "$tag.query-tracks" "$G" query "$p" "SELECT kind, count(*) FROM track GROUP BY kind ORDER BY kind"
  run "$tag.query-slices" "$G" query "$p" "SELECT count(*), sum(dur), min(ts), max(ts + dur) FROM slice"
  run "$tag.note-list" "$G" note "$p" list --json
  while IFS= read -r r; do
    [ -n "$r" ] || continue
    [ -z "$first" ] && first="$r" || { [ -z "$second" ] && second="$r"; }
    s="$tag.$(safe "$r")"
    run "$s.align" "$G" align "$p" --run "$r"
    run "$s.align-json" "$G" align "$p" --run "$r" --json
    run "$s.analyze" "$G" analyze "$p" --run "$r"
    run "$s.analyze-json" "$G" analyze "$p" --run "$r" --json
    run "$s.whatif" "$G" whatif "$p" --run "$r"
    run "$s.whatif-json" "$G" whatif "$p" --run "$r" --json --scale '.*gemm.*=0.5'
    run "$s.validate" "$G" validate "$p" --run "$r" --against "$r" --json
    for level in workflow step iteration phase scope operator gpu; do
      run "$s.graph-$level" "$G" graph "$p" --run "$r" --level "$level" --json
    done
    run "$s.graph-dot" "$G" graph "$p" --run "$r" --dot
    run "$s.flame" "$G" flame "$p" --run "$r"
    run "$s.flame-gpu" "$G" flame "$p" --run "$r" --gpu --format json
    run "$s.export-timeline-svg" "$G" export "$p" --view timeline --run "$r" --out "$work/fig/$s.timeline.svg" --size 1366x768
    run "$s.export-timeline-png" "$G" export "$p" --view timeline --run "$r" --out "$work/fig/$s.timeline.png" --size 1366x768
    run "$s.export-graph" "$G" export "$p" --view graph --run "$r" --out "$work/fig/$s.graph.svg"
    run "$s.export-analysis" "$G" export "$p" --view analysis --run "$r" --out "$work/fig/$s.analysis.svg"
  done < <(runs_of "$p")
  if [ -n "$second" ]; then
    run "$tag.compare" "$G" compare "$p" "$first" "$second"
    run "$tag.compare-json" "$G" compare "$p" "$first" "$second" --json
    run "$tag.export-compare" "$G" export "$p" --view compare --runs "$first,$second" --out "$work/fig/$tag.compare.svg"
  fi
  if [ -n "$first" ]; then
    cp "$p" "$work/w.grademl"
    run "$tag.note-add" "$G" note "$work/w.grademl" add --at 1000 --text "a note" --run "$first"
    run "$tag.note-after" "$G" note "$work/w.grademl" list
    run "$tag.align-offset" "$G" align "$work/w.grademl" --run "$first" --source rank:0 --offset 1ms
    run "$tag.align-after" "$G" align "$work/w.grademl" --run "$first" --json
    run "$tag.simulate-run" "$G" simulate "$work/w.grademl" --from-run "$first" --workers 4 --json
    run "$tag.simulate-model" "$G" simulate "$work/w.grademl" --model resnet50 --sweep workers=1,2,4
    run "$tag.export-simulate" "$G" export "$work/w.grademl" --view simulate --out "$work/fig/$tag.simulate.svg"
    run "$tag.runs-after" "$G" runs "$work/w.grademl" --json
    rm -f "$work"/w.grademl*
  fi
}

for family in "$traces"/*/; do
  tag="$(basename "$family")"
  "$G" import "$family" --project "$work/$tag.grademl" --jobs 1 2>&1 | mask >"$out/$tag.import.out"
  echo "exit ${PIPESTATUS[0]}" >>"$out/$tag.import.out"
  sed -i '/XDG_RUNTIME_DIR/d' "$out/$tag.import.out"
  project_commands "$work/$tag.grademl" "$tag"
done

if [ -x "$gen" ]; then
  "$gen" --out "$work/job" --ranks 8 --steps 3 >/dev/null 2>&1
  for i in 0 1; do
    "$G" import "$work/job" --project "$work/shard$i.grademl" --shard "$i/2" --jobs 1 2>&1 | mask >"$out/job.shard$i.out"
  done
  "$G" merge "$work/cluster.grademl" "$work/shard0.grademl" "$work/shard1.grademl" 2>&1 | mask >"$out/job.merge.out"
  run job.cluster.info "$G" info "$work/cluster.grademl"
  run job.cluster.analyze "$G" analyze "$work/cluster.grademl" --json
  run job.cluster.analyze-rank "$G" analyze "$work/cluster.grademl" --rank 5
  run job.cluster.flame "$G" flame "$work/cluster.grademl" --rank 3
  run job.cluster.export-timeline "$G" export "$work/cluster.grademl" --view timeline --out "$work/fig/job.cluster.timeline.svg"
  run job.cluster.export-graph "$G" export "$work/cluster.grademl" --view graph --rank 2 --out "$work/fig/job.cluster.graph.svg"
  "$G" import "$work/job" --project "$work/job.grademl" --jobs 1 2>&1 | mask >"$out/job.import.out"
  project_commands "$work/job.grademl" job
fi
# Figures are written under WORK/fig (outputs name the path) and kept beside the outputs.
mv "$work"/fig/* "$out"/ 2>/dev/null
echo "$(ls "$out" | wc -l) files in $out"
