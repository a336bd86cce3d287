/* batch_order.h - the order a batch's workers take its files in. Pure
 * arithmetic over the files' sizes, tested without files or GPUs. */
#ifndef GJ2K_APP_BATCH_ORDER_H
#define GJ2K_APP_BATCH_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum batch_order_policy {
    /* The first `wave` files (those coded at once) spread evenly over the
     * sizes, largest first among them, then the rest largest first.
     * Workers that start together on files of one size end them together,
     * and on a GPU they then all do their CPU part at once while it waits
     * (docs/gpu-notes.md, eleventh session); spread, they stay apart. The
     * default (zero): 200 photos to 4K on 2 H200s, 1-13% faster than size
     * in each of 8 runs, encoding and decoding (twelfth session). */
    BATCH_ORDER_SPREAD,
    /* Largest first (equal sizes in the list's order): no large file is
     * left to start last while the other workers idle. */
    BATCH_ORDER_SIZE,
    /* The list's order: by the inputs' paths (below the directory given). */
    BATCH_ORDER_NAME,
} batch_order_policy;

/* Parses "size", "spread" or "name"; false for anything else. */
bool batch_order_parse(const char *text, batch_order_policy *policy);

/* order[0..count): the indices of bytes[0..count) in the order the workers
 * take them, `wave` of them at once. False when out of memory. */
bool batch_order_files(const uint64_t *bytes, size_t count, size_t wave,
                       batch_order_policy policy, size_t *order);

#endif
