/* clock.h - the wall clock that timings read (the CLI's, and the stage times of the reports). */
#ifndef GJ2K_CLOCK_H
#define GJ2K_CLOCK_H

#include <time.h>

/* Clock `id`'s time in seconds. */
static inline double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds on the monotonic clock, from an arbitrary origin: only
 * differences mean anything. */
static inline double now_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

/* Seconds since the Unix epoch on the real-time clock: for times that
 * other programs line up with (a report's timeline). */
static inline double unix_seconds(void) { return clock_seconds(CLOCK_REALTIME); }

#endif
