#!/usr/bin/env bash
# Regenerates the screenshots of docs/images/: the studio at 1920x1080 on the bundled demo and,
# when ../shared/traces is there, on three real traces (copied to a scratch folder first, so
# the shared folder is never written). Usage: bash docs/make-images.sh [BUILD_DIR] [TRACES_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
traces=${2:-$root/../shared/traces}
studio=$build/app/grademl-studio
out=$root/docs/images
[ -x "$studio" ] || { echo "make-images: $studio is not built (cmake --build --preset release)" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

# shot NAME FOLDER [STUDIO OPTIONS...]: a copy of FOLDER opened and rendered to docs/images/NAME.png
shot() {
  local name=$1 folder=$2
  shift 2
  cp -r "$folder" "$scratch/$name"
  rm -rf "$scratch/$name/.grademl"
  "$studio" --screenshot "$out/$name.png" --size 1920x1080 "$@" "$scratch/$name"
  echo "docs/images/$name.png"
}

mkdir -p "$out"
shot demo "$root/resources/demo"
# The Collectives pane on a generated 8-rank job whose rank 5 runs a 20 ms kernel before each
# all-reduce (docs/analysis.md: skew against transfer, busbw against NVLink 3).
"$build/tests/bench/grademl-tracegen" --out "$scratch/collectives-job" --ranks 8 --steps 6 \
  --layers 4 --healthy --collective-mb 100 --link-gbps 200 --late-rank 5 --late-us 20000
shot collectives "$scratch/collectives-job" --panel collectives
if [ -d "$traces" ]; then
  shot param_dlrm_8rank_v100 "$traces/pytorch_kineto/param_dlrm_8rank_v100"
  shot hta_amd_mi250_rocm62 "$traces/pytorch_kineto/hta_amd_mi250_rocm62"
  shot kineto_tbplugin_2021_resnet50_v100 "$traces/pytorch_kineto/kineto_tbplugin_2021_resnet50_v100"
else
  echo "make-images: $traces is absent: only the demo was rendered" >&2
fi
