/* make_fuzz_seeds.c - writes small valid files of every readable format into
 * DIR/<format>/ as the fuzzers' starting corpus:  make_fuzz_seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "gj2k.h"

static int write_seed(const char *dir, const char *name, gj2k_file_format format,
                      const gj2k_image *image, const uint8_t *prefix, size_t prefix_size)
{
    uint8_t *data;
    size_t size;
    gj2k_error error;
    if (gj2k_image_write_memory(image, format, NULL, &data, &size, &error) != GJ2K_OK)
        return 0; /* this variant is not writable in this format: no seed */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        free(data);
        return 1;
    }
    fwrite(prefix, 1, prefix_size, f);
    fwrite(data, 1, size, f);
    fclose(f);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
        return 2;
    }
    static const struct { const char *name; gj2k_file_format format; } formats[] = {
        {"pnm", GJ2K_FORMAT_PNM}, {"pgx", GJ2K_FORMAT_PGX}, {"bmp", GJ2K_FORMAT_BMP},
        {"png", GJ2K_FORMAT_PNG}, {"tiff", GJ2K_FORMAT_TIFF}, {"raw", GJ2K_FORMAT_RAW},
        {"rawl", GJ2K_FORMAT_RAWL},
    };
    int failures = 0;
    mkdir(argv[1], 0777);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        if (!gj2k_format_can_write(formats[f].format))
            continue;
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", argv[1], formats[f].name);
        mkdir(dir, 0777);
        for (uint32_t components = 1; components <= 4; components++)
            for (uint32_t precision = 1; precision <= 16; precision += 5) {
                gj2k_component_info info[4];
                for (uint32_t c = 0; c < 4; c++)
                    info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
                gj2k_image *image;
                gj2k_error error;
                if (gj2k_image_create(&image, 0, 0, 7, 5, components, info, &error) != GJ2K_OK)
                    return 1;
                for (uint32_t c = 0; c < components; c++)
                    for (size_t i = 0; i < 35; i++)
                        image->components[c].samples[i] =
                            (int32_t)((i * 2654435761u + c) % (1u << precision));
                if (components == 4 || components == 2)
                    image->components[components - 1].role = GJ2K_ROLE_OPACITY;
                /* The raw fuzzers read their geometry from 8 leading bytes. */
                uint8_t prefix[8] = {6, 4, (uint8_t)(components - 1), (uint8_t)(precision - 1), 0, 0, 0, 0};
                bool raw = formats[f].format == GJ2K_FORMAT_RAW || formats[f].format == GJ2K_FORMAT_RAWL;
                char name[64];
                snprintf(name, sizeof name, "seed_%uc_%ub", components, precision);
                failures += write_seed(dir, name, formats[f].format, image, prefix, raw ? 8 : 0);
                gj2k_image_destroy(image);
            }
    }
    return failures ? 1 : 0;
}
