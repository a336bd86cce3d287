#!/usr/bin/env bash
# Makes the ignored folders that tests/gpu/run.sh uses when they are carried
# to the GPU machine (which has no network and no ../shared):
#   .bench/              source.ppm (../shared/images/Bretagne1.ppm); run.sh
#                        makes photo4k.ppm from it (scripts/pnm_tool.py tile)
#                        and the photo's lossless and -I -r 20 codestreams
#   .conformance-input/  the T.803 codestreams (../shared/conformance/input)
#   .nvjpeg2k/           nvidia-nvjpeg2k-cu13 from the Python registry: include/, lib/
#   .peers/              OpenJPEG, Grok and OpenJPH (../shared/tools/peers.sh)
#   .pywheels/           numpy and pytest wheels for the machine's Python 3.12,
#                        for the Python package's tests there
# Usage, from the repository root, after a build:  bash tests/gpu/prepare.sh [GJ2K]
# The carry limit is 64 MiB: the five take some 52.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=../shared
gj2k=${1:-}
for g in "$gj2k" build/dev/gj2k build/release/gj2k; do
  [ -n "$g" ] && [ -x "$g" ] && { gj2k=$g; break; }
done
[ -x "$gj2k" ] || { echo "prepare: build gj2k first (build/dev or build/release)"; exit 1; }

if [ ! -f .bench/source.ppm ]; then
  mkdir -p .bench
  rm -f .bench/photo4k.ppm  # run.sh makes it from source.ppm on the GPU machine
  cp "$shared/images/Bretagne1.ppm" .bench/source.ppm
fi

if [ ! -d .conformance-input ]; then
  mkdir -p .conformance-input
  cp "$shared"/conformance/input/* .conformance-input/
fi

if [ ! -f .nvjpeg2k/include/nvjpeg2k.h ]; then
  wheel=$(mktemp -d)
  python3 -m pip download --quiet --no-deps nvidia-nvjpeg2k-cu13 -d "$wheel"
  python3 -m zipfile -e "$wheel"/*.whl "$wheel/x"
  rm -rf .nvjpeg2k
  cp -r "$wheel/x/nvidia/nvjpeg2k" .nvjpeg2k
  rm -rf "$wheel"
fi

[ -f .peers/env.sh ] || bash "$shared/tools/peers.sh" .peers

if ! ls .pywheels/numpy-*.whl >/dev/null 2>&1; then
  mkdir -p .pywheels
  python3 -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 numpy pytest -d .pywheels
fi
du -sh .bench .conformance-input .nvjpeg2k .peers .pywheels
