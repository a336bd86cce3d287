/* image_compare.c - see image_compare.h. */
#include "image_compare.h"

#include <math.h>
#include <stdio.h>

/* Sample i of a component, whichever array holds it. */
static int64_t sample_at(const gj2k_component *component, size_t i)
{
    return component->samples != NULL ? component->samples[i] : component->wide_samples[i];
}

bool image_compare(const gj2k_image *original, const gj2k_image *decoded,
                   image_difference *difference, char *why, size_t why_size)
{
    *difference = (image_difference){.identical = true, .psnr = INFINITY};
    if (original->num_components != decoded->num_components) {
        snprintf(why, why_size, "%u components decoded, %u encoded", decoded->num_components,
                 original->num_components);
        return false;
    }
    double normalised_squares = 0;
    for (uint32_t c = 0; c < original->num_components; c++) {
        const gj2k_component *a = &original->components[c], *b = &decoded->components[c];
        if (a->width != b->width || a->height != b->height) {
            snprintf(why, why_size, "component %u decoded as %ux%u, encoded %ux%u", c, b->width,
                     b->height, a->width, a->height);
            return false;
        }
        if ((a->samples == NULL && a->wide_samples == NULL) ||
            (b->samples == NULL && b->wide_samples == NULL)) {
            snprintf(why, why_size, "component %u has no samples", c);
            return false;
        }
        double peak = ldexp(1.0, (int)a->precision) - 1;
        double squares = 0;
        size_t count = (size_t)a->width * a->height;
        for (size_t i = 0; i < count; i++) {
            int64_t error = sample_at(a, i) - sample_at(b, i);
            uint64_t magnitude = error < 0 ? (uint64_t)-error : (uint64_t)error;
            if (magnitude > difference->max_abs_error)
                difference->max_abs_error = magnitude;
            squares += (double)error * (double)error;
        }
        normalised_squares += squares / (peak * peak);
        difference->samples += count;
    }
    difference->identical = difference->max_abs_error == 0;
    if (!difference->identical && difference->samples > 0) {
        difference->normalised_mse = normalised_squares / (double)difference->samples;
        difference->psnr = 10 * log10(1 / difference->normalised_mse);
    }
    return true;
}

encoded_comparison image_compare_encoded(const gj2k_image *original, const uint8_t *data,
                                         size_t size, const gj2k_decode_options *options,
                                         image_difference *difference, char *why,
                                         size_t why_size)
{
    gj2k_image *decoded = NULL;
    gj2k_error error = {0};
    if (gj2k_decode_memory(data, size, options, &decoded, &error) != GJ2K_OK) {
        snprintf(why, why_size, "%s", error.message);
        gj2k_image_destroy(decoded);
        return ENCODED_UNDECODABLE;
    }
    bool comparable = image_compare(original, decoded, difference, why, why_size);
    gj2k_image_destroy(decoded);
    return comparable ? ENCODED_COMPARED : ENCODED_OTHER_SHAPE;
}

double image_raw_bytes(const gj2k_image *image)
{
    double bits = 0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *component = &image->components[c];
        bits += (double)component->width * component->height * component->precision;
    }
    return bits / 8;
}
