/* progress_meter.c - see progress_meter.h. */
#include "progress_meter.h"

#include "clock.h"

void progress_meter_init(progress_meter *meter, gj2k_progress_fn report, void *user,
                         uint64_t total)
{
    meter->report = report;
    meter->user = user;
    meter->total = total;
    atomic_init(&meter->done, 0);
    atomic_init(&meter->cancelled, false);
    atomic_flag_clear(&meter->busy);
    atomic_init(&meter->next, now_seconds() + PROGRESS_INTERVAL);
}

/* Calls the callback with `done`, unless another thread is in it. */
static void tell(progress_meter *meter, uint64_t done)
{
    if (atomic_flag_test_and_set(&meter->busy))
        return;
    if (!meter->report(meter->user, done < meter->total ? done : meter->total, meter->total))
        atomic_store(&meter->cancelled, true);
    atomic_flag_clear(&meter->busy);
}

void progress_meter_add(progress_meter *meter, uint64_t amount)
{
    if (meter == NULL || meter->report == NULL)
        return;
    uint64_t done = atomic_fetch_add_explicit(&meter->done, amount, memory_order_relaxed) + amount;
    double now = now_seconds();
    double next = atomic_load_explicit(&meter->next, memory_order_relaxed);
    if (now < next ||
        !atomic_compare_exchange_strong(&meter->next, &next, now + PROGRESS_INTERVAL))
        return; /* not yet, or another thread reports this interval */
    tell(meter, done);
}

void progress_meter_finish(progress_meter *meter)
{
    if (meter == NULL || meter->report == NULL || progress_meter_cancelled(meter))
        return;
    while (atomic_flag_test_and_set(&meter->busy))
        ; /* a worker's report is finishing: the last word is this one */
    if (!meter->report(meter->user, meter->total, meter->total))
        atomic_store(&meter->cancelled, true);
    atomic_flag_clear(&meter->busy);
}
