/* batch_writer.h - the last step of a file's coding (writing its output,
 * verifying it) on threads of their own, so that a worker feeding a GPU
 * takes its next file while its last is still being written (--writers).
 * The 16 decodes a GPU move in step: equal kernels end together, then all
 * 16 write and read on the CPU while the GPU waits (a CUPTI trace of 200
 * photos to 4K on one H200: 91 ms without a kernel; with 4 writers the
 * longest such gap was 33 ms, docs/gpu-notes.md, thirteenth session).
 * The queue is bounded: a worker hands over a task
 * only while fewer than `capacity` are queued or running, and waits
 * otherwise, so memory stays that of `capacity` decoded images. */
#ifndef GJ2K_APP_BATCH_WRITER_H
#define GJ2K_APP_BATCH_WRITER_H

#include <stddef.h>

#include "batch_run.h"

/* A task is a batch_tail_fn (batch_run.h), run on a writer thread. This is
 * told of each task once it ran, on the writer thread that ran it, with the
 * `tag` it was handed over with and the outcome it completed. */
typedef void (*batch_tail_done_fn)(void *user, void *tag, batch_outcome *outcome);

/* `threads` writer threads (at least 1), at most `capacity` tasks (at least
 * `threads`) queued or running; NULL when threads cannot be had (the
 * caller then finishes its files itself). */
batch_writer *batch_writer_create(unsigned threads, size_t capacity, batch_tail_done_fn done,
                                  void *user);

/* Hands over a task, `outcome` as far as the caller filled it; waits while
 * the queue is full. */
void batch_writer_submit(batch_writer *writer, batch_tail_fn tail, void *arg, void *tag,
                         const batch_outcome *outcome);

/* Waits until every task handed over has run and been told, then ends the
 * threads and frees the writer. NULL is accepted. */
void batch_writer_destroy(batch_writer *writer);

#endif
