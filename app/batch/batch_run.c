/* batch_run.c - see batch_run.h. The queue is an index into the list under
 * a lock: each worker holds one file at a time, so memory stays that of its
 * workers' files (batch_workers.h) however long the list. The largest files
 * go first, so that the run does not end on a big file coded alone while
 * the other workers (and the GPU) idle. */
#include "batch_run.h"

#include <errno.h>
#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_workers.h"
#include "batch_writer.h"
#include "byte_buffer.h"
#include "clock.h"
#include "describe.h"
#include "options.h"
#include "parallel_pool.h"

/* glibc's malloc told to keep more of what a file frees for the next:
 * blocks up to 32 MiB (the top of glibc's own sliding threshold) from the
 * heaps rather than mapped and unmapped a file, and the heaps' tops not
 * trimmed (a worker thread's secondary heap of 64 MiB is still unmapped
 * once wholly free). With glibc's sliding threshold and trimming, 16
 * workers on 2 GPUs re-faulted their planes file after file (400 photos to
 * 4K, 2 H200, 32 cores, docs/gpu-notes.md: 1.60M page faults and 9.9 s
 * system time against 0.56M and 4.8 s, encode 6.25 -> 5.77 s; one GPU
 * 10.10 -> 10.07 s). Over GLIBC_TUNABLES of the same. The process's own:
 * the program's, not the library's, to set. */
static void batch_keep_freed_memory(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

/* GPUs the summary counts files for, one by one. */
#define BATCH_SHOWN_GPUS 16

typedef struct batch_state {
    const batch_list *list;
    const size_t *order;    /* the list's indices, largest input first */
    const batch_settings *settings;
    batch_job_fn job;
    void *context;
    batch_worker *workers;  /* the GPU workers first, then the CPU workers beside them */
    const unsigned *gpu_names; /* what the summary and report call each of settings->gpus */
    batch_worker_counts counts; /* the GPUs' workers, the CPU's beside them, threads a file */
    FILE *report;
    bool report_failed;
    bool progress;
    pthread_mutex_t lock; /* over what follows */
    size_t front, back;   /* the files of order[front, back) are left */
    size_t done, failed, skipped, on_gpu, on_cpu_workers;
    size_t writers, written_by_writers; /* --writers, and the files they wrote */
    size_t on_each_gpu[BATCH_SHOWN_GPUS]; /* files coded on each of settings->gpus */
    uint64_t bytes_in, bytes_out, pixels;
    double stage_ms[BATCH_STAGES];
    double start, last_progress;
    double gpus_opened;     /* when the last worker's GPU was open (from start) */
    double last_started;    /* when the last file was taken */
} batch_state;

/* The list's indices in the order the workers take them (settings->order
 * over the inputs' sizes, `wave` at once; an input that cannot be read
 * counts as empty and fails in its turn); NULL when out of memory. */
static size_t *ordered(const batch_list *list, batch_order_policy policy, size_t wave)
{
    size_t n = list->count ? list->count : 1;
    uint64_t *bytes = malloc(n * sizeof *bytes);
    size_t *order = malloc(n * sizeof *order);
    for (size_t i = 0; bytes != NULL && i < list->count; i++) {
        struct stat info;
        bytes[i] = stat(list->items[i].input, &info) == 0 ? (uint64_t)info.st_size : 0;
    }
    if (bytes == NULL || order == NULL ||
        !batch_order_files(bytes, list->count, wave, policy, order)) {
        free(order);
        order = NULL;
    }
    free(bytes);
    return order;
}

/* A JSON string literal of `text` (a path: UTF-8 passes through, a byte of
 * one that is not comes escaped), as gj2k_describe_file writes them. */
static void json_string(FILE *out, const char *text)
{
    byte_buffer literal = {0};
    describe_json_string(&literal, text, strlen(text), false);
    if (literal.failed) /* out of memory: a string still, the line stays JSON */
        fputs("\"\"", out);
    else
        fwrite(literal.data, 1, literal.size, out);
    byte_buffer_free(&literal);
}

static void write_report_line(batch_state *s, const batch_item *item, const batch_outcome *o)
{
    static const char *const names[] = {"ok", "failed", "skipped"};
    FILE *out = s->report;
    fputs("{\"input\":", out);
    json_string(out, item->input);
    fputs(",\"output\":", out);
    json_string(out, item->output);
    fprintf(out, ",\"status\":\"%s\"", names[o->verdict]);
    if (o->verdict == BATCH_FAILED) {
        fputs(",\"error\":", out);
        json_string(out, o->message);
    }
    fprintf(out, ",\"bytes_in\":%llu,\"bytes_out\":%llu,\"pixels\":%llu,\"started\":%.6f,"
            "\"seconds\":%.6f",
            (unsigned long long)o->bytes_in, (unsigned long long)o->bytes_out,
            (unsigned long long)o->pixels, o->started, o->seconds);
    if (o->verified)
        fprintf(out, ",\"verified\":true,\"identical\":%s", o->identical ? "true" : "false");
    else
        fputs(",\"verified\":false", out);
    if (o->verdict == BATCH_DONE && o->on_gpu)
        fprintf(out, ",\"gpu\":%u", o->gpu);
    if (o->verified && !o->identical && isfinite(o->psnr))
        fprintf(out, ",\"psnr\":%.4f", o->psnr);
    fputs("}\n", out);
    if (fflush(out) != 0 || ferror(out))
        s->report_failed = true;
}

/* The progress line (under the lock): files, MP/s, MB/s, ETA, failures. */
static void show_progress(batch_state *s, bool final)
{
    double now = now_seconds();
    if (!s->progress || (!final && now - s->last_progress < 0.25))
        return;
    s->last_progress = now;
    size_t finished = s->done + s->failed + s->skipped, total = s->list->count;
    double elapsed = now - s->start;
    double rate = elapsed > 0 ? (double)finished / elapsed : 0.0;
    double eta = rate > 0 ? (double)(total - finished) / rate : 0.0;
    fprintf(stderr, "\r%s: %zu/%zu files, %.1f MP/s, %.1f MB/s, ETA %.0f s, %zu failed   ",
            s->settings->command, finished, total,
            elapsed > 0 ? (double)s->pixels * 1e-6 / elapsed : 0.0,
            elapsed > 0 ? (double)s->bytes_in * 1e-6 / elapsed : 0.0, eta, s->failed);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* Whether `output` names the very file `input` is (never overwritten). */
static bool same_file(const char *input, const char *output)
{
    struct stat a, b;
    return stat(input, &a) == 0 && stat(output, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The next file for a worker, as an index into the list: the first left in
 * the batch's order (by default the largest), except for a CPU worker
 * beside GPUs, which takes the last (by default the smallest) and leaves
 * the last few (no more than the GPU workers) to the GPUs, so that the run
 * does not wait for the slower CPU at its end. False when none is left. */
static bool take_next(batch_state *s, bool cpu_beside_gpus, size_t *index)
{
    pthread_mutex_lock(&s->lock);
    size_t left = s->back - s->front;
    bool taken = left > 0 && (!cpu_beside_gpus || left > s->counts.gpu_jobs);
    if (taken)
        *index = s->order[cpu_beside_gpus ? --s->back : s->front++];
    if (taken && s->front == s->back)
        s->last_started = now_seconds() - s->start;
    pthread_mutex_unlock(&s->lock);
    return taken;
}

/* Opens worker `number`'s GPU, held to the end of the run (one that will
 * not open leaves the job to open one a file, or to code on the CPU); with
 * ranked_streams the workers of one GPU take ranks 0, 1, 2, ... */
static void open_gpu(batch_state *s, size_t number)
{
    batch_worker *w = &s->workers[number];
    size_t gpus = s->settings->num_gpus;
    w->gpu = s->settings->gpus[number % gpus];
    gj2k_error unused = {0};
    unsigned rank = s->settings->ranked_streams ? (unsigned)(number / gpus) : 0;
    if (gj2k_gpu_context_create_ranked(w->gpu, rank, &w->gpu_context, &unused) != GJ2K_OK)
        w->gpu_context = NULL;
    pthread_mutex_lock(&s->lock);
    double opened = now_seconds() - s->start;
    s->gpus_opened = opened > s->gpus_opened ? opened : s->gpus_opened;
    pthread_mutex_unlock(&s->lock);
}

/* Records a file's outcome (under the lock): the counts, the report line,
 * the progress; `by_writer`: a writer thread wrote it (batch_defer). */
static void record_outcome(batch_state *s, const batch_item *item, size_t number, double start,
                           bool by_writer, batch_outcome *outcome)
{
    batch_worker *w = &s->workers[number];
    size_t gpu_slot = s->settings->num_gpus && !w->on_cpu ? number % s->settings->num_gpus : 0;
    outcome->seconds = now_seconds() - start;
    pthread_mutex_lock(&s->lock);
    s->written_by_writers += by_writer;
    if (outcome->verdict == BATCH_FAILED) {
        s->failed++;
        if (s->progress)
            fputc('\n', stderr);
        report_error("%s", outcome->message);
    } else if (outcome->verdict == BATCH_SKIPPED) {
        s->skipped++;
    } else {
        s->done++;
        s->on_gpu += outcome->on_gpu;
        s->on_cpu_workers += w->on_cpu;
        if (outcome->on_gpu && gpu_slot < BATCH_SHOWN_GPUS)
            s->on_each_gpu[gpu_slot]++;
        for (unsigned k = 0; k < BATCH_STAGES; k++)
            s->stage_ms[k] += outcome->stage_ms[k];
        s->bytes_in += outcome->bytes_in;
        s->bytes_out += outcome->bytes_out;
        s->pixels += outcome->pixels;
    }
    if (s->report != NULL)
        write_report_line(s, item, outcome);
    show_progress(s, false);
    pthread_mutex_unlock(&s->lock);
}

/* A file handed to the writer threads: what record_outcome needs. */
typedef struct deferred_file {
    batch_state *s;
    const batch_item *item;
    size_t number;
    double start;
} deferred_file;

/* A batch_tail_done_fn: the deferred file recorded, on its writer thread. */
static void deferred_done(void *user, void *tag, batch_outcome *outcome)
{
    (void)user;
    deferred_file *d = tag;
    record_outcome(d->s, d->item, d->number, d->start, true, outcome);
    free(d);
}

void batch_defer(const batch_worker *worker, const batch_item *item, batch_outcome *outcome,
                 batch_tail_fn tail, void *arg)
{
    deferred_file *d = worker->writer != NULL ? malloc(sizeof *d) : NULL;
    if (d == NULL) { /* finished here, recorded by code_item */
        tail(arg, outcome);
        return;
    }
    *d = (deferred_file){.s = worker->run, .item = item, .number = worker->number,
                         .start = worker->taken};
    batch_writer_submit(worker->writer, tail, arg, d, outcome);
    outcome->verdict = BATCH_PENDING;
}

/* Codes list item `index` as worker `number` (a failure is the file's, and
 * the run goes on); recorded here, or by the writer thread it was handed
 * to. */
static void code_item(batch_state *s, size_t index, size_t number)
{
    batch_worker *w = &s->workers[number];
    const batch_item *item = &s->list->items[index];
    batch_outcome outcome = {0};
    struct stat info;
    double start = now_seconds();
    outcome.started = unix_seconds();
    if (same_file(item->input, item->output)) {
        outcome.verdict = BATCH_FAILED;
        snprintf(outcome.message, sizeof outcome.message, "%s: the output %s is the input itself",
                 item->input, item->output);
    } else if (s->settings->skip_existing && stat(item->output, &info) == 0) {
        outcome.verdict = BATCH_SKIPPED;
        outcome.bytes_out = (uint64_t)info.st_size;
    } else if (!batch_make_parent_directories(item->output)) {
        outcome.verdict = BATCH_FAILED;
        snprintf(outcome.message, sizeof outcome.message, "%s: cannot make its directory: %s",
                 item->output, strerror(errno));
    } else {
        size_t gpus = s->settings->num_gpus;
        outcome.gpu = gpus && !w->on_cpu ? s->gpu_names[number % gpus] : w->gpu;
        w->taken = start;
        s->job(s->context, item, s->counts.threads_each, w, &outcome);
    }
    if (outcome.verdict != BATCH_PENDING)
        record_outcome(s, item, number, start, false, &outcome);
}

/* A parallel_body: worker `number`'s files, one after the other. */
static gj2k_status run_worker(void *context, size_t number, unsigned thread)
{
    (void)thread;
    batch_state *s = context;
    bool cpu = s->workers[number].on_cpu, gpu = s->settings->num_gpus > 0 && !cpu;
    size_t index;
    for (bool first = true; take_next(s, cpu, &index); first = false) {
        if (first && gpu) /* at its first file, so that a worker left none opens none */
            open_gpu(s, number);
        code_item(s, index, number);
    }
    return GJ2K_OK;
}

static void print_summary(const batch_state *s, double seconds, double coded, double closing)
{
    struct rusage usage = {0};
    long peak_kb = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : 0;
    printf("%s: %zu files coded, %zu failed, %zu skipped (already there), in %.2f s, "
           "peak memory %.0f MB\n", s->settings->command, s->done, s->failed, s->skipped, seconds,
           (double)peak_kb / 1024.0);
    if (s->done == 0)
        return;
    printf("  %llu bytes in, %llu bytes out (%.2f:1), ", (unsigned long long)s->bytes_in,
           (unsigned long long)s->bytes_out,
           s->bytes_out && s->bytes_in ? (double)s->bytes_in / (double)s->bytes_out : 0.0);
    if (s->pixels > 0) /* a transcode does not count them */
        printf("%.1f MP/s, ", seconds > 0 ? (double)s->pixels * 1e-6 / seconds : 0.0);
    printf("%.1f MB/s read\n", seconds > 0 ? (double)s->bytes_in * 1e-6 / seconds : 0.0);
    const char *const *names = s->settings->stage_names;
    if (names == NULL || names[0] == NULL)
        return;
    /* summed over files coded at once: a stage can pass 100% of the run */
    printf("  %zu of %zu files on a GPU", s->on_gpu, s->done);
    if (s->settings->num_gpus > 1)
        for (size_t k = 0; k < s->settings->num_gpus && k < BATCH_SHOWN_GPUS; k++)
            printf("%s GPU %u: %zu", k ? "," : " (", s->gpu_names[k], s->on_each_gpu[k]);
    printf("%s", s->settings->num_gpus > 1 ? ")" : "");
    if (s->on_cpu_workers > 0)
        printf(", %zu by the CPU workers", s->on_cpu_workers);
    printf("; stages summed over the files, and against the run's time:");
    for (unsigned k = 0; k < BATCH_STAGES && names[k] != NULL; k++)
        printf("%s %s %.2f s (%.0f%%)", k ? "," : "", names[k], s->stage_ms[k] * 1e-3,
               seconds > 0 ? s->stage_ms[k] * 1e-3 / seconds * 100.0 : 0.0);
    printf("\n");
    /* how the files were shared out (batch_workers.h) */
    const batch_worker_counts *c = &s->counts;
    printf("  the workers: %zu file%s at once on ", c->gpu_jobs, c->gpu_jobs > 1 ? "s" : "");
    if (s->settings->num_gpus > 0)
        printf("%zu GPU%s and %zu on the CPU beside them", s->settings->num_gpus,
               s->settings->num_gpus > 1 ? "s" : "", c->cpu_workers);
    else
        printf("the CPU");
    printf(", %u thread%s a file", c->threads_each, c->threads_each > 1 ? "s" : "");
    if (s->writers > 0)
        printf("; %zu writer thread%s wrote %zu of the files", s->writers,
               s->writers > 1 ? "s" : "", s->written_by_writers);
    printf("\n");
    /* where the run's time went that no file's stages show */
    printf("  the run:");
    if (s->settings->num_gpus > 0)
        printf(" every worker's GPU open at %.2f s,", s->gpus_opened);
    printf(" the last file started at %.2f s and the files were done at %.2f s", s->last_started,
           coded);
    if (s->settings->num_gpus > 0)
        printf(", GPUs closed in %.2f s", closing);
    printf("\n");
    /* where the cores went: the kernel's share (page faults, locks, copies
     * through the driver) grows when the host stops keeping up */
    printf("  the process: %.2f s user and %.2f s system CPU, %ld page faults (%ld with I/O)\n",
           (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6,
           (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6,
           usage.ru_minflt + usage.ru_majflt, usage.ru_majflt);
}

int batch_run(const batch_list *list, const batch_settings *settings, batch_job_fn job,
              void *context)
{
    batch_state s = {.list = list, .settings = settings, .job = job, .context = context,
                     .gpu_names = settings->gpu_names ? settings->gpu_names : settings->gpus};
    unsigned cores = parallel_thread_count(0);
    s.counts = batch_count_workers(settings, list->count, cores);
    size_t jobs = s.counts.gpu_jobs + s.counts.cpu_workers;
    s.progress = !settings->quiet && isatty(STDERR_FILENO);
    if (settings->report != NULL) {
        s.report = fopen(settings->report, "w");
        if (s.report == NULL) {
            report_error("%s: --report %s: %s", settings->command, settings->report,
                         strerror(errno));
            return 1;
        }
    }
    /* files `jobs` at once on a worker pool, each worker taking the next file left */
    parallel_pool *pool = NULL;
    gj2k_error error = {0};
    if (parallel_pool_create((unsigned)jobs, &pool, &error) != GJ2K_OK) {
        report_error("%s: %s", settings->command, error.message);
        if (s.report != NULL)
            fclose(s.report);
        return 1;
    }
    s.workers = calloc(jobs, sizeof *s.workers);
    size_t *order = ordered(list, settings->order, s.counts.gpu_jobs);
    s.order = order;
    if (s.workers == NULL || order == NULL) {
        report_error("%s: out of memory", settings->command);
        free(s.workers);
        free(order);
        parallel_pool_destroy(pool);
        if (s.report != NULL)
            fclose(s.report);
        return 1;
    }
    /* --writers: the files written on threads of their own, each with one queued */
    batch_writer *writer = NULL;
    if (settings->writers > 0)
        writer = batch_writer_create(settings->writers, 2 * (size_t)settings->writers,
                                     deferred_done, NULL);
    s.writers = writer != NULL ? settings->writers : 0;
    for (size_t k = 0; k < jobs; k++) {
        s.workers[k] = (batch_worker){.on_cpu = k >= s.counts.gpu_jobs, .run = &s, .number = k};
        s.workers[k].writer = s.workers[k].on_cpu ? NULL : writer;
    }
    s.back = list->count;
    batch_keep_freed_memory();
    pthread_mutex_init(&s.lock, NULL);
    s.start = now_seconds();
    parallel_for(pool, jobs, run_worker, &s);
    parallel_pool_destroy(pool);
    batch_writer_destroy(writer); /* every file handed over written and recorded */
    double coded = now_seconds() - s.start;
    for (size_t k = 0; k < jobs; k++)
        gj2k_gpu_context_destroy(s.workers[k].gpu_context);
    free(s.workers);
    free(order);
    double seconds = now_seconds() - s.start;
    show_progress(&s, true);
    if (!settings->quiet)
        print_summary(&s, seconds, coded, seconds - coded);
    if (s.report != NULL && (fclose(s.report) != 0 || s.report_failed)) {
        report_error("%s: --report %s: could not be written whole", settings->command,
                     settings->report);
        s.report_failed = true;
    }
    pthread_mutex_destroy(&s.lock);
    return s.failed > 0 || s.report_failed ? 1 : 0;
}
