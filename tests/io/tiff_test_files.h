/* tiff_test_files.h - TIFF files made with libtiff itself, for test_tiff:
 * strips or tiles, chunky or planar, any depth, palette, extra samples and
 * resolution, from stored sample values. */
#ifndef GJ2K_TIFF_TEST_FILES_H
#define GJ2K_TIFF_TEST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a file made by libtiff here holds. */
typedef struct tiff_spec {
    uint32_t width, height;
    uint16_t bits, samples, photometric, planar, format, compression;
    uint32_t tile_width, tile_height; /* 0: strips */
    uint32_t rows_per_strip;
    bool big_endian;
    uint16_t extra_count, extras[4];
    const uint16_t *colormap; /* 3 * 2^bits entries */
    double resolution_x, resolution_y; /* 0: none */
    uint16_t resolution_unit;
} tiff_spec;

/* Writes a file with libtiff from stored values laid out [y][x][sample]
 * (NULL: zero blocks of libtiff's own sizes) and returns its bytes. */
uint8_t *make_tiff(const tiff_spec *spec, const uint32_t *values, size_t *size);
/* Random stored values for a spec, [y][x][sample]. */
uint32_t *random_values(const tiff_spec *spec);
/* Where a file's pixel data ends (the furthest strip or tile). */
uint64_t data_end(const char *path);

#endif
