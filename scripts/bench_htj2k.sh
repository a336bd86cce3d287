#!/usr/bin/env bash
# HTJ2K benchmark (issue 16): gj2k against OpenJPH (ojph_compress/ojph_expand) and
# Grok (grk_compress/grk_decompress -M 64) on a 3840x2048 RGB photo, lossless and
# lossy, file to file, one thread (and gj2k on every core), best of N runs; the
# files are also decoded by the other codecs and lossless round trips checked exact.
# The photo is ../shared/images/cinema2k_rgb8.png (2048x1556, the largest 8-bit
# RGB photograph there) mirrored out to 3840x2048.
# --callgrind adds instruction counts (load-independent) for a 640x480 photo,
# gj2k against OpenJPH; --runs 0 skips the timing table.
# Usage: scripts/bench_htj2k.sh [GJ2K_BINARY] [--runs N] [--callgrind]
#        (default build/dev/gj2k, 5 runs; GJ2K_SHARED_DIR replaces ../shared;
#         GJ2K_BENCH_QSTEP sets OpenJPH's lossy -qstep, default 0.02)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gj2k=$repo/build/dev/gj2k runs=5 callgrind=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) gj2k=$1; shift ;;
  esac
done
qstep=${GJ2K_BENCH_QSTEP:-0.02}
# shellcheck source=scripts/bench_lib.sh
. "$repo/scripts/bench_lib.sh"
skip() { echo "cannot make the test photo: $*" >&2; exit 77; }
[ -x "$gj2k" ] || { echo "no gj2k binary at $gj2k" >&2; exit 1; }
have python3 || skip "python3 is missing"
ojph=0; have ojph_compress && have ojph_expand && ojph=1
grok=0; have grk_compress && have grk_decompress && grok=1
[ $ojph = 1 ] || echo "note: ojph_compress/ojph_expand missing (openjph-tools): OpenJPH skipped"
[ $grok = 1 ] || echo "note: grk_compress/grk_decompress missing (grokj2k-tools): Grok skipped"

"$gj2k" convert -i "$shared/images/cinema2k_rgb8.png" -o src.ppm >/dev/null 2>&1 \
  || skip "gj2k convert of $shared/images/cinema2k_rgb8.png failed"
pnm tile src.ppm photo.ppm 3840 2048 || skip "tiling failed"
raw=$((3840 * 2048 * 3))

row() { # case, gj2k ms, OpenJPH ms, Grok ms, bytes
  echo "| $1 | $2 | $3 | $4 | $(ratio "$2" "$3") | $(ratio "$2" "$4") | $5 |"
}
G1=(-threads 1 --device cpu) GA=(--device cpu)
OJ=(-num_decomps 5 -block_size '{64,64}')
run_ojph() { if [ $ojph = 1 ]; then best "$@"; else echo –; fi; }
run_grok() { if [ $grok = 1 ]; then best "$@"; else echo –; fi; }

if [ "$runs" -gt 0 ]; then
  # lossy: OpenJPH at -qstep $qstep fixes the size; gj2k -r matches it
  declare -A t
  t[eo]=$(run_ojph ojph_compress -i photo.ppm -o o_ll.j2c -reversible true "${OJ[@]}")
  t[eo2]=$(run_ojph ojph_compress -i photo.ppm -o o_ly.j2c -reversible false -qstep "$qstep" "${OJ[@]}")
  r=16; [ -f o_ly.j2c ] && r=$(awk -v a=$raw -v b="$(size o_ly.j2c)" 'BEGIN{printf "%.4f", a/b}')
  t[eg]=$(best "$gj2k" encode -i photo.ppm -o g_ll.j2c --ht "${G1[@]}")
  t[eg2]=$(best "$gj2k" encode -i photo.ppm -o g_ly.j2c --ht -I -r "$r" "${G1[@]}")
  t[ek]=$(run_grok grk_compress -i photo.ppm -o k_ll.j2k -M 64 -H 1)
  t[ek2]=$(run_grok grk_compress -i photo.ppm -o k_ly.j2k -M 64 -I -H 1)
  t[dg]=$(best "$gj2k" decode -i g_ll.j2c -o g_ll.ppm "${G1[@]}")
  t[dg2]=$(best "$gj2k" decode -i g_ly.j2c -o g_ly.ppm "${G1[@]}")
  t[do]=$(run_ojph ojph_expand -i o_ll.j2c -o o_ll.ppm)
  t[do2]=$(run_ojph ojph_expand -i o_ly.j2c -o o_ly.ppm)
  t[dk]=$(run_grok grk_decompress -i k_ll.j2k -o k_ll.ppm -H 1)
  t[dk2]=$(run_grok grk_decompress -i k_ly.j2k -o k_ly.ppm -H 1)
  t[egA]=$(best "$gj2k" encode -i photo.ppm -o a_ll.j2c --ht "${GA[@]}")
  t[egA2]=$(best "$gj2k" encode -i photo.ppm -o a_ly.j2c --ht -I -r "$r" "${GA[@]}")
  t[dgA]=$(best "$gj2k" decode -i g_ll.j2c -o a_ll.ppm "${GA[@]}")
  t[dgA2]=$(best "$gj2k" decode -i g_ly.j2c -o a_ly.ppm "${GA[@]}")
  bl="$(size g_ll.j2c), $(size o_ll.j2c), $(size k_ll.j2k)"
  by="$(size g_ly.j2c), $(size o_ly.j2c), $(size k_ly.j2k)"
  echo
  echo "3840x2048 RGB 8-bit ($raw raw bytes), wall ms file to file, best of $runs runs, $(nproc) cores, load average after the runs $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Ratios < 1 mean gj2k is faster. Lossy: OpenJPH -qstep $qstep; gj2k -I -r $r (OpenJPH's size);"
  echo "Grok -I at its default quantisation (its -r/-q do not apply to HT code-blocks)."
  echo
  echo "| case | gj2k ms | OpenJPH ms | Grok ms | gj2k / OpenJPH | gj2k / Grok | bytes (gj2k, OpenJPH, Grok) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
  row "encode lossless, 1 thread" "${t[eg]}" "${t[eo]}" "${t[ek]}" "$bl"
  row "decode lossless, 1 thread" "${t[dg]}" "${t[do]}" "${t[dk]}" "$bl"
  row "encode lossy, 1 thread" "${t[eg2]}" "${t[eo2]}" "${t[ek2]}" "$by"
  row "decode lossy, 1 thread" "${t[dg2]}" "${t[do2]}" "${t[dk2]}" "$by"
  row "encode lossless, gj2k all cores" "${t[egA]}" "${t[eo]}" "${t[ek]}" "$(size a_ll.j2c), $(size o_ll.j2c), $(size k_ll.j2k)"
  row "decode lossless, gj2k all cores" "${t[dgA]}" "${t[do]}" "${t[dk]}" "$bl"
  row "encode lossy, gj2k all cores" "${t[egA2]}" "${t[eo2]}" "${t[ek2]}" "$(size a_ly.j2c), $(size o_ly.j2c), $(size k_ly.j2k)"
  row "decode lossy, gj2k all cores" "${t[dgA2]}" "${t[do2]}" "${t[dk2]}" "$by"

  echo
  echo "Round trips and cross-decodes. Lossless: pixels against the input. Lossy: PSNR against the"
  echo "input; max diff against the input (own decoder) or against the producer's own decoder (cross):"
  check() { # label, pnm.py cmp's arguments after x.ppm, then a decode command writing x.ppm
    local label=$1 args=$2; shift 2
    # shellcheck disable=SC2086  # args: file names, split on purpose
    if "$@" >/dev/null 2>err.txt; then echo "- $label: $(pnm cmp x.ppm $args)"
    else echo "- $label: decode failed: $(head -c 200 err.txt | tr '\n' ' ')"; fi
  }
  for f in g_ll.ppm a_ll.ppm o_ll.ppm k_ll.ppm; do
    [ -f $f ] && echo "- $f (own decoder, lossless): $(pnm cmp $f photo.ppm)"
  done
  for f in g_ly.ppm o_ly.ppm k_ly.ppm; do
    [ -f $f ] && echo "- $f (own decoder, lossy): $(pnm cmp $f photo.ppm)"
  done
  D=("$gj2k" decode "${G1[@]}" -o x.ppm -i)
  [ -f o_ll.j2c ] && check "gj2k decodes OpenJPH lossless" photo.ppm "${D[@]}" o_ll.j2c
  [ -f k_ll.j2k ] && check "gj2k decodes Grok lossless" photo.ppm "${D[@]}" k_ll.j2k
  [ -f o_ly.ppm ] && check "gj2k decodes OpenJPH lossy" "o_ly.ppm photo.ppm" "${D[@]}" o_ly.j2c
  [ -f k_ly.ppm ] && check "gj2k decodes Grok lossy" "k_ly.ppm photo.ppm" "${D[@]}" k_ly.j2k
  if [ $ojph = 1 ]; then
    check "OpenJPH decodes gj2k lossless" photo.ppm ojph_expand -o x.ppm -i g_ll.j2c
    check "OpenJPH decodes gj2k lossy" "g_ly.ppm photo.ppm" ojph_expand -o x.ppm -i g_ly.j2c
  fi
  if [ $grok = 1 ]; then
    check "Grok decodes gj2k lossless" photo.ppm grk_decompress -H 1 -o x.ppm -i g_ll.j2c
    check "Grok decodes gj2k lossy" "g_ly.ppm photo.ppm" grk_decompress -H 1 -o x.ppm -i g_ly.j2c
  fi
fi

if [ $callgrind = 1 ]; then
  have valgrind || { echo "note: valgrind missing: no callgrind table"; exit 0; }
  if [ -f "$shared/images/Bretagne1.ppm" ]; then cp "$shared/images/Bretagne1.ppm" kodak.ppm; k=Bretagne1.ppm
  else python3 - <<'EOF'; k="a 640x480 crop of the photo"
d = open('photo.ppm', 'rb').read()[-3840 * 2048 * 3:]
open('kodak.ppm', 'wb').write(b'P6\n640 480\n255\n' + b''.join(d[y * 3840 * 3:][:640 * 3] for y in range(480)))
EOF
  fi
  c_eo=– c_do=– c_eo2=– c_do2=– r=16
  if [ $ojph = 1 ]; then
    c_eo=$(count ojph_compress -i kodak.ppm -o ko_ll.j2c -reversible true "${OJ[@]}")
    c_do=$(count ojph_expand -i ko_ll.j2c -o out.ppm)
    c_eo2=$(count ojph_compress -i kodak.ppm -o ko_ly.j2c -reversible false -qstep "$qstep" "${OJ[@]}")
    c_do2=$(count ojph_expand -i ko_ly.j2c -o out.ppm)
    r=$(awk -v b="$(size ko_ly.j2c)" 'BEGIN{printf "%.4f", 640*480*3/b}')
  fi
  c_eg=$(count "$gj2k" encode -i kodak.ppm -o kg_ll.j2c --ht "${G1[@]}")
  c_dg=$(count "$gj2k" decode -i kg_ll.j2c -o out.ppm "${G1[@]}")
  c_eg2=$(count "$gj2k" encode -i kodak.ppm -o kg_ly.j2c --ht -I -r "$r" "${G1[@]}")
  c_dg2=$(count "$gj2k" decode -i kg_ly.j2c -o out.ppm "${G1[@]}")
  echo
  echo "callgrind instructions (whole process, 1 thread), $k 640x480 RGB; lossy: OpenJPH -qstep $qstep, gj2k -I -r $r (OpenJPH's size)."
  echo "Ratios < 1 mean gj2k executes fewer instructions."
  echo
  echo "| case | gj2k instructions | OpenJPH instructions | gj2k / OpenJPH | bytes (gj2k, OpenJPH) |"
  echo "| --- | ---: | ---: | ---: | --- |"
  echo "| encode lossless | $c_eg | $c_eo | $(ratio "$c_eg" "$c_eo") | $(size kg_ll.j2c), $(size ko_ll.j2c) |"
  echo "| decode lossless | $c_dg | $c_do | $(ratio "$c_dg" "$c_do") | $(size kg_ll.j2c), $(size ko_ll.j2c) |"
  echo "| encode lossy | $c_eg2 | $c_eo2 | $(ratio "$c_eg2" "$c_eo2") | $(size kg_ly.j2c), $(size ko_ly.j2c) |"
  echo "| decode lossy | $c_dg2 | $c_do2 | $(ratio "$c_dg2" "$c_do2") | $(size kg_ly.j2c), $(size ko_ly.j2c) |"
fi
echo
echo "Commands (in a temporary directory; photo.ppm is the 3840x2048 photo):"
sed 's/^/    /' cmds.txt
