/* fuzz_jp2_boxes.c - libFuzzer target for the JP2 box reader (T.800 Annex
 * I: jp2_file_read) and what a decoder does with the header it returns
 * (color_render_apply_jp2 and the conversion to RGB, on a small image of
 * the header's components). Whatever the input: a failure with a one-line
 * message and an empty jp2_file, or a header the renderer takes or refuses
 * in one line. */
#include <stdlib.h>
#include <string.h>

#include "color_render.h"
#include "gj2k.h"
#include "jp2_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_COMPONENTS 64

static void ignore_warning(void *user, const char *message)
{
    (void)user;
    if (message == NULL || message[0] == '\0' || strchr(message, '\n') != NULL)
        abort(); /* warnings are one line too */
}

static void check_error(gj2k_status status, const gj2k_error *error)
{
    if (status != GJ2K_OK && (error->status != status || error->message[0] == '\0' ||
                              strchr(error->message, '\n') != NULL))
        abort();
}

/* A 5x3 image of the header's components (at most FUZZ_MAX_COMPONENTS), each
 * of the depth the file declares for it (8 where it says nothing usable),
 * samples spread over their range. */
static gj2k_image *image_for(const jp2_file *file)
{
    uint32_t n = file->header.num_components;
    if (n == 0 || n > FUZZ_MAX_COMPONENTS)
        return NULL;
    gj2k_component_info info[FUZZ_MAX_COMPONENTS];
    for (uint32_t c = 0; c < n; c++) {
        jp2_depth depth = {0};
        bool known = jp2_file_component_depth(file, c, &depth);
        bool usable = known && depth.precision >= 1 && depth.precision <= GJ2K_MAX_NARROW_PRECISION;
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = usable ? depth.precision : 8,
                                        .is_signed = usable && depth.is_signed};
    }
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, 0, 0, 5, 3, n, info, &error) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < n; c++) {
        gj2k_component *k = &image->components[c];
        int64_t low = k->is_signed ? -((int64_t)1 << (k->precision - 1)) : 0;
        int64_t span = (int64_t)1 << k->precision;
        for (size_t i = 0; i < 15; i++)
            k->samples[i] = (int32_t)(low + (int64_t)(i * 7919u + c * 104729u) % span);
    }
    return image;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jp2_file file;
    memset(&file, 0, sizeof file);
    gj2k_error error = {0};
    gj2k_status status = jp2_file_read(data, size, &file, ignore_warning, NULL, &error);
    check_error(status, &error);
    if (status != GJ2K_OK) {
        if (file.colors != NULL || file.num_colors != 0)
            abort(); /* a failure leaves the file empty */
        return 0;
    }
    if (file.codestream_offset > size || file.codestream_length > size - file.codestream_offset)
        abort(); /* the codestream lies inside the data */
    gj2k_image *image = image_for(&file);
    if (image != NULL) {
        error = (gj2k_error){0};
        status = color_render_apply_jp2(image, &file, ignore_warning, NULL, &error);
        check_error(status, &error);
        if (status == GJ2K_OK) {
            error = (gj2k_error){0};
            check_error(color_render_to_rgb(image, ignore_warning, NULL, &error), &error);
        }
        gj2k_image_destroy(image);
    }
    jp2_file_free(&file);
    return 0;
}
