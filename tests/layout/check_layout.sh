#!/usr/bin/env bash
# The layout's rules (README.md, "Layout"), checked on the source tree:
#  - every #include of ours names a header by its file name alone (no path),
#    so only a target's include path decides what it can reach;
#  - each header a folder includes lives in a folder it may see: include/ and
#    common/ only include/ and common/; io/ and dwt/ also themselves; quant/
#    also dwt/; codec/ never app/, conformance/ or tests/; app/ never
#    conformance/ or tests/;
#  - no source folder holds more than 20 files.
# Usage: check_layout.sh SOURCE_DIR. Prints each breach; exits 1 if any.
set -euo pipefail
cd "$1"
status=0
breach() { echo "layout: $*"; status=1; }

# Every C, CUDA and header file of the tree (not build trees or hidden folders).
mapfile -t sources < <(find . -path './build*' -prune -o -path './.*' -prune -o -type f \
                         \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||' | sort)
declare -A home # header name -> the folder it lives in (library, app, conformance)
for f in "${sources[@]}"; do
  case $f in tests/*) continue ;; esac
  case $f in *.h|*.cuh) name=${f##*/}
    [ -n "${home[$name]:-}" ] && breach "$name is in ${home[$name]} and ${f%/*}: includes by name need one"
    home[$name]=${f%/*} ;;
  esac
done

# allowed FOLDER HEADER_FOLDER: may FOLDER include a header of HEADER_FOLDER?
allowed() {
  local from=$1 to=$2
  [ "$from" = "$to" ] && return 0
  case $to in include|common) return 0 ;; esac
  case $from in
    include|common|io) return 1 ;;
    dwt|dwt/cuda) [[ $to == dwt || $to == dwt/cuda ]] ;;
    quant) [[ $to == dwt ]] ;;
    codec/*) [[ $to != app* && $to != conformance* ]] ;;
    app) [[ $to != conformance* ]] ;;
    *) return 0 ;;
  esac
}

for f in "${sources[@]}"; do
  folder=${f%/*}
  while IFS= read -r header; do
    if [[ $header == */* ]]; then
      breach "$f includes \"$header\": name the header alone, the include path finds it"
      continue
    fi
    to=${home[$header]:-}
    [ -z "$to" ] && continue # a test's own header
    allowed "$folder" "$to" || breach "$f includes $header from $to/, which $folder/ may not see"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

for folder in $(printf '%s\n' "${sources[@]}" | grep -v '^tests/' | sed 's|/[^/]*$||' | sort -u); do
  count=$(find "$folder" -maxdepth 1 -type f | wc -l)
  [ "$count" -le 20 ] || breach "$folder/ holds $count files (at most 20)"
done

[ $status -eq 0 ] && echo "layout: ${#sources[@]} source files, every include within the rules"
exit $status
