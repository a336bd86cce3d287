/* parallel_for.c - see parallel_for.h. Threads take indices from a shared
 * atomic counter, so uneven work balances itself. */
#include "parallel_for.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define PARALLEL_MAX_THREADS 256

typedef struct parallel_job {
    parallel_body body;
    void *context;
    size_t count;
    atomic_size_t next;
    atomic_int status; /* the first failure, GJ2K_OK while none */
} parallel_job;

typedef struct parallel_worker {
    parallel_job *job;
    unsigned number;
} parallel_worker;

unsigned parallel_thread_count(unsigned threads)
{
    if (threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (unsigned)cores : 1;
    }
    return threads > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : threads;
}

static void *parallel_run(void *argument)
{
    parallel_worker *worker = argument;
    parallel_job *job = worker->job;
    for (;;) {
        if (atomic_load(&job->status) != GJ2K_OK)
            break;
        size_t index = atomic_fetch_add(&job->next, 1);
        if (index >= job->count)
            break;
        gj2k_status status = job->body(job->context, index, worker->number);
        if (status != GJ2K_OK) {
            int expected = GJ2K_OK;
            atomic_compare_exchange_strong(&job->status, &expected, (int)status);
        }
    }
    return NULL;
}

gj2k_status parallel_for(size_t count, unsigned threads, parallel_body body, void *context)
{
    threads = parallel_thread_count(threads);
    if ((size_t)threads > count)
        threads = count == 0 ? 1 : (unsigned)count;
    parallel_job job = {.body = body, .context = context, .count = count};
    atomic_init(&job.next, 0);
    atomic_init(&job.status, GJ2K_OK);
    parallel_worker workers[PARALLEL_MAX_THREADS];
    pthread_t handles[PARALLEL_MAX_THREADS];
    unsigned started = 1; /* the caller is worker 0 */
    for (unsigned t = 1; t < threads; t++) {
        workers[t] = (parallel_worker){.job = &job, .number = t};
        if (pthread_create(&handles[t], NULL, parallel_run, &workers[t]) != 0)
            break; /* fewer threads than asked: the others share the work */
        started++;
    }
    workers[0] = (parallel_worker){.job = &job, .number = 0};
    parallel_run(&workers[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(handles[t], NULL);
    return (gj2k_status)atomic_load(&job.status);
}
