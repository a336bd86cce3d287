/* parallel_for.h - runs a loop body over [0, count) on several threads. */
#ifndef GJ2K_PARALLEL_FOR_H
#define GJ2K_PARALLEL_FOR_H

#include <stddef.h>

#include "gj2k.h"

/* The body runs for every index once, on the thread numbered `worker`
 * (0 .. threads-1, for per-thread scratch). A non-OK status stops the
 * remaining indices from starting; the first such status is returned. */
typedef gj2k_status (*parallel_body)(void *context, size_t index, unsigned worker);

/* Runs the body over [0, count) with up to `threads` threads (0: every
 * core). With one thread it runs on the caller's thread. */
gj2k_status parallel_for(size_t count, unsigned threads, parallel_body body, void *context);

/* The number of threads `threads` means (0: the cores online). */
unsigned parallel_thread_count(unsigned threads);

#endif
