#!/usr/bin/env bash
# The GPU DWT strategies (issue 15) in one device call: builds gj2k and the
# GPU tests with CUDA for Hopper, runs the strategies' test (and the stage's
# kernel tests), compute-sanitizer memcheck and racecheck on a few cases,
# then `gj2k bench dwt --strategy all` with the model, and the CPU's
# vertical-pass methods on every thread against one (`bench dwt --cpu`).
# Usage on the GPU machine:  bash tests/gpu/strategies.sh [BENCH OPTIONS...]
#   (default: --calibrate; tests/gpu/run.sh runs it too).
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=${OUT:-build/gpu-logs}
mkdir -p "$logs"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build/gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGJ2K_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DGJ2K_WERROR=ON >"$logs/configure.txt" 2>&1 \
  || { tail -30 "$logs/configure.txt"; exit 1; }
cmake --build build/gpu -j "$(nproc)" --target gj2k test_gpu_strategies test_gpu_stage \
  >"$logs/build-strategies.txt" 2>&1 || { tail -40 "$logs/build-strategies.txt"; exit 1; }
rc=0
build/gpu/tests/gpu/test_gpu_strategies 2>&1 | tail -6; rc=$((rc | PIPESTATUS[0]))
[ -d .conformance-input ] && export GJ2K_GPU_CODESTREAMS="$PWD/.conformance-input"
for c in forward_matches_cpu inverse_matches_cpu encode_same_bytes decode_conformance_same; do
  build/gpu/tests/gpu/test_gpu_stage "$c" 2>&1 | tail -2; rc=$((rc | PIPESTATUS[0]))
done
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$sanitizer" ]; then
  for tool in memcheck racecheck; do
    GJ2K_GPU_TEST_CASES=3 "$sanitizer" --tool "$tool" --error-exitcode 1 \
      build/gpu/tests/gpu/test_gpu_strategies >"$logs/$tool-strategies.txt" 2>&1
    r=$?; echo "$tool test_gpu_strategies: $([ $r -eq 0 ] && echo clean || echo "FAILED ($r)")"
    rc=$((rc | r))
  done
fi
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--calibrate)
build/gpu/gj2k bench dwt --strategy all "${args[@]}" | tee "$logs/bench-strategies.txt"
rc=$((rc | PIPESTATUS[0]))
build/gpu/gj2k bench dwt --cpu --min 1024 --max 8192 -n 3 | tee "$logs/bench-cpu-dwt.txt"
rc=$((rc | PIPESTATUS[0]))
exit "$rc"
