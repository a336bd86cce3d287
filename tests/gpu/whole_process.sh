#!/usr/bin/env bash
# Whole-process times (a fresh process each run, best of 5) of gj2k encoding
# and decoding on the CPU and on the GPU (and of Grok, when carried): the .bench 4K photo (3840x2160 RGB,
# .bench/photo4k.ppm) and an 8K mosaic of it (7680x4320) made here; the
# costs --device auto weighs. Usage on the GPU machine, after a build in
# build/gpu:  bash tests/gpu/whole_process.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
G=build/gpu/gj2k
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -f .bench/photo4k.ppm ] || { echo "whole_process: no .bench/photo4k.ppm"; exit 1; }
# The 8K mosaic: each row of the 4K photo twice, each row twice.
python3 tests/gpu/double_size.py .bench/photo4k.ppm "$work/photo8k.ppm"
# Grok beside them when it was carried (../shared/tools/peers.sh .peers), on all cores.
grk=false
if [ -f .peers/env.sh ]; then . .peers/env.sh; command -v grk_compress >/dev/null && grk=true; fi
jobs=$(nproc)
best() { local b=; for i in 1 2 3 4 5; do local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo failed; return; }; e=$(date +%s%N)
         local t=$(( (e - s) / 1000000 )); [ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t; done; echo "$b"; }
for image in .bench/photo4k.ppm "$work/photo8k.ppm"; do
  name=$(basename "$image" .ppm)
  for mode in lossless lossy; do
    flags=(); [ "$mode" = lossy ] && flags=(-I -r 20)
    printf '%-9s encode %-8s cpu %5s ms  gpu %5s ms  auto %5s ms  grk %5s ms\n' "$name" "$mode" \
      "$(best $G encode -i "$image" -o "$work/c.j2k" "${flags[@]}" --device cpu)" \
      "$(best $G encode -i "$image" -o "$work/g.j2k" "${flags[@]}" --device gpu)" \
      "$(best $G encode -i "$image" -o "$work/a.j2k" "${flags[@]}")" \
      "$($grk && best grk_compress -i "$image" -o "$work/k.j2k" "${flags[@]}" -H "$jobs" || echo -)"
    cmp -s "$work/c.j2k" "$work/g.j2k" || echo "$name $mode: GPU AND CPU CODESTREAMS DIFFER"
    printf '%-9s decode %-8s cpu %5s ms  gpu %5s ms  auto %5s ms  grk %5s ms\n' "$name" "$mode" \
      "$(best $G decode -i "$work/c.j2k" -o "$work/c.ppm" --device cpu)" \
      "$(best $G decode -i "$work/c.j2k" -o "$work/g.ppm" --device gpu)" \
      "$(best $G decode -i "$work/c.j2k" -o "$work/a.ppm")" \
      "$($grk && best grk_decompress -i "$work/c.j2k" -o "$work/k.ppm" -H "$jobs" || echo -)"
    cmp -s "$work/c.ppm" "$work/g.ppm" || echo "$name $mode: GPU AND CPU IMAGES DIFFER"
  done
  $G encode -i "$image" -o "$work/g.j2k" --device gpu -v | grep -E "stages|opening" | sed "s/^/$name gpu lossless: /"
done
