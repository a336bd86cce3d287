#!/usr/bin/env bash
# The manual page made from gj2k's help (scripts/make_man_page.sh) and the
# bash completion (scripts/gj2k-completion.bash), checked against the
# program: every command has its section and renders with man; completion
# offers the commands, a command's options, --device's values.
# Usage: check_man_and_completion.sh GJ2K REPOSITORY
set -euo pipefail
gj2k=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$repo/scripts/make_man_page.sh" "$gj2k" "$work/gj2k.1"
grep -q '^\.TH GJ2K 1' "$work/gj2k.1" || { echo "FAIL: no .TH line"; exit 1; }
for c in encode decode info bench convert transcode; do
  grep -q "^\.SS gj2k $c\$" "$work/gj2k.1" || { echo "FAIL: no section for $c"; exit 1; }
done
grep -q -- '-ImgDir DIR' "$work/gj2k.1" || { echo "FAIL: the batch options are missing"; exit 1; }
# (a real man-db: a minimised Ubuntu's man is a stub that renders nothing)
if [[ $(man --version 2>/dev/null) == "man "* ]]; then
  MANWIDTH=80 man -l "$work/gj2k.1" >"$work/text" 2>"$work/errors"
  grep -q 'gj2k transcode -ImgDir archive -o ht --verify' "$work/text" ||
    { echo "FAIL: man does not render the examples"; exit 1; }
  [ ! -s "$work/errors" ] || { echo "FAIL: man says: $(head -3 "$work/errors")"; exit 1; }
fi
# completion, as bash calls it
complete_words() { # WORDS...: the completions of the last word
  bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
    _gj2k; printf "%s\n" "${COMPREPLY[@]}"' _ "$repo/scripts/gj2k-completion.bash" "$gj2k" "$@"
}
[ "$(complete_words enc)" = encode ] || { echo "FAIL: 'enc' -> $(complete_words enc)"; exit 1; }
# (the words taken whole first: grep -q in a pipe would end early, and
# pipefail would count the writer's SIGPIPE as a failure)
words=$(complete_words encode -Img)
grep -qx -- -ImgDir <<<"$words" || { echo "FAIL: encode -Img: $words"; exit 1; }
words=$(complete_words decode --dev)
grep -qx -- --device <<<"$words" || { echo "FAIL: decode --dev: $words"; exit 1; }
grep -qx -- --devices <<<"$words" || { echo "FAIL: decode --dev: $words"; exit 1; }
[ "$(complete_words decode --device "" | tr '\n' ' ')" = "auto gpu cpu " ] ||
  { echo "FAIL: --device values: $(complete_words decode --device "")"; exit 1; }
[ "$(complete_words help tra)" = transcode ] || { echo "FAIL: help tra"; exit 1; }
echo "man page and completion: ok"
