"""gj2k against Pillow (OpenJPEG) from Python: a 4K photo (3840x2160 RGB,
by default the shared 2K cinema frame scaled up) written and read
losslessly and at 20:1 by each, best of --repeat runs.

    python python/bench/bench_read_write.py [--image PATH] [--repeat N]
"""
import argparse
import io
import os
import time
from pathlib import Path

import numpy as np
from PIL import Image

import gj2k

REPO = Path(__file__).resolve().parents[2]


def photo(path):
    if path is None:
        shared = Path(os.environ.get("GJ2K_SHARED_DIR") or REPO.parent / "shared")
        with Image.open(shared / "images" / "cinema2k_rgb8.png") as image:
            return np.asarray(image.convert("RGB").resize((3840, 2160), Image.LANCZOS))
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def best(repeat, work):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def pillow_write(array, ratio):
    out = io.BytesIO()
    options = {"irreversible": True, "quality_mode": "rates", "quality_layers": [ratio]} \
        if ratio else {}
    Image.fromarray(array).save(out, "JPEG2000", **options)
    return out.getvalue()


def pillow_read(data):
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", help="an image Pillow reads (default: a 4K frame)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    array = photo(args.image)
    print("%dx%d RGB, gj2k %s (%s), Pillow %s, %d cores" % (
        array.shape[1], array.shape[0], gj2k.__version__, "device auto",
        Image.__version__, os.cpu_count()))
    print("%-12s %-8s %10s %10s %10s" % ("", "coder", "write s", "read s", "bytes"))
    for label, ratio in (("lossless", None), ("20:1", 20)):
        ours_w, ours = best(args.repeat, lambda: gj2k.write(None, array, ratios=[ratio])
                            if ratio else gj2k.write(None, array))
        theirs_w, theirs = best(args.repeat, lambda: pillow_write(array, ratio))
        ours_r, decoded = best(args.repeat, lambda: gj2k.read(ours))
        theirs_r, peer_decoded = best(args.repeat, lambda: pillow_read(theirs))
        if ratio is None:
            assert np.array_equal(decoded, array) and np.array_equal(peer_decoded, array)
        print("%-12s %-8s %10.3f %10.3f %10d" % (label, "gj2k", ours_w, ours_r, len(ours)))
        print("%-12s %-8s %10.3f %10.3f %10d" % ("", "Pillow", theirs_w, theirs_r,
                                                  len(theirs)))


if __name__ == "__main__":
    main()
