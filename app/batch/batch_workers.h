/* batch_workers.h - how many files a batch codes at once, and where: the
 * workers that feed the GPUs, the CPU workers beside them, and the threads
 * each file's coding may use. Pure arithmetic over the settings and the
 * cores, so that its rules can be tested without GPUs. */
#ifndef GJ2K_APP_BATCH_WORKERS_H
#define GJ2K_APP_BATCH_WORKERS_H

#include <stddef.h>

#include "batch_run.h"

/* Files coded at once a GPU, by default. */
#define BATCH_JOBS_A_GPU 8

typedef struct batch_worker_counts {
    size_t gpu_jobs;       /* workers feeding the GPUs (with no GPU: every worker) */
    size_t cpu_workers;    /* workers beside the GPUs', coding on the CPU */
    unsigned threads_each; /* threads a file's coding may use */
} batch_worker_counts;

/* The workers for `files` files on `cores` cores: settings->jobs, or by
 * default BATCH_JOBS_A_GPU a GPU (settings->jobs_a_gpu where half the cores
 * a GPU hold that many), or a worker a core without GPUs; gpu_jobs never
 * more than the cores (unless asked) or the files. The CPU workers beside
 * the GPUs are settings->cpu_workers or the default, whatever the files
 * (a worker left none ends at once). */
batch_worker_counts batch_count_workers(const batch_settings *settings, size_t files,
                                        unsigned cores);

#endif
