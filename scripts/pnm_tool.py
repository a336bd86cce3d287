#!/usr/bin/env python3
"""Small PNM helpers for the benchmark scripts (8-bit RGB PPM, P6).

  pnm_tool.py tile IN OUT W H      IN mirrored out to W x H, a mosaic of it and its mirror images
  pnm_tool.py crop IN OUT X Y W H  the W x H rectangle of IN at (X, Y)
  pnm_tool.py cmp A B [REF]        'exact', or the PSNR of A against REF (default B)
                                   and the largest difference between A and B
"""
import math
import operator
import sys


def read(path):
    data = open(path, 'rb').read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b'#':
            while data[at:at + 1] not in (b'\n', b''):
                at += 1
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    return fields[0], int(fields[1]), int(fields[2]), int(fields[3]), data[at + 1:]


def write(path, width, height, pixels):
    open(path, 'wb').write(b'P6\n%d %d\n255\n' % (width, height) + pixels)


def rgb(path):
    magic, width, height, maxval, pixels = read(path)
    if magic != b'P6' or maxval != 255:
        sys.exit('%s: not an 8-bit RGB PPM' % path)
    return width, height, pixels


def tile(src, dst, out_w, out_h):
    w, h, px = rgb(src)
    rows = [px[y * w * 3:(y + 1) * w * 3] for y in range(h)]
    pairs = []  # each row and the same row right to left, each pixel kept RGB
    for row in rows:
        backwards = row[::-1]
        mirrored = bytearray(len(row))
        mirrored[0::3], mirrored[1::3], mirrored[2::3] = backwards[2::3], backwards[1::3], backwards[0::3]
        pairs.append((row, bytes(mirrored)))
    out = []
    for y in range(out_h):  # tiles alternate forward and mirrored, across and down
        tile_y, r = divmod(y, h)
        forward, backward = pairs[r if tile_y % 2 == 0 else h - 1 - r]
        out.append(b''.join(forward if t % 2 == 0 else backward for t in range(out_w // w + 1))[:out_w * 3])
    write(dst, out_w, out_h, b''.join(out))


def crop(src, dst, x, y, out_w, out_h):
    w, h, px = rgb(src)
    if x + out_w > w or y + out_h > h:
        sys.exit('%s: %dx%d at (%d, %d) is outside %dx%d' % (src, out_w, out_h, x, y, w, h))
    write(dst, out_w, out_h,
          b''.join(px[((y + r) * w + x) * 3:((y + r) * w + x + out_w) * 3] for r in range(out_h)))


def compare(a_path, b_path, ref_path=None):
    a, b = read(a_path), read(b_path)
    ref = read(ref_path) if ref_path else b
    if a[:4] != b[:4] or len(a[4]) != len(b[4]):
        print('different geometry')
        return
    if a[4] == b[4] and ref is b:
        print('exact')
        return
    diff = list(map(operator.sub, a[4], b[4]))
    largest = max(max(diff), -min(diff))
    if ref is not b:
        diff = list(map(operator.sub, a[4], ref[4]))
    mse = sum(map(operator.mul, diff, diff)) / len(diff)
    psnr = 10 * math.log10(255 * 255 / mse) if mse else 99
    print('PSNR %.2f dB, max diff %d' % (psnr, largest))


if __name__ == '__main__':
    command, args = sys.argv[1], sys.argv[2:]
    if command == 'tile':
        tile(args[0], args[1], int(args[2]), int(args[3]))
    elif command == 'crop':
        crop(args[0], args[1], *map(int, args[2:6]))
    elif command == 'cmp':
        compare(*args)
    else:
        sys.exit(__doc__)
