#!/usr/bin/env bash
# Sets up, builds and runs gj2k's main job on a sample image it makes itself.
# Today that is: read an image, convert it through PNG/TIFF/BMP/PGX and back
# exactly, describe it, and time the wavelet pipeline (forward and inverse,
# reversible and irreversible) on it. JPEG 2000 encode/decode join as they land.
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
"$gj2k" bench -i "$work/sample.ppm" -l 5 -n 3
