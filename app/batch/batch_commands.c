/* batch_commands.c - the batch runs' entry points for `gj2k encode` and
 * `gj2k decode` (commands.h): the batch options read, the command's own
 * options read once as for one file, then every file coded with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_devices.h"
#include "batch_jobs.h"
#include "batch_options.h"
#include "commands.h"
#include "encode_request.h"

/* What a directory's files must be to be encoded: the image formats. */
static const char *const encode_accept[] = {"ppm", "pgm", "pnm", "pam", "pgx", "png",
                                            "tif", "tiff", "bmp", "tga", NULL};
/* And to be decoded. */
static const char *const decode_accept[] = {"j2k", "j2c", "jpc", "jp2", "jph", "jhc", "jpx",
                                            NULL};

/* Files decoded at once a GPU, where the cores allow (batch_workers.c): a
 * decode spends more of a file's time on the CPU (Tier-2, writing) than an
 * encode, so more files keep the GPU fed. */
#define BATCH_DECODE_JOBS_A_GPU 16

/* The stages of each command's report (batch_jobs.c fills them in this order). */
static const char *const encode_stages[] = {"read", "open GPU", "transforms",
                                            "of them GPU copies", "Tier-1", "rate control",
                                            "Tier-2", "write", "verify", NULL};
static const char *const decode_stages[] = {"read", "Tier-2", "Tier-1", "transforms and samples",
                                            "of them GPU copies", "write", "verify", NULL};
static const char *const transcode_stages[] = {"read", "Tier-2 in", "Tier-1 both ways",
                                               "Tier-2 out and write", NULL};

/* The list built and run; the exit status. */
static int run_list(const batch_request *batch, const batch_settings *settings,
                    batch_job_fn job, void *context)
{
    batch_list list;
    char why[1024];
    if (!batch_list_build(&batch->sources, &list, why, sizeof why)) {
        report_error("%s: %s", settings->command, why);
        return 1;
    }
    int status = batch_run(&list, settings, job, context);
    batch_list_free(&list);
    return status;
}

int encode_batch(parsed_options *parsed)
{
    batch_request batch;
    if (!batch_request_read(parsed, "encode", encode_accept, "j2k", &batch)) {
        batch_request_free(&batch);
        return EXIT_USAGE;
    }
    char example[32];
    snprintf(example, sizeof example, "batch.%s", batch.extension);
    gj2k_file_format format = gj2k_format_from_path(example);
    if (format != GJ2K_FORMAT_J2K && format != GJ2K_FORMAT_JP2) {
        report_error("encode: -OutFor %s: expected j2k, j2c, jpc, jhc, jp2 or jph",
                     batch.extension);
        batch_request_free(&batch);
        return EXIT_USAGE;
    }
    /* the request read as for one file, with stand-ins for -i and -o, and
     * no --devices once CUDA is narrowed to them, naming every GPU, or in a
     * run split as asked: the one-file check would start CUDA, which a split
     * run must not (batch_share_devices checks them then) */
    if (batch.processes > 1 || batch.settings.gpu_names != NULL ||
        !batch_devices_named(batch.devices))
        options_set(parsed, "--devices", NULL);
    options_set(parsed, "-i", batch.sources.num_files ? batch.sources.files[0] : "batch.ppm");
    options_set(parsed, "-o", example);
    batch_encode_job job = {.verify = batch.verify};
    gj2k_raw_geometry geometry;
    int status = EXIT_USAGE;
    if (encode_request_read(parsed, &job.request) &&
        (job.request.raw_geometry == NULL ||
         parse_raw_geometry(job.request.raw_geometry, &geometry))) {
        job.geometry = job.request.raw_geometry ? &geometry : NULL;
        batch.settings.threads = job.request.options.threads;
        batch.settings.processes = batch_process_count(&batch, job.request.options.device, false);
        batch.settings.device = &job.request.options.device;
        batch.settings.stage_names = encode_stages;
        status = batch_share_devices("encode", &batch, job.request.options.device, &batch.settings);
        if (status == 0)
            status = run_list(&batch, &batch.settings, batch_encode_file, &job);
    }
    batch_request_free(&batch);
    return status;
}

/* The outputs' format of a decode batch without -OutFor. */
static const char *decode_default_extension(void)
{
    return gj2k_format_can_write(GJ2K_FORMAT_PNG) ? "png" : "pnm";
}

int transcode_batch(parsed_options *parsed)
{
    batch_request batch;
    if (!batch_request_read(parsed, "transcode", decode_accept, "jph", &batch)) {
        batch_request_free(&batch);
        return EXIT_USAGE;
    }
    snprintf(batch.example, sizeof batch.example, "batch.%s", batch.extension);
    gj2k_file_format format = gj2k_format_from_path(batch.example);
    bool ht = options_has(parsed, "--ht"), part1 = options_has(parsed, "--part1");
    const char *threads = options_get(parsed, "-threads");
    unsigned long value = 0;
    int status = EXIT_USAGE;
    if (format != GJ2K_FORMAT_J2K && format != GJ2K_FORMAT_JP2)
        report_error("transcode: -OutFor %s: expected jph, jhc, jp2, j2k, j2c or jpc",
                     batch.extension);
    else if (ht && part1)
        report_error("transcode: --ht and --part1 exclude each other");
    else if (threads != NULL && !options_parse_threads(threads, &value))
        report_error("transcode: -threads %s: a number of threads, 1 to 1024, or ALL_CPUS", threads);
    else
        status = -1;
    if (status == -1) {
        batch_transcode_job job = {.verify = batch.verify};
        job.transcode.coder = ht ? GJ2K_CODER_HT : part1 ? GJ2K_CODER_PART1 : GJ2K_CODER_AUTO;
        job.transcode.format = format;
        batch.settings.threads = (unsigned)value;
        batch.settings.processes = batch.processes; /* on the CPU: one unless asked */
        batch.settings.stage_names = transcode_stages;
        status = run_list(&batch, &batch.settings, batch_transcode_file, &job);
    }
    batch_request_free(&batch);
    return status;
}

batch_request *decode_batch_begin(parsed_options *parsed)
{
    batch_request *batch = malloc(sizeof *batch);
    if (batch == NULL) {
        report_error("decode: out of memory");
        return NULL;
    }
    if (!batch_request_read(parsed, "decode", decode_accept, decode_default_extension(), batch)) {
        decode_batch_cancel(batch);
        return NULL;
    }
    snprintf(batch->example, sizeof batch->example, "batch.%s", batch->extension);
    options_set(parsed, "-i", batch->sources.num_files ? batch->sources.files[0] : "batch.j2k");
    options_set(parsed, "-o", batch->example);
    return batch;
}

int decode_batch_run(batch_request *batch, const gj2k_decode_options *decode,
                     const gj2k_write_options *write)
{
    batch_decode_job job = {.decode = *decode, .write = *write, .verify = batch->verify};
    batch_settings settings = batch->settings;
    settings.processes = batch_process_count(batch, job.decode.device, true);
    settings.device = &job.decode.device;
    settings.threads = decode->threads;
    settings.stage_names = decode_stages;
    settings.jobs_a_gpu = BATCH_DECODE_JOBS_A_GPU;
    settings.ranked_streams = true;
    settings.writers = batch->writers;
    int status = batch_share_devices("decode", batch, job.decode.device, &settings);
    if (status == 0)
        status = run_list(batch, &settings, batch_decode_file, &job);
    decode_batch_cancel(batch);
    return status;
}

void decode_batch_cancel(batch_request *batch)
{
    batch_request_free(batch);
    free(batch);
}
