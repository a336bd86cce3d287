/* plane_gate.h - a tile's planes handed from the threads that make them to
 * the threads that use them, plane by plane: each plane has a count of
 * pieces still to come (code-blocks, or 1 for a plane that arrives whole)
 * and is ready when its count reaches zero. Counting down is an atomic
 * decrement; the lock is taken only when a plane becomes ready, so a count
 * per code-block costs next to nothing. Used between Tier-1 and the GPU
 * stage, both ways (encode_tile.c, tile_decoder.c). */
#ifndef GJ2K_PLANE_GATE_H
#define GJ2K_PLANE_GATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct plane_gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    atomic_size_t *remaining; /* pieces still to come, per plane */
    atomic_bool failed;       /* the maker gave up: no plane will come */
    uint32_t planes;
} plane_gate;

/* `planes` planes of pieces[p] pieces each (NULL: one each). */
gj2k_status plane_gate_init(plane_gate *gate, uint32_t planes, const size_t *pieces,
                            gj2k_error *error);
void plane_gate_destroy(plane_gate *gate);

/* One piece of `plane` is in place. */
void plane_gate_done(plane_gate *gate, uint32_t plane);
/* Every plane is in place (whatever their counts say). */
void plane_gate_open(plane_gate *gate);
/* No plane that is not ready yet will come. */
void plane_gate_fail(plane_gate *gate);
/* Waits until `plane` is ready; false when it never will be. */
bool plane_gate_wait(plane_gate *gate, uint32_t plane);

#endif
