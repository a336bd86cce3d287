/* fuzz_image_reader.c - libFuzzer target for one image reader, chosen at
 * build time by FUZZ_FORMAT (a gj2k_file_format). Whatever the reader
 * accepts must also write back and read again in the same format. */
#include <stdlib.h>

#include "gj2k.h"

#ifndef FUZZ_FORMAT
#error "define FUZZ_FORMAT"
#endif

/* Raw input carries no geometry: take it from the first 8 bytes. */
static const uint8_t *take_raw_geometry(const uint8_t *data, size_t *size, gj2k_raw_geometry *g)
{
    if (*size < 8)
        return NULL;
    *g = (gj2k_raw_geometry){.width = 1u + data[0] % 64u, .height = 1u + data[1] % 64u,
                             .num_components = 1u + data[2] % 4u, .precision = 1u + data[3] % 16u,
                             .is_signed = data[4] & 1u};
    for (int c = 0; c < 4; c++) {
        g->dx[c] = 1u + ((data[5 + c / 2] >> (4 * (c % 2))) & 1u);
        g->dy[c] = 1u + ((data[7] >> c) & 1u);
    }
    *size -= 8;
    return data + 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gj2k_raw_geometry geometry;
    gj2k_read_options options = {.max_samples = 1u << 22};
    if (FUZZ_FORMAT == GJ2K_FORMAT_RAW || FUZZ_FORMAT == GJ2K_FORMAT_RAWL) {
        data = take_raw_geometry(data, &size, &geometry);
        if (data == NULL)
            return 0;
        options.raw = &geometry;
    }
    gj2k_image *image = NULL;
    gj2k_error error;
    if (gj2k_image_read_memory(data, size, FUZZ_FORMAT, &options, &image, &error) != GJ2K_OK)
        return 0;
    uint8_t *written = NULL;
    size_t written_size = 0;
    if (gj2k_image_write_memory(image, FUZZ_FORMAT, NULL, &written, &written_size, &error) ==
        GJ2K_OK) {
        gj2k_image *again = NULL;
        options.max_samples = 0;
        if (gj2k_image_read_memory(written, written_size, FUZZ_FORMAT, &options, &again, &error) !=
            GJ2K_OK)
            abort(); /* what gj2k writes, gj2k must read */
        gj2k_image_destroy(again);
    }
    free(written);
    gj2k_image_destroy(image);
    return 0;
}
