/* tag_tree.c - see tag_tree.h (T.800 B.10.2). */
#include "tag_tree.h"

#include <stdlib.h>

#include "error.h"

static uint32_t half_up(uint32_t v) { return v / 2 + (v & 1u); }

gj2k_status tag_tree_init(tag_tree *tree, uint32_t width, uint32_t height, gj2k_error *error)
{
    *tree = (tag_tree){.width = width, .height = height};
    if (width == 0 || height == 0)
        return GJ2K_OK;
    uint64_t w = width, h = height, total = 0;
    unsigned levels = 0;
    for (;;) { /* each parent covers 2x2 children (B.10.2) */
        total += w * h;
        levels++;
        if (w == 1 && h == 1)
            break;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    if (total > SIZE_MAX / sizeof(tag_tree_node))
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "tag tree of %ux%u leaves is too large", width,
                         height);
    tree->num_levels = levels;
    tree->num_nodes = (size_t)total;
    tree->nodes = calloc(tree->num_nodes, sizeof *tree->nodes);
    if (tree->nodes == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for a tag tree");
    return GJ2K_OK;
}

void tag_tree_free(tag_tree *tree)
{
    free(tree->nodes);
    *tree = (tag_tree){0};
}

void tag_tree_reset(tag_tree *tree)
{
    for (size_t i = 0; i < tree->num_nodes; i++) {
        tree->nodes[i].low = 0;
        tree->nodes[i].known = false;
    }
}

void tag_tree_set_value(tag_tree *tree, uint32_t x, uint32_t y, uint32_t value)
{
    if (x < tree->width && y < tree->height)
        tree->nodes[(size_t)y * tree->width + x].value = value;
}

void tag_tree_update_minima(tag_tree *tree)
{
    size_t child = 0, parent = (size_t)tree->width * tree->height;
    uint32_t cw = tree->width, ch = tree->height;
    for (unsigned level = 1; level < tree->num_levels; level++) {
        uint32_t pw = half_up(cw), ph = half_up(ch);
        for (uint32_t y = 0; y < ph; y++)
            for (uint32_t x = 0; x < pw; x++) {
                uint32_t m = UINT32_MAX;
                for (uint32_t cy = 2 * y; cy < 2 * y + 2 && cy < ch; cy++)
                    for (uint32_t cx = 2 * x; cx < 2 * x + 2 && cx < cw; cx++) {
                        uint32_t v = tree->nodes[child + (size_t)cy * cw + cx].value;
                        m = v < m ? v : m;
                    }
                tree->nodes[parent + (size_t)y * pw + x].value = m;
            }
        child = parent;
        parent += (size_t)pw * ph;
        cw = pw;
        ch = ph;
    }
}

/* The nodes from the root down to leaf (x, y); returns how many. */
static unsigned leaf_path(const tag_tree *tree, uint32_t x, uint32_t y,
                          size_t path[TAG_TREE_MAX_LEVELS])
{
    unsigned n = tree->num_levels;
    size_t offset = 0;
    uint32_t w = tree->width, h = tree->height;
    for (unsigned level = 0; level < n; level++) {
        path[n - 1 - level] = offset + (size_t)y * w + x;
        offset += (size_t)w * h;
        w = half_up(w);
        h = half_up(h);
        x /= 2;
        y /= 2;
    }
    return n;
}

bool tag_tree_encode(tag_tree *tree, uint32_t x, uint32_t y, uint32_t threshold,
                     packet_bit_writer *writer)
{
    if (x >= tree->width || y >= tree->height)
        return false;
    size_t path[TAG_TREE_MAX_LEVELS];
    unsigned n = leaf_path(tree, x, y, path);
    uint32_t low = 0;
    for (unsigned i = 0; i < n; i++) {
        tag_tree_node *node = &tree->nodes[path[i]];
        if (node->low < low) /* a parent's value bounds its children's */
            node->low = low;
        while (node->low < threshold) {
            if (node->low >= node->value) {
                if (!node->known) {
                    packet_bits_write(writer, 1); /* value == low */
                    node->known = true;
                }
                break;
            }
            packet_bits_write(writer, 0); /* value > low */
            node->low++;
        }
        low = node->low;
    }
    return tree->nodes[path[n - 1]].value < threshold;
}

bool tag_tree_decode(tag_tree *tree, uint32_t x, uint32_t y, uint32_t threshold,
                     packet_bit_reader *reader, uint32_t *value)
{
    if (x >= tree->width || y >= tree->height)
        return false;
    size_t path[TAG_TREE_MAX_LEVELS];
    unsigned n = leaf_path(tree, x, y, path);
    uint32_t low = 0;
    for (unsigned i = 0; i < n; i++) {
        tag_tree_node *node = &tree->nodes[path[i]];
        if (node->low < low)
            node->low = low;
        while (!node->known && node->low < threshold) {
            if (packet_bits_read(reader)) {
                node->known = true;
                node->value = node->low;
            } else {
                node->low++;
            }
            if (reader->overrun)
                return false;
        }
        low = node->low;
    }
    const tag_tree_node *leaf = &tree->nodes[path[n - 1]];
    if (leaf->known && leaf->value < threshold) {
        *value = leaf->value;
        return true;
    }
    return false;
}
