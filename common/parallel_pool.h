/* parallel_pool.h - a pool of worker threads that runs loop bodies over
 * [0, count). One pool serves one encode or decode call: its threads start
 * at the first loop that can use them and live until the pool is destroyed,
 * so an image of many small tiles does not start threads for each tile.
 * Several threads may run loops on one pool at once (the GPU stage's thread
 * beside Tier-1): idle workers join whichever loop has indices left. */
#ifndef GJ2K_PARALLEL_POOL_H
#define GJ2K_PARALLEL_POOL_H

#include <stddef.h>

#include "gj2k.h"

/* The body runs for every index once, as the worker numbered `worker`
 * (0 .. min(pool size, count) - 1, for per-worker scratch; the caller of
 * parallel_for is worker 0). A non-OK status stops the remaining indices
 * from starting; the first such status is returned. */
typedef gj2k_status (*parallel_body)(void *context, size_t index, unsigned worker);

typedef struct parallel_pool parallel_pool;

/* A pool of `threads` workers, the caller of each loop counted as one
 * (0: the cores online). Starts no thread yet. */
gj2k_status parallel_pool_create(unsigned threads, parallel_pool **out, gj2k_error *error);
/* Waits for nothing: call it when no loop runs. NULL is allowed. */
void parallel_pool_destroy(parallel_pool *pool);

/* The most workers one loop uses (1 for a NULL pool). */
unsigned parallel_pool_size(const parallel_pool *pool);
/* The workers a loop of `count` indices uses at most: the numbers its body
 * may see are below this. */
unsigned parallel_pool_workers(const parallel_pool *pool, size_t count);

/* Runs the body over [0, count) on the caller's thread and the pool's idle
 * workers, and returns when every index started has finished. A NULL pool
 * runs every index on the caller's thread. */
gj2k_status parallel_for(parallel_pool *pool, size_t count, parallel_body body, void *context);

/* The number of threads `threads` means (0: the cores online). */
unsigned parallel_thread_count(unsigned threads);

#endif
