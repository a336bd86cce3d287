/* progress_meter.h - how far an encode or decode has come, for its
 * gj2k_progress_fn (include/gj2k.h): worker threads add the samples they
 * have coded; the callback hears of it at most every PROGRESS_INTERVAL
 * seconds, from one thread at a time, and may ask to stop. A meter with no
 * callback costs one branch an update. */
#ifndef GJ2K_PROGRESS_METER_H
#define GJ2K_PROGRESS_METER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "gj2k.h"

#define PROGRESS_INTERVAL 0.1

typedef struct progress_meter {
    gj2k_progress_fn report; /* NULL: nothing to tell */
    void *user;
    uint64_t total;
    _Atomic uint64_t done;
    atomic_bool cancelled;   /* the callback returned false */
    atomic_flag busy;        /* a thread is in the callback */
    _Atomic double next;     /* now_seconds() after which the next report may go */
} progress_meter;

/* A meter of `total` units (samples) for `report` (may be NULL). */
void progress_meter_init(progress_meter *meter, gj2k_progress_fn report, void *user,
                         uint64_t total);

/* `amount` more units done; tells the callback when it is time. */
void progress_meter_add(progress_meter *meter, uint64_t amount);

/* The end of the work: the callback told total of total (unless cancelled). */
void progress_meter_finish(progress_meter *meter);

/* Whether the callback asked to stop (meter may be NULL). */
static inline bool progress_meter_cancelled(progress_meter *meter)
{
    return meter != NULL && atomic_load_explicit(&meter->cancelled, memory_order_relaxed);
}

#endif
