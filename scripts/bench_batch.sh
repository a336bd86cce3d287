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
# On a machine with GPUs, how busy each was during gj2k's batches (NVML's
# utilization through nvidia-smi: the share of time a kernel ran, sampled
# every 100 ms); with two or more, gj2k's batch on the first GPU alone too,
# for the scaling (the GPUs' own, with --cpu-workers 0, and with the default
# CPU workers beside them).
# --baseline OLD adds an older gj2k binary's batch (every GPU, and GPU 0
# alone), measured in the same run, for a change's before and after.
# --no-openjpeg leaves OpenJPEG out (its batch is the slowest by far);
# --no-loop the per-file loop of gj2k; --keep DIR leaves the photos and
# gj2k's batch outputs in DIR (photos/, batch/) for a later look.
# Usage: scripts/bench_batch.sh [GJ2K] [--count N] [--mixed] [--runs N] [--device D] [--no-openjpeg] [--no-loop] [--keep DIR] [--baseline OLD]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k=$repo/build/dev/gj2k count=24 mixed=0 runs=1 device=auto openjpeg=1 loop=1 keep= baseline=
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --mixed) mixed=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --no-openjpeg) openjpeg=0; shift ;;
    --no-loop) loop=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
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
declare -A t busy
gpus=0
have nvidia-smi && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
# busy NAME COMMAND...: runs the command while nvidia-smi samples every GPU's
# utilization; busy[NAME] is each GPU's mean over the samples ("0: 85%, 1: 80%").
sample_busy() { local name=$1; shift
  if [ "$gpus" = 0 ]; then "$@"; return; fi
  nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 100 \
    >"busy-$name.csv" 2>/dev/null & local sampler=$!
  "$@"; local rc=$?
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  busy[$name]=$(awk -F', *' '{n[$1]++; s[$1]+=$2} END{for (g in n) printf "%s%s: %.0f%%", (k++ ? ", " : ""), g, s[g]/n[g]}' \
    "busy-$name.csv")
  return $rc; }
sample_busy encode eval 't[g_e]=$(timed batch "$gj2k" encode -ImgDir photos -o batch --device "$device" -quiet)'
sample_busy decode eval 't[g_d]=$(timed batchd "$gj2k" decode -ImgDir batch -o batchd -OutFor ppm --device "$device" -quiet)'
t[1_e]=– t[1_d]=–
t[0_e]=– t[0_d]=– t[10_e]=– t[10_d]=–
if [ "$gpus" -ge 2 ]; then # the scaling: the first GPU alone
  sample_busy encode1 eval 't[1_e]=$(timed batch1 "$gj2k" encode -ImgDir photos -o batch1 --device "$device" --devices 0 -quiet)'
  sample_busy decode1 eval 't[1_d]=$(timed batchd1 "$gj2k" decode -ImgDir batch -o batchd1 -OutFor ppm --device "$device" --devices 0 -quiet)'
fi
if [ "$gpus" -ge 1 ]; then # the GPUs' own: no CPU workers beside them
  sample_busy encode_gpus eval 't[0_e]=$(timed batch0 "$gj2k" encode -ImgDir photos -o batch0 --device "$device" --cpu-workers 0 -quiet)'
  sample_busy decode_gpus eval 't[0_d]=$(timed batchd0 "$gj2k" decode -ImgDir batch -o batchd0 -OutFor ppm --device "$device" --cpu-workers 0 -quiet)'
fi
if [ "$gpus" -ge 2 ]; then
  sample_busy encode1_gpus eval 't[10_e]=$(timed batch10 "$gj2k" encode -ImgDir photos -o batch10 --device "$device" --devices 0 --cpu-workers 0 -quiet)'
  sample_busy decode1_gpus eval 't[10_d]=$(timed batchd10 "$gj2k" decode -ImgDir batch -o batchd10 -OutFor ppm --device "$device" --devices 0 --cpu-workers 0 -quiet)'
fi
t[b_e]=– t[b_d]=– t[b1_e]=– t[b1_d]=–
if [ -n "$baseline" ]; then # the same batches by the older binary
  sample_busy base_encode eval 't[b_e]=$(timed based "$baseline" encode -ImgDir photos -o based --device "$device" -quiet)'
  sample_busy base_decode eval 't[b_d]=$(timed basedd "$baseline" decode -ImgDir batch -o basedd -OutFor ppm --device "$device" -quiet)'
  if [ "$gpus" -ge 2 ]; then
    sample_busy base_encode1 eval 't[b1_e]=$(timed based1 "$baseline" encode -ImgDir photos -o based1 --device "$device" --devices 0 -quiet)'
    sample_busy base_decode1 eval 't[b1_d]=$(timed basedd1 "$baseline" decode -ImgDir batch -o basedd1 -OutFor ppm --device "$device" --devices 0 -quiet)'
  fi
fi
t[l_e]=– t[l_d]=–
if [ $loop = 1 ]; then
  t[l_e]=$(timed loop loop_encode)
  t[l_d]=$(timed loopd loop_decode)
fi
t[k_e]=– t[k_d]=– t[o_e]=– t[o_d]=–
if have grk_compress; then
  t[k_e]=$(timed grok grk_compress -y photos -a grok -O j2k -H "$cores")
  t[k_d]=$(timed grokd grk_decompress -y grok -a grokd -O ppm -H "$cores")
fi
if [ $openjpeg = 1 ] && have opj_compress; then
  # opj writes beside its inputs: a copy of the photos, the outputs moved out (in the time)
  cp -r photos opjsrc
  t[o_e]=$(timed opj sh -c "cd opjsrc && opj_compress -ImgDir . -OutFor j2k -threads $cores && mv ./*.j2k ../opj/")
  t[o_d]=$(timed opjd sh -c "cd opj && opj_decompress -ImgDir . -OutFor ppm -threads $cores && mv ./*.ppm ../opjd/")
fi
# every gj2k output decodes to its photo
for f in photos/*.ppm; do
  b=$(basename "${f%.ppm}")
  [ "$(pnm cmp "$f" "batchd/$b.ppm" | sed -n 1p)" = exact ] || { echo "bench_batch: $b did not come back exact" >&2; exit 1; }
done
rate() { [[ $1 =~ ^[0-9]+$ ]] && awk -v p=$pixels -v ms="$1" 'BEGIN{printf "%.1f", p / 1e3 / ms}' || echo –; }
echo "Batch of $count photos ($mp MP$( [ $mixed = 1 ] && echo ', 768x512 to 3840x2160' || echo ', 768x512')), lossless,"
echo "$cores cores, --device $device, best of $runs; MP/s over the whole batch. Goal (GPU machine): gj2k's batch >= 3x Grok's."
echo
echo "| run | encode ms | encode MP/s | decode ms | decode MP/s | encode vs Grok | decode vs Grok |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
rows=("gj2k batch:g")
[ "$gpus" = 1 ] && rows+=("gj2k batch, no CPU workers:0")
if [ "$gpus" -ge 2 ]; then
  rows=("gj2k batch, every GPU ($gpus):g" "gj2k batch, GPU 0 alone:1"
        "gj2k batch, every GPU, no CPU workers:0" "gj2k batch, GPU 0 alone, no CPU workers:10")
fi
if [ -n "$baseline" ]; then
  if [ "$gpus" -ge 2 ]; then rows+=("baseline batch, every GPU:b" "baseline batch, GPU 0 alone:b1")
  else rows+=("baseline batch:b"); fi
fi
rows+=("gj2k one process a file:l" "Grok batch (-y):k" "OpenJPEG batch (-ImgDir):o")
for row in "${rows[@]}"; do
  name=${row%%:*} k=${row##*:}
  echo "| $name | ${t[${k}_e]} | $(rate "${t[${k}_e]}") | ${t[${k}_d]} | $(rate "${t[${k}_d]}") |" \
       "$(ratio "${t[k_e]}" "${t[${k}_e]}") | $(ratio "${t[k_d]}" "${t[${k}_d]}") |"
done
if [ "$gpus" -ge 2 ]; then
  echo
  echo "Scaling over $gpus GPUs against GPU 0 alone, the GPUs' own (no CPU workers): encode $(ratio "${t[10_e]}" "${t[0_e]}"), decode $(ratio "${t[10_d]}" "${t[0_d]}") (goal >= 1.9x for 2)."
  echo "With the default CPU workers beside them: encode $(ratio "${t[1_e]}" "${t[g_e]}"), decode $(ratio "${t[1_d]}" "${t[g_d]}")."
  [ -n "$baseline" ] && echo "The baseline's: encode $(ratio "${t[b1_e]}" "${t[b_e]}"), decode $(ratio "${t[b1_d]}" "${t[b_d]}")."
fi
if [ "$gpus" -ge 1 ]; then
  echo
  echo "GPU busy during gj2k's batch (nvidia-smi utilization, mean of 100 ms samples):"
  for k in encode decode encode1 decode1 encode_gpus decode_gpus encode1_gpus decode1_gpus base_encode base_decode base_encode1 base_decode1; do
    [ -n "${busy[$k]:-}" ] && echo "- $k: ${busy[$k]}"
  done
fi
if [ -n "$keep" ]; then
  rm -rf "$keep"; mkdir -p "$keep"; mv photos batch "$keep"/
fi
