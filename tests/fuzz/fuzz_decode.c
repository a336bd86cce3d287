/* fuzz_decode.c - libFuzzer target for the JPEG 2000 decoder
 * (gj2k_decode_memory, codestreams and JP2 files alike). Whatever the input,
 * the decoder must return: a failure with a one-line message, or an image
 * whose components agree with its canvas (Annex B.2, eq. B-1).
 *
 * The work an input may cause is bounded here, so that the fuzzer runs at
 * hundreds of inputs a second rather than a few: an input whose SIZ declares
 * more than FUZZ_MAX_TILE_COMPONENTS tile-components is skipped (each costs
 * set-up work, data or not); images over FUZZ_MAX_SAMPLES are refused
 * (GJ2K_ERROR_LIMIT, before any tile is decoded) and tried again at lower
 * resolutions, so that large inputs still reach Tier-2 and Tier-1 cheaply;
 * the last input byte's low bit asks for one more decode at the next
 * resolution, the next two for fewer quality layers, the next for the
 * strict decode of an incomplete codestream (no allow_partial), and the
 * top three for a second decode in strips of 1-7 rows, which must give
 * the same outcome and the same samples. */
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_SAMPLES (1u << 14)
#define FUZZ_MAX_REDUCE 8
#define FUZZ_MAX_TILE_COMPONENTS 1024u
#define FUZZ_MAX_MEMORY ((uint64_t)64 << 20)

static volatile uint64_t sink;

static uint32_t ceil_div(uint32_t v, uint32_t d) { return (uint32_t)(((uint64_t)v + d - 1) / d); }

static void ignore_warning(void *user, const char *message)
{
    (void)user;
    if (message == NULL || message[0] == '\0' || strchr(message, '\n') != NULL)
        abort(); /* warnings are one line too */
}

/* The decoder's promises about what it returns; abort() makes a finding. */
static void check_result(gj2k_status status, const gj2k_image *image, const gj2k_error *error)
{
    if (status != GJ2K_OK) {
        if (image != NULL || error->status != status || error->message[0] == '\0' ||
            strchr(error->message, '\n') != NULL)
            abort();
        return;
    }
    if (image == NULL || image->num_components == 0 || image->components == NULL ||
        image->x1 <= image->x0 || image->y1 <= image->y0)
        abort();
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *k = &image->components[c];
        if (k->dx == 0 || k->dy == 0 || k->precision == 0 || k->precision > GJ2K_MAX_PRECISION)
            abort();
        if (k->x0 != ceil_div(image->x0, k->dx) || k->y0 != ceil_div(image->y0, k->dy) ||
            k->width != ceil_div(image->x1, k->dx) - k->x0 ||
            k->height != ceil_div(image->y1, k->dy) - k->y0)
            abort();
        size_t n = (size_t)k->width * k->height;
        if (n > 0 && k->samples == NULL && k->wide_samples == NULL)
            abort();
        /* Touch the first and last samples: ASan sees a short buffer. */
        if (n > 0 && k->samples != NULL)
            sink = sink + (uint64_t)k->samples[0] + (uint64_t)k->samples[n - 1];
        if (n > 0 && k->wide_samples != NULL)
            sink = sink + (uint64_t)k->wide_samples[0] + (uint64_t)k->wide_samples[n - 1];
    }
}

/* The decode again in strips of `rows` rows (tile_strips.c): the same
 * outcome, and the same samples as whole tiles gave. */
static void same_in_strips(const uint8_t *data, size_t size, gj2k_decode_options options,
                           uint32_t rows, gj2k_status whole, const gj2k_image *expected)
{
    options.strip_rows = rows;
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    gj2k_status status = gj2k_decode_memory(data, size, &options, &image, &error);
    check_result(status, image, &error);
    if ((status == GJ2K_OK) != (whole == GJ2K_OK))
        abort();
    for (uint32_t c = 0; status == GJ2K_OK && c < image->num_components; c++) {
        const gj2k_component *a = &image->components[c], *b = &expected->components[c];
        size_t n = (size_t)a->width * a->height;
        if (a->width != b->width || a->height != b->height || a->precision != b->precision ||
            (a->samples != NULL) != (b->samples != NULL) ||
            (n > 0 && a->samples != NULL && memcmp(a->samples, b->samples, n * 4) != 0))
            abort();
    }
    gj2k_image_destroy(image);
}

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The tile-components a SIZ declares (Table A.9: Xsiz, Ysiz, XOsiz, YOsiz,
 * XTsiz, YTsiz, XTOsiz, YTOsiz, Csiz after Lsiz and Rsiz), for the first
 * SOC and SIZ markers among the input's first bytes (a codestream's start,
 * or a JP2 file's jp2c box); 0 when there is none to read. */
static uint64_t declared_tile_components(const uint8_t *data, size_t size)
{
    size_t limit = size < 4096 ? size : 4096;
    for (size_t i = 0; i + 4 + 38 <= limit; i++) {
        if (data[i] != 0xFF || data[i + 1] != 0x4F || data[i + 2] != 0xFF || data[i + 3] != 0x51)
            continue;
        const uint8_t *siz = data + i + 8; /* past SOC, SIZ, Lsiz and Rsiz */
        uint32_t x1 = read_u32(siz), y1 = read_u32(siz + 4);
        uint32_t tw = read_u32(siz + 16), th = read_u32(siz + 20);
        uint32_t tx0 = read_u32(siz + 24), ty0 = read_u32(siz + 28);
        uint32_t components = (uint32_t)siz[32] << 8 | siz[33];
        if (tw == 0 || th == 0 || x1 <= tx0 || y1 <= ty0)
            return 0; /* the parser refuses it, cheaply */
        uint64_t columns = ((uint64_t)x1 - tx0 + tw - 1) / tw;
        uint64_t rows = ((uint64_t)y1 - ty0 + th - 1) / th;
        return columns * rows * components;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (declared_tile_components(data, size) > FUZZ_MAX_TILE_COMPONENTS)
        return 0;
    uint8_t last = size > 0 ? data[size - 1] : 0;
    gj2k_decode_options options = {.threads = 1, .max_samples = FUZZ_MAX_SAMPLES,
                                   .max_memory = FUZZ_MAX_MEMORY,
                                   .allow_partial = ((last >> 3) & 1u) == 0,
                                   .max_layers = (last >> 1) & 3u, .warning = ignore_warning};
    bool decoded = false, once_more = last & 1u;
    for (unsigned reduce = 0; reduce <= FUZZ_MAX_REDUCE; reduce++) {
        options.reduce = reduce;
        gj2k_image *image = NULL;
        gj2k_error error = {0};
        gj2k_status status = gj2k_decode_memory(data, size, &options, &image, &error);
        check_result(status, image, &error);
        if (last >> 5 != 0 && status != GJ2K_ERROR_LIMIT)
            same_in_strips(data, size, options, last >> 5, status, image);
        gj2k_image_destroy(image);
        if (decoded || (status != GJ2K_OK && status != GJ2K_ERROR_LIMIT))
            break;
        decoded = status == GJ2K_OK;
        if (decoded && !once_more)
            break;
    }
    return 0;
}
