#!/usr/bin/env bash
# The CPU path against Grok and OpenJPEG (issue 17), Part 1 code-blocks:
#  1. callgrind instruction counts (load-independent), one thread, whole
#     process with PPM reading and writing, a 768x512 RGB photo (the Kodak
#     size): lossless and -I -r 20, encode and decode; gj2k -threads 1
#     --device cpu, Grok -H 1, OpenJPEG (one thread by default), OpenJPH's HT
#     for scale. Goal: gj2k <= 0.75 x Grok's instructions in every row.
#  2. wall time, best of N runs (hyperfine when installed), a 3840x2048 RGB
#     photo, every core for each codec: goal Grok / gj2k >= 1.3 in every row.
#  3. gj2k's scaling with threads: 1, 2, ... nproc, speed-up against 1.
# The photos come from ../shared/images/cinema2k_rgb8.png (2048x1556): the
# 768x512 crop at (640, 520), and the whole mirrored out to 3840x2048; or,
# where GJ2K_BENCH_PHOTO names an 8-bit RGB PPM of at least 3840x2048 (the
# GPU machine has no ../shared), crops of that one.
# Usage: scripts/bench_cpu.sh [GJ2K_BINARY] [--runs N] [--no-callgrind]
#        (default build/dev/gj2k, 5 runs; GJ2K_SHARED_DIR replaces ../shared)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k=$repo/build/dev/gj2k runs=5 callgrind=1
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) gj2k=$1; shift ;;
  esac
done
# shellcheck source=scripts/bench_lib.sh
. "$repo/scripts/bench_lib.sh"
skip() { echo "bench_cpu: $*" >&2; exit 77; }
[ -x "$gj2k" ] || { echo "no gj2k binary at $gj2k" >&2; exit 1; }
have python3 || skip "python3 is missing"
have grk_compress && have grk_decompress || skip "Grok is missing (grokj2k-tools)"
have opj_compress && have opj_decompress || skip "OpenJPEG is missing (libopenjp2-tools)"
if [ -n "$photo" ]; then
  pnm crop "$photo" kodak.ppm 640 520 768 512
  pnm crop "$photo" photo.ppm 0 0 3840 2048
else
  "$gj2k" convert -i "$shared/images/cinema2k_rgb8.png" -o src.ppm >/dev/null 2>&1 \
    || skip "gj2k convert of $shared/images/cinema2k_rgb8.png failed"
  pnm crop src.ppm kodak.ppm 640 520 768 512
  pnm tile src.ppm photo.ppm 3840 2048
fi
cores=$(nproc)
mega() { if [[ $1 =~ ^[0-9]+$ ]]; then awk -v a="$1" 'BEGIN{printf "%.1f", a/1e6}'; else echo "$1"; fi; }

if [ $callgrind = 1 ] && have valgrind; then
  G=(-threads 1 --device cpu)
  declare -A c
  c[g_el]=$(count "$gj2k" encode -i kodak.ppm -o g_ll.j2k "${G[@]}")
  c[g_dl]=$(count "$gj2k" decode -i g_ll.j2k -o out.ppm "${G[@]}")
  c[g_ey]=$(count "$gj2k" encode -i kodak.ppm -o g_ly.j2k -I -r 20 "${G[@]}")
  c[g_dy]=$(count "$gj2k" decode -i g_ly.j2k -o out.ppm "${G[@]}")
  c[k_el]=$(count grk_compress -i kodak.ppm -o k_ll.j2k -H 1)
  c[k_dl]=$(count grk_decompress -i k_ll.j2k -o out.ppm -H 1)
  c[k_ey]=$(count grk_compress -i kodak.ppm -o k_ly.j2k -I -r 20 -H 1)
  c[k_dy]=$(count grk_decompress -i k_ly.j2k -o out.ppm -H 1)
  c[o_el]=$(count opj_compress -i kodak.ppm -o o_ll.j2k)
  c[o_dl]=$(count opj_decompress -i o_ll.j2k -o out.ppm)
  c[o_ey]=$(count opj_compress -i kodak.ppm -o o_ly.j2k -I -r 20)
  c[o_dy]=$(count opj_decompress -i o_ly.j2k -o out.ppm)
  for k in h_el h_dl; do c[$k]=–; done
  if have ojph_compress && have ojph_expand; then
    c[h_el]=$(count ojph_compress -i kodak.ppm -o h_ll.j2c -reversible true -num_decomps 5)
    c[h_dl]=$(count ojph_expand -i h_ll.j2c -o out.ppm)
  fi
  echo "callgrind, M instructions (whole process, 1 thread), 768x512 RGB crop of ${GJ2K_BENCH_PHOTO:-cinema2k_rgb8.png}."
  echo "Goal: gj2k / Grok <= 0.75."
  echo
  echo "| case | gj2k | OpenJPEG | Grok | OpenJPH (HT) | gj2k / Grok | gj2k / OpenJPEG |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for row in "lossless encode:el" "lossless decode:dl" "-I -r 20 encode:ey" "-I -r 20 decode:dy"; do
    name=${row%%:*} k=${row##*:} h=–
    [ "$k" = el ] && h=${c[h_el]}
    [ "$k" = dl ] && h=${c[h_dl]}
    echo "| $name | $(mega "${c[g_$k]}") | $(mega "${c[o_$k]}") | $(mega "${c[k_$k]}") | $(mega "$h") |" \
         "$(ratio "${c[g_$k]}" "${c[k_$k]}") | $(ratio "${c[g_$k]}" "${c[o_$k]}") |"
  done
  echo
elif [ $callgrind = 1 ]; then
  echo "note: valgrind missing: no callgrind table"
fi

[ "$runs" -gt 0 ] || exit 0
declare -A t
"$gj2k" encode -i photo.ppm -o G_ll.j2k --device cpu >/dev/null
"$gj2k" encode -i photo.ppm -o G_ly.j2k -I -r 20 --device cpu >/dev/null
grk_compress -i photo.ppm -o K_ll.j2k >/dev/null 2>&1
grk_compress -i photo.ppm -o K_ly.j2k -I -r 20 >/dev/null 2>&1
t[g_el]=$(best "$gj2k" encode -i photo.ppm -o x.j2k --device cpu)
t[g_dl]=$(best "$gj2k" decode -i G_ll.j2k -o x.ppm --device cpu)
t[g_ey]=$(best "$gj2k" encode -i photo.ppm -o x.j2k -I -r 20 --device cpu)
t[g_dy]=$(best "$gj2k" decode -i G_ly.j2k -o x.ppm --device cpu)
t[k_el]=$(best grk_compress -i photo.ppm -o x.j2k -H "$cores")
t[k_dl]=$(best grk_decompress -i K_ll.j2k -o x.ppm -H "$cores")
t[k_ey]=$(best grk_compress -i photo.ppm -o x.j2k -I -r 20 -H "$cores")
t[k_dy]=$(best grk_decompress -i K_ly.j2k -o x.ppm -H "$cores")
t[o_el]=$(best opj_compress -i photo.ppm -o x.j2k -threads "$cores")
t[o_dl]=$(best opj_decompress -i K_ll.j2k -o x.ppm -threads "$cores")
t[o_ey]=$(best opj_compress -i photo.ppm -o x.j2k -I -r 20 -threads "$cores")
t[o_dy]=$(best opj_decompress -i K_ly.j2k -o x.ppm -threads "$cores")
echo "Wall ms, 3840x2048 RGB, file to file, best of $runs ($(have hyperfine && echo hyperfine || echo 'own timing')),"
echo "$cores cores, each codec with all of them; load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Goal: Grok / gj2k >= 1.3. Decoders read Grok's files, gj2k its own."
echo
echo "| case | gj2k ms | Grok ms | OpenJPEG ms | Grok / gj2k | OpenJPEG / gj2k |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for row in "lossless encode:el" "lossless decode:dl" "-I -r 20 encode:ey" "-I -r 20 decode:dy"; do
  name=${row%%:*} k=${row##*:}
  echo "| $name | ${t[g_$k]} | ${t[k_$k]} | ${t[o_$k]} | $(ratio "${t[k_$k]}" "${t[g_$k]}") |" \
       "$(ratio "${t[o_$k]}" "${t[g_$k]}") |"
done
echo
echo "gj2k's scaling (lossless, ms and speed-up against one thread; serial: the fraction of the"
echo "one-thread time that Amdahl's law, T(n) = T(1) (s + (1 - s) / n), leaves unparallelised):"
echo
echo "| threads | encode ms | speed-up | serial | decode ms | speed-up | serial |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
serial() { # T(1), T(n), n
  if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ "$3" -gt 1 ]; then
    awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{printf "%.0f%%", 100 * (b / a - 1 / n) / (1 - 1 / n)}'
  else echo –; fi; }
e1='' d1=''
for ((n = 1; n <= cores; n = n < cores && 2 * n > cores ? cores : 2 * n)); do
  e=$(best "$gj2k" encode -i photo.ppm -o x.j2k --device cpu -threads "$n")
  d=$(best "$gj2k" decode -i G_ll.j2k -o x.ppm --device cpu -threads "$n")
  [ -n "$e1" ] || { e1=$e; d1=$d; }
  echo "| $n | $e | $(ratio "$e1" "$e") | $(serial "$e1" "$e" "$n") | $d | $(ratio "$d1" "$d") |" \
       "$(serial "$d1" "$d" "$n") |"
  [ "$n" -lt "$cores" ] || break
done
echo
echo "Commands (in a temporary directory; kodak.ppm 768x512, photo.ppm 3840x2048):"
sed 's/^/    /' cmds.txt
