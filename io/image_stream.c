/* image_stream.c - an image file written a strip of rows at a time (see
 * image_formats.h): PNM, whose samples follow its header row by row, so
 * that a decoder never holds the whole image. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "image_formats.h"

struct image_stream {
    char *path;
    gj2k_write_options options;
    file_temporary temporary;
    byte_buffer bytes;         /* one strip's, reused */
    uint32_t num_components, width, height, rows_written;
    bool started, clamped;
};

bool image_stream_supports(gj2k_file_format format, const gj2k_write_options *options)
{
    return format == GJ2K_FORMAT_PNM && (options == NULL || !options->split_components);
}

gj2k_status image_stream_open(const char *path, gj2k_file_format format,
                              const gj2k_write_options *options, image_stream **out,
                              gj2k_error *error)
{
    *out = NULL;
    if (!image_stream_supports(format, options))
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "%s: cannot be written a strip at a time",
                         path);
    image_stream *s = calloc(1, sizeof *s);
    if (s == NULL || (s->path = malloc(strlen(path) + 1)) == NULL) {
        free(s);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    strcpy(s->path, path);
    if (options != NULL)
        s->options = *options;
    gj2k_status status = file_write_temporary(path, NULL, 0, &s->options, true, &s->temporary,
                                              error);
    if (status != GJ2K_OK) {
        free(s->path);
        free(s);
        return status;
    }
    *out = s;
    return GJ2K_OK;
}

gj2k_status image_stream_write(image_stream *s, const gj2k_image *strip, uint32_t height,
                               gj2k_error *error)
{
    s->bytes.size = 0;
    s->bytes.failed = false;
    gj2k_status status = GJ2K_OK;
    if (strip->num_components == 0)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "%s: no components", s->path);
    const gj2k_component *first = &strip->components[0];
    if (!s->started) {
        status = pnm_write_header(strip, height, &s->options, &s->bytes, error);
        s->num_components = strip->num_components;
        s->width = first->width;
        s->height = height;
        s->started = true;
    } else if (strip->num_components != s->num_components || first->width != s->width) {
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "%s: a strip of %u components %u wide after %u of %u", s->path,
                         strip->num_components, first->width, s->num_components, s->width);
    }
    for (uint32_t c = 0; c < strip->num_components && status == GJ2K_OK; c++)
        if (strip->components[c].width != s->width ||
            strip->components[c].height != first->height)
            status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                               "PNM: components of different sizes in %s", s->path);
    if (status == GJ2K_OK && s->rows_written + (uint64_t)first->height > s->height)
        status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: more rows than %u", s->path,
                           s->height);
    if (status == GJ2K_OK)
        status = pnm_write_rows(strip, &s->bytes, &s->clamped, error);
    if (status == GJ2K_OK && s->bytes.failed)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    if (status == GJ2K_OK)
        status = file_append_temporary(&s->temporary, s->path, s->bytes.data, s->bytes.size,
                                       error);
    if (status == GJ2K_OK)
        s->rows_written += first->height;
    return status;
}

gj2k_status image_stream_close(image_stream *s, bool commit, gj2k_error *error)
{
    if (s == NULL)
        return GJ2K_OK;
    gj2k_status status = GJ2K_OK;
    if (commit && (!s->started || s->rows_written != s->height))
        status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: %u of %u rows written",
                           s->path, s->rows_written, s->height);
    if (commit && status == GJ2K_OK) {
        if (s->clamped)
            gj2k_warn(s->options.warning, s->options.warning_user,
                      "PNM: samples outside their precision's range were clamped");
        status = file_commit_temporary(&s->temporary, s->path, &s->options, error);
    } else {
        file_discard_temporary(&s->temporary, &s->options);
    }
    byte_buffer_free(&s->bytes);
    free(s->path);
    free(s);
    return status;
}
