/* test_batch_workers.c - how a batch shares its files out
 * (app/batch/batch_workers.c, built into the test): the files at once a
 * GPU by default and as asked, the decoder's more where the cores allow,
 * the CPU workers beside the GPUs, and the threads each file gets. */
#include "batch_workers.h"
#include "test_harness.h"

static const unsigned one_gpu[] = {0}, two_gpus[] = {0, 1}, four_gpus[] = {0, 1, 2, 3};

static batch_settings settings_for(const unsigned *gpus, size_t num_gpus)
{
    batch_settings s = {.command = "test", .gpus = gpus, .num_gpus = num_gpus, .cpu_workers = -1};
    return s;
}

/* The encoder's default: BATCH_JOBS_A_GPU a GPU, CPU workers on the cores
 * past 16 a GPU (half of them, at most 8), the cores shared among all. */
static void test_gpu_defaults(void)
{
    batch_settings s = settings_for(one_gpu, 1);
    batch_worker_counts c = batch_count_workers(&s, 200, 32);
    CHECK_EQ(c.gpu_jobs, BATCH_JOBS_A_GPU);
    CHECK_EQ(c.cpu_workers, 8);
    CHECK_EQ(c.threads_each, 2);
    s = settings_for(two_gpus, 2);
    c = batch_count_workers(&s, 200, 32);
    CHECK_EQ(c.gpu_jobs, 2 * BATCH_JOBS_A_GPU);
    CHECK_EQ(c.cpu_workers, 0);
    CHECK_EQ(c.threads_each, 2);
    s = settings_for(one_gpu, 1);
    c = batch_count_workers(&s, 200, 16); /* a one-GPU machine of 16 cores */
    CHECK_EQ(c.gpu_jobs, BATCH_JOBS_A_GPU);
    CHECK_EQ(c.cpu_workers, 0);
    CHECK_EQ(c.threads_each, 2);
}

/* The decoder asks for 16 a GPU: given where half the cores a GPU hold
 * them, as many as they hold between 8 and 16, never fewer than the
 * default. */
static void test_decoder_more_where_cores_allow(void)
{
    batch_settings s = settings_for(one_gpu, 1);
    s.jobs_a_gpu = 16;
    batch_worker_counts c = batch_count_workers(&s, 200, 32);
    CHECK_EQ(c.gpu_jobs, 16);
    CHECK_EQ(c.cpu_workers, 8);
    CHECK_EQ(c.threads_each, 1);
    c = batch_count_workers(&s, 200, 24);
    CHECK_EQ(c.gpu_jobs, 12);
    c = batch_count_workers(&s, 200, 16);
    CHECK_EQ(c.gpu_jobs, BATCH_JOBS_A_GPU);
    c = batch_count_workers(&s, 200, 12); /* room for 6: never fewer than the default */
    CHECK_EQ(c.gpu_jobs, BATCH_JOBS_A_GPU);
    c = batch_count_workers(&s, 200, 128);
    CHECK_EQ(c.gpu_jobs, 16);
    s = settings_for(two_gpus, 2);
    s.jobs_a_gpu = 16;
    c = batch_count_workers(&s, 200, 32);
    CHECK_EQ(c.gpu_jobs, 2 * BATCH_JOBS_A_GPU);
    c = batch_count_workers(&s, 200, 24); /* room for 6 a GPU: 8 each, within the cores */
    CHECK_EQ(c.gpu_jobs, 2 * BATCH_JOBS_A_GPU);
    s.jobs_a_gpu = 4; /* a wish below the default gives the default */
    c = batch_count_workers(&s, 200, 64);
    CHECK_EQ(c.gpu_jobs, 2 * BATCH_JOBS_A_GPU);
    s = settings_for(four_gpus, 4);
    s.jobs_a_gpu = 16;
    c = batch_count_workers(&s, 200, 64);
    CHECK_EQ(c.gpu_jobs, 4 * BATCH_JOBS_A_GPU);
    c = batch_count_workers(&s, 200, 128);
    CHECK_EQ(c.gpu_jobs, 4 * 16);
}

/* What the user asked for stands (--jobs past the cores included); the
 * files and the cores bound the rest. */
static void test_asked_and_bounded(void)
{
    batch_settings s = settings_for(one_gpu, 1);
    s.jobs = 40;
    s.cpu_workers = 3;
    s.threads = 5;
    batch_worker_counts c = batch_count_workers(&s, 200, 32);
    CHECK_EQ(c.gpu_jobs, 40);
    CHECK_EQ(c.cpu_workers, 3);
    CHECK_EQ(c.threads_each, 5);
    c = batch_count_workers(&s, 7, 32);
    CHECK_EQ(c.gpu_jobs, 7);
    s = settings_for(four_gpus, 4);
    c = batch_count_workers(&s, 200, 8); /* fewer cores than the GPUs' default */
    CHECK_EQ(c.gpu_jobs, 8);
    CHECK_EQ(c.threads_each, 1);
    c = batch_count_workers(&s, 0, 8); /* an empty list still has its worker */
    CHECK_EQ(c.gpu_jobs, 1);
}

/* Without GPUs a worker a core, the decoder's wish ignored, no CPU
 * workers beside (every worker is the CPU's). */
static void test_without_gpus(void)
{
    batch_settings s = settings_for(NULL, 0);
    s.jobs_a_gpu = 16;
    s.cpu_workers = 4;
    batch_worker_counts c = batch_count_workers(&s, 200, 2);
    CHECK_EQ(c.gpu_jobs, 2);
    CHECK_EQ(c.cpu_workers, 0);
    CHECK_EQ(c.threads_each, 1);
    c = batch_count_workers(&s, 1, 2);
    CHECK_EQ(c.gpu_jobs, 1);
    CHECK_EQ(c.threads_each, 2);
    c = batch_count_workers(&s, 10, 0); /* cores unknown: one */
    CHECK_EQ(c.gpu_jobs, 1);
    CHECK_EQ(c.threads_each, 1);
}

static const test_case cases[] = {
    {"gpu_defaults", test_gpu_defaults},
    {"decoder_more_where_cores_allow", test_decoder_more_where_cores_allow},
    {"asked_and_bounded", test_asked_and_bounded},
    {"without_gpus", test_without_gpus},
};

TEST_MAIN(cases)
