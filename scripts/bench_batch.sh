#!/usr/bin/env bash
# Batch throughput (issue 18): a directory of photos encoded losslessly and
# decoded back, files on local disk, every codec with all cores:
#   - gj2k's batch (one process, -ImgDir, files several at once),
#   - gj2k one process a file (a shell loop),
#   - Grok's batch (grk_compress -y DIR -a OUT, grk_decompress the same),
#   - OpenJPEG's (opj_compress -ImgDir DIR -OutFor j2k, opj_decompress).
# The photos are crops of one big RGB photo: COUNT of them, 768x512 (the
# Kodak size) by default, or with --mixed sizes from 768x512 up to 4K.
# The source: GJ2K_BENCH_PHOTO (an 8-bit RGB PPM of at least 3840x2160, as
# the GPU machine carries in .bench), else ../shared/images/cinema2k_rgb8.png
# mirrored out to 3840x2160.
# Usage: scripts/bench_batch.sh [GJ2K] [--count N] [--mixed] [--runs N] [--device D]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k=$repo/build/dev/gj2k count=24 mixed=0 runs=1 device=auto
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --mixed) mixed=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) gj2k=$1; shift ;;
  esac
done
# shellcheck source=scripts/bench_lib.sh
. "$repo/scripts/bench_lib.sh"
cores=$(nproc)
if [ -z "$photo" ]; then
  "$gj2k" convert -i "$shared/images/cinema2k_rgb8.png" -o src.ppm >/dev/null
  pnm tile src.ppm big.ppm 3840 2160
  photo=$work/big.ppm
fi
mkdir -p photos
pixels=0
for ((i = 0; i < count; i++)); do
  w=768 h=512
  if [ $mixed = 1 ]; then # Kodak size up to 4K, in six steps
    case $((i % 6)) in
      0) w=768 h=512 ;; 1) w=1024 h=768 ;; 2) w=1920 h=1080 ;;
      3) w=2048 h=1556 ;; 4) w=2560 h=1440 ;; 5) w=3840 h=2160 ;;
    esac
  fi
  x=$(( (i * 137) % (3840 - w + 1) )) y=$(( (i * 71) % (2160 - h + 1) ))
  pnm crop "$photo" "photos/p$(printf %03d "$i").ppm" "$x" "$y" "$w" "$h"
  pixels=$((pixels + w * h))
done
mp=$(awk -v p=$pixels 'BEGIN{printf "%.1f", p / 1e6}')
# The time of a whole command, in ms, best of $runs (a fresh output each run).
timed() { local out=$1; shift; local b='' s t i
  for ((i = 0; i < runs; i++)); do
    rm -rf "$out"; mkdir -p "$out"
    s=$(date +%s%N); "$@" >/dev/null 2>err.txt || { echo fail; sed 's/^/  /' err.txt >&2; return; }
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
  done; echo "$b"; }
loop_encode() { for f in photos/*.ppm; do "$gj2k" encode -i "$f" -o "loop/$(basename "${f%.ppm}").j2k" --device "$device"; done; }
loop_decode() { for f in batch/*.j2k; do "$gj2k" decode -i "$f" -o "loopd/$(basename "${f%.j2k}").ppm" --device "$device"; done; }
declare -A t
t[g_e]=$(timed batch "$gj2k" encode -ImgDir photos -o batch --device "$device" -quiet)
t[g_d]=$(timed batchd "$gj2k" decode -ImgDir batch -o batchd -OutFor ppm --device "$device" -quiet)
t[l_e]=$(timed loop loop_encode)
t[l_d]=$(timed loopd loop_decode)
t[k_e]=– t[k_d]=– t[o_e]=– t[o_d]=–
if have grk_compress; then
  t[k_e]=$(timed grok grk_compress -y photos -a grok -O j2k -H "$cores")
  t[k_d]=$(timed grokd grk_decompress -y grok -a grokd -O ppm -H "$cores")
fi
if have opj_compress; then
  # opj writes beside its inputs: a copy of the photos, the outputs moved out (in the time)
  cp -r photos opjsrc
  t[o_e]=$(timed opj sh -c "cd opjsrc && opj_compress -ImgDir . -OutFor j2k -threads $cores && mv ./*.j2k ../opj/")
  t[o_d]=$(timed opjd sh -c "cd opj && opj_decompress -ImgDir . -OutFor ppm -threads $cores && mv ./*.ppm ../opjd/")
fi
# every gj2k output decodes to its photo
for f in photos/*.ppm; do
  b=$(basename "${f%.ppm}")
  [ "$(pnm cmp "$f" "batchd/$b.ppm" | head -1)" = exact ] || { echo "bench_batch: $b did not come back exact" >&2; exit 1; }
done
rate() { [[ $1 =~ ^[0-9]+$ ]] && awk -v p=$pixels -v ms="$1" 'BEGIN{printf "%.1f", p / 1e3 / ms}' || echo –; }
echo "Batch of $count photos ($mp MP$( [ $mixed = 1 ] && echo ', 768x512 to 3840x2160' || echo ', 768x512')), lossless,"
echo "$cores cores, --device $device, best of $runs; MP/s over the whole batch. Goal (GPU machine): gj2k's batch >= 3x Grok's."
echo
echo "| run | encode ms | encode MP/s | decode ms | decode MP/s | encode vs Grok | decode vs Grok |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for row in "gj2k batch:g" "gj2k one process a file:l" "Grok batch (-y):k" "OpenJPEG batch (-ImgDir):o"; do
  name=${row%%:*} k=${row##*:}
  echo "| $name | ${t[${k}_e]} | $(rate "${t[${k}_e]}") | ${t[${k}_d]} | $(rate "${t[${k}_d]}") |" \
       "$(ratio "${t[k_e]}" "${t[${k}_e]}") | $(ratio "${t[k_d]}" "${t[${k}_d]}") |"
done
