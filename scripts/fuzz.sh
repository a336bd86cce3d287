#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan, in build/fuzz) and runs
# each for SECONDS from its seeds (make_fuzz_seeds), the corpus kept in
# tests/fuzz/corpus/<target> and, for the decoder without --merge, ../shared's
# conformance files and HT codestreams; prints a table of executions a second,
# coverage and findings.
# With --merge, what each run found is minimised (-merge=1) into
# tests/fuzz/corpus/<target>, to be committed. A finding is left in
# build/fuzz/runs/<target>/ (crash-*, leak-*, timeout-*) and fails the script.
#
# Usage: bash scripts/fuzz.sh [--merge] [SECONDS] [TARGET...]
#   SECONDS: 60 unless given. TARGETs: decode ht_block jp2_boxes encode
#   encode_options read_pnm read_pgx read_bmp read_raw read_rawl read_png
#   read_tiff (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
if [ "${1:-}" = --merge ]; then merge=1; shift; fi
seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
bash scripts/install_dependencies.sh
shared=${GJ2K_SHARED_DIR:-$(cd .. && pwd)/shared}
CC=clang cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGJ2K_CUDA=OFF \
      -DGJ2K_SANITIZE=address,undefined -DGJ2K_FUZZ=ON -DGJ2K_SHARED_DIR="$shared" >/dev/null
cmake --build build/fuzz -j "$(nproc)" >/dev/null
repo=$(pwd)
seeds=$repo/build/fuzz/seeds
rm -rf "$seeds"
build/fuzz/tests/fuzz/make_fuzz_seeds "$seeds"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(decode ht_block jp2_boxes encode encode_options)
  for f in build/fuzz/tests/fuzz/fuzz_read_*; do targets+=("${f##*/fuzz_}"); done
fi

# The binary, its options and its seed folders, by target.
setup() {
  local target=$1
  binary=$repo/build/fuzz/tests/fuzz/fuzz_$target
  extra=()
  dirs=()
  case $target in
    decode) extra=(-max_len=4096)
            dirs=("$seeds/decode")
            # The conformance files and HT codestreams seed a plain run only:
            # the corpus kept in the repository holds nothing made from ../shared.
            [ "$merge" = 0 ] && [ -d "$shared/conformance/input" ] &&
              dirs+=("$shared/conformance/input")
            [ "$merge" = 0 ] && [ -d "$shared/images/htj2k" ] && dirs+=("$shared/images/htj2k")
            ;;
    ht_block) extra=(-max_len=8192); dirs=("$seeds/ht_block") ;;
    jp2_boxes) extra=(-max_len=8192); dirs=("$seeds/jp2") ;;
    encode) extra=(-max_len=4096) ;;
    encode_options) extra=(-max_len=1024 -close_fd_mask=2); dirs=("$seeds/encode_options") ;;
    read_*) extra=(-max_len=65536); dirs=("$seeds/${target#read_}") ;;
    *) echo "fuzz.sh: unknown target $target" >&2; exit 2 ;;
  esac
  [ -x "$binary" ] || { echo "fuzz.sh: $binary was not built" >&2; exit 2; }
  kept=$repo/tests/fuzz/corpus/$target
  [ -d "$kept" ] && dirs+=("$kept")
  return 0
}

status=0
summary=()
for target in "${targets[@]}"; do
  setup "$target"
  run=build/fuzz/runs/$target
  rm -rf "$run"
  mkdir -p "$run/new"
  echo "== $target: $seconds s"
  (cd "$run" && "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 "${extra[@]}" new "${dirs[@]}" >log.txt 2>&1) || status=1
  stat() { sed -n "s/^stat::$1: *//p" "$run/log.txt" | tail -1; }
  cov=$(grep -Eo 'cov: [0-9]+' "$run/log.txt" | tail -1 | cut -d' ' -f2)
  findings=$(find "$run" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
             -o -name 'oom-*' \) | wc -l)
  [ "$findings" -eq 0 ] || status=1
  summary+=("$(printf '%-16s %10s %10s %8s %8s %8s' "$target" "$(stat number_of_executed_units)" \
               "$(stat average_exec_per_sec)" "${cov:-?}" "$(stat new_units_added)" "$findings")")
  if [ "$merge" = 1 ] && [ "$findings" -eq 0 ]; then
    mkdir -p "tests/fuzz/corpus/$target"
    (cd "$run" && "$binary" -merge=1 "${extra[@]}" "$repo/tests/fuzz/corpus/$target" new \
        >merge.txt 2>&1) || { echo "   merge failed: $run/merge.txt"; status=1; }
    echo "   corpus/$target: $(ls "tests/fuzz/corpus/$target" | wc -l) inputs," \
         "$(( $(du -sb "tests/fuzz/corpus/$target" | cut -f1) / 1024 )) KiB"
  fi
done
printf '%-16s %10s %10s %8s %8s %8s\n' target executions "exec/s" coverage new findings
printf '%s\n' "${summary[@]}"
exit $status
