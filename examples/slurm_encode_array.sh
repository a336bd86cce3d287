#!/usr/bin/env bash
# A Slurm job array that encodes a whole directory tree with gj2k, one
# shard of the files a task: every node computes the same split
# (--shard K/N hashes each file's path below SRC), so the tasks together
# code every file once, and a task re-run (or the whole array re-submitted)
# resumes with --skip-existing. Each task writes its own JSON Lines report.
#
#   sbatch --array=0-15 examples/slurm_encode_array.sh SRC DST [gj2k encode options...]
#
# GJ2K names the gj2k program (default: gj2k on PATH).
#SBATCH --job-name=gj2k-encode
#SBATCH --cpus-per-task=1
#SBATCH --output=gj2k-encode-%A_%a.log
set -euo pipefail
src=${1:?usage: sbatch --array=0-N slurm_encode_array.sh SRC DST [options]}
dst=${2:?usage: sbatch --array=0-N slurm_encode_array.sh SRC DST [options]}
shift 2
task=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}
count=${SLURM_ARRAY_TASK_COUNT:?not a Slurm array task}
first=${SLURM_ARRAY_TASK_MIN:-0}
mkdir -p "$dst/reports"
exec "${GJ2K:-gj2k}" encode -ImgDir "$src" --recursive -o "$dst" \
  --shard "$((task - first + 1))/$count" --skip-existing --verify \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" -quiet \
  --report "$dst/reports/shard-$((task - first + 1))-of-$count.jsonl" "$@"
