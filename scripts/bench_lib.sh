# bench_lib.sh - what the benchmark scripts share (sourced, not run): a
# temporary working directory, tool checks, timing, instruction counts and
# the figures' formatting. The caller sets `repo`, `gj2k` (made absolute
# here) and `runs` (timed runs a command); this sets `photo` (the absolute
# path of GJ2K_BENCH_PHOTO, or empty) and `shared` (../shared or
# GJ2K_SHARED_DIR). Every command timed or counted is appended to cmds.txt.
gj2k=$(realpath "$gj2k")
photo=''
[ -z "${GJ2K_BENCH_PHOTO:-}" ] || photo=$(realpath "$GJ2K_BENCH_PHOTO")
shared=${GJ2K_SHARED_DIR:-$repo/../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
: > cmds.txt

have() { command -v "$1" >/dev/null 2>&1; }

# pnm_tool.py beside this file: crops, mirrors and compares PPM photos.
pnm() { python3 "$(dirname "${BASH_SOURCE[0]}")/pnm_tool.py" "$@"; }

# The best wall time in ms of $runs runs of a command (hyperfine when
# installed), or 'fail' with the command's errors on stderr.
best() {
  echo "$*" >> cmds.txt
  if have hyperfine; then
    hyperfine -N --runs "$runs" --export-json hf.json "$(printf '%q ' "$@")" >/dev/null 2>err.txt \
      || { echo "failed: $*" >&2; sed 's/^/  /' err.txt >&2; echo fail; return; }
    python3 -c "import json; print(round(min(json.load(open('hf.json'))['results'][0]['times']) * 1000))"
    return
  fi
  local b='' s t i
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s%N)
    if ! "$@" >/dev/null 2>err.txt; then echo "failed: $*" >&2; sed 's/^/  /' err.txt >&2; echo fail; return; fi
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
  done
  echo "$b"
}

# The instructions one command executes (callgrind), or 'fail'.
count() {
  echo "valgrind --tool=callgrind $*" >> cmds.txt
  if valgrind --tool=callgrind --callgrind-out-file=cg.out "$@" >/dev/null 2>cg.err; then
    grep -o 'refs: *[0-9,]*' cg.err | tr -dc '0-9'; else echo fail; fi
}

# a / b to two decimals, or – when either is not a number (or b is 0).
ratio() {
  if [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] && awk -v b="$2" 'BEGIN{exit !(b > 0)}'; then
    awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; else echo –; fi
}

size() { if [ -f "$1" ]; then stat -c %s "$1"; else echo –; fi; }
