/* decode_render.c - what the decoder does to the decoded image before it
 * hands it over (see decode_render.h), each step's memory counted. */
#include "decode_render.h"

#include <stdlib.h>

#include "color_render.h"
#include "error.h"
#include "image_formats.h"

/* Keeps the listed components, in the order listed (opj_decompress -c). */
static gj2k_status select_components(gj2k_image *image, const uint32_t *indices, uint32_t count,
                                     gj2k_error *error)
{
    for (uint32_t i = 0; i < count; i++)
        if (indices[i] >= image->num_components)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u does not exist (the image has %u)", indices[i],
                             image->num_components);
    gj2k_component *kept = calloc(count, sizeof *kept);
    bool *taken = calloc(image->num_components, sizeof *taken);
    if (kept == NULL || taken == NULL) {
        free(kept);
        free(taken);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < count; i++) {
        const gj2k_component *source = &image->components[indices[i]];
        kept[i] = *source;
        /* listed twice: the second gets its own copy (narrow or wide samples) */
        gj2k_status status = taken[indices[i]] ? color_render_copy(source, &kept[i], error) : GJ2K_OK;
        if (status != GJ2K_OK) {
            for (uint32_t j = 0; j < i; j++) {
                const gj2k_component *shared = &image->components[indices[j]];
                if (kept[j].samples != shared->samples || kept[j].wide_samples != shared->wide_samples)
                    color_render_release(&kept[j]);
            }
            free(kept);
            free(taken);
            return status;
        }
        taken[indices[i]] = true;
    }
    for (uint32_t c = 0; c < image->num_components; c++)
        if (!taken[c])
            color_render_release(&image->components[c]);
    free(image->components);
    free(taken);
    image->components = kept;
    image->num_components = count;
    if (count < 3 && image->color_space != GJ2K_COLOR_GRAY)
        image->color_space = GJ2K_COLOR_UNKNOWN;
    return GJ2K_OK;
}

/* Bytes of `count` components of the whole image area, `each` bytes a
 * sample (saturating). */
static uint64_t full_size_bytes(const gj2k_image *image, uint64_t count, unsigned each)
{
    uint64_t area = (uint64_t)(image->x1 - image->x0) * (image->y1 - image->y0) * each;
    return count != 0 && area > UINT64_MAX / count ? UINT64_MAX : area * count;
}

/* One step that may make new components: `transient` bytes (what it may
 * allocate beside the image) are taken first and given back after; then
 * the image's own charge follows its new size. */
typedef gj2k_status (*render_step)(gj2k_image *image, const void *context, gj2k_error *error);

static gj2k_status counted(memory_budget *memory, uint64_t transient, const char *what,
                           render_step step, gj2k_image *image, const void *context,
                           gj2k_error *error)
{
    uint64_t before = image_storage_bytes(image);
    gj2k_status status = memory_budget_take(memory, transient, what, error);
    if (status != GJ2K_OK)
        return status;
    status = step(image, context, error);
    memory_budget_give(memory, transient);
    uint64_t after = image_storage_bytes(image);
    if (after > before)
        memory_budget_add(memory, after - before); /* allocated already: within the transient */
    else
        memory_budget_give(memory, before - after);
    return status;
}

typedef struct render_job {
    const jp2_file *jp2;
    const gj2k_decode_options *options;
} render_job;

static gj2k_status apply_jp2_step(gj2k_image *image, const void *context, gj2k_error *error)
{
    const render_job *job = context;
    return color_render_apply_jp2(image, job->jp2, job->options->warning,
                                  job->options->warning_user, error);
}

static gj2k_status select_step(gj2k_image *image, const void *context, gj2k_error *error)
{
    const gj2k_decode_options *options = ((const render_job *)context)->options;
    return select_components(image, options->components, options->num_components, error);
}

static gj2k_status upsample_step(gj2k_image *image, const void *context, gj2k_error *error)
{
    (void)context;
    return color_render_upsample(image, error);
}

static gj2k_status rgb_step(gj2k_image *image, const void *context, gj2k_error *error)
{
    const gj2k_decode_options *options = ((const render_job *)context)->options;
    return color_render_to_rgb(image, options->warning, options->warning_user, error);
}

static gj2k_status precision_step(gj2k_image *image, const void *context, gj2k_error *error)
{
    const gj2k_decode_options *options = ((const render_job *)context)->options;
    return color_render_set_precision(image, options->precision, COLOR_RENDER_KEEP_SIGN, error);
}

gj2k_status decode_render(gj2k_image *image, const jp2_file *jp2,
                          const gj2k_decode_options *options, memory_budget *memory,
                          gj2k_error *error)
{
    render_job job = {jp2, options};
    uint32_t n = image->num_components;
    gj2k_status status = GJ2K_OK;
    /* A palette makes a component of each mapped channel (Annex I.5.3.5). */
    if (jp2 != NULL && !options->raw_components)
        status = counted(memory, full_size_bytes(image, jp2->num_mappings, 4),
                         "the JP2 palette's channels", apply_jp2_step, image, &job, error);
    if (status == GJ2K_OK && options->components != NULL)
        status = counted(memory, full_size_bytes(image, options->num_components, 8),
                         "the components kept", select_step, image, &job, error);
    n = image->num_components;
    /* Before upsampling, which would hide the subsampling. */
    if (options->guess_sycc && !options->raw_components && n == 3 &&
        image->color_space == GJ2K_COLOR_UNKNOWN &&
        (image->components[1].dx != 1 || image->components[1].dy != 1))
        image->color_space = GJ2K_COLOR_SYCC;
    if (status == GJ2K_OK && options->upsample)
        status = counted(memory, full_size_bytes(image, n, 8), "upsampling", upsample_step, image,
                         &job, error);
    n = image->num_components;
    bool ycc = image->color_space == GJ2K_COLOR_SYCC || image->color_space == GJ2K_COLOR_ESYCC;
    if (status == GJ2K_OK && (options->force_rgb || (ycc && !options->raw_components)))
        status = counted(memory, full_size_bytes(image, 3 + (uint64_t)n, 8),
                         "the conversion to RGB", rgb_step, image, &job, error);
    n = image->num_components;
    if (status == GJ2K_OK && options->precision != 0)
        status = counted(memory, full_size_bytes(image, n, 8), "the change of precision",
                         precision_step, image, &job, error);
    /* The JP2 file's metadata (uuid boxes) go with the image, raw components or not. */
    for (int k = 0; k < JP2_METADATA_KINDS && jp2 != NULL && status == GJ2K_OK; k++)
        if (jp2->metadata[k] != NULL)
            status = gj2k_image_set_metadata(image, (gj2k_metadata)k, jp2->metadata[k],
                                             jp2->metadata_size[k], error);
    return status;
}
