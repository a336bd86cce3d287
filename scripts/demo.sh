#!/usr/bin/env bash
# Sets up, builds and runs gj2k's main job on a sample image it makes itself.
# Today that is: decode JPEG 2000 (lossless and lossy files made from the
# sample by OpenJPEG's opj_compress, until gj2k's own encoder lands), describe
# them, convert the sample through PNG/TIFF/BMP/PGX and back exactly, and time
# decoding and the wavelet stages.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_dependencies.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" >/dev/null
gj2k=build/release/gj2k
work=build/demo
mkdir -p "$work"

# A 768x512 RGB sample: smooth gradients with a sharp-edged pattern (ASCII PPM).
awk 'BEGIN {
  w = 768; h = 512; print "P3"; print w, h; print 255
  for (y = 0; y < h; y++) { line = ""
    for (x = 0; x < w; x++) {
      r = int(128 + 100 * sin(x / 37.0) * cos(y / 53.0)); g = int(255 * y / (h - 1))
      b = ((int(x / 32) + int(y / 32)) % 2) ? 220 : 40
      line = line r " " g " " b " " }
    print line } }' > "$work/sample.ppm"

"$gj2k" --version
"$gj2k" info "$work/sample.ppm"
"$gj2k" convert -i "$work/sample.ppm" -o "$work/reference.ppm"   # binary P6
for ext in png tif bmp; do
  "$gj2k" convert -i "$work/sample.ppm" -o "$work/sample.$ext"
  "$gj2k" convert -i "$work/sample.$ext" -o "$work/back-$ext.ppm"
  cmp -s "$work/reference.ppm" "$work/back-$ext.ppm" && same=identical || same=DIFFERENT
  printf '%-4s %9d bytes, round trip to PPM %s\n' "$ext" "$(stat -c %s "$work/sample.$ext")" "$same"
done
"$gj2k" convert -i "$work/sample.ppm" -o "$work/sample.pgx"   # sample_0.pgx .. sample_2.pgx
ls "$work"/sample_*.pgx

# JPEG 2000: a lossless 5/3 file must decode to the very samples; a lossy 9/7 one closely.
opj_compress -i "$work/sample.ppm" -o "$work/lossless.jp2" >/dev/null
opj_compress -i "$work/sample.ppm" -o "$work/lossy.jp2" -I -r 20 >/dev/null
"$gj2k" info "$work/lossless.jp2" | head -12
for kind in lossless lossy; do
  start=$(date +%s%N)
  "$gj2k" decode -i "$work/$kind.jp2" -o "$work/$kind.ppm"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if cmp -s "$work/reference.ppm" "$work/$kind.ppm"; then same="identical to the original"; else same="not identical (as lossy coding makes it)"; fi
  printf '%-8s %8d bytes, decoded in %4d ms, samples %s\n' "$kind" \
         "$(stat -c %s "$work/$kind.jp2")" "$ms" "$same"
done
"$gj2k" bench -i "$work/lossy.jp2" -n 3
"$gj2k" bench -i "$work/sample.ppm" -l 5 -n 3
