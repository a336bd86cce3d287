/* batch_writer.c - see batch_writer.h. A ring of `capacity` tasks under one
 * lock; `pending` counts those queued and those running, so that a full
 * ring and busy threads both hold the submitter back. */
#include "batch_writer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct tail_task {
    batch_tail_fn tail;
    void *arg, *tag;
    batch_outcome outcome;
} tail_task;

struct batch_writer {
    pthread_mutex_t lock;
    pthread_cond_t work;  /* a task queued, or the end */
    pthread_cond_t room;  /* a task ran: room for another, or all done */
    tail_task *ring;
    size_t capacity, head, queued, pending;
    bool ending;
    batch_tail_done_fn done;
    void *user;
    pthread_t *threads;
    unsigned started;
};

static void *writer_thread(void *context)
{
    batch_writer *w = context;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->queued == 0 && !w->ending)
            pthread_cond_wait(&w->work, &w->lock);
        if (w->queued == 0) /* ending, nothing left */
            break;
        tail_task task = w->ring[w->head];
        w->head = (w->head + 1) % w->capacity;
        w->queued--;
        pthread_mutex_unlock(&w->lock);
        task.tail(task.arg, &task.outcome);
        w->done(w->user, task.tag, &task.outcome);
        pthread_mutex_lock(&w->lock);
        w->pending--;
        pthread_cond_broadcast(&w->room);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

batch_writer *batch_writer_create(unsigned threads, size_t capacity, batch_tail_done_fn done,
                                  void *user)
{
    if (threads == 0)
        threads = 1;
    if (capacity < threads)
        capacity = threads;
    batch_writer *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->ring = calloc(capacity, sizeof *w->ring);
    w->threads = calloc(threads, sizeof *w->threads);
    w->capacity = capacity;
    w->done = done;
    w->user = user;
    bool ok = w->ring != NULL && w->threads != NULL;
    bool locks = ok && pthread_mutex_init(&w->lock, NULL) == 0;
    if (locks && pthread_cond_init(&w->work, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        locks = false;
    }
    if (locks && pthread_cond_init(&w->room, NULL) != 0) {
        pthread_cond_destroy(&w->work);
        pthread_mutex_destroy(&w->lock);
        locks = false;
    }
    if (!locks) {
        free(w->ring);
        free(w->threads);
        free(w);
        return NULL;
    }
    while (w->started < threads &&
           pthread_create(&w->threads[w->started], NULL, writer_thread, w) == 0)
        w->started++;
    if (w->started == 0) {
        batch_writer_destroy(w);
        return NULL;
    }
    return w;
}

void batch_writer_submit(batch_writer *w, batch_tail_fn tail, void *arg, void *tag,
                         const batch_outcome *outcome)
{
    pthread_mutex_lock(&w->lock);
    while (w->pending >= w->capacity)
        pthread_cond_wait(&w->room, &w->lock);
    tail_task *slot = &w->ring[(w->head + w->queued) % w->capacity];
    slot->tail = tail;
    slot->arg = arg;
    slot->tag = tag;
    slot->outcome = *outcome;
    w->queued++;
    w->pending++;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
}

void batch_writer_destroy(batch_writer *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    while (w->pending > 0) /* every task run and told */
        pthread_cond_wait(&w->room, &w->lock);
    w->ending = true;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    for (unsigned k = 0; k < w->started; k++)
        pthread_join(w->threads[k], NULL);
    pthread_cond_destroy(&w->room);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->lock);
    free(w->threads);
    free(w->ring);
    free(w);
}
