#!/usr/bin/env bash
# Writes gj2k's manual page, gj2k.1, from the program's own help (so the two
# never disagree): the overview, each command's `gj2k help COMMAND` (options
# and examples), exit status and files. The build runs it (the `man_page`
# target) and `cmake --install` puts the page in share/man/man1.
# Usage: scripts/make_man_page.sh GJ2K OUT.1
set -euo pipefail
gj2k=$1 out=$2
commands=$("$gj2k" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} /^$/ && on {exit}')
[ -n "$commands" ] || { echo "make_man_page: no commands in $gj2k --help" >&2; exit 1; }
version=$("$gj2k" --version | awk 'NR == 1 {print $2}') # (awk reads it all: no SIGPIPE)
escape() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }
tmp=$out.tmp-gj2k
{
  echo ".TH GJ2K 1 \"\" \"gj2k $version\" \"User Commands\""
  echo ".SH NAME"
  echo "gj2k \\- JPEG 2000 encoder, decoder and transcoder (Part 1, JP2, HTJ2K), on a GPU or the CPU"
  echo ".SH SYNOPSIS"
  echo ".B gj2k"
  echo ".I COMMAND"
  echo "[options]"
  echo ".br"
  echo ".B gj2k help"
  echo ".I COMMAND"
  echo ".SH DESCRIPTION"
  echo ".nf"
  "$gj2k" --help | escape
  echo ".fi"
  echo ".SH COMMANDS"
  for c in $commands; do
    echo ".SS gj2k $c"
    echo ".nf"
    "$gj2k" help "$c" | escape
    echo ".fi"
  done
  echo ".SH EXIT STATUS"
  echo "0 on success, 1 when the work failed (a batch: when any file failed), 2 for a usage error."
  echo "Errors are one line on standard error, naming the file."
  echo ".SH FILES"
  echo "Outputs are written under a temporary name beside them (OUT.tmp-gj2k) and renamed when whole."
  echo ".SH SEE ALSO"
  echo ".BR opj_compress (1),"
  echo ".BR opj_decompress (1),"
  echo ".BR grk_compress (1),"
  echo ".BR ojph_compress (1)"
} >"$tmp"
mv "$tmp" "$out"
