/* fuzz_encode.c - libFuzzer target for the encoder (gj2k_encode_memory).
 * The input's first bytes choose the options (any values, valid or not) and
 * a small image's shape; the rest are its samples. Whatever they say, the
 * encoder must return: a failure with a one-line message and no output, or
 * a codestream that gj2k decodes; without rate control (lossless 5/3) the
 * decoded image must be the source exactly. */
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "io_test_support.h" /* images_equal */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A cursor over the input: bytes past its end read as 0. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t size, at;
} fuzz_input;

static unsigned take(fuzz_input *in)
{
    return in->at < in->size ? in->data[in->at++] : 0u;
}

static unsigned take16(fuzz_input *in)
{
    unsigned hi = take(in);
    return hi << 8 | take(in);
}

static void check_one_line(const gj2k_error *error)
{
    if (error->message[0] == '\0' || strchr(error->message, '\n') != NULL)
        abort();
}

static gj2k_image *image_from_input(fuzz_input *in)
{
    uint32_t components = 1 + take(in) % 4, precision = 1 + take(in) % 16;
    bool is_signed = take(in) & 1u;
    uint32_t x0 = take(in) % 9, y0 = take(in) % 9;
    uint32_t width = 1 + take(in) % 48, height = 1 + take(in) % 48;
    uint32_t dx = 1 + take(in) % 3, dy = 1 + take(in) % 3;
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = c ? dx : 1, .dy = c ? dy : 1,
                                        .precision = precision, .is_signed = is_signed};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, x0, y0, x0 + width, y0 + height, components, info, &error) !=
        GJ2K_OK)
        return NULL;
    int64_t low = is_signed ? -((int64_t)1 << (precision - 1)) : 0;
    uint64_t range = (uint64_t)1 << precision;
    for (uint32_t c = 0; c < components; c++) {
        gj2k_component *k = &image->components[c];
        for (size_t i = 0; i < (size_t)k->width * k->height; i++)
            k->samples[i] = (int32_t)(low + (int64_t)(take16(in) % range));
    }
    return image;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    gj2k_encode_options o = {0};
    unsigned flags = take(&in);
    o.irreversible = flags & 1u;
    o.use_sop = flags & 2u;
    o.use_eph = flags & 4u;
    o.use_plt = flags & 8u;
    o.use_tlm = flags & 16u;
    o.format = flags & 32u ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K;
    o.mct = (gj2k_mct_mode)(take(&in) % 4);           /* 3: out of range */
    o.num_resolutions = take(&in) % 36;                /* up to 35: some invalid */
    o.code_block_width = 1u << (take(&in) % 12);       /* 1..2048 */
    o.code_block_height = 1u << (take(&in) % 12);
    o.code_block_style = take(&in) % 70;                /* 64: HT; 65..69: invalid */
    o.progression = (gj2k_progression)(take(&in) % 6); /* 5: invalid */
    o.guard_bits = take(&in) % 9;
    unsigned tiles = take(&in);
    if (tiles & 1u) {
        o.tile_width = 1 + take(&in) % 40;
        o.tile_height = 1 + take(&in) % 40;
        o.tile_x0 = take(&in) % 10;
        o.tile_y0 = take(&in) % 10;
    }
    o.num_precinct_sizes = take(&in) % 3;
    for (unsigned i = 0; i < o.num_precinct_sizes; i++) {
        o.precinct_width[i] = 1u << (take(&in) % 9);
        o.precinct_height[i] = 1u << (take(&in) % 9);
    }
    double targets[3];
    unsigned target = take(&in) % 5;
    o.target = (gj2k_rate_target)target;
    o.num_layers = target == GJ2K_TARGET_NONE ? 1 : 1 + take(&in) % 3;
    for (unsigned l = 0; l < o.num_layers; l++)
        targets[l] = (double)take16(&in) / 64.0;
    o.targets = target == GJ2K_TARGET_NONE ? NULL : targets;
    o.threads = 1 + take(&in) % 3;
    o.device = GJ2K_DEVICE_CPU;
    gj2k_image *image = image_from_input(&in);
    if (image == NULL)
        return 0;

    uint8_t *out = (uint8_t *)&in; /* must be reset on failure */
    size_t out_size = 1;
    gj2k_error error = {0};
    gj2k_status status = gj2k_encode_memory(image, &o, &out, &out_size, NULL, &error);
    if (status != GJ2K_OK) {
        if (out != NULL || out_size != 0 || error.status != status)
            abort();
        check_one_line(&error);
        gj2k_image_destroy(image);
        return 0;
    }
    gj2k_image *decoded = NULL;
    gj2k_decode_options d = {.device = GJ2K_DEVICE_CPU, .threads = 1};
    if (gj2k_decode_memory(out, out_size, &d, &decoded, &error) != GJ2K_OK)
        abort(); /* what gj2k writes, gj2k reads */
    bool lossless = !o.irreversible && o.target == GJ2K_TARGET_NONE;
    if (lossless && !images_equal(image, decoded))
        abort();
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(image);
    free(out);
    return 0;
}
