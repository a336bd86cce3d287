/* bench_encode.h - the encode timings of `gj2k bench`. */
#ifndef GJ2K_APP_BENCH_ENCODE_H
#define GJ2K_APP_BENCH_ENCODE_H

#include "gj2k.h"

/*
 * Times gj2k_encode_memory on `image` (pixels in memory to a codestream in
 * memory), the fastest of `repeats` runs: lossless (the default options) and
 * lossy (-I, compression ratio 20), each checked by decoding it (exact, or its
 * PSNR). Then a whole run, as `gj2k encode` does it: read the image file at
 * `path` (NULL: `image` written to a temporary PNM first, untimed), encode,
 * write a temporary .j2k file. `resolutions` and `threads` are passed on (0:
 * the defaults). Prints one row each; returns 0, or 1 after one line on stderr.
 */
int bench_encode(const gj2k_image *image, const char *path, unsigned resolutions,
                 unsigned repeats, unsigned threads);

#endif
