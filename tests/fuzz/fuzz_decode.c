/* fuzz_decode.c - libFuzzer target for the JPEG 2000 decoder
 * (gj2k_decode_memory, codestreams and JP2 files alike). Whatever the input,
 * the decoder must return: a failure with a one-line message, or an image
 * whose components agree with its canvas (Annex B.2, eq. B-1). Images over
 * FUZZ_MAX_SAMPLES are refused (GJ2K_ERROR_LIMIT, before any tile is
 * decoded) and tried again at lower resolutions, so that large inputs still
 * reach Tier-2 and Tier-1 cheaply; an image decoded at some reduce is decoded
 * once more at the next, which discards one more resolution level. */
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_SAMPLES (1u << 18)
#define FUZZ_MAX_REDUCE 4

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gj2k_decode_options options = {.threads = 1, .max_samples = FUZZ_MAX_SAMPLES,
                                   .allow_partial = true, .warning = ignore_warning};
    bool decoded = false;
    for (unsigned reduce = 0; reduce <= FUZZ_MAX_REDUCE; reduce++) {
        options.reduce = reduce;
        gj2k_image *image = NULL;
        gj2k_error error = {0};
        gj2k_status status = gj2k_decode_memory(data, size, &options, &image, &error);
        check_result(status, image, &error);
        gj2k_image_destroy(image);
        if (decoded || (status != GJ2K_OK && status != GJ2K_ERROR_LIMIT))
            break;
        decoded = status == GJ2K_OK; /* then once more at the next reduce */
    }
    return 0;
}
