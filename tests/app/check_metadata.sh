#!/usr/bin/env bash
# Metadata through the program, read by exiftool: XMP and EXIF that
# exiftool put in a PNG, and XMP and IPTC in a TIFF, are in the JP2 that
# gj2k encode writes (uuid boxes, where exiftool looks) and come back out
# of gj2k decode; a PNG's gamma other than sRGB's becomes an ICC profile
# (or, without LittleCMS, a warning); OpenJPEG decodes those JP2 files to
# the same pixels.
# Usage: check_metadata.sh GJ2K   (skips, exit 77, without exiftool)
set -euo pipefail
gj2k=$1
command -v exiftool >/dev/null || { echo "skip: no exiftool"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
tag() { exiftool -s -s -s "-$1" "$2"; } # TAG FILE: the tag's value
# whether FILE's description (gj2k info) has a line with TEXT (taken whole
# first: grep -q in a pipe ends early, and pipefail counts the writer's SIGPIPE)
described() { local text; text=$("$gj2k" info "$1"); grep -q -- "$2" <<<"$text"; }
printf 'P6\n7 5\n255\n' >src.ppm
head -c 105 /dev/urandom >>src.ppm
"$gj2k" convert -i src.ppm -o a.png >/dev/null
exiftool -q -overwrite_original '-XMP-dc:Title=gj2k title' '-EXIF:Artist=gj2k artist' a.png
[ "$(tag XMP-dc:Title a.png)" = "gj2k title" ] || fail "exiftool did not tag a.png"
"$gj2k" encode -i a.png -o a.jp2 >/dev/null
[ "$(tag XMP-dc:Title a.jp2)" = "gj2k title" ] || fail "XMP not in a.jp2"
[ "$(tag EXIF:Artist a.jp2)" = "gj2k artist" ] || fail "EXIF not in a.jp2"
"$gj2k" decode -i a.jp2 -o b.png >/dev/null
[ "$(tag XMP-dc:Title b.png)" = "gj2k title" ] || fail "XMP not back in b.png"
[ "$(tag EXIF:Artist b.png)" = "gj2k artist" ] || fail "EXIF not back in b.png"
# a PNG's gamma: sRGB's is sRGB; another becomes an ICC profile in the JP2
# (LittleCMS) that exiftool reads and gj2k renders, or is named in a warning
cp a.png s.png
exiftool -q -overwrite_original -PNG:Gamma=2.2 s.png
"$gj2k" encode -i s.png -o s.jp2 2>said.txt >/dev/null
[ ! -s said.txt ] || fail "sRGB's gamma warned: $(cat said.txt)"
described s.jp2 'colr: enumerated 16' || fail "sRGB's gamma is not sRGB"
cp a.png g.png
exiftool -q -overwrite_original -PNG:Gamma=1.8 g.png
"$gj2k" encode -i g.png -o g.jp2 2>said.txt >/dev/null
if described g.jp2 'colr: ICC profile'; then
  [ "$(tag ICC_Profile:ColorSpaceData g.jp2)" = "RGB" ] || fail "exiftool reads no RGB profile"
  "$gj2k" decode -i g.jp2 -o g.ppm --force-rgb >/dev/null || fail "the profile does not render"
else
  grep -q 'g.png: PNG: gAMA/cHRM are not carried' said.txt || fail "gAMA left out silently"
fi
if "$gj2k" convert -i src.ppm -o c.tif >/dev/null 2>&1; then
  exiftool -q -overwrite_original '-XMP-dc:Title=tiff title' '-IPTC:Keywords=gj2k keyword' c.tif
  "$gj2k" encode -i c.tif -o c.jp2 >/dev/null
  [ "$(tag IPTC:Keywords c.jp2)" = "gj2k keyword" ] || fail "IPTC not in c.jp2"
  [ "$(tag XMP-dc:Title c.jp2)" = "tiff title" ] || fail "XMP not in c.jp2"
  "$gj2k" decode -i c.jp2 -o d.tif >/dev/null
  [ "$(tag IPTC:Keywords d.tif)" = "gj2k keyword" ] || fail "IPTC not back in d.tif"
fi
if command -v opj_decompress >/dev/null; then
  opj_decompress -i a.jp2 -o opj.ppm >/dev/null 2>&1 || fail "OpenJPEG did not decode a.jp2"
  "$gj2k" convert -i opj.ppm -o opj_again.ppm >/dev/null # its header as gj2k writes it
  "$gj2k" decode -i a.jp2 -o gj2k.ppm >/dev/null
  cmp -s opj_again.ppm gj2k.ppm || fail "OpenJPEG decodes a.jp2 to other pixels"
fi
echo "metadata: ok"
