#!/usr/bin/env bash
# Makes the ignored folders that tests/gpu/run.sh uses when they are carried
# to the GPU machine (which has no network and no ../shared):
#   .bench/              photo4k.ppm (3840x2160 RGB, a mirrored mosaic of
#                        ../shared/images/Bretagne1.ppm); run.sh makes its
#                        lossless and -I -r 20 codestreams there
#   .conformance-input/  the T.803 codestreams (../shared/conformance/input)
#   .nvjpeg2k/           nvidia-nvjpeg2k-cu13 from the Python registry: include/, lib/
#   .peers/              OpenJPEG, Grok and OpenJPH (../shared/tools/peers.sh)
# Usage, from the repository root, after a build:  bash tests/gpu/prepare.sh [GJ2K]
# The carry limit is 64 MiB: the four take some 58.
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=../shared
gj2k=${1:-}
for g in "$gj2k" build/dev/gj2k build/release/gj2k; do
  [ -n "$g" ] && [ -x "$g" ] && { gj2k=$g; break; }
done
[ -x "$gj2k" ] || { echo "prepare: build gj2k first (build/dev or build/release)"; exit 1; }

if [ ! -f .bench/photo4k.ppm ]; then
  mkdir -p .bench
  python3 - "$shared/images/Bretagne1.ppm" .bench/photo4k.ppm 3840 2160 <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
fields, at = [], 0
while len(fields) < 4:
    while data[at:at + 1].isspace(): at += 1
    end = at
    while not data[end:end + 1].isspace(): end += 1
    fields.append(data[at:end]); at = end
at += 1
w, h = int(fields[1]), int(fields[2])
W, H = int(sys.argv[3]), int(sys.argv[4])
rows = [data[at + y * 3 * w: at + (y + 1) * 3 * w] for y in range(h)]
def mirrored(row):  # the row's pixels right to left
    return b''.join(row[3 * x: 3 * x + 3] for x in range(w - 1, -1, -1))
pairs = [(r, mirrored(r)) for r in rows]
out = open(sys.argv[2], 'wb')
out.write(b'P6\n%d %d\n255\n' % (W, H))
for Y in range(H):
    tile_y, y = divmod(Y, h)
    forward, backward = pairs[y if tile_y % 2 == 0 else h - 1 - y]
    line = b''.join(forward if t % 2 == 0 else backward for t in range(W // w + 1))
    out.write(line[:3 * W])
PY
fi

if [ ! -d .conformance-input ]; then
  mkdir -p .conformance-input
  cp "$shared"/conformance/input/* .conformance-input/
fi

if [ ! -f .nvjpeg2k/include/nvjpeg2k.h ]; then
  wheel=$(mktemp -d)
  python3 -m pip download --quiet --no-deps nvidia-nvjpeg2k-cu13 -d "$wheel"
  python3 -m zipfile -e "$wheel"/*.whl "$wheel/x"
  rm -rf .nvjpeg2k
  cp -r "$wheel/x/nvidia/nvjpeg2k" .nvjpeg2k
  rm -rf "$wheel"
fi

[ -f .peers/env.sh ] || bash "$shared/tools/peers.sh" .peers
du -sh .bench .conformance-input .nvjpeg2k .peers
