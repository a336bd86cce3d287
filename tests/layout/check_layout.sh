#!/usr/bin/env bash
# The layout's rules (README.md, "Layout"), checked on the source tree, beside
# the per-target include paths that enforce them in the build:
#  - every #include of ours is in quotes and names a header alone (no path),
#    so only a target's include path decides what it can reach; only
#    gj2k.h, the installed header, may also be included as <gj2k.h>;
#  - a header name lives in one folder only;
#  - each header a folder includes lives in that folder or in one it builds
#    on (builds_on below, the same lists as each folder's CMakeLists.txt);
#    nothing outside tests/ includes a header of tests/;
#  - no source folder holds more than 20 files, no source file passes 850 lines.
# Usage: check_layout.sh SOURCE_DIR. Prints each breach; exits 1 if any.
set -euo pipefail
cd "$1"
status=0
breach() { echo "layout: $*"; status=1; }

# The folders each folder may include from, besides itself.
builds_on() {
  case $1 in
    include) echo "" ;;
    common) echo "include" ;;
    io | dwt) echo "include common" ;;
    dwt/cuda) echo "include common dwt" ;;
    quant) echo "include common dwt" ;;
    codec/tier1) echo "include common dwt quant" ;;
    codec/tier1/ht) echo "include common dwt quant codec/tier1" ;;
    codec/tier1/cuda) echo "include common dwt quant codec/tier1 codec/tier1/ht" ;;
    codec/codestream) echo "include common dwt quant" ;;
    codec/tier2) echo "include common dwt quant codec/codestream codec/tier1" ;;
    codec/jp2) echo "include common io" ;;
    codec/encode | codec/decode)
      echo "include common io dwt quant codec/codestream codec/tier1 codec/tier1/ht codec/tier2" \
           "codec/jp2" ;;
    codec/transcode)
      echo "include common io dwt quant codec/codestream codec/tier1 codec/tier1/ht codec/tier2" \
           "codec/jp2 codec/decode" ;;
    codec/describe)
      echo "include common io dwt quant codec/codestream codec/tier1 codec/tier1/ht codec/tier2" \
           "codec/jp2 codec/transcode" ;;
    app | conformance)
      echo "include common io dwt quant codec/codestream codec/tier1 codec/tier1/ht codec/tier2" \
           "codec/jp2" \
           "codec/encode codec/decode codec/transcode codec/describe" ;;
    app/bench | app/batch)
      echo "include common io dwt quant codec/codestream codec/tier1 codec/tier1/ht codec/tier2" \
           "codec/jp2" \
           "codec/encode codec/decode codec/transcode codec/describe app" ;;
    tests*) echo "*" ;;
    *) echo "?" ;;
  esac
}

# Every C, CUDA and header file of the tree (not build trees or hidden folders).
mapfile -t sources < <(find . -path './build*' -prune -o -path './.*' -prune -o -type f \
                         \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) -print |
                       sed 's|^\./||' | sort)
declare -A home # header name -> the folder it lives in
for f in "${sources[@]}"; do
  case $f in *.h | *.cuh) ;; *) continue ;; esac
  name=${f##*/}
  if [ -n "${home[$name]:-}" ]; then
    # Tests may each keep a header of the same name; the library may not.
    [[ $f == tests/* && ${home[$name]} == tests* ]] ||
      breach "$name is in ${home[$name]}/ and ${f%/*}/: includes by name need one"
  fi
  home[$name]=${f%/*}
done

for f in "${sources[@]}"; do
  folder=${f%/*}
  allowed=" $(builds_on "$folder") "
  [ "$allowed" = " ? " ] && { breach "$f: $folder/ is no folder of the layout (add it to builds_on)"; continue; }
  lines=$(wc -l <"$f")
  [ "$lines" -le 850 ] || breach "$f has $lines lines (at most 850)"
  while IFS= read -r include; do
    kind=${include:0:1} header=${include:1}
    name=${header##*/}
    if [ "$kind" = '<' ]; then
      [ -n "${home[$name]:-}" ] || continue # a system header
      [ "$header" = gj2k.h ] ||
        breach "$f includes <$header>: the project's headers are included in quotes, by name"
      continue
    fi
    if [[ $header == */* ]]; then
      breach "$f includes \"$header\": name the header alone, the include path finds it"
      continue
    fi
    to=${home[$name]:-}
    [ -z "$to" ] && { breach "$f includes \"$header\", which the tree does not hold"; continue; }
    [ "$to" = "$folder" ] && continue
    [[ $to == tests* && $folder != tests* ]] &&
      { breach "$f includes $header from $to/: only tests see tests/"; continue; }
    [[ $allowed == " * " || $allowed == *" $to "* ]] ||
      breach "$f includes $header from $to/, which $folder/ does not build on"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<][^">]*\)[">].*/\1/p' "$f")
done

for folder in $(printf '%s\n' "${sources[@]}" | grep -v '^tests/' | sed 's|/[^/]*$||' | sort -u); do
  count=$(find "$folder" -maxdepth 1 -type f | wc -l)
  [ "$count" -le 20 ] || breach "$folder/ holds $count files (at most 20)"
done

[ $status -eq 0 ] && echo "layout: ${#sources[@]} source files, every include within the rules"
exit $status
