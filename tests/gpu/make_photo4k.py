"""The benchmarks' 4K photo: 3840x2160 RGB, a mirrored mosaic of a smaller
PPM (tests/gpu/prepare.sh carries ../shared/images/Bretagne1.ppm, 0.9 MB,
and run.sh makes the 25 MB photo on the GPU machine).
Usage: python3 make_photo4k.py SOURCE.ppm OUT.ppm WIDTH HEIGHT"""
import sys
data = open(sys.argv[1], 'rb').read()
fields, at = [], 0
while len(fields) < 4 and at < len(data):
    while at < len(data) and data[at:at + 1].isspace(): at += 1
    end = at
    while end < len(data) and not data[end:end + 1].isspace(): end += 1
    fields.append(data[at:end]); at = end
at += 1
if len(fields) < 4 or fields[0] != b'P6' or fields[3] != b'255':
    sys.exit('make_photo4k: %s is not an 8-bit binary PPM (no comments)' % sys.argv[1])
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
