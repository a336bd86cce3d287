/* decode_to_file.c - gj2k_decode_to_file: a JPEG 2000 file to an image
 * file, a strip of rows at a time when the output can take it and the
 * image is too large to hold, or large and no GPU would take it, or strips
 * are asked for; otherwise decoded whole and written whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_job.h"
#include "decode_render.h"
#include "error.h"
#include "clock.h"
#include "gpu_stage.h"
#include "image_formats.h"
#include "struct_size.h"

/* The rendering's warnings, each told once however many strips repeat it. */
#define STREAM_WARNINGS_KEPT 32
typedef struct once_warnings {
    gj2k_warning_fn warning;
    void *warning_user;
    char told[STREAM_WARNINGS_KEPT][160];
    unsigned count;
} once_warnings;

static void warn_once(void *user, const char *message)
{
    once_warnings *w = user;
    for (unsigned i = 0; i < w->count; i++)
        if (strncmp(w->told[i], message, sizeof w->told[i] - 1) == 0)
            return;
    if (w->count < STREAM_WARNINGS_KEPT)
        snprintf(w->told[w->count++], sizeof w->told[0], "%s", message);
    gj2k_warn(w->warning, w->warning_user, "%s", message);
}

/* What the strips share on their way to the file. */
typedef struct stream_sink {
    decode_job *job;
    image_stream *stream;
    uint32_t height;               /* rows of the file */
    gj2k_decode_options render;    /* the job's options, warning once a message */
    once_warnings warnings;
} stream_sink;

static gj2k_status open_strip(void *user, uint32_t grid_y0, uint32_t grid_y1,
                              gj2k_image **target, gj2k_error *error)
{
    stream_sink *sink = user;
    dwt_rect reduced = sink->job->reduced;
    return decode_job_create_image(sink->job, (dwt_rect){reduced.x0, grid_y0, reduced.x1, grid_y1},
                                   "a strip of the image", target, error);
}

static gj2k_status close_strip(void *user, gj2k_image *strip, gj2k_error *error)
{
    stream_sink *sink = user;
    decode_job *job = sink->job;
    gj2k_status status = GJ2K_OK;
    bool rows = strip->num_components != 0 && strip->components[0].height != 0;
    if (error != NULL && rows) { /* else the strip failed, or holds no row: only freed */
        status = decode_render(strip, job->format == GJ2K_FORMAT_JP2 ? &job->jp2 : NULL,
                               &sink->render, &job->memory, error);
        if (status == GJ2K_OK)
            status = image_stream_write(sink->stream, strip, sink->height, error);
    }
    memory_budget_give(&job->memory, image_storage_bytes(strip));
    gj2k_image_destroy(strip);
    return status;
}

/* Whether the job can go to a file of `format` a strip at a time: every
 * component of one size, and at full size if upsampling is asked for, so
 * that no strip needs upsampling. */
static bool can_stream(const decode_job *job, gj2k_file_format format,
                       const gj2k_write_options *write_options)
{
    if (!image_stream_supports(format, write_options))
        return false;
    const j2k_siz *siz = &job->cs->siz;
    uint32_t dx = siz->components[0].dx, dy = siz->components[0].dy;
    if (job->options->upsample && (dx != 1 || dy != 1))
        return false;
    for (uint32_t c = 1; c < siz->num_components; c++)
        if (siz->components[c].dx != dx || siz->components[c].dy != dy)
            return false;
    return true;
}

/* Images of at least this many samples go to a file a strip at a time
 * unless a GPU takes their transforms: a whole image of int32_t samples
 * costs more in page faults than the strips' windows cost in work (a
 * 32000x32000 grey image: 24.8 s whole, 11.4 s in strips, on 2 cores). */
#define STREAM_SAMPLES ((uint64_t)1 << 26)

/* Whether the GPU may take the decoding of `samples` samples: asks the
 * device only when --device would use it (starting CUDA costs). */
static bool gpu_may_decode(const gj2k_decode_options *options, uint64_t samples)
{
    if (options->device == GJ2K_DEVICE_CPU ||
        (options->device == GJ2K_DEVICE_AUTO && samples < GPU_STAGE_AUTO_MIN_DECODE_SAMPLES))
        return false;
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    return info.device_count > 0;
}

static gj2k_status decode_streamed(decode_job *job, const char *output, gj2k_file_format format,
                                   const gj2k_write_options *write_options, gj2k_error *error)
{
    const j2k_component_size *first = &job->cs->siz.components[0];
    stream_sink *sink = calloc(1, sizeof *sink); /* its warnings: 5 KB */
    if (sink == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    *sink = (stream_sink){.job = job, .render = *job->options,
                          .warnings = {.warning = job->options->warning,
                                       .warning_user = job->options->warning_user}};
    sink->render.warning = warn_once;
    sink->render.warning_user = &sink->warnings;
    sink->height = (job->reduced.y1 + first->dy - 1) / first->dy -
                   (job->reduced.y0 + first->dy - 1) / first->dy;
    gj2k_status status = image_stream_open(output, format, write_options, &sink->stream, error);
    if (status != GJ2K_OK) {
        free(sink);
        return status;
    }
    decode_strip_sink strips = {.open = open_strip, .close = close_strip, .user = sink};
    status = decode_job_progress_end(job, decode_job_strips(job, &strips, error), error);
    gj2k_status closed = image_stream_close(sink->stream, status == GJ2K_OK,
                                            status == GJ2K_OK ? error : NULL);
    free(sink);
    job->report.streamed = status == GJ2K_OK && closed == GJ2K_OK;
    return status == GJ2K_OK ? closed : status;
}

gj2k_status gj2k_decode_to_file(const char *input, const char *output,
                                const gj2k_decode_options *options,
                                const gj2k_write_options *caller_write_options, gj2k_error *error)
{
    uint8_t *data = NULL;
    size_t size = 0;
    decode_options_taken taken;
    gj2k_write_options write_taken;
    const gj2k_write_options *write_options = &write_taken;
    gj2k_status status = decode_options_take(&taken, options, error);
    if (status == GJ2K_OK)
        status = STRUCT_SIZE_TAKE(&write_taken, caller_write_options, gj2k_write_options, error);
    decode_job job = {.options = &taken.options};
    double start = now_seconds();
    if (status == GJ2K_OK)
        status = file_read_all(input, &data, &size, error);
    if (status == GJ2K_OK)
        status = decode_job_open(&job, data, size, &taken.options, error);
    job.report.read_ms = (now_seconds() - start) * 1e3;
    gj2k_file_format format = gj2k_format_from_path(output);
    bool stream = status == GJ2K_OK && can_stream(&job, format, write_options);
    uint64_t bytes = stream ? decode_job_image_bytes(&job, job.reduced) : 0;
    if (stream && job.options->strip_rows == 0 && bytes <= job.memory.limit / 2)
        stream = bytes / 4 >= STREAM_SAMPLES && !gpu_may_decode(job.options, bytes / 4);
    if (stream) {
        status = decode_streamed(&job, output, format, write_options, error);
    } else if (status == GJ2K_OK) {
        gj2k_image *image = NULL;
        status = decode_job_image(&job, &image, error);
        double writing = now_seconds();
        if (status == GJ2K_OK)
            status = gj2k_image_write_file(image, output, write_options, error);
        job.report.write_ms = (now_seconds() - writing) * 1e3;
        gj2k_image_destroy(image);
    }
    decode_job_close(&job);
    decode_options_give_back(&taken);
    free(data);
    return status;
}
