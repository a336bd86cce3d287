#!/usr/bin/env bash
# Where a process's fixed CUDA cost goes (issue 18): tests/gpu/cuda_start_cost.cu
# over the first 1, 2, 4 ... visible GPUs, contexts one after the other and at
# once, the process left by exit(), by _exit() and after cudaDeviceReset; each
# whole process timed from outside, with how long it took to end after main
# was done. Then gj2k's own: the probe alone (--version) and one small photo.
# Usage on the GPU machine, after run.sh built build/gpu: bash tests/gpu/start_cost.sh [GJ2K]
set -uo pipefail
cd "$(dirname "$0")/../.."
gj2k=${1:-build/gpu/gj2k}
mkdir -p build/start-cost
probe=build/start-cost/cuda_start_cost
"$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -O2 -std=c++17 -arch=sm_90 tests/gpu/cuda_start_cost.cu -o "$probe" || exit 1
gpus=$(nvidia-smi -L | grep -c '^GPU')
now_ns() { date +%s%N; }
rc=0
for n in 1 2 4 8; do
  [ "$n" -le "$gpus" ] || break
  visible=$(seq -s, 0 $((n - 1)))
  for mode in serial parallel; do
    for end in exit quick reset; do
      s=$(now_ns)
      out=$(CUDA_VISIBLE_DEVICES=$visible "$probe" $mode $end) || { echo "== $n GPU(s), $mode, $end: failed"; rc=1; continue; }
      e=$(now_ns)
      left=$(sed -n 's/^leaving at \([0-9]*\) ns.*/\1/p' <<<"$out")
      [ -n "$left" ] || { echo "== $n GPU(s), $mode, $end: no end time"; rc=1; continue; }
      echo "== $n GPU(s), $mode, $end: whole process $(( (e - s) / 1000000 )) ms, its end after main $(( (e - left) / 1000000 )) ms"
      grep -v '^leaving' <<<"$out" | sed 's/^/   /'
    done
  done
done
# gj2k itself: the probe, and one 768x512 photo on the GPU and on the CPU
if [ -x "$gj2k" ] && [ -f .bench/photo4k.ppm ]; then
  python3 scripts/pnm_tool.py crop .bench/photo4k.ppm build/start-cost/small.ppm 0 0 768 512
  for visible in 0 "$(seq -s, 0 $((gpus - 1)))"; do
    for what in "--version" "encode -i build/start-cost/small.ppm -o build/start-cost/small.j2k --device gpu" \
                "encode -i build/start-cost/small.ppm -o build/start-cost/small.j2k --device cpu"; do
      s=$(now_ns)
      # shellcheck disable=SC2086
      if CUDA_VISIBLE_DEVICES=$visible "$gj2k" $what >/dev/null 2>&1; then
        echo "gj2k $what (GPUs $visible): $(( ($(now_ns) - s) / 1000000 )) ms"
      else
        echo "gj2k $what (GPUs $visible): failed"; rc=1
      fi
    done
  done
fi
exit "$rc"
