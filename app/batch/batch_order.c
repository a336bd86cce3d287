/* batch_order.c - see batch_order.h. */
#include "batch_order.h"

#include <stdlib.h>
#include <string.h>

bool batch_order_parse(const char *text, batch_order_policy *policy)
{
    static const struct {
        const char *name;
        batch_order_policy policy;
    } names[] = {{"size", BATCH_ORDER_SIZE}, {"spread", BATCH_ORDER_SPREAD},
                 {"name", BATCH_ORDER_NAME}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (text != NULL && strcmp(text, names[i].name) == 0) {
            *policy = names[i].policy;
            return true;
        }
    return false;
}

typedef struct sized_index {
    uint64_t bytes;
    size_t index;
} sized_index;

static int larger_first(const void *a, const void *b)
{
    const sized_index *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* the list's order among equals */
}

bool batch_order_files(const uint64_t *bytes, size_t count, size_t wave,
                       batch_order_policy policy, size_t *order)
{
    if (policy == BATCH_ORDER_NAME || count == 0) {
        for (size_t i = 0; i < count; i++)
            order[i] = i;
        return true;
    }
    sized_index *sorted = malloc(count * sizeof *sorted);
    bool *taken = calloc(count, sizeof *taken);
    if (sorted == NULL || taken == NULL) {
        free(sorted);
        free(taken);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        sorted[i] = (sized_index){bytes[i], i};
    qsort(sorted, count, sizeof *sorted, larger_first);
    size_t next = 0;
    if (policy == BATCH_ORDER_SPREAD && wave > 1 && wave < count) {
        /* positions 0, (count - 1) / (wave - 1), ... count - 1 of the sorted
         * list: distinct and increasing, since count - 1 >= wave - 1 */
        for (size_t k = 0; k < wave; k++) {
            size_t at = (size_t)((uint64_t)k * (count - 1) / (wave - 1));
            taken[at] = true;
            order[next++] = sorted[at].index;
        }
    }
    for (size_t at = 0; at < count; at++)
        if (!taken[at])
            order[next++] = sorted[at].index;
    free(sorted);
    free(taken);
    return true;
}
