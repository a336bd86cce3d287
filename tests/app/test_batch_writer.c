/* test_batch_writer.c - app/batch/batch_writer.c: every task handed over
 * runs once and is told once, with the outcome as the submitter filled it
 * and the task completed it; the queue never holds more than its capacity
 * (the submitter waits); destroying the writer waits for every task. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_writer.h"
#include "test_harness.h"

enum { TASKS = 200 };

typedef struct tally {
    atomic_int ran[TASKS], told[TASKS];
    atomic_int submitted, finished;
    atomic_int most_pending; /* submitted less finished, the largest seen */
    atomic_int wrong;        /* an outcome that did not come through */
} tally;

typedef struct task_arg {
    tally *t;
    int id;
    long sleep_ns;
} task_arg;

static void tail(void *arg, batch_outcome *outcome)
{
    task_arg *a = arg;
    if (outcome->bytes_in != (uint64_t)a->id || outcome->verdict != BATCH_FAILED)
        atomic_fetch_add(&a->t->wrong, 1);
    struct timespec pause = {0, a->sleep_ns};
    nanosleep(&pause, NULL);
    outcome->verdict = BATCH_DONE;
    outcome->bytes_out = (uint64_t)a->id * 3;
    atomic_fetch_add(&a->t->ran[a->id], 1);
    free(a);
}

static void told(void *user, void *tag, batch_outcome *outcome)
{
    tally *t = user;
    int id = (int)(intptr_t)tag;
    if (outcome->verdict != BATCH_DONE || outcome->bytes_out != (uint64_t)id * 3 ||
        outcome->bytes_in != (uint64_t)id)
        atomic_fetch_add(&t->wrong, 1);
    atomic_fetch_add(&t->told[id], 1);
    atomic_fetch_add(&t->finished, 1);
}

static void run_tasks(unsigned threads, size_t capacity, size_t bound)
{
    tally *t = calloc(1, sizeof *t);
    REQUIRE(t != NULL);
    batch_writer *w = batch_writer_create(threads, capacity, told, t);
    REQUIRE(w != NULL);
    for (int id = 0; id < TASKS; id++) {
        task_arg *a = malloc(sizeof *a);
        REQUIRE(a != NULL);
        *a = (task_arg){.t = t, .id = id, .sleep_ns = (long)test_random_range(0, 200000)};
        batch_outcome so_far = {.verdict = BATCH_FAILED, .bytes_in = (uint64_t)id};
        batch_writer_submit(w, tail, a, (void *)(intptr_t)id, &so_far);
        int pending = atomic_fetch_add(&t->submitted, 1) + 1 - atomic_load(&t->finished);
        if (pending > atomic_load(&t->most_pending))
            atomic_store(&t->most_pending, pending);
    }
    batch_writer_destroy(w); /* waits for all */
    CHECK_EQ(atomic_load(&t->finished), TASKS);
    int once = 0;
    for (int id = 0; id < TASKS; id++)
        once += atomic_load(&t->ran[id]) == 1 && atomic_load(&t->told[id]) == 1;
    CHECK_EQ(once, TASKS);
    CHECK_EQ(atomic_load(&t->wrong), 0);
    /* a task is told before its slot frees: the submitter never saw more
     * than the bound pending */
    CHECK(atomic_load(&t->most_pending) <= (int)bound);
    CHECK(atomic_load(&t->most_pending) >= 1);
    free(t);
}

static void test_every_task_once(void) { run_tasks(3, 6, 6); }

/* zero threads are one; a capacity under the threads is the threads' */
static void test_bounds_raised(void)
{
    run_tasks(0, 0, 1);
    run_tasks(4, 1, 4);
}

static void test_empty_writer_ends(void)
{
    tally *t = calloc(1, sizeof *t);
    REQUIRE(t != NULL);
    batch_writer *w = batch_writer_create(2, 4, told, t);
    REQUIRE(w != NULL);
    batch_writer_destroy(w);
    batch_writer_destroy(NULL);
    CHECK_EQ(atomic_load(&t->finished), 0);
    free(t);
}

static const test_case cases[] = {
    {"every_task_once", test_every_task_once},
    {"bounds_raised", test_bounds_raised},
    {"empty_writer_ends", test_empty_writer_ends},
};

TEST_MAIN(cases)
