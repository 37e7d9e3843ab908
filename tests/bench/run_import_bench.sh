#!/usr/bin/env bash
# Import benchmark: (a) every real trace in ../shared/traces/pytorch_kineto, (b) a generated
# Kineto-like trace of about 1 GB. For each: MB/s, events/s, peak RSS, and in the same run the
# time `python3 -c 'import json; json.load(open(F))'` takes on the same (decompressed) file.
# Usage: tests/bench/run_import_bench.sh [BUILD_DIR] [SIZE_MB]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
size_mb="${2:-1100}"
bench="$build/tests/bench/bench_import"
gen="$build/tests/bench/grademl-tracegen"
shared="$root/../shared/traces/pytorch_kineto"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

pyload() { # seconds python's json.load takes on a (possibly gzipped) file
  python3 - "$1" <<'PY'
import gzip, json, sys, time
f = sys.argv[1]
op = gzip.open if open(f, 'rb').read(2) == b'\x1f\x8b' else open
t = time.perf_counter(); json.load(op(f, 'rb')); print(f"{time.perf_counter() - t:.2f}")
PY
}

echo "== real Kineto traces ($shared)"
if [ -d "$shared" ]; then
  for d in "$shared"/*/; do
    "$bench" --label "$(basename "$d")" "$d"
  done
  "$bench" --label "all kineto together" "$shared"
else
  echo "skipped: $shared not found"
fi

echo "== generated trace (~${size_mb} MB, 1 rank)"
"$gen" --out "$work" --ranks 1 --target-mb "$size_mb" --layers 24
# The generator leaves about a GB of dirty pages; without this the import below would compete
# with their writeback to disk, which is the generator's cost, not the import's.
sync
f="$work/rank0.pt.trace.json"
ls -l "$f"
"$bench" --label "generated" --project "$work/gen.grademl" "$f"
echo "python3 json.load on the same file: $(pyload "$f") s"
ls -l "$work/gen.grademl"
