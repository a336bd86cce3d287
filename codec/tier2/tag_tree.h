/* tag_tree.h - tag trees (T.800 B.10.2): a quad-tree over a grid of
 * non-negative integers, each node holding the minimum of its children,
 * coded top-down so that a decoder learns, leaf by leaf, whether a value is
 * below a threshold and, once it is, the value itself. State persists across
 * calls: each bit is coded once however often a leaf is asked about. */
#ifndef GJ2K_TAG_TREE_H
#define GJ2K_TAG_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "gj2k.h"
#include "packet_bits.h"

#define TAG_TREE_MAX_LEVELS 34 /* grids up to 2^32 on a side */

typedef struct tag_tree_node {
    uint32_t value; /* encoder: the node's value; decoder: valid once known */
    uint32_t low;   /* the value is known to be at least this */
    bool known;     /* the value has been coded (its terminating 1 bit) */
} tag_tree_node;

typedef struct tag_tree {
    uint32_t width, height;     /* leaves */
    unsigned num_levels;        /* level 0: leaves, halved (rounding up) to a 1x1 root */
    tag_tree_node *nodes;       /* level by level, row-major; NULL when empty */
    size_t num_nodes;
} tag_tree;

/* A tree over width x height leaves (either may be 0: an empty tree), all
 * values 0 and nothing coded. */
gj2k_status tag_tree_init(tag_tree *tree, uint32_t width, uint32_t height, gj2k_error *error);
void tag_tree_free(tag_tree *tree);
/* Forgets what was coded (values are kept). */
void tag_tree_reset(tag_tree *tree);

/* Encoder: sets a leaf; tag_tree_update_minima then fills the inner nodes. */
void tag_tree_set_value(tag_tree *tree, uint32_t x, uint32_t y, uint32_t value);
void tag_tree_update_minima(tag_tree *tree);
/* Emits what tells a decoder whether leaf (x, y) is below `threshold` (and
 * its value if so). Returns value < threshold. */
bool tag_tree_encode(tag_tree *tree, uint32_t x, uint32_t y, uint32_t threshold,
                     packet_bit_writer *writer);

/* Decoder: reads bits until it knows whether leaf (x, y) is below
 * `threshold`. Returns true, with the leaf's value in *value, when it is. A
 * reader overrun is left for the caller to see. */
bool tag_tree_decode(tag_tree *tree, uint32_t x, uint32_t y, uint32_t threshold,
                     packet_bit_reader *reader, uint32_t *value);

#endif
