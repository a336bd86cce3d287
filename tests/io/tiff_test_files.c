/* tiff_test_files.c - TIFF files made with libtiff itself for test_tiff. */
#include "tiff_test_files.h"

#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/* Stores `v` as sample `index` of a row, MSB first; 16-bit in host order
 * (libtiff swaps it for big-endian files). */
static void put_sample(uint8_t *row, size_t index, unsigned bits, uint32_t v)
{
    if (bits == 16) {
        uint16_t s = (uint16_t)v;
        memcpy(row + 2 * index, &s, 2);
        return;
    }
    for (unsigned b = 0; b < bits; b++) {
        size_t bit = index * bits + b;
        if (v >> (bits - 1 - b) & 1)
            row[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
    }
}

/* Writes a file with libtiff from stored values laid out [y][x][sample]
 * (NULL: zero blocks of libtiff's own sizes) and returns its bytes. */
uint8_t *make_tiff(const tiff_spec *spec, const uint32_t *values, size_t *size)
{
    char path[600];
    snprintf(path, sizeof path, "%s/made.tif", test_temp_dir());
    TIFF *tiff = TIFFOpen(path, spec->big_endian ? "wb" : "wl");
    if (tiff == NULL)
        return NULL;
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, spec->width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, spec->height);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, spec->bits);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, spec->samples);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, spec->photometric);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, spec->planar ? spec->planar : PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, spec->format ? spec->format : SAMPLEFORMAT_UINT);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, spec->compression ? spec->compression : COMPRESSION_NONE);
    if (spec->extra_count)
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, spec->extra_count, spec->extras);
    if (spec->colormap) {
        size_t n = (size_t)1 << spec->bits;
        TIFFSetField(tiff, TIFFTAG_COLORMAP, spec->colormap, spec->colormap + n,
                     spec->colormap + 2 * n);
    }
    if (spec->resolution_x > 0) {
        TIFFSetField(tiff, TIFFTAG_XRESOLUTION, spec->resolution_x);
        TIFFSetField(tiff, TIFFTAG_YRESOLUTION, spec->resolution_y);
        TIFFSetField(tiff, TIFFTAG_RESOLUTIONUNIT, spec->resolution_unit);
    }
    bool tiled = spec->tile_width != 0;
    uint32_t block_width = tiled ? spec->tile_width : spec->width;
    uint32_t block_height = tiled ? spec->tile_height : spec->rows_per_strip;
    if (tiled) {
        TIFFSetField(tiff, TIFFTAG_TILEWIDTH, block_width);
        TIFFSetField(tiff, TIFFTAG_TILELENGTH, block_height);
    } else {
        TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, block_height);
    }
    bool planar = spec->planar == PLANARCONFIG_SEPARATE;
    uint32_t per_pixel = planar ? 1 : spec->samples;
    size_t row_bytes = ((size_t)block_width * per_pixel * spec->bits + 7) / 8;
    size_t block_bytes = values ? row_bytes * block_height
                                : (size_t)(tiled ? TIFFTileSize(tiff) : TIFFStripSize(tiff));
    uint8_t *block = malloc(block_bytes);
    bool ok = true;
    for (uint32_t plane = 0; plane < (planar ? spec->samples : 1u); plane++)
        for (uint32_t y0 = 0; y0 < spec->height; y0 += block_height)
            for (uint32_t x0 = 0; x0 < spec->width; x0 += block_width) {
                memset(block, 0, block_bytes);
                uint32_t rows = spec->height - y0 < block_height ? spec->height - y0 : block_height;
                for (uint32_t r = 0; values && r < rows; r++)
                    for (uint32_t x = 0; x < block_width && x0 + x < spec->width; x++)
                        for (uint32_t s = 0; s < per_pixel; s++) {
                            size_t at = ((size_t)(y0 + r) * spec->width + x0 + x) * spec->samples +
                                        (planar ? plane : s);
                            put_sample(block + r * row_bytes, (size_t)x * per_pixel + s,
                                       spec->bits, values[at]);
                        }
                size_t used = tiled ? block_bytes : values ? row_bytes * rows : block_bytes;
                if (tiled)
                    ok &= TIFFWriteEncodedTile(tiff, TIFFComputeTile(tiff, x0, y0, 0, (uint16_t)plane),
                                               block, (tmsize_t)used) >= 0;
                else
                    ok &= TIFFWriteEncodedStrip(tiff, TIFFComputeStrip(tiff, y0, (uint16_t)plane),
                                                block, (tmsize_t)used) >= 0;
            }
    free(block);
    TIFFClose(tiff);
    return ok ? load_bytes(path, size) : NULL;
}

/* Random stored values for a spec, [y][x][sample]. */
uint32_t *random_values(const tiff_spec *spec)
{
    size_t count = (size_t)spec->width * spec->height * spec->samples;
    uint32_t *values = malloc(count * sizeof *values);
    for (size_t i = 0; i < count; i++)
        values[i] = (uint32_t)test_random() & ((1u << spec->bits) - 1);
    return values;
}
/* Where a file's pixel data ends (the furthest strip or tile). */
uint64_t data_end(const char *path)
{
    TIFF *tiff = TIFFOpen(path, "r");
    if (tiff == NULL)
        return 0;
    uint32_t blocks = TIFFIsTiled(tiff) ? TIFFNumberOfTiles(tiff) : TIFFNumberOfStrips(tiff);
    uint64_t end = 0;
    for (uint32_t i = 0; i < blocks; i++) {
        uint64_t last = TIFFGetStrileOffset(tiff, i) + TIFFGetStrileByteCount(tiff, i);
        end = last > end ? last : end;
    }
    TIFFClose(tiff);
    return end;
}
