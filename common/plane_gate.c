/* plane_gate.c - see plane_gate.h. */
#include "plane_gate.h"

#include <stdlib.h>

#include "error.h"

gj2k_status plane_gate_init(plane_gate *gate, uint32_t planes, const size_t *pieces,
                            gj2k_error *error)
{
    gate->planes = planes;
    atomic_init(&gate->failed, false);
    gate->remaining = malloc((planes ? planes : 1) * sizeof *gate->remaining);
    if (gate->remaining == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t p = 0; p < planes; p++)
        atomic_init(&gate->remaining[p], pieces != NULL ? pieces[p] : 1);
    if (pthread_mutex_init(&gate->lock, NULL) != 0) {
        free(gate->remaining);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "cannot create a lock");
    }
    if (pthread_cond_init(&gate->changed, NULL) != 0) {
        pthread_mutex_destroy(&gate->lock);
        free(gate->remaining);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "cannot create a condition");
    }
    return GJ2K_OK;
}

void plane_gate_destroy(plane_gate *gate)
{
    pthread_cond_destroy(&gate->changed);
    pthread_mutex_destroy(&gate->lock);
    free(gate->remaining);
}

/* Wakes the waiters; under the lock, so none can miss it between its test
 * and its wait. */
static void wake(plane_gate *gate)
{
    pthread_mutex_lock(&gate->lock);
    pthread_cond_broadcast(&gate->changed);
    pthread_mutex_unlock(&gate->lock);
}

void plane_gate_done(plane_gate *gate, uint32_t plane)
{
    if (atomic_fetch_sub(&gate->remaining[plane], 1) == 1)
        wake(gate);
}

void plane_gate_open(plane_gate *gate)
{
    for (uint32_t p = 0; p < gate->planes; p++)
        atomic_store(&gate->remaining[p], 0);
    wake(gate);
}

void plane_gate_fail(plane_gate *gate)
{
    atomic_store(&gate->failed, true);
    wake(gate);
}

bool plane_gate_wait(plane_gate *gate, uint32_t plane)
{
    if (atomic_load(&gate->remaining[plane]) == 0) /* nearly always, once it has come */
        return true;
    pthread_mutex_lock(&gate->lock);
    while (atomic_load(&gate->remaining[plane]) != 0 && !atomic_load(&gate->failed))
        pthread_cond_wait(&gate->changed, &gate->lock);
    bool ready = atomic_load(&gate->remaining[plane]) == 0;
    pthread_mutex_unlock(&gate->lock);
    return ready;
}
