/* batch_run.c - see batch_run.h. The queue is an index into the list under
 * a lock: each worker holds one file at a time, so memory stays that of its
 * workers' files (batch_workers.h) however long the list. The largest files
 * go first, so that the run does not end on a big file coded alone while
 * the other workers (and the GPU) idle. A split run (settings->processes)
 * forks its processes over that one queue, kept with the counts in memory
 * they share (batch_state.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, beside the build's _POSIX_C_SOURCE */
#include "batch_run.h"

#include <errno.h>
#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "batch_state.h"
#include "batch_writer.h"
#include "clock.h"
#include "interrupt.h"
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

gj2k_device batch_resolve_device(gj2k_device asked)
{
    if (asked != GJ2K_DEVICE_AUTO)
        return asked;
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    return info.cuda_built && info.device_count > 0 ? GJ2K_DEVICE_GPU : GJ2K_DEVICE_AUTO;
}

/* The tally's lock; a process that died holding it (killed mid-update)
 * leaves it to the next taker, the counts as they were. */
static void tally_lock(batch_tally *t)
{
    if (pthread_mutex_lock(&t->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&t->lock);
}

static void tally_unlock(batch_tally *t)
{
    pthread_mutex_unlock(&t->lock);
}

/* The tally in memory that processes forked later share; NULL when none. */
static batch_tally *tally_create(void)
{
    batch_tally *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
    if (t == MAP_FAILED)
        return NULL;
    memset(t, 0, sizeof *t);
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
    int failed = pthread_mutex_init(&t->lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
    if (failed) {
        munmap(t, sizeof *t);
        return NULL;
    }
    return t;
}

static void tally_destroy(batch_tally *t)
{
    pthread_mutex_destroy(&t->lock);
    munmap(t, sizeof *t);
}

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
    batch_tally *t = s->tally;
    tally_lock(t);
    size_t left = t->back - t->front;
    bool taken = left > 0 && (!cpu_beside_gpus || left > t->gpu_jobs);
    if (taken)
        *index = s->order[cpu_beside_gpus ? --t->back : t->front++];
    if (taken && t->front == t->back)
        t->last_started = now_seconds() - s->start;
    tally_unlock(t);
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
    tally_lock(s->tally);
    double opened = now_seconds() - s->start;
    if (opened > s->tally->gpus_opened)
        s->tally->gpus_opened = opened;
    tally_unlock(s->tally);
}

/* Records a file's outcome (under the lock): the counts, the report line,
 * the progress; `by_writer`: a writer thread wrote it (batch_defer). */
static void record_outcome(batch_state *s, const batch_item *item, size_t number, double start,
                           bool by_writer, batch_outcome *outcome)
{
    batch_worker *w = &s->workers[number];
    size_t gpus = s->settings->num_gpus;
    size_t gpu_slot = gpus && !w->on_cpu ? s->gpu_slots[number % gpus] : 0;
    outcome->seconds = now_seconds() - start;
    batch_tally *t = s->tally;
    tally_lock(t);
    t->written_by_writers += by_writer;
    if (outcome->verdict == BATCH_FAILED) {
        t->failed++;
        if (s->progress)
            fputc('\n', stderr);
        report_error("%s", outcome->message);
    } else if (outcome->verdict == BATCH_SKIPPED) {
        t->skipped++;
    } else {
        t->done++;
        t->on_gpu += outcome->on_gpu;
        t->on_cpu_workers += w->on_cpu;
        if (outcome->on_gpu && gpu_slot < BATCH_SHOWN_GPUS)
            t->on_each_gpu[gpu_slot]++;
        for (unsigned k = 0; k < BATCH_STAGES; k++)
            t->stage_ms[k] += outcome->stage_ms[k];
        t->bytes_in += outcome->bytes_in;
        t->bytes_out += outcome->bytes_out;
        t->pixels += outcome->pixels;
    }
    if (s->report != NULL)
        batch_report_line(s, item, outcome);
    batch_show_progress(s, false);
    tally_unlock(t);
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

/* This process's workers over the queue until it is empty, then its GPUs
 * closed; false (after a message) when they could not be started. */
static bool run_here(batch_state *s)
{
    const batch_settings *settings = s->settings;
    size_t jobs = s->counts.gpu_jobs + s->counts.cpu_workers;
    parallel_pool *pool = NULL;
    gj2k_error error = {0};
    if (parallel_pool_create((unsigned)jobs, &pool, &error) != GJ2K_OK) {
        report_error("%s: %s", settings->command, error.message);
        return false;
    }
    s->workers = calloc(jobs, sizeof *s->workers);
    if (s->workers == NULL) {
        report_error("%s: out of memory", settings->command);
        parallel_pool_destroy(pool);
        return false;
    }
    /* --writers: the files written on threads of their own, each with one queued */
    batch_writer *writer = NULL;
    if (settings->writers > 0)
        writer = batch_writer_create(settings->writers, 2 * (size_t)settings->writers,
                                     deferred_done, NULL);
    s->writers = writer != NULL ? settings->writers : 0;
    for (size_t k = 0; k < jobs; k++) {
        s->workers[k] = (batch_worker){.on_cpu = k >= s->counts.gpu_jobs, .run = s, .number = k};
        s->workers[k].writer = s->workers[k].on_cpu ? NULL : writer;
    }
    parallel_for(pool, jobs, run_worker, s);
    parallel_pool_destroy(pool);
    batch_writer_destroy(writer); /* every file handed over written and recorded */
    double coded = now_seconds() - s->start;
    tally_lock(s->tally);
    if (coded > s->tally->coded)
        s->tally->coded = coded;
    tally_unlock(s->tally);
    for (size_t k = 0; k < jobs; k++)
        gj2k_gpu_context_destroy(s->workers[k].gpu_context);
    free(s->workers);
    s->workers = NULL;
    return true;
}

/* One process's share of a split run: its GPUs (as CUDA numbers them in
 * the run, and once narrowed to them, 0, 1, ...), what the run calls them
 * and their places among the run's GPUs, its settings and workers. */
typedef struct process_share {
    batch_settings settings;
    unsigned gpus[OPTIONS_MAX_GPUS], names[OPTIONS_MAX_GPUS];
    size_t slots[OPTIONS_MAX_GPUS];
    batch_worker_counts counts;
} process_share;

/* `total` shared out over `processes`: process k's part. */
static size_t part_of(size_t total, size_t processes, size_t k)
{
    return total / processes + (k < total % processes);
}

/* Process k's share of `run` over `processes` on `cores` cores: the GPUs
 * at k, k + processes, ... (with fewer GPUs than processes, GPU k % GPUs),
 * a part of the cores, of --jobs and of --cpu-workers. */
static void share_for(const batch_settings *run, size_t processes, size_t k, unsigned cores,
                      size_t files, process_share *share)
{
    const unsigned *names = run->gpu_names ? run->gpu_names : run->gpus;
    size_t gpus = 0;
    for (size_t i = 0; i < run->num_gpus && gpus < OPTIONS_MAX_GPUS; i++) {
        bool mine = processes >= run->num_gpus ? i == k % run->num_gpus : i % processes == k;
        if (!mine)
            continue;
        share->gpus[gpus] = run->gpus[i];
        share->names[gpus] = names[i];
        share->slots[gpus++] = i;
    }
    share->settings = *run;
    share->settings.gpus = share->gpus;
    share->settings.gpu_names = share->names;
    share->settings.num_gpus = gpus;
    share->settings.processes = 1;
    if (run->jobs > 0) {
        size_t jobs = part_of(run->jobs, processes, k);
        share->settings.jobs = jobs > 0 ? (unsigned)jobs : 1;
    }
    if (run->cpu_workers > 0)
        share->settings.cpu_workers = (int)part_of((size_t)run->cpu_workers, processes, k);
    if (run->writers > 0) { /* a process with none would write its own files */
        size_t writers = part_of(run->writers, processes, k);
        share->settings.writers = writers > 0 ? (unsigned)writers : 1;
    }
    unsigned own = cores / (unsigned)processes;
    share->counts = batch_count_workers(&share->settings, files, own > 0 ? own : 1);
}

/* Process k of a split run, forked: CUDA shown its GPUs only, the job's
 * device resolved here, its workers run; it leaves with the run. */
static _Noreturn void run_as_process(batch_state *run, size_t k, unsigned cores, pid_t parent)
{
    interrupt_install_terminate(); /* even where the run ignores or blocks it */
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* the run stopped stops its processes */
    if (getppid() != parent)
        _exit(1);
#else
    (void)parent;
#endif
    process_share share;
    share_for(run->settings, run->processes, k, cores, run->list->count, &share);
    batch_settings *settings = &share.settings;
    if (settings->num_gpus > 0 && options_narrow_gpus_to(share.gpus, settings->num_gpus))
        for (size_t i = 0; i < settings->num_gpus; i++)
            share.gpus[i] = (unsigned)i;
    if (settings->device != NULL)
        *settings->device = batch_resolve_device(*settings->device);
    batch_state s = *run;
    s.settings = settings;
    s.gpu_names = share.names;
    s.gpu_slots = share.slots;
    s.counts = share.counts;
    bool started = run_here(&s);
    struct rusage usage = {0};
    getrusage(RUSAGE_SELF, &usage);
    tally_lock(s.tally);
    s.tally->peak_kb += usage.ru_maxrss;
    tally_unlock(s.tally);
    exit(started ? 0 : 1);
}

/* The split run: its processes forked and waited for; false when one
 * could not start, or ended before its files were recorded (said). */
static bool run_split(batch_state *s, unsigned cores)
{
    const char *command = s->settings->command;
    fflush(stdout); /* nothing buffered here is written again by a process */
    fflush(stderr);
    if (s->report != NULL)
        fflush(s->report);
    pid_t parent = getpid(), *pids = calloc(s->processes, sizeof *pids);
    if (pids == NULL) {
        report_error("%s: out of memory", command);
        return false;
    }
    bool ok = true;
    size_t started = 0;
    for (; started < s->processes; started++) {
        pid_t pid = fork();
        if (pid == 0)
            run_as_process(s, started, cores, parent);
        if (pid < 0) {
            report_error("%s: process %zu of %zu could not start: %s", command, started + 1,
                         s->processes, strerror(errno));
            ok = false;
            break;
        }
        pids[started] = pid;
    }
    for (size_t k = 0; k < started; k++) {
        int status = 0;
        pid_t waited;
        while ((waited = waitpid(pids[k], &status, 0)) < 0 && errno == EINTR)
            continue;
        if (waited < 0) {
            report_error("%s: process %zu of %zu could not be waited for: %s", command, k + 1,
                         s->processes, strerror(errno));
            ok = false;
        } else if (WIFSIGNALED(status)) {
            report_error("%s: process %zu of %zu was ended by signal %d", command, k + 1,
                         s->processes, WTERMSIG(status));
            ok = false;
        } else if (WEXITSTATUS(status) != 0) {
            ok = false; /* it said why */
        }
    }
    free(pids);
    batch_tally *t = s->tally;
    size_t recorded = t->done + t->failed + t->skipped;
    if (recorded < s->list->count)
        report_error("%s: %zu of the files were not coded", command, s->list->count - recorded);
    return ok && recorded == s->list->count;
}

int batch_run(const batch_list *list, const batch_settings *settings, batch_job_fn job,
              void *context)
{
    batch_state s = {.list = list, .run = settings, .settings = settings, .job = job,
                     .context = context,
                     .gpu_names = settings->gpu_names ? settings->gpu_names : settings->gpus};
    unsigned cores = parallel_thread_count(0);
    s.processes = settings->processes > 1 ? settings->processes : 1;
    if (settings->jobs > 0 && s.processes > settings->jobs) /* --jobs files at once in all */
        s.processes = settings->jobs;
    if (s.processes > list->count)
        s.processes = list->count > 0 ? list->count : 1;
    if (s.processes == 1 && settings->device != NULL) /* else each process resolves its own */
        *settings->device = batch_resolve_device(*settings->device);
    s.progress = !settings->quiet && isatty(STDERR_FILENO);
    size_t slots[OPTIONS_MAX_GPUS];
    for (size_t k = 0; k < OPTIONS_MAX_GPUS; k++)
        slots[k] = k;
    s.gpu_slots = slots;
    s.tally = tally_create();
    if (s.tally == NULL) {
        report_error("%s: out of memory", settings->command);
        return 1;
    }
    /* the workers of every process, as each will count its own */
    s.counts = batch_count_workers(settings, list->count, cores);
    if (s.processes > 1) {
        process_share share;
        for (size_t k = 0; k < s.processes; k++) {
            share_for(settings, s.processes, k, cores, list->count, &share);
            s.tally->gpu_jobs += share.counts.gpu_jobs;
            s.tally->cpu_workers += share.counts.cpu_workers;
            s.counts.threads_each = share.counts.threads_each; /* the last's, for the summary */
            s.writers += share.settings.writers;
        }
    } else {
        s.tally->gpu_jobs = s.counts.gpu_jobs;
        s.tally->cpu_workers = s.counts.cpu_workers;
    }
    if (settings->report != NULL) {
        s.report = fopen(settings->report, "w");
        if (s.report == NULL) {
            report_error("%s: --report %s: %s", settings->command, settings->report,
                         strerror(errno));
            tally_destroy(s.tally);
            return 1;
        }
    }
    size_t *order = ordered(list, settings->order, s.tally->gpu_jobs);
    s.order = order;
    bool ran = order != NULL;
    if (!ran)
        report_error("%s: out of memory", settings->command);
    s.tally->back = list->count;
    batch_keep_freed_memory();
    s.start = now_seconds();
    if (ran && s.processes > 1)
        ran = run_split(&s, cores);
    else if (ran)
        ran = run_here(&s);
    free(order);
    batch_tally *t = s.tally;
    double seconds = now_seconds() - s.start, coded = t->coded > 0 ? t->coded : seconds;
    if (!ran && t->done + t->failed + t->skipped == 0) {
        if (s.report != NULL)
            fclose(s.report);
        tally_destroy(t);
        return 1;
    }
    batch_show_progress(&s, true);
    if (!settings->quiet)
        batch_print_summary(&s, seconds, coded, seconds - coded);
    bool report_failed = t->report_failed;
    if (s.report != NULL && (fclose(s.report) != 0 || report_failed)) {
        report_error("%s: --report %s: could not be written whole", settings->command,
                     settings->report);
        report_failed = true;
    }
    int status = !ran || t->failed > 0 || report_failed ? 1 : 0;
    tally_destroy(t);
    return status;
}
