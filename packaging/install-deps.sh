#!/usr/bin/env bash
# Installs exactly the Debian 12 packages GradeML Studio needs to build, test and run.
# Idempotent: packages already present are left alone, and apt is not touched at all
# when everything is installed. Nothing is downloaded from outside Debian's archive.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-charts-dev libqt6opengl6-dev
  libqcustomplot-dev
  libsqlite3-dev sqlite3
  libboost-graph-dev
  libsimdjson-dev zlib1g-dev
  libprotobuf-dev protobuf-compiler
  libgl-dev
  qt6-qpa-plugins libqt6svg6 fonts-dejavu-core
  xvfb xauth
  appstream desktop-file-utils shared-mime-info groff-base
  python3 python3-distributed
)

# `install-deps.sh test` adds the browser the tests render `grademl report`'s HTML in (Debian's
# Chromium, headless: tst_report) and xmllint, which validates the gates' JUnit XML (tst_gate).
if [ "${1:-}" = "test" ]; then
  PACKAGES+=(chromium libxml2-utils)
fi
# `install-deps.sh fuzz` adds what the asan preset needs: clang and its libFuzzer runtime.
if [ "${1:-}" = "fuzz" ]; then
  PACKAGES+=(clang libclang-rt-14-dev)
fi
# `install-deps.sh format` adds the pinned formatter .ci/check-format runs.
if [ "${1:-}" = "format" ]; then
  PACKAGES+=(clang-format-14)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
