/* test_parallel_pool.c - the thread pool behind every parallel loop of the
 * encoder and decoder: each index runs once, worker numbers stay below the
 * loop's worker count and are never shared by two bodies at once, a failure
 * stops the loop, the pool's threads really join, and loops run from
 * several threads at once on one pool. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parallel_pool.h"
#include "test_harness.h"

#define MAX_WORKERS 16

/* What the body records of one loop. */
typedef struct loop_record {
    size_t count;
    unsigned workers;          /* the numbers it may see are below this */
    atomic_uint *runs;         /* per index */
    atomic_int busy[MAX_WORKERS];
    atomic_int bad_worker;     /* a number out of range, or one in use twice */
    size_t fail_at;            /* SIZE_MAX: never */
} loop_record;

static gj2k_status record_body(void *context, size_t index, unsigned worker)
{
    loop_record *r = context;
    if (worker >= r->workers || worker >= MAX_WORKERS) {
        atomic_store(&r->bad_worker, 1);
        return GJ2K_ERROR_INVALID_ARGUMENT;
    }
    if (atomic_exchange(&r->busy[worker], 1) != 0)
        atomic_store(&r->bad_worker, 1);
    atomic_fetch_add(&r->runs[index], 1);
    unsigned spin = (unsigned)(index * 2654435761u) % 2000; /* uneven work */
    for (volatile unsigned i = 0; i < spin; i++) {
    }
    atomic_store(&r->busy[worker], 0);
    return index == r->fail_at ? GJ2K_ERROR_MALFORMED : GJ2K_OK;
}

/* Runs one loop of `count` indices and checks every index ran once. */
static bool run_loop(parallel_pool *pool, size_t count)
{
    loop_record r = {.count = count, .workers = parallel_pool_workers(pool, count),
                     .fail_at = SIZE_MAX};
    r.runs = calloc(count ? count : 1, sizeof *r.runs);
    if (r.runs == NULL)
        return false;
    gj2k_status status = parallel_for(pool, count, record_body, &r);
    bool ok = status == GJ2K_OK && atomic_load(&r.bad_worker) == 0;
    for (size_t i = 0; i < count; i++)
        ok = ok && atomic_load(&r.runs[i]) == 1;
    free(r.runs);
    return ok;
}

static void every_index_once(void)
{
    for (unsigned threads = 1; threads <= 8; threads++) {
        parallel_pool *pool = NULL;
        REQUIRE(parallel_pool_create(threads, &pool, NULL) == GJ2K_OK);
        CHECK_EQ(parallel_pool_size(pool), threads);
        CHECK_EQ(parallel_pool_workers(pool, 0), 1);
        CHECK_EQ(parallel_pool_workers(pool, 3), threads < 3 ? threads : 3);
        for (int trial = 0; trial < 40; trial++) {
            size_t count = trial < 4 ? (size_t)trial : (size_t)test_random_range(0, 5000);
            if (!run_loop(pool, count)) {
                fprintf(stderr, "  %u threads, %zu indices\n", threads, count);
                CHECK(false);
            }
        }
        parallel_pool_destroy(pool);
    }
    /* No pool: the caller alone. */
    CHECK_EQ(parallel_pool_size(NULL), 1);
    CHECK(run_loop(NULL, 1000));
    parallel_pool_destroy(NULL);
}

static void failure_stops_the_loop(void)
{
    for (unsigned threads = 1; threads <= 4; threads++) {
        parallel_pool *pool = NULL;
        REQUIRE(parallel_pool_create(threads, &pool, NULL) == GJ2K_OK);
        /* So many indices that no scheduling lets the others finish them
         * all before the failure is seen. */
        size_t count = 1000000, fail_at = (size_t)test_random_range(0, 100);
        loop_record r = {.count = count, .workers = parallel_pool_workers(pool, count),
                         .fail_at = fail_at};
        r.runs = calloc(count, sizeof *r.runs);
        REQUIRE(r.runs != NULL);
        CHECK_EQ(parallel_for(pool, count, record_body, &r), GJ2K_ERROR_MALFORMED);
        size_t ran = 0;
        for (size_t i = 0; i < count; i++)
            ran += atomic_load(&r.runs[i]);
        /* Indices are taken in order and a taken one runs, so every index
         * up to the failing one ran once; other workers go on until the
         * failure is recorded (when its body returns), so how many more
         * ran depends on the scheduler, but the loop stopped. */
        bool once = true;
        for (size_t i = 0; i <= fail_at; i++)
            once = once && atomic_load(&r.runs[i]) == 1;
        CHECK(once);
        CHECK(ran < count);
        if (threads == 1)
            CHECK_EQ(ran, fail_at + 1);
        free(r.runs);
        /* The pool still serves loops after a failure. */
        CHECK(run_loop(pool, 1000));
        parallel_pool_destroy(pool);
    }
}

/* Whichever thread takes index 0 waits for index 1, which only another
 * thread can take: two threads must be in the loop at once (the caller and
 * a pool thread, in either order). */
typedef struct handoff {
    atomic_int second_started;
    atomic_int first_saw_second;
} handoff;

static gj2k_status handoff_body(void *context, size_t index, unsigned worker)
{
    handoff *h = context;
    if (index == 1) {
        atomic_store(&h->second_started, 1);
        return GJ2K_OK;
    }
    (void)worker;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        if (atomic_load(&h->second_started)) {
            atomic_store(&h->first_saw_second, 1);
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < 10);
    return GJ2K_OK;
}

static void threads_join_the_loop(void)
{
    parallel_pool *pool = NULL;
    REQUIRE(parallel_pool_create(2, &pool, NULL) == GJ2K_OK);
    for (int loop = 0; loop < 5; loop++) {
        handoff h = {0};
        CHECK_EQ(parallel_for(pool, 2, handoff_body, &h), GJ2K_OK);
        CHECK(atomic_load(&h.second_started) == 1);
        bool joined = atomic_load(&h.first_saw_second);
        if (!joined)
            fprintf(stderr, "  loop %d: index 0 waited 10 s for index 1 in vain\n", loop);
        CHECK(joined);
    }
    parallel_pool_destroy(pool);
}

/* Two threads run loops on one pool at once (the encoder's GPU thread packs
 * planes while the main thread codes blocks). */
typedef struct loop_caller {
    parallel_pool *pool;
    int failures;
} loop_caller;

static void *run_many_loops(void *argument)
{
    loop_caller *c = argument;
    for (int i = 0; i < 300; i++)
        c->failures += !run_loop(c->pool, (size_t)(i * 7 % 400));
    return NULL;
}

static void concurrent_loops(void)
{
    parallel_pool *pool = NULL;
    REQUIRE(parallel_pool_create(4, &pool, NULL) == GJ2K_OK);
    loop_caller callers[3] = {{.pool = pool}, {.pool = pool}, {.pool = pool}};
    pthread_t threads[2];
    REQUIRE(pthread_create(&threads[0], NULL, run_many_loops, &callers[0]) == 0);
    REQUIRE(pthread_create(&threads[1], NULL, run_many_loops, &callers[1]) == 0);
    run_many_loops(&callers[2]);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    CHECK_EQ(callers[0].failures + callers[1].failures + callers[2].failures, 0);
    parallel_pool_destroy(pool);
}

static const test_case cases[] = {
    {"every_index_once", every_index_once},
    {"failure_stops_the_loop", failure_stops_the_loop},
    {"threads_join_the_loop", threads_join_the_loop},
    {"concurrent_loops", concurrent_loops},
};

TEST_MAIN(cases)
