#!/usr/bin/env bash
# Batch scaling over GPUs (issues 18 and 21): COUNT photos from the Kodak
# size to 8K (--max 4k: to 4K, as scripts/bench_batch.sh --mixed makes
# them), encoded losslessly with --verify and decoded with --verify (not
# with --no-verify), with --devices over the first 1, 2, 4 and 8 GPUs (as
# many as there are), the GPUs' own (--cpu-workers 0). Prints throughput
# (MP/s, files/s), the scaling against one GPU, the files' span (from the
# first file's start to the last file's end, by the batch's --report: the
# run less CUDA's start and end) and its scaling, each GPU's busy share
# (nvidia-smi, 100 ms samples) over the whole command and within the files'
# span (scripts/busy_in_span.py), the host's peak memory, and the run's
# timeline (when every GPU was open, when the last file started, when all
# were done).
# The source: GJ2K_BENCH_PHOTO, an 8-bit RGB PPM of 3840x2160 (the GPU
# machine's .bench/photo4k.ppm), doubled to 7680x4320 for the 8K photos.
# Usage: scripts/bench_gpu_scaling.sh GJ2K [--count N] [--gpus "1 2 4 8"] [--max 4k|8k]
#        [--no-verify] [--jobs-per-gpu K] [--order HOW] [--keep DIR] [--processes]
#        [--one-process]
# (--jobs-per-gpu K: --jobs K times the GPUs, instead of the batch's default;
# --order HOW: the batch's --order (size, spread, name) for every run;
# --processes: for 2 GPUs and more, also one process a GPU at once, each
# shown only its GPU and taking its --shard of the files, timed together;
# --one-process: for 2 GPUs and more, also the batch with --processes 1, all
# its GPUs in one process, where by default it forks a process a GPU)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k= count=140 gpu_counts="1 2 4 8" keep= max=8k verify=--verify per_gpu= processes=0 order=()
one_process=0
while [ $# -gt 0 ]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --gpus) gpu_counts=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --max) max=$2; [[ $max =~ ^(4k|8k)$ ]] || { echo "bench_gpu_scaling: --max 4k or 8k" >&2; exit 2; }; shift 2 ;;
    --no-verify) verify=; shift ;;
    --jobs-per-gpu) per_gpu=$2; shift 2 ;;
    --order) order=(--order "$2"); shift 2 ;;
    --processes) processes=1; shift ;;
    --one-process) one_process=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) gj2k=$1; shift ;;
  esac
done
[ -n "$gj2k" ] || { echo "usage: bench_gpu_scaling.sh GJ2K [--count N] [--gpus LIST]" >&2; exit 2; }
[ -n "${GJ2K_BENCH_PHOTO:-}" ] || { echo "bench_gpu_scaling: set GJ2K_BENCH_PHOTO (a 3840x2160 PPM)" >&2; exit 2; }
runs=1
# CUDA numbers the GPUs in nvidia-smi's order (PCI), so that each GPU's busy
# share is the GPU --devices named
export CUDA_DEVICE_ORDER=PCI_BUS_ID
# shellcheck source=scripts/bench_lib.sh
. "$repo/scripts/bench_lib.sh"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$gpus" -ge 1 ] || { echo "bench_gpu_scaling: no GPU" >&2; exit 1; }
sizes=("768 512" "1024 768" "1920 1080" "2048 1556" "2560 1440" "3840 2160")
if [ "$max" = 8k ]; then
  python3 "$repo/tests/gpu/double_size.py" "$photo" big.ppm
  sizes+=("7680 4320") big_w=7680 big_h=4320
else
  ln -s "$photo" big.ppm
  big_w=3840 big_h=2160
fi
mkdir -p photos
pixels=0
for ((i = 0; i < count; i++)); do
  read -r w h <<<"${sizes[$((i % ${#sizes[@]}))]}"
  x=$(( (i * 137) % (big_w - w + 1) )) y=$(( (i * 71) % (big_h - h + 1) ))
  pnm crop big.ppm "photos/p$(printf %03d "$i").ppm" "$x" "$y" "$w" "$h"
  pixels=$((pixels + w * h))
done
rm big.ppm
mp=$(awk -v p=$pixels 'BEGIN{printf "%.1f", p / 1e6}')
# Each run fills ms[NAME] (the whole command, or "failed"), busy[NAME] (each
# GPU's mean over the command), busy_span[NAME] and span[NAME] (each GPU's
# mean within the files' span, and the span: busy_in_span.py over the run's
# reports), peak[NAME] and timeline[NAME] (the summaries' lines).
declare -A ms busy busy_span peak timeline span
failed=0
# sampling NAME: nvidia-smi's samples into busy-NAME.csv until sampled NAME N
# (timestamps in UTC, as busy_in_span.py reads them)
sampling() {
  TZ=UTC0 nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits \
    -lms 100 >"busy-$1.csv" 2>/dev/null & sampler=$!
}
# sampled NAME N REPORT...: the sampler stopped; busy, busy_span and span of
# the first N GPUs from its samples and the run's reports
sampled() { local name=$1 n=$2 shares length; shift 2
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
  busy[$name]=$(awk -F', *' -v n="$n" '$2 < n {c[$2]++; s[$2]+=$3}
    END{for (g = 0; g < n; g++) printf "%s%.0f", (g ? " " : ""), c[g] ? s[g]/c[g] : 0}' "busy-$name.csv")
  IFS=/ read -r shares length < <(python3 "$repo/scripts/busy_in_span.py" "busy-$name.csv" "$n" "$@" ||
                                  echo '? / ?')
  busy_span[$name]=${shares% } span[$name]=${length# }
}
# run NAME N ARGS...: the batch over the first N GPUs, timed whole
run() { local name=$1 n=$2; shift 2
  local devices; devices=$(seq -s, 0 $((n - 1)))
  local jobs=(); [ -n "$per_gpu" ] && jobs=(--jobs $((per_gpu * n)))
  sampling "$name"
  local s; s=$(date +%s%N)
  # shellcheck disable=SC2086 # $verify: one word or none
  "$gj2k" "$@" --devices "$devices" --cpu-workers 0 $verify "${jobs[@]}" "${order[@]}" \
    --report "report-$name.jsonl" >"summary-$name.txt" 2>&1 ||
    { echo "bench_gpu_scaling: $name failed:" >&2; tail -5 "summary-$name.txt" >&2; failed=1
      ms[$name]=failed; }
  [ "${ms[$name]:-}" = failed ] || ms[$name]=$(( ($(date +%s%N) - s) / 1000000 ))
  sampled "$name" "$n" "report-$name.jsonl"
  peak[$name]=$(sed -n 's/.*peak memory \([0-9]*\) MB.*/\1/p' "summary-$name.txt")
  timeline[$name]=$(sed -n 's/^ *the run: //p' "summary-$name.txt")
}
# split NAME LIKE N ARGS...: N processes at once, process k on GPU k alone
# (its CUDA shown that GPU only) with --shard k+1/N, each with the files at
# once a GPU and the threads a file that the one-process run LIKE chose
# (its summary's "the workers:" line; a process shown one GPU would choose
# by itself otherwise, e.g. 16 decodes at once where one process with two
# GPUs takes 8 a GPU); timed from the first start to the last end
split() { local name=$1 like=$2 n=$3; shift 3
  local workers each threads n_like
  workers=$(sed -n 's/.*the workers: \([0-9]*\) files\{0,1\} at once on \([0-9]*\) GPUs\{0,1\}.*, \([0-9]*\) threads\{0,1\} a file.*/\1 \2 \3/p' \
            "summary-$like.txt")
  read -r each n_like threads <<<"${workers:-0 1 0}"
  each=$(( each / n_like ))
  [ "$each" -ge 1 ] || each=${per_gpu:-8}
  [ "$threads" -ge 1 ] || threads=1
  local jobs=(--jobs "$each" -threads "$threads")
  sampling "$name"
  local s k pids=() bad=0; s=$(date +%s%N)
  for ((k = 0; k < n; k++)); do
    # shellcheck disable=SC2086 # $verify: one word or none
    CUDA_VISIBLE_DEVICES=$k "$gj2k" "$@" --shard $((k + 1))/"$n" --cpu-workers 0 $verify \
      "${jobs[@]}" "${order[@]}" \
      --report "report-$name-$k.jsonl" >"summary-$name-$k.txt" 2>&1 & pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || bad=1; done
  ms[$name]=$(( ($(date +%s%N) - s) / 1000000 ))
  [ $bad = 0 ] || { echo "bench_gpu_scaling: $name failed" >&2; failed=1; ms[$name]=failed; }
  sampled "$name" "$n" $(seq -f "report-$name-%g.jsonl" 0 $((n - 1)))
  timeline[$name]=$(for ((k = 0; k < n; k++)); do sed -n "s/^ *the run: /GPU $k: /p" "summary-$name-$k.txt"; done | paste -sd';')
  peak[$name]=-
}
for n in $gpu_counts; do
  [ "$n" -le "$gpus" ] || continue
  rm -rf enc; run "e$n" "$n" encode -ImgDir photos -o enc
  [ -d batch ] || cp -r enc batch # the codestreams the decodes read
  rm -rf dec; run "d$n" "$n" decode -ImgDir batch -o dec -OutFor ppm
  if [ "$one_process" = 1 ] && [ "$n" -gt 1 ]; then
    rm -rf enc; run "oe$n" "$n" encode -ImgDir photos -o enc --processes 1
    rm -rf dec; run "od$n" "$n" decode -ImgDir batch -o dec -OutFor ppm --processes 1
  fi
  if [ "$processes" = 1 ] && [ "$n" -gt 1 ]; then
    rm -rf enc; split "pe$n" "e$n" "$n" encode -ImgDir photos -o enc
    rm -rf dec; split "pd$n" "d$n" "$n" decode -ImgDir batch -o dec -OutFor ppm
  fi
done
files_per_s() { [ "$1" = failed ] && { echo failed; return; }; awk -v c="$count" -v ms="$1" 'BEGIN{printf "%.1f", c * 1000 / ms}'; }
mps() { [ "$1" = failed ] && { echo failed; return; }; awk -v p=$pixels -v ms="$1" 'BEGIN{printf "%.1f", p / 1e3 / ms}'; }
echo "Batch of $count photos ($mp MP, 768x512 to ${sizes[-1]/ /x}), lossless," \
     "${verify:-no --verify}, --cpu-workers 0,${order[*]:+ ${order[*]},}"
[ -n "${GLIBC_TUNABLES:-}" ] && echo "GLIBC_TUNABLES=$GLIBC_TUNABLES"
[ -n "$per_gpu" ] && echo "--jobs $per_gpu a GPU"
echo "$(nproc) cores, $gpus GPUs ($(nvidia-smi --query-gpu=name --format=csv,noheader | sed -n 1p)); whole commands, one run each."
echo
echo "| GPUs | what | s | MP/s | files/s | scaling vs 1 | files' span s | its scaling | each GPU busy % | busy in the files' span % | peak host MB | the run's timeline |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |"
# row N WHAT KEY: one line of the table, for run KEY (against WHAT's one-GPU run)
row() { local n=$1 label=$2 what=$3 k=$4
  echo "| $n | $label | $(awk -v m="${ms[$k]}" 'BEGIN{if (m ~ /^[0-9]+$/) printf "%.2f", m / 1000; else printf "failed"}') |" \
       "$(mps "${ms[$k]}") | $(files_per_s "${ms[$k]}") | $(ratio "${ms[${what}1]:-}" "${ms[$k]}") |" \
       "${span[$k]:-?} | $(ratio "${span[${what}1]:-}" "${span[$k]:-}") |" \
       "${busy[$k]:-?} | ${busy_span[$k]:-?} | ${peak[$k]:-?} | ${timeline[$k]:-?} |"
}
for n in $gpu_counts; do
  [ "$n" -le "$gpus" ] || continue
  for what in e d; do
    label=$([ $what = e ] && echo encode || echo decode)
    row "$n" "$label" "$what" "$what$n"
    [ -z "${ms[o$what$n]:-}" ] || row "$n" "$label, --processes 1" "$what" "o$what$n"
    [ -z "${ms[p$what$n]:-}" ] || row "$n" "$label, a process a GPU by --shard" "$what" "p$what$n"
  done
done
echo
echo "Stages summed over the files (the batch's own summary):"
for n in $gpu_counts; do
  [ "$n" -le "$gpus" ] || continue
  for what in e d; do
    for k in "$what$n" "o$what$n"; do
      [ -f "summary-$k.txt" ] || continue
      echo "- $k: $(grep -E 'files on a GPU' "summary-$k.txt" | sed 's/^ *//')"
      echo "  $(grep -E '^ *the (workers|process):' "summary-$k.txt" | sed 's/^ *//' | paste -sd' ')"
    done
  done
done
if [ -n "$keep" ]; then
  rm -rf "$keep"; mkdir -p "$keep"; mv photos batch summary-*.txt report-*.jsonl busy-*.csv "$keep"/
fi
exit "$failed" # a failed batch (a --verify failure included) fails the benchmark
