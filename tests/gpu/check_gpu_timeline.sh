#!/usr/bin/env bash
# scripts/gpu_timeline.py on a made-up trace (tests/gpu/gpu_trace.c's
# format): the CUPTI clock 1000 s behind Unix time; one file's span from
# Unix 1000.000 to 1000.010 (10 ms) in a report; on GPU 0 two overlapping
# kernels over 2-5 ms and one over 7-8 ms of the span, and one before it
# that must not count, even in the kernels' table; a pageable download over
# 5-6 ms. Expected: kernels 4 ms of 10 (40%), a copy 1 ms, either 50%; 6 ms
# with no kernel in 3 gaps, the copy inside one of them; a thread's
# synchronisation over 5-7 ms counted 2 ms inside the idle time.
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/report.jsonl" <<'JSON'
{"input":"a.j2k","status":"ok","started":1000.000000,"seconds":0.010000}
JSON
ms() { echo $(( $1 * 1000000 )); }
{
  echo "clock 0 1000000000000"
  echo "kernel $(ms -5) $(ms -1) 0 7 early_kernel"
  echo "kernel $(ms 2) $(ms 4) 0 7 decode_blocks"
  echo "kernel $(ms 3) $(ms 5) 0 8 decode_blocks"
  echo "kernel $(ms 7) $(ms 8) 0 7 inverse_level"
  echo "copy $(ms 5) $(ms 6) 0 9 25000000 dtoh device pageable"
  echo "api $(ms 5) $(ms 7) 11 cudaStreamSynchronize_v3020"
} >"$work/trace.txt"
got=$(python3 "$script" "$work/trace.txt" "$work/report.jsonl")
echo "$got"
expect() { grep -qF -- "$1" <<<"$got" || { echo "gpu_timeline: no line with '$1'"; exit 1; }; }
expect "window: the files' span, 0.010 s"
expect "GPU 0: a kernel running 40.0% of the window, a copy 10.0%, either 50.0%; 1.25 kernels"
expect "no kernel: 6.0 ms in 3 gaps"
expect "gaps 1-10 ms        3,      6.0 ms, a copy running in   1.0 ms of them"
expect "the longest gaps (ms into the window, ms long): 0.0 2.0, 5.0 2.0, 8.0 2.0"
expect "decode_blocks"
! grep -q early_kernel <<<"$got" ||
  { echo "gpu_timeline: a kernel outside the span counted"; exit 1; }
expect "dtoh device->pageable"
grep -E '^ +cudaStreamSynchronize_v3020 +1 +2\.0 +2\.0$' <<<"$got" >/dev/null ||
  { echo "gpu_timeline: the synchronisation's line is not 1 call, 2.0 ms, 2.0 ms idle"; exit 1; }
