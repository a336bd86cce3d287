/* batch_jobs.c - see batch_jobs.h. */
#include "batch_jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "device_warm_up.h" /* device_warm_up_data_samples */
#include "image_compare.h"
#include "image_formats.h" /* file_read_all, file_write_whole */
#include "interrupt.h"
#include "options.h"

static uint64_t file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (uint64_t)info.st_size : 0;
}

/* Marks the outcome failed with "path: message" (the path once). */
static void fail(batch_outcome *outcome, const char *path, const char *message)
{
    outcome->verdict = BATCH_FAILED;
    if (strstr(message, path) != NULL)
        snprintf(outcome->message, sizeof outcome->message, "%s", message);
    else
        snprintf(outcome->message, sizeof outcome->message, "%s: %s", path, message);
}

/* The end of a --verify: the comparison recorded or, the check having
 * failed, the output removed, so that it never looks finished. */
static void verification_done(batch_outcome *outcome, const char *output,
                              const image_difference *difference)
{
    if (outcome->verdict == BATCH_FAILED) {
        unlink(output);
        return;
    }
    outcome->verified = true;
    outcome->identical = difference->identical;
    outcome->psnr = difference->psnr;
}

/* Whether the encode keeps every coding pass of 5/3: the decoded samples
 * must then be the source's exactly. */
static bool expects_lossless(const gj2k_encode_options *o)
{
    if (o->irreversible)
        return false;
    if (o->target == GJ2K_TARGET_NONE || o->targets == NULL)
        return true;
    double last = o->targets[(o->num_layers ? o->num_layers : 1) - 1];
    return last == 0.0 || (o->target == GJ2K_TARGET_RATIO && last <= 1.0);
}

/* --verify of an encode: the written file read back, decoded (on the
 * device, GPU and context that encoded it: `options`) and compared with the
 * source; a failure removes the output, which then never looks finished. */
static void verify_encoded(const gj2k_image *image, const char *output, bool lossless,
                           const gj2k_encode_options *options, batch_outcome *outcome)
{
    gj2k_decode_options decode = encode_check_options(options);
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    char why[256];
    image_difference difference = {0};
    if (file_read_all(output, &data, &size, &error) != GJ2K_OK) {
        fail(outcome, output, error.message);
    } else if (image_compare_encoded(image, data, size, &decode, &difference, why, sizeof why) !=
               ENCODED_COMPARED) {
        fail(outcome, output, why);
    } else if (lossless && !difference.identical) {
        snprintf(why, sizeof why, "verification: decodes with errors up to %llu, not losslessly",
                 (unsigned long long)difference.max_abs_error);
        fail(outcome, output, why);
    }
    free(data);
    verification_done(outcome, output, &difference);
}

void batch_encode_file(void *context, const batch_item *item, unsigned threads,
                       const batch_worker *worker, batch_outcome *outcome)
{
    const batch_encode_job *job = context;
    encode_request request = job->request;
    request.input = item->input;
    request.output = item->output;
    request.options.threads = threads;
    request.options.gpu = worker->gpu;
    request.options.gpu_context = worker->gpu_context;
    if (worker->on_cpu)
        request.options.device = GJ2K_DEVICE_CPU;
    request.options.warning_user = (void *)item->output;
    outcome->bytes_in = file_size(item->input);
    gj2k_error error = {0};
    gj2k_image *image = NULL;
    double start = now_seconds();
    if (encode_read_input(&request, job->geometry, &image, &error) != GJ2K_OK) {
        fail(outcome, item->input, error.message);
        return;
    }
    if (request.shift_origin &&
        !encode_move_origin(image, request.origin_x, request.origin_y)) {
        fail(outcome, item->input, "-d: the origin cannot be moved there (see above)");
        gj2k_image_destroy(image);
        return;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_encode_report report = {0};
    gj2k_write_options write = {.temporary = interrupt_temporary};
    double read_ms = (now_seconds() - start) * 1e3, write_ms = 0;
    gj2k_status status = gj2k_encode_memory(image, &request.options, &data, &size, &report,
                                            &error);
    if (status == GJ2K_OK) {
        start = now_seconds();
        status = file_write_whole(item->output, data, size, &write, &error);
        write_ms = (now_seconds() - start) * 1e3;
    }
    if (status != GJ2K_OK) {
        fail(outcome, item->output, error.message);
    } else {
        outcome->verdict = BATCH_DONE;
        outcome->bytes_out = size;
        outcome->on_gpu = report.gpu_tiles > 0 || report.gpu_blocks > 0;
        outcome->pixels = (uint64_t)(image->x1 - image->x0) * (image->y1 - image->y0);
        start = now_seconds();
        if (job->verify)
            verify_encoded(image, item->output, expects_lossless(&request.options),
                           &request.options, outcome);
        /* batch_commands.c's encode_stages, in order */
        const double stages[] = {read_ms, report.open_ms, report.transform_ms,
                                 report.copies_ms, report.tier1_ms, report.rate_ms,
                                 report.tier2_ms, write_ms, (now_seconds() - start) * 1e3};
        memcpy(outcome->stage_ms, stages, sizeof stages);
    }
    free(data);
    gj2k_image_destroy(image);
}

/* --verify of a decode: the written file read back and compared with the
 * decoded image; a failure removes the output. */
static void check_written(const gj2k_image *decoded, const char *output, batch_outcome *outcome)
{
    gj2k_image *written = NULL;
    gj2k_error error = {0};
    char why[256];
    image_difference difference = {0};
    if (gj2k_image_read_file(output, NULL, &written, &error) != GJ2K_OK)
        fail(outcome, output, error.message);
    else if (!image_compare(decoded, written, &difference, why, sizeof why))
        fail(outcome, output, why);
    else if (!difference.identical)
        fail(outcome, output, "verification: the file read back differs from the decoded image");
    gj2k_image_destroy(written);
    verification_done(outcome, output, &difference);
}

/* The decode's report as the outcome's stages, in batch_commands.c's
 * decode_stages' order; the write and the check after it are the last two. */
enum { DECODE_STAGE_WRITE = 5, DECODE_STAGE_VERIFY = 6 };

static void decode_outcome(const gj2k_decode_report *report, batch_outcome *outcome)
{
    outcome->pixels = (uint64_t)report->width * report->height;
    const double stages[] = {report->read_ms, report->tier2_ms, report->tier1_ms,
                             report->transform_ms, report->copies_ms, report->write_ms};
    memcpy(outcome->stage_ms, stages, sizeof stages);
    outcome->on_gpu = report->gpu_tiles > 0 || report->gpu_blocks > 0;
}

/* A decoded image on its way to the writer threads (batch_defer). */
typedef struct decoded_file {
    gj2k_image *image;
    const char *input, *output;
    gj2k_write_options write;
    bool verify;
} decoded_file;

/* A batch_tail_fn: the image written (and checked), its time the write stage. */
static void write_decoded(void *arg, batch_outcome *outcome)
{
    decoded_file *d = arg;
    gj2k_error error = {0};
    double start = now_seconds();
    if (gj2k_image_write_file(d->image, d->output, &d->write, &error) != GJ2K_OK) {
        fail(outcome, d->input, error.message); /* as the workers' own path names it */
        outcome->pixels = 0;
        memset(outcome->stage_ms, 0, sizeof outcome->stage_ms);
    } else {
        outcome->verdict = BATCH_DONE;
        outcome->stage_ms[DECODE_STAGE_WRITE] = (now_seconds() - start) * 1e3;
        start = now_seconds();
        if (d->verify)
            check_written(d->image, d->output, outcome);
        outcome->stage_ms[DECODE_STAGE_VERIFY] = (now_seconds() - start) * 1e3;
        outcome->bytes_out = file_size(d->output); /* 0 when a failed check removed it */
    }
    gj2k_image_destroy(d->image);
    free(d);
}

/* Images decoded whole and handed to the writer threads: up to the
 * samples gj2k_decode_to_file decodes whole on the CPU (larger ones it may
 * write in strips, and the writers' queue would hold them). Counted from
 * the codestream: a JP2 palette or -upsample makes the image larger. */
#define DEFERRED_MAX_SAMPLES ((uint64_t)1 << 26)

/* Whether the file's writing may go to the writer threads: a worker with
 * a writer (not one beside the GPUs), no strips or memory bound asked for,
 * the components not split into PNM files (PGX, a file a component, goes
 * whole through gj2k_image_write_file on either path); the image's size is
 * looked at once the file is read. */
static bool may_defer(const batch_worker *worker, const gj2k_decode_options *decode,
                      const gj2k_write_options *write)
{
    return worker->writer != NULL && !worker->on_cpu && decode->strip_rows == 0 &&
           decode->max_memory == 0 && !write->split_components;
}

/* The file decoded to an image file by the library (in strips where it
 * would not fit whole), its report the outcome's. */
static void decode_to_file(const batch_item *item, const gj2k_decode_options *decode,
                           const gj2k_write_options *write, batch_outcome *outcome)
{
    gj2k_error error = {0};
    if (gj2k_decode_to_file(item->input, item->output, decode, write, &error) != GJ2K_OK) {
        fail(outcome, item->input, error.message);
        return;
    }
    outcome->verdict = BATCH_DONE;
    outcome->bytes_out = file_size(item->output);
    decode_outcome(decode->report, outcome);
}

void batch_decode_file(void *context, const batch_item *item, unsigned threads,
                       const batch_worker *worker, batch_outcome *outcome)
{
    const batch_decode_job *job = context;
    gj2k_decode_options decode = job->decode;
    gj2k_decode_report report = {0};
    decode.threads = threads;
    decode.gpu = worker->gpu;
    decode.gpu_context = worker->gpu_context;
    if (worker->on_cpu)
        decode.device = GJ2K_DEVICE_CPU;
    decode.warning = report_warning;
    decode.warning_user = (void *)item->input;
    decode.report = &report;
    gj2k_write_options write = job->write;
    write.warning = report_warning;
    write.warning_user = (void *)item->output;
    write.temporary = interrupt_temporary;
    outcome->bytes_in = file_size(item->input);
    /* outputs of several files (PGX, split PNM) are not read back */
    bool verify = job->verify && !write.split_components &&
                  gj2k_format_from_path(item->output) != GJ2K_FORMAT_PGX;
    bool defer = may_defer(worker, &decode, &write);
    if (!verify && !defer) {
        decode_to_file(item, &decode, &write, outcome);
        return;
    }
    /* decoded whole here (the read timed as the report's read stage), then
     * written (and read back) here or by a writer thread */
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    double start = now_seconds();
    if (file_read_all(item->input, &data, &size, &error) != GJ2K_OK) {
        fail(outcome, item->input, error.message);
        return;
    }
    double read_ms = (now_seconds() - start) * 1e3;
    uint64_t samples = device_warm_up_data_samples(data, size);
    defer = defer && samples > 0 && samples <= DEFERRED_MAX_SAMPLES;
    if (!verify && !defer) { /* too large to queue: as without writers (read again) */
        free(data);
        decode_to_file(item, &decode, &write, outcome);
        return;
    }
    decoded_file *d = calloc(1, sizeof *d);
    if (d == NULL) {
        free(data);
        fail(outcome, item->input, "out of memory");
        return;
    }
    gj2k_status status = gj2k_decode_memory(data, size, &decode, &d->image, &error);
    free(data);
    if (status != GJ2K_OK) {
        free(d);
        fail(outcome, item->input, error.message);
        return;
    }
    report.read_ms += read_ms;
    decode_outcome(&report, outcome);
    *d = (decoded_file){.image = d->image, .input = item->input, .output = item->output,
                        .write = write, .verify = verify};
    if (defer)
        batch_defer(worker, item, outcome, write_decoded, d);
    else
        write_decoded(d, outcome);
}

void batch_transcode_file(void *context, const batch_item *item, unsigned threads,
                          const batch_worker *worker, batch_outcome *outcome)
{
    (void)worker; /* Tier-1 and Tier-2 only: on the CPU */
    const batch_transcode_job *job = context;
    gj2k_transcode_options transcode = job->transcode;
    gj2k_transcode_report report = {0};
    transcode.threads = threads;
    transcode.warning = report_warning;
    transcode.warning_user = (void *)item->input;
    transcode.temporary = interrupt_temporary;
    transcode.report = &report;
    outcome->bytes_in = file_size(item->input);
    gj2k_error error = {0};
    if (gj2k_transcode_file(item->input, item->output, &transcode, &error) != GJ2K_OK) {
        fail(outcome, item->input, error.message);
        return;
    }
    outcome->verdict = BATCH_DONE;
    outcome->bytes_out = report.bytes;
    const double stages[] = {report.read_ms, report.tier2_in_ms, report.tier1_ms,
                             report.write_ms};
    memcpy(outcome->stage_ms, stages, sizeof stages);
    if (!job->verify)
        return;
    gj2k_decode_options decode = {.threads = threads};
    gj2k_image *before = NULL, *after = NULL;
    char why[256];
    image_difference difference = {0};
    if (gj2k_decode_file(item->input, &decode, &before, &error) != GJ2K_OK) {
        fail(outcome, item->input, error.message);
    } else if (gj2k_decode_file(item->output, &decode, &after, &error) != GJ2K_OK) {
        fail(outcome, item->output, error.message);
    } else if (!image_compare(before, after, &difference, why, sizeof why)) {
        fail(outcome, item->output, why);
    } else if (report.truncated_blocks == 0 && report.damaged_blocks == 0 &&
               !difference.identical) {
        fail(outcome, item->output, "verification: a lossless input did not come out exact");
    } else {
        outcome->pixels = (uint64_t)(before->x1 - before->x0) * (before->y1 - before->y0);
    }
    gj2k_image_destroy(before);
    gj2k_image_destroy(after);
    verification_done(outcome, item->output, &difference);
}
