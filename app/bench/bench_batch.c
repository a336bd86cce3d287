/* bench_batch.c - see bench_batch.h. */
#include "bench_batch.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "commands.h"
#include "image_formats.h"
#include "options.h"
#include "parallel_pool.h"

static const option_spec batch_options[] = {
    {"-i", "FILE", "the image every job encodes (and whose codestreams the decodes read)"},
    {"-b", "COUNT", "jobs in the batch (default 16)"},
    {"-streams", "K", "jobs at a time, each on a thread of its own (default 1 and 4: both)"},
    {"-threads", "N", "CPU threads in all, shared out among the streams (default: every core)"},
    {"--device", "cpu|gpu", "where the jobs run (default gpu)"},
    {"--help", NULL, "this text"},
};
#define BATCH_OPTION_COUNT (sizeof batch_options / sizeof batch_options[0])

/* One case of the batch: every job encodes `image` with `encode`, each
 * output the same bytes as `codestream`, or decodes `codestream` with
 * `decode`. */
typedef struct batch_case {
    const gj2k_image *image;
    gj2k_encode_options encode;
    const uint8_t *codestream;
    size_t codestream_size;
    gj2k_decode_options decode;
    bool decoding;
} batch_case;

/* What the streams share: the next job, and the sums of their reports. */
typedef struct batch_run {
    const batch_case *work;
    unsigned jobs;
    atomic_uint next;
    pthread_mutex_t lock;      /* over what follows */
    gj2k_status status;
    gj2k_error error;
    size_t first_size;         /* the first decode's pixels: every other must match */
    bool differs;
    gj2k_encode_report encoded;  /* sums */
    gj2k_decode_report decoded;
} batch_run;

static void add_encode_report(gj2k_encode_report *sum, const gj2k_encode_report *r)
{
    sum->open_ms += r->open_ms;
    sum->transform_ms += r->transform_ms;
    sum->tier1_ms += r->tier1_ms;
    sum->rate_ms += r->rate_ms;
    sum->tier2_ms += r->tier2_ms;
    sum->copies_ms += r->copies_ms;
    sum->gpu_blocks += r->gpu_blocks;
}

static void add_decode_report(gj2k_decode_report *sum, const gj2k_decode_report *r)
{
    sum->open_ms += r->open_ms;
    sum->tier2_ms += r->tier2_ms;
    sum->tier1_ms += r->tier1_ms;
    sum->transform_ms += r->transform_ms;
    sum->copies_ms += r->copies_ms;
    sum->gpu_blocks += r->gpu_blocks;
}

/* One job; its report added under the lock. */
static void run_job(batch_run *run)
{
    const batch_case *w = run->work;
    gj2k_error error = {0};
    gj2k_status status;
    size_t size = 0;
    if (w->decoding) {
        gj2k_decode_report report = GJ2K_DECODE_REPORT_INIT;
        gj2k_decode_options options = w->decode;
        options.report = &report;
        gj2k_image *image = NULL;
        status = gj2k_decode_memory(w->codestream, w->codestream_size, &options, &image, &error);
        if (status == GJ2K_OK)
            size = (size_t)(image->x1 - image->x0) * (image->y1 - image->y0);
        gj2k_image_destroy(image);
        pthread_mutex_lock(&run->lock);
        if (status == GJ2K_OK)
            add_decode_report(&run->decoded, &report);
    } else {
        gj2k_encode_report report = GJ2K_ENCODE_REPORT_INIT;
        uint8_t *data = NULL;
        status = gj2k_encode_memory(w->image, &w->encode, &data, &size, &report, &error);
        bool same = status != GJ2K_OK || (size == w->codestream_size &&
                                          memcmp(data, w->codestream, size) == 0);
        free(data);
        size = 0; /* checked here */
        pthread_mutex_lock(&run->lock);
        run->differs = run->differs || !same;
        if (status == GJ2K_OK)
            add_encode_report(&run->encoded, &report);
    }
    if (status != GJ2K_OK && run->status == GJ2K_OK) {
        run->status = status;
        run->error = error;
    }
    if (status == GJ2K_OK && size != 0) {
        run->differs = run->differs || (run->first_size != 0 && size != run->first_size);
        run->first_size = run->first_size ? run->first_size : size;
    }
    pthread_mutex_unlock(&run->lock);
}

static void *stream_thread(void *argument)
{
    batch_run *run = argument;
    while (atomic_fetch_add(&run->next, 1) < run->jobs)
        run_job(run);
    return NULL;
}

/* Runs the batch on `streams` threads (the caller's among them); the wall
 * time in seconds, or a negative value after one line on stderr. */
static double run_batch(const batch_case *work, unsigned jobs, unsigned streams, batch_run *run)
{
    memset(run, 0, sizeof *run);
    run->work = work;
    run->jobs = jobs;
    atomic_init(&run->next, 0);
    pthread_mutex_init(&run->lock, NULL);
    pthread_t *threads = calloc(streams, sizeof *threads);
    bool *started = calloc(streams, sizeof *started);
    double start = now_seconds();
    for (unsigned k = 1; threads && started && k < streams; k++)
        started[k] = pthread_create(&threads[k], NULL, stream_thread, run) == 0;
    stream_thread(run);
    for (unsigned k = 1; threads && started && k < streams; k++)
        if (started[k])
            pthread_join(threads[k], NULL);
    double elapsed = now_seconds() - start;
    free(threads);
    free(started);
    pthread_mutex_destroy(&run->lock);
    if (run->status != GJ2K_OK) {
        report_error("bench batch: %s", run->error.message);
        return -1.0;
    }
    if (run->differs) {
        report_error("bench batch: the jobs' outputs differ");
        return -1.0;
    }
    return elapsed;
}

/* One row: the case, the batch's time and throughput, the mean stages. */
static bool print_batch(const char *name, const batch_case *work, unsigned jobs,
                        unsigned streams, double pixels)
{
    batch_run run;
    double seconds = run_batch(work, jobs, streams, &run);
    if (seconds < 0)
        return false;
    printf("| %-22s | %2u | %2u | %9.1f | %6.3f | ", name, jobs, streams, seconds * 1e3,
           jobs * pixels / seconds * 1e-9);
    if (work->decoding)
        printf("open %.1f, Tier-2 %.1f, Tier-1 %.1f, transforms and samples out %.1f (GPU copies "
               "%.1f) |\n", run.decoded.open_ms / jobs, run.decoded.tier2_ms / jobs,
               run.decoded.tier1_ms / jobs, run.decoded.transform_ms / jobs,
               run.decoded.copies_ms / jobs);
    else
        printf("open %.1f, transforms %.1f (GPU copies %.1f), Tier-1 %.1f, rate control %.1f, "
               "Tier-2 %.1f |\n", run.encoded.open_ms / jobs, run.encoded.transform_ms / jobs,
               run.encoded.copies_ms / jobs, run.encoded.tier1_ms / jobs,
               run.encoded.rate_ms / jobs, run.encoded.tier2_ms / jobs);
    return true;
}

int bench_batch(int argc, char **argv)
{
    parsed_options options;
    if (!options_parse("bench batch", argc, argv, batch_options, BATCH_OPTION_COUNT, 0, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help") || options_get(&options, "-i") == NULL) {
        bool help = options_has(&options, "--help");
        options_print_help("gj2k bench batch -i IMAGE [-b COUNT] [-streams K] [-threads N] "
                           "[--device cpu|gpu]",
                           "Times a batch of jobs, memory to memory: COUNT encodes of IMAGE\n"
                           "(lossless, and lossy -I -r 20), then COUNT decodes of each\n"
                           "codestream, K jobs at a time. Prints the batch's time, its\n"
                           "gigapixels a second, and the mean time of each stage a job.",
                           batch_options, BATCH_OPTION_COUNT);
        options_free(&options);
        return help ? 0 : EXIT_USAGE;
    }
    char *input = strdup(options_get(&options, "-i"));
    const char *count = options_get(&options, "-b"), *streams_text = options_get(&options, "-streams");
    const char *threads_text = options_get(&options, "-threads"), *device = options_get(&options, "--device");
    unsigned long jobs = 16, streams = 0, threads = 0;
    bool usable = input != NULL && (count == NULL || options_parse_uint(count, 1, 10000, &jobs)) &&
                  (streams_text == NULL || options_parse_uint(streams_text, 1, 64, &streams)) &&
                  (threads_text == NULL || options_parse_threads(threads_text, &threads)) &&
                  (device == NULL || strcmp(device, "cpu") == 0 || strcmp(device, "gpu") == 0);
    gj2k_device where = device != NULL && strcmp(device, "cpu") == 0 ? GJ2K_DEVICE_CPU
                                                                     : GJ2K_DEVICE_GPU;
    options_free(&options);
    if (!usable) {
        report_error("bench batch: expected -b 1..10000, -streams 1..64, -threads 1..1024, "
                     "--device cpu or gpu");
        free(input);
        return EXIT_USAGE;
    }
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(input, NULL, &image, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        free(input);
        return 1;
    }
    double pixels = (double)(image->x1 - image->x0) * (image->y1 - image->y0);
    unsigned all_threads = parallel_thread_count((unsigned)threads);
    static const double ratio_20[] = {20};
    batch_case cases[2] = {{.image = image, .encode = {.device = where}},
                           {.image = image, .encode = {.device = where, .irreversible = true,
                                                       .target = GJ2K_TARGET_RATIO,
                                                       .num_layers = 1, .targets = ratio_20}}};
    /* the codestreams the decodes read */
    uint8_t *codestreams[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    int code = 0;
    for (int k = 0; k < 2 && code == 0; k++) {
        cases[k].encode.threads = all_threads;
        if (gj2k_encode_memory(image, &cases[k].encode, &codestreams[k], &sizes[k], NULL,
                               &error) != GJ2K_OK) {
            report_error("bench batch: %s", error.message);
            code = 1;
        }
    }
    printf("gj2k bench batch: %s, %ux%u, %u components; %lu jobs, %u threads in all, on the %s\n\n",
           input, image->x1 - image->x0, image->y1 - image->y0, image->num_components, jobs,
           all_threads, where == GJ2K_DEVICE_GPU ? "GPU" : "CPU");
    printf("| case | jobs | at a time | ms | GP/s | mean stages a job, ms |\n|---|---|---|---|---|---|\n");
    unsigned stream_counts[2] = {1, 4}, num_counts = 2;
    if (streams != 0) {
        stream_counts[0] = (unsigned)streams;
        num_counts = 1;
    }
    static const char *const names[4] = {"encode lossless", "encode -I -r 20",
                                         "decode lossless", "decode -I -r 20"};
    for (unsigned s = 0; s < num_counts && code == 0; s++) {
        unsigned k = stream_counts[s], each = all_threads / k ? all_threads / k : 1;
        for (int c = 0; c < 4 && code == 0; c++) {
            batch_case work = cases[c % 2];
            work.encode.threads = each;
            work.codestream = codestreams[c % 2];
            work.codestream_size = sizes[c % 2];
            if (c >= 2) {
                work.decoding = true;
                work.decode = (gj2k_decode_options){.threads = each, .device = where};
            }
            if (!print_batch(names[c], &work, (unsigned)jobs, k, pixels))
                code = 1;
        }
    }
    free(codestreams[0]);
    free(codestreams[1]);
    gj2k_image_destroy(image);
    free(input);
    return code;
}
