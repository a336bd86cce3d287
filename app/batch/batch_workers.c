/* batch_workers.c - see batch_workers.h. */
#include "batch_workers.h"

/* Files at once a GPU: BATCH_JOBS_A_GPU, or settings->jobs_a_gpu (the
 * decoder's, whose files spend more of their time on the CPU) where half
 * the cores a GPU hold that many. 200 photos to 4K, one GPU of two, 32
 * cores (docs/gpu-notes.md): 16 decodes at once took 3.49 / 3.57 s against
 * 3.68 / 3.65 s with 8 (2 H100, tenth session), 3.36 against 3.66 s (2
 * H200, ninth); on two GPUs 16 each gained nothing, on four GPUs and 64
 * cores (4 H200, eighth session) 16 each were a third slower. More workers
 * a GPU wait on each other's kernels when encoding (16 workers on 2 GPUs
 * encode in 3.03 s, 32 in 3.42, 64 in 3.79). */
static size_t gpu_jobs_by_default(const batch_settings *settings, unsigned cores)
{ /* settings->num_gpus > 0 */
    size_t each = BATCH_JOBS_A_GPU;
    size_t room = cores / (2 * settings->num_gpus);
    if (settings->jobs_a_gpu > each && room > each)
        each = settings->jobs_a_gpu < room ? settings->jobs_a_gpu : room;
    return settings->num_gpus * each;
}

/* CPU workers beside the GPUs by default: half the cores past
 * BATCH_CORES_A_GPU a GPU, at most BATCH_CPU_WORKERS. Measured on 2 H200
 * and 32 cores, 200 photos from 768x512 to 4K (docs/gpu-notes.md): beside
 * one GPU 8 CPU workers encode in 3.97 s instead of 5.11 (16: 4.29) and
 * decode in 3.05 instead of 3.56; beside two GPUs 8 of them slow the run
 * (encode 3.09 -> 3.26 s, decode 2.43 -> 2.59). */
#define BATCH_CORES_A_GPU 16
#define BATCH_CPU_WORKERS 8

static size_t cpu_workers(const batch_settings *settings, unsigned cores)
{
    if (settings->num_gpus == 0)
        return 0;
    if (settings->cpu_workers >= 0)
        return (size_t)settings->cpu_workers;
    size_t busy = settings->num_gpus * BATCH_CORES_A_GPU;
    size_t spare = cores > busy ? (cores - busy) / 2 : 0;
    return spare < BATCH_CPU_WORKERS ? spare : BATCH_CPU_WORKERS;
}

batch_worker_counts batch_count_workers(const batch_settings *settings, size_t files,
                                        unsigned cores)
{
    batch_worker_counts counts = {0};
    if (cores == 0)
        cores = 1;
    size_t jobs = settings->jobs            ? settings->jobs
                  : settings->num_gpus == 0 ? cores
                                            : gpu_jobs_by_default(settings, cores);
    if (settings->jobs == 0 && jobs > cores)
        jobs = cores;
    if (jobs > files)
        jobs = files ? files : 1;
    counts.gpu_jobs = jobs;
    counts.cpu_workers = cpu_workers(settings, cores);
    size_t all = counts.gpu_jobs + counts.cpu_workers;
    counts.threads_each = settings->threads ? settings->threads
                                            : (unsigned)(cores / all > 0 ? cores / all : 1);
    return counts;
}
