#!/usr/bin/env python3
"""Writes a binary PPM (P6, 8-bit) at twice the width and height of another:
each row twice side by side, each such row twice. The GPU scripts make the
7680x4320 benchmark image from the 3840x2160 one this way.
Usage: double_size.py IN.ppm OUT.ppm"""
import sys

data = open(sys.argv[1], 'rb').read()
fields, at = [], 0
while len(fields) < 4:
    while data[at:at + 1].isspace():
        at += 1
    end = at
    while not data[end:end + 1].isspace():
        end += 1
    fields.append(data[at:end])
    at = end
at += 1
if fields[0] != b'P6' or fields[3] != b'255':
    sys.exit('double_size: %s is not an 8-bit binary PPM' % sys.argv[1])
w, h = int(fields[1]), int(fields[2])
with open(sys.argv[2], 'wb') as out:
    out.write(b'P6\n%d %d\n255\n' % (2 * w, 2 * h))
    for y in range(h):
        row = data[at + y * 3 * w: at + (y + 1) * 3 * w]
        out.write(row + row + row + row)
