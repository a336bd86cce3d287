/* parallel_pool.c - see parallel_pool.h. Each loop is a job on the pool's
 * list while it runs; workers take its indices from a shared atomic counter,
 * so uneven work balances itself, and a worker that finds no index left
 * looks for another job or sleeps. */
#include "parallel_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

#define PARALLEL_MAX_THREADS 256

typedef struct parallel_job {
    parallel_body body;
    void *context;
    size_t count;
    atomic_size_t next;
    atomic_int status;         /* the first failure, GJ2K_OK while none */
    unsigned limit;            /* workers it may have, the caller included */
    unsigned joined;           /* workers that have joined, the caller included (pool lock) */
    unsigned inside;           /* pool workers running it now (pool lock) */
    struct parallel_job *next_job;
} parallel_job;

struct parallel_pool {
    pthread_mutex_t lock;
    pthread_cond_t work;       /* workers wait here for a job, or the end */
    pthread_cond_t left;       /* callers wait here for workers to leave their job */
    parallel_job *jobs;        /* the loops running now */
    unsigned size;             /* workers per loop at most, the caller included */
    unsigned started;          /* threads running */
    bool tried;                /* the threads were started (or failed to) */
    bool closing;
    pthread_t threads[PARALLEL_MAX_THREADS];
};

unsigned parallel_thread_count(unsigned threads)
{
    if (threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (unsigned)cores : 1;
    }
    return threads > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : threads;
}

static void job_run(parallel_job *job, unsigned worker)
{
    for (;;) {
        if (atomic_load(&job->status) != GJ2K_OK)
            break;
        size_t index = atomic_fetch_add(&job->next, 1);
        if (index >= job->count)
            break;
        gj2k_status status = job->body(job->context, index, worker);
        if (status != GJ2K_OK) {
            int expected = GJ2K_OK;
            atomic_compare_exchange_strong(&job->status, &expected, (int)status);
        }
    }
}

/* A job a worker may join: a place left and indices not yet taken. */
static parallel_job *open_job(parallel_pool *pool)
{
    for (parallel_job *job = pool->jobs; job != NULL; job = job->next_job)
        if (job->joined < job->limit && atomic_load(&job->next) < job->count &&
            atomic_load(&job->status) == GJ2K_OK)
            return job;
    return NULL;
}

static void *worker_main(void *argument)
{
    parallel_pool *pool = argument;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        parallel_job *job = NULL;
        while (!pool->closing && (job = open_job(pool)) == NULL)
            pthread_cond_wait(&pool->work, &pool->lock);
        if (pool->closing)
            break;
        unsigned number = job->joined++;
        job->inside++;
        pthread_mutex_unlock(&pool->lock);
        job_run(job, number);
        pthread_mutex_lock(&pool->lock);
        if (--job->inside == 0)
            pthread_cond_broadcast(&pool->left);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

gj2k_status parallel_pool_create(unsigned threads, parallel_pool **out, gj2k_error *error)
{
    *out = NULL;
    parallel_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the thread pool");
    pool->size = parallel_thread_count(threads);
    if (pool->size > 1) {
        bool locked = pthread_mutex_init(&pool->lock, NULL) == 0;
        bool work = locked && pthread_cond_init(&pool->work, NULL) == 0;
        bool left = work && pthread_cond_init(&pool->left, NULL) == 0;
        if (!left) {
            if (work)
                pthread_cond_destroy(&pool->work);
            if (locked)
                pthread_mutex_destroy(&pool->lock);
            free(pool);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "cannot set up the thread pool");
        }
    }
    *out = pool;
    return GJ2K_OK;
}

void parallel_pool_destroy(parallel_pool *pool)
{
    if (pool == NULL)
        return;
    if (pool->size > 1) {
        pthread_mutex_lock(&pool->lock);
        pool->closing = true;
        pthread_cond_broadcast(&pool->work);
        pthread_mutex_unlock(&pool->lock);
        for (unsigned t = 0; t < pool->started; t++)
            pthread_join(pool->threads[t], NULL);
        pthread_cond_destroy(&pool->left);
        pthread_cond_destroy(&pool->work);
        pthread_mutex_destroy(&pool->lock);
    }
    free(pool);
}

unsigned parallel_pool_size(const parallel_pool *pool)
{
    return pool == NULL ? 1 : pool->size;
}

unsigned parallel_pool_workers(const parallel_pool *pool, size_t count)
{
    unsigned size = parallel_pool_size(pool);
    if (count < size)
        return count == 0 ? 1 : (unsigned)count;
    return size;
}

/* Starts the threads, once (pool lock held). Where fewer start than asked,
 * the loops share out their work among those. */
static void start_threads(parallel_pool *pool)
{
    pool->tried = true;
    for (unsigned t = 0; t + 1 < pool->size; t++) {
        if (pthread_create(&pool->threads[t], NULL, worker_main, pool) != 0)
            break;
        pool->started++;
    }
}

gj2k_status parallel_for(parallel_pool *pool, size_t count, parallel_body body, void *context)
{
    parallel_job job = {.body = body, .context = context, .count = count,
                        .limit = parallel_pool_workers(pool, count), .joined = 1};
    atomic_init(&job.next, 0);
    atomic_init(&job.status, GJ2K_OK);
    if (job.limit == 1) { /* the caller alone: no lock, no thread */
        job_run(&job, 0);
        return (gj2k_status)atomic_load(&job.status);
    }
    pthread_mutex_lock(&pool->lock);
    if (!pool->tried)
        start_threads(pool);
    job.next_job = pool->jobs;
    pool->jobs = &job;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);

    job_run(&job, 0);

    pthread_mutex_lock(&pool->lock);
    parallel_job **link = &pool->jobs; /* off the list: no worker joins it now */
    while (*link != &job)
        link = &(*link)->next_job;
    *link = job.next_job;
    while (job.inside > 0)
        pthread_cond_wait(&pool->left, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    return (gj2k_status)atomic_load(&job.status);
}
