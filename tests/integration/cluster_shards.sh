#!/usr/bin/env bash
# Batch runs fanned out for real (issue 18): a one-node Slurm cluster
# (munged, slurmctld, slurmd, started here with a minimal slurm.conf) runs
# examples/slurm_encode_array.sh as a 4-task job array over a tree of
# images with one corrupt file, and GNU parallel runs
# examples/parallel_encode.sh with 3 shards. Each union of shards must be
# a single gj2k run byte for byte, and the corrupt file must be reported
# failed in exactly one shard's report.
# Usage (root, Debian; installs slurm-wlm, munge and parallel when missing):
#   bash tests/integration/cluster_shards.sh [GJ2K]   (default build/release/gj2k)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
gj2k=$(realpath "${1:-$repo/build/release/gj2k}")
[ -x "$gj2k" ] || { echo "cluster_shards: no gj2k at $gj2k (build first)"; exit 1; }
need=()
for tool in slurmctld:slurm-wlm munged:munge parallel:parallel; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
export PATH="$PATH:/usr/sbin"
work=$(mktemp -d /tmp/gj2k-cluster.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/munged.pid" ] && kill "$(cat "$work/munged.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The images: 9 photos-like PPM/PGM of odd sizes in a tree, one corrupt.
python3 - "$work/src" <<'PY'
import os, random, sys
root = sys.argv[1]
random.seed(7)
for i, (w, h, c) in enumerate([(97, 61, 3), (128, 128, 3), (33, 200, 1), (250, 90, 3),
                              (64, 65, 1), (180, 120, 3), (17, 19, 3), (300, 40, 1),
                              (81, 81, 3)]):
    folder = os.path.join(root, "set%d" % (i % 3))
    os.makedirs(folder, exist_ok=True)
    data = bytearray()
    for y in range(h):
        for x in range(w):
            for k in range(c):
                data.append((x * (k + 1) + y * 3 + random.randrange(8)) & 255)
    magic = b"P6" if c == 3 else b"P5"
    with open(os.path.join(folder, "img%d.%s" % (i, "ppm" if c == 3 else "pgm")), "wb") as f:
        f.write(magic + b"\n%d %d\n255\n" % (w, h) + bytes(data))
with open(os.path.join(root, "set1", "corrupt.ppm"), "wb") as f:
    f.write(b"P6\n50 50\n255\ntruncated")
PY

# The reference: one process.
"$gj2k" encode -ImgDir "$work/src" --recursive -o "$work/reference" -quiet || true
reference_files=$(cd "$work/reference" && find . -type f | sort)
[ "$(echo "$reference_files" | wc -l)" -eq 9 ] || { echo "FAIL: reference run wrote: $reference_files"; exit 1; }

same_as_reference() { # DIR: the same files as the reference, byte for byte
  local dir=$1 files
  files=$(cd "$dir" && find . -type f -not -path './reports/*' | sort)
  [ "$files" = "$reference_files" ] || { echo "FAIL: $dir holds: $files"; return 1; }
  for f in $files; do cmp -s "$work/reference/$f" "$dir/$f" || { echo "FAIL: $dir/$f differs"; return 1; }; done
}
one_failure_reported() { # DIR: the corrupt file failed in exactly one report, nothing else failed
  local failed
  failed=$(cat "$1"/reports/*.jsonl | grep -c '"status":"failed"' || true)
  [ "$failed" -eq 1 ] && grep -l 'corrupt.ppm' "$1"/reports/*.jsonl | xargs grep -q '"status":"failed"' ||
    { echo "FAIL: $1's reports: $failed failures"; return 1; }
  [ "$(cat "$1"/reports/*.jsonl | grep -c '"status":"ok"')" -eq 9 ] ||
    { echo "FAIL: $1's reports do not count 9 files coded"; return 1; }
}

# GNU parallel, 3 shards.
GJ2K="$gj2k" bash "$repo/examples/parallel_encode.sh" "$work/src" "$work/parallel" 3 && {
  echo "FAIL: the parallel run should fail (a corrupt input)"; exit 1; }
same_as_reference "$work/parallel"
one_failure_reported "$work/parallel"
echo "cluster_shards: GNU parallel, 3 shards: the union is the single run; the corrupt file reported once"

# A one-node Slurm cluster.
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=gj2ktest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/munge" && chmod 700 "$work/munge"
munged --force --socket="$work/munge/socket" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munge/seed"
export MUNGE_SOCKET=$work/munge/socket
# Slurm's munge plugins take the socket from AuthInfo
sed -i "s|^AuthType=auth/munge|AuthType=auth/munge\nAuthInfo=socket=$work/munge/socket|" "$work/slurm.conf"
slurmctld -D -f "$work/slurm.conf" >>"$work/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -f "$work/slurm.conf" >>"$work/slurmd.out" 2>&1 & pids+=($!)
for _ in $(seq 30); do
  [[ $(sinfo -h -o '%T' 2>/dev/null) =~ idle|mixed ]] && break
  sleep 1
done
[[ $(sinfo -h -o '%T') =~ idle|mixed ]] || {
  echo "FAIL: the Slurm node did not come up"; tail -n 5 "$work"/slurm*.log "$work"/*.out; exit 1; }
cd "$work"
GJ2K="$gj2k" sbatch --wait --array=0-3 --chdir="$work" --export=ALL \
  "$repo/examples/slurm_encode_array.sh" "$work/src" "$work/slurm" >"$work/sbatch.out" 2>&1 && {
  echo "FAIL: the array should fail (a corrupt input)"; exit 1; }
grep -q 'Submitted batch job' "$work/sbatch.out" || { echo "FAIL: sbatch: $(cat "$work/sbatch.out")"; exit 1; }
[ "$(ls "$work"/slurm/reports/*.jsonl | wc -l)" -eq 4 ] || { echo "FAIL: not 4 shard reports"; exit 1; }
same_as_reference "$work/slurm"
one_failure_reported "$work/slurm"
echo "cluster_shards: Slurm, a 4-task array: the union is the single run; the corrupt file reported once"
