#!/usr/bin/env bash
# scripts/busy_in_span.py on a made-up run: two files from Unix time 1000.0
# to 1003.0 in two reports (as a process a GPU writes them), nvidia-smi
# samples (in UTC, as bench_gpu_scaling.sh takes them) of two GPUs before,
# inside and after that span. Only the samples inside count; a GPU with none
# there reads "?"; the span covers both reports; the local zone (an odd one
# here) changes nothing.
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/report.jsonl" <<'JSON'
{"input":"a.ppm","status":"ok","started":1000.000000,"seconds":2.500000}
{"input":"c.ppm","status":"failed","error":"not an image"}
JSON
cat >"$work/report-2.jsonl" <<'JSON'
{"input":"b.ppm","status":"ok","started":1001.000000,"seconds":2.000000}
JSON
stamp() { TZ=UTC0 date -d "@$1" '+%Y/%m/%d %H:%M:%S.%3N'; }
export TZ=XYZ-5:30
{
  echo "$(stamp 999.5), 0, 100"
  echo "$(stamp 999.5), 1, 100"
  echo "$(stamp 1000.5), 0, 80"
  echo "$(stamp 1000.5), 1, 20"
  echo "$(stamp 1002.0), 0, 60"
  echo "$(stamp 1002.0), 1, 40"
  echo "$(stamp 1003.5), 0, 0"
  echo "$(stamp 1003.5), 1, 0"
  echo "[Unknown Error]"
} >"$work/samples.csv"
got=$(python3 "$script" "$work/samples.csv" 3 "$work/report.jsonl" "$work/report-2.jsonl")
[ "$got" = "70 30 ? / 3.00" ] || { echo "busy_in_span: got '$got', expected '70 30 ? / 3.00'"; exit 1; }
echo "busy_in_span: $got"
