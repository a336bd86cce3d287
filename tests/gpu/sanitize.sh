#!/usr/bin/env bash
# compute-sanitizer on small cases of every GPU test: memcheck on the stage, the
# strategy lab, GPU contexts and the page-locked halves, memcheck and racecheck on
# both Tier-1 coders.
# Usage: bash tests/gpu/sanitize.sh BUILD_DIR LOG_DIR   (run.sh calls it)
# One line per run goes to LOG_DIR/memcheck.txt; the exit status is non-zero
# when any run found an error.
set -uo pipefail
build=${1:-build/gpu}
logs=${2:-build/gpu-logs}
mkdir -p "$logs"
: >"$logs/memcheck.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "memcheck: compute-sanitizer not found" | tee "$logs/memcheck.txt"
  exit 1
fi
status=0
# check TOOL CASES BINARY TEST: one sanitizer run, its log kept, a line printed
check() {
  local tool=$1 cases=$2 binary=$3 test=$4 rc
  GJ2K_GPU_TEST_CASES=$cases "$sanitizer" --tool "$tool" --error-exitcode 1 \
    "$build/$binary" "$test" >"$logs/$tool-$(basename "$binary")-$test.txt" 2>&1
  rc=$?
  echo "$tool $(basename "$binary") $test: $([ $rc -eq 0 ] && echo clean || echo "FAILED ($rc)")" |
    tee -a "$logs/memcheck.txt"
  [ $rc -eq 0 ] || status=1
}
for test in forward_matches_cpu inverse_matches_cpu strips_match_cpu corrupt_same_error; do
  check memcheck 4 tests/gpu/test_gpu_stage "$test"
done
check memcheck 2 tests/gpu/test_gpu_strategies strategies_match_cpu_53
check memcheck 2 tests/gpu/test_gpu_strategies strategies_match_cpu_97
# a context's buffers grown and reused over calls, on every GPU
check memcheck 1 tests/gpu/test_gpu_devices context_kept_across_calls
# copies through the page-locked halves, on two streams, the halves made again
check memcheck 1 tests/common/test_stream_memory released_and_made_again
for run in "test_tier1_gpu gpu_matches_host" "test_tier1_gpu placed_matches_host" \
           "test_tier1_encode_gpu gpu_matches_host"; do
  read -r binary test <<<"$run"
  for tool in memcheck racecheck; do
    check "$tool" 6 "tests/codec/tier1/$binary" "$test"
  done
done
exit $status
