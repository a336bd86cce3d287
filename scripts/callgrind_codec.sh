#!/usr/bin/env bash
# Instruction counts (callgrind, which load does not change) of gj2k
# encoding and decoding a Kodak-size photo (../shared/images/Bretagne1.ppm,
# 640x480 RGB) on the CPU with one thread, lossless and -I -r 20: the CPU
# path's cost before and after a change.
# Usage: scripts/callgrind_codec.sh [GJ2K_BINARY]   (default build/dev/gj2k)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k=${1:-$repo/build/dev/gj2k}
shared=${GJ2K_SHARED_DIR:-$repo/../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$shared/images/Bretagne1.ppm" "$work/kodak.ppm"
count() { # label, then the gj2k arguments
  local label=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$gj2k" "$@" >/dev/null 2>"$work/cg.err"
  printf '%-24s %15s\n' "$label" "$(grep -o 'refs: *[0-9,]*' "$work/cg.err" | tr -dc '0-9')"
}
printf '%-24s %15s\n' "callgrind (-threads 1)" "instructions"
count "encode lossless" encode -i "$work/kodak.ppm" -o "$work/lossless.j2k" --device cpu -threads 1
count "decode lossless" decode -i "$work/lossless.j2k" -o "$work/out.ppm" --device cpu -threads 1
count "encode -I -r 20" encode -i "$work/kodak.ppm" -o "$work/lossy.j2k" -I -r 20 --device cpu -threads 1
count "decode -I -r 20" decode -i "$work/lossy.j2k" -o "$work/out.ppm" --device cpu -threads 1
