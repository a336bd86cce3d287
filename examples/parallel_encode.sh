#!/usr/bin/env bash
# GNU parallel over gj2k's shards: N processes (here, or on several hosts
# with parallel's --sshlogin) each encode their shard of SRC's tree into
# DST; the shards' union is the whole set, each file coded once.
#
#   examples/parallel_encode.sh SRC DST N [gj2k encode options...]
#
# A re-run resumes (--skip-existing); the exit status is non-zero when any
# file of any shard failed (see DST/reports/*.jsonl).
set -euo pipefail
src=${1:?usage: parallel_encode.sh SRC DST N [options]}
dst=${2:?usage: parallel_encode.sh SRC DST N [options]}
n=${3:?usage: parallel_encode.sh SRC DST N [options]}
shift 3
mkdir -p "$dst/reports"
seq 1 "$n" | parallel --halt never -j "$n" \
  "${GJ2K:-gj2k}" encode -ImgDir "$src" --recursive -o "$dst" --shard {}/"$n" \
  --skip-existing --verify --jobs 1 -quiet --report "$dst/reports/shard-{}-of-$n.jsonl" "$@"
