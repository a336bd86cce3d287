/* test_batch_workers.c - how a batch shares its files out
 * (app/batch/batch_workers.c, built into the test): the files at once a
 * GPU by default and as asked, the decoder's more where the cores allow,
 * the CPU workers beside the GPUs, and the threads each file gets. */
#include <stdio.h>

#include "batch_workers.h"
#include "test_harness.h"

/* One batch's settings and machine, and the counts expected (-1: any). */
typedef struct workers_row {
    const char *what;
    size_t gpus;        /* GPUs shared out among (0: none) */
    unsigned jobs;      /* --jobs (0: the default) */
    unsigned jobs_a_gpu; /* the command's wish (the decoder's 16) */
    int cpu_workers;    /* --cpu-workers (-1: the default) */
    unsigned threads;   /* -threads (0: the default) */
    size_t files;
    unsigned cores;
    long long gpu_jobs, cpu, threads_each;
} workers_row;

static void check_rows(const workers_row *rows, size_t count)
{
    static const unsigned gpus[] = {0, 1, 2, 3};
    for (size_t i = 0; i < count; i++) {
        const workers_row *r = &rows[i];
        batch_settings s = {.command = "test", .gpus = r->gpus ? gpus : NULL,
                            .num_gpus = r->gpus, .jobs = r->jobs, .jobs_a_gpu = r->jobs_a_gpu,
                            .cpu_workers = r->cpu_workers, .threads = r->threads};
        batch_worker_counts c = batch_count_workers(&s, r->files, r->cores);
        bool ok = c.gpu_jobs == (size_t)r->gpu_jobs &&
                  (r->cpu < 0 || c.cpu_workers == (size_t)r->cpu) &&
                  (r->threads_each < 0 || c.threads_each == (unsigned)r->threads_each);
        if (!ok)
            fprintf(stderr, "%s: %zu files at once on the GPUs, %zu CPU workers, %u threads; "
                            "expected %lld, %lld, %lld\n", r->what, c.gpu_jobs, c.cpu_workers,
                    c.threads_each, r->gpu_jobs, r->cpu, r->threads_each);
        CHECK(ok);
    }
}

/* The encoder's default: BATCH_JOBS_A_GPU a GPU, CPU workers on the cores
 * past 16 a GPU (half of them, at most 8), the cores shared among all. */
static void test_gpu_defaults(void)
{
    static const workers_row rows[] = {
        {"1 GPU, 32 cores", 1, 0, 0, -1, 0, 200, 32, BATCH_JOBS_A_GPU, 8, 2},
        {"2 GPUs, 32 cores", 2, 0, 0, -1, 0, 200, 32, 2 * BATCH_JOBS_A_GPU, 0, 2},
        {"1 GPU, 16 cores", 1, 0, 0, -1, 0, 200, 16, BATCH_JOBS_A_GPU, 0, 2},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
}

/* The decoder asks for 16 a GPU: granted where half the cores a GPU hold
 * them, as many as they hold between 8 and 16, never fewer than the
 * default; a wish below the default gives the default. */
static void test_decoder_more_where_cores_allow(void)
{
    static const workers_row rows[] = {
        {"1 GPU, 32 cores", 1, 0, 16, -1, 0, 200, 32, 16, 8, 1},
        {"1 GPU, 24 cores", 1, 0, 16, -1, 0, 200, 24, 12, -1, -1},
        {"1 GPU, 16 cores", 1, 0, 16, -1, 0, 200, 16, BATCH_JOBS_A_GPU, -1, -1},
        {"1 GPU, 12 cores: room for 6", 1, 0, 16, -1, 0, 200, 12, BATCH_JOBS_A_GPU, -1, -1},
        {"1 GPU, 128 cores", 1, 0, 16, -1, 0, 200, 128, 16, -1, -1},
        {"2 GPUs, 32 cores", 2, 0, 16, -1, 0, 200, 32, 2 * BATCH_JOBS_A_GPU, -1, -1},
        {"2 GPUs, 24 cores: room for 6 a GPU", 2, 0, 16, -1, 0, 200, 24, 2 * BATCH_JOBS_A_GPU,
         -1, -1},
        {"2 GPUs, a wish of 4", 2, 0, 4, -1, 0, 200, 64, 2 * BATCH_JOBS_A_GPU, -1, -1},
        {"4 GPUs, 64 cores", 4, 0, 16, -1, 0, 200, 64, 4 * BATCH_JOBS_A_GPU, -1, -1},
        {"4 GPUs, 128 cores", 4, 0, 16, -1, 0, 200, 128, 4 * 16, -1, -1},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
}

/* What the user asked for stands (--jobs past the cores included); the
 * files and the cores bound the rest. */
static void test_asked_and_bounded(void)
{
    static const workers_row rows[] = {
        {"asked", 1, 40, 0, 3, 5, 200, 32, 40, 3, 5},
        {"asked, 7 files", 1, 40, 0, 3, 5, 7, 32, 7, -1, -1},
        {"4 GPUs, 8 cores", 4, 0, 0, -1, 0, 200, 8, 8, 0, 1},
        {"an empty list: still a worker", 4, 0, 0, -1, 0, 0, 8, 1, -1, -1},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
}

/* Without GPUs a worker a core, the decoder's wish ignored, no CPU
 * workers beside (every worker is the CPU's). */
static void test_without_gpus(void)
{
    static const workers_row rows[] = {
        {"2 cores", 0, 0, 16, 4, 0, 200, 2, 2, 0, 1},
        {"2 cores, 1 file", 0, 0, 16, 4, 0, 1, 2, 1, 0, 2},
        {"cores unknown: one", 0, 0, 16, 4, 0, 10, 0, 1, 0, 1},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
}

static const test_case cases[] = {
    {"gpu_defaults", test_gpu_defaults},
    {"decoder_more_where_cores_allow", test_decoder_more_where_cores_allow},
    {"asked_and_bounded", test_asked_and_bounded},
    {"without_gpus", test_without_gpus},
};

TEST_MAIN(cases)
