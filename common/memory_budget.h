/* memory_budget.h - a limit on the bytes that one decode holds in its large
 * buffers at once (the image, each tile's coefficients, rendering): each is
 * taken from the budget before it is allocated and given back when freed,
 * and one that would pass the limit is refused, naming what it was for,
 * before anything is allocated. Safe to share between threads. */
#ifndef GJ2K_MEMORY_BUDGET_H
#define GJ2K_MEMORY_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct memory_budget {
    uint64_t limit;          /* UINT64_MAX: none */
    _Atomic uint64_t used;
    atomic_bool refused;     /* a take has failed */
} memory_budget;

/* `limit` bytes; 0 means memory_default_limit(). */
void memory_budget_init(memory_budget *budget, uint64_t limit);

/* Half the machine's physical memory, or of the control group's limit when
 * that is less (a container's); 1 GiB when neither can be known. */
uint64_t memory_default_limit(void);

/* Takes `bytes` for `what` ("the decoded image"), or fails with
 * GJ2K_ERROR_LIMIT. A NULL budget takes anything. */
gj2k_status memory_budget_take(memory_budget *budget, uint64_t bytes, const char *what,
                               gj2k_error *error);
void memory_budget_give(memory_budget *budget, uint64_t bytes);
/* Counts `bytes` allocated already (within what an earlier take allowed for). */
void memory_budget_add(memory_budget *budget, uint64_t bytes);

#endif
